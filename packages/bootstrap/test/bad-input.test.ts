import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { startLocalnet } from "@cistern/localnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BOOTSTRAP_ERROR,
  type BootstrapClusterOptions,
  type BootstrapErrorCode,
  bootstrapCluster,
  isBootstrapError,
  readClusterInfo,
} from "../src/index.ts";
import { LENDING_SO_PATH, startTestLocalnet, tempDir } from "./helpers.ts";

async function expectBootstrapError(promise: Promise<unknown>, code: BootstrapErrorCode, message: RegExp) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isBootstrapError(error, code), `expected code ${code}, got ${String(error)}`).toBe(true);
  expect((error as Error).message).toMatch(message);
}

/** A 127.0.0.1 port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const dirs: string[] = [];
function freshDataDir(): string {
  const dir = tempDir("bad");
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("bad input without a cluster", () => {
  const base = (dataDir: string): BootstrapClusterOptions => ({
    rpcUrl: "http://127.0.0.1:9",
    wsUrl: "ws://127.0.0.1:9",
    dataDir,
    cluster: "localnet",
    lendingSoPath: LENDING_SO_PATH,
  });

  it("refuses a missing or non-ELF .so before writing anything", async () => {
    const dataDir = freshDataDir();
    await expectBootstrapError(
      bootstrapCluster({ ...base(dataDir), lendingSoPath: join(dataDir, "missing.so") }),
      BOOTSTRAP_ERROR.PROGRAM_FILE_MISSING,
      /lending program file not found: .*missing\.so/,
    );
    const text = join(dataDir, "not-elf.so");
    writeFileSync(text, "hello");
    await expectBootstrapError(
      bootstrapCluster({ ...base(dataDir), lendingSoPath: text }),
      BOOTSTRAP_ERROR.PROGRAM_FILE_MISSING,
      /is not an ELF program/,
    );
    expect(readdirSync(dataDir)).toEqual(["not-elf.so"]);
  });

  it("reports an unreachable RPC clearly and writes no keys", async () => {
    const dataDir = freshDataDir();
    const port = await closedPort();
    await expectBootstrapError(
      bootstrapCluster({
        ...base(dataDir),
        rpcUrl: `http://127.0.0.1:${port}`,
        wsUrl: `ws://127.0.0.1:${port}`,
      }),
      BOOTSTRAP_ERROR.RPC_UNREACHABLE,
      new RegExp(`cannot reach the cluster RPC at http://127\\.0\\.0\\.1:${port}`),
    );
    expect(existsSync(join(dataDir, "keys"))).toBe(false);
    expect(existsSync(join(dataDir, "cluster.json"))).toBe(false);
  });

  it("refuses bad options", async () => {
    const dataDir = freshDataDir();
    await expectBootstrapError(
      bootstrapCluster({ ...base(dataDir), cluster: "testnet" as never }),
      BOOTSTRAP_ERROR.INVALID_OPTIONS,
      /cluster must be localnet, devnet or mainnet/,
    );
    await expectBootstrapError(
      bootstrapCluster({ ...base(dataDir), cluster: "devnet", demo: true }),
      BOOTSTRAP_ERROR.INVALID_OPTIONS,
      /demo seeding is for localnet only/,
    );
    await expectBootstrapError(
      bootstrapCluster({ ...base(dataDir), rpcUrl: "localhost 8899" }),
      BOOTSTRAP_ERROR.INVALID_OPTIONS,
      /rpcUrl is not a URL/,
    );
  });

  it("readClusterInfo names a missing or malformed cluster.json", () => {
    const dataDir = freshDataDir();
    expect(() => readClusterInfo(dataDir)).toThrow(/cluster\.json not found/);
    writeFileSync(join(dataDir, "cluster.json"), "{");
    expect(() => readClusterInfo(dataDir)).toThrow(/is not valid JSON/);
    writeFileSync(
      join(dataDir, "cluster.json"),
      JSON.stringify({ lendingProgramId: "nope", admin: "x", oracle: "x", treasury: "x", rpcUrl: "x" }),
    );
    try {
      readClusterInfo(dataDir);
      expect.unreachable();
    } catch (e) {
      expect(isBootstrapError(e, BOOTSTRAP_ERROR.CLUSTER_INFO_INVALID)).toBe(true);
      expect((e as Error).message).toMatch(/lendingProgramId is missing or invalid/);
    }
  });
});

describe("bad input against a localnet", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  beforeAll(async () => {
    net = await startTestLocalnet();
  });
  afterAll(async () => {
    await net?.cleanup();
  });
  const options = (
    dataDir: string,
    extra: Partial<BootstrapClusterOptions> = {},
  ): BootstrapClusterOptions => ({
    rpcUrl: net.rpcUrl,
    wsUrl: net.wsUrl,
    dataDir,
    cluster: "localnet",
    lendingSoPath: LENDING_SO_PATH,
    ...extra,
  });

  it("on devnet settings an unfunded admin gets a clear error and no program is created", async () => {
    const dataDir = freshDataDir();
    const error = await bootstrapCluster(options(dataDir, { cluster: "devnet" })).catch((e: unknown) => e);
    expect(isBootstrapError(error, BOOTSTRAP_ERROR.INSUFFICIENT_FUNDS)).toBe(true);
    expect((error as Error).message).toMatch(
      /admin \w+ holds 0 lamports; the program deploy needs about \d+/,
    );
    expect(existsSync(join(dataDir, "cluster.json"))).toBe(false);
  });

  it("refuses a corrupt key file", async () => {
    const dataDir = freshDataDir();
    mkdirSync(join(dataDir, "keys"));
    writeFileSync(join(dataDir, "keys", "program-keypair.json"), "[1,2,3]");
    await expectBootstrapError(
      bootstrapCluster(options(dataDir)),
      BOOTSTRAP_ERROR.KEY_FILE_INVALID,
      /program-keypair\.json is not a 64-byte keypair/,
    );
  });

  it("refuses to take over a program whose config or upgrade authority belongs to another admin", async () => {
    const owner = freshDataDir();
    const deployed = await bootstrapCluster(options(owner));
    const intruder = freshDataDir();
    mkdirSync(join(intruder, "keys"));
    copyFileSync(join(owner, "keys", "program-keypair.json"), join(intruder, "keys", "program-keypair.json"));
    await expectBootstrapError(
      bootstrapCluster(options(intruder)),
      BOOTSTRAP_ERROR.CONFIG_ADMIN_MISMATCH,
      new RegExp(`config admin is ${deployed.adminAddress}`),
    );
    const changed = join(intruder, "changed.so");
    writeFileSync(changed, Buffer.concat([readFileSync(LENDING_SO_PATH), Buffer.from("x")]));
    await expectBootstrapError(
      bootstrapCluster(options(intruder, { lendingSoPath: changed })),
      BOOTSTRAP_ERROR.DEPLOY_FAILED,
      new RegExp(`upgrade authority is ${deployed.adminAddress}`),
    );
  });
});

describe("localnet without the demo world or admin methods", () => {
  it("names the missing demo world and the missing admin faucet", async () => {
    const netDir = freshDataDir();
    const bare = await startLocalnet({ rpcPort: 0, dataDir: netDir, seed: false, slotMs: 100 });
    const demoDataDir = freshDataDir();
    try {
      await expectBootstrapError(
        bootstrapCluster({
          rpcUrl: bare.rpcUrl,
          wsUrl: bare.wsUrl,
          dataDir: demoDataDir,
          cluster: "localnet",
          lendingSoPath: LENDING_SO_PATH,
          demo: true,
        }),
        BOOTSTRAP_ERROR.DEMO_WORLD_MISSING,
        /demo seeding needs the localnet demo world/,
      );
      // Checked before any key is generated or transaction sent.
      expect(existsSync(join(demoDataDir, "keys"))).toBe(false);
    } finally {
      await bare.close();
    }
    const lockedDir = freshDataDir();
    const locked = await startLocalnet({
      rpcPort: 0,
      dataDir: lockedDir,
      seed: false,
      admin: false,
      slotMs: 100,
    });
    try {
      await expectBootstrapError(
        bootstrapCluster({
          rpcUrl: locked.rpcUrl,
          wsUrl: locked.wsUrl,
          dataDir: freshDataDir(),
          cluster: "localnet",
          lendingSoPath: LENDING_SO_PATH,
        }),
        BOOTSTRAP_ERROR.LOCALNET_ADMIN_UNAVAILABLE,
        /localnet_fundWallet .* was refused/,
      );
    } finally {
      await locked.close();
    }
  });
});
