import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readClusterInfo } from "../src/index.ts";
import { startTestLocalnet, tempDir } from "./helpers.ts";

const CLI = join(import.meta.dirname, "../src/cli.ts");

/** Runs the CLI in a child process (async: the localnet serves from this process). */
async function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      {
        timeout: 120_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (e) {
    const error = e as { code?: number; stdout?: string; stderr?: string };
    return { code: error.code ?? -1, stdout: error.stdout ?? "", stderr: error.stderr ?? "" };
  }
}

describe("bootstrap CLI", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  const dataDir = tempDir("cli");
  beforeAll(async () => {
    net = await startTestLocalnet();
  });
  afterAll(async () => {
    await net?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints the program id and the keys' addresses, the same as cluster.json", async () => {
    // No --ws: the localnet also serves PubSub on its HTTP port.
    const result = await runCli([
      "--rpc",
      net.rpcUrl,
      "--data-dir",
      dataDir,
      "--cluster",
      "localnet",
      "--demo",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    const info = readClusterInfo(dataDir);
    expect(printed).toMatchObject({
      cluster: "localnet",
      lendingProgramId: info.lendingProgramId,
      admin: info.admin,
      oracle: info.oracle,
      treasury: info.treasury,
      program: "deployed",
      config: "initialized",
    });
    expect(printed.demoLenders).toHaveLength(3);
    const again = await runCli(["--rpc", net.rpcUrl, "--data-dir", dataDir, "--demo"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      lendingProgramId: info.lendingProgramId,
      program: "unchanged",
      config: "unchanged",
    });
  });

  it("exits 2 with usage on missing arguments and 1 with the error code on a missing .so", async () => {
    const usage = await runCli(["--rpc", net.rpcUrl]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/usage: cli\.ts --rpc URL --data-dir DIR/);
    const missing = await runCli([
      "--rpc",
      net.rpcUrl,
      "--data-dir",
      dataDir,
      "--so",
      join(dataDir, "nope.so"),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/bootstrap error 12001: lending program file not found/);
  });
});
