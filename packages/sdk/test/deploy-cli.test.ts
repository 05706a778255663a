import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { afterAll, describe, expect, it } from "vitest";
import { getDefaultWebsocketUrl } from "../src/deploy-cli.ts";
import { isSdkError, readKeypairFile, SDK_ERROR } from "../src/index.ts";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "sdk-cli-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// RFC 8032 test vector 1: secret key and its public key
const SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const hex = (s: string) => Array.from(s.match(/../g)!, (b) => Number.parseInt(b, 16));

describe("readKeypairFile", () => {
  it("reads a Solana CLI keypair file", async () => {
    const path = join(dir, "ok.json");
    writeFileSync(path, JSON.stringify([...hex(SECRET), ...hex(PUBLIC)]));
    const signer = await readKeypairFile(path);
    const expected = await createKeyPairSignerFromBytes(new Uint8Array([...hex(SECRET), ...hex(PUBLIC)]));
    expect(signer.address).toBe(expected.address);
  });

  it("rejects missing, malformed and mismatched files with INVALID_KEYPAIR_FILE", async () => {
    const short = join(dir, "short.json");
    writeFileSync(short, JSON.stringify([1, 2, 3]));
    const mismatch = join(dir, "mismatch.json");
    writeFileSync(mismatch, JSON.stringify([...hex(SECRET), ...hex(SECRET)]));
    const notJson = join(dir, "bad.json");
    writeFileSync(notJson, "{");
    for (const path of [join(dir, "missing.json"), short, mismatch, notJson]) {
      await expect(readKeypairFile(path)).rejects.toSatisfy((e) =>
        isSdkError(e, SDK_ERROR.INVALID_KEYPAIR_FILE),
      );
    }
  });
});

describe("deploy-cli", () => {
  it("derives the PubSub URL from the RPC URL", () => {
    expect(getDefaultWebsocketUrl("http://127.0.0.1:8899")).toBe("ws://127.0.0.1:8900/");
    expect(getDefaultWebsocketUrl("https://api.devnet.solana.com")).toBe("wss://api.devnet.solana.com/");
  });

  it("prints its usage and exits 2 without the required options", async () => {
    const cli = fileURLToPath(new URL("../src/deploy-cli.ts", import.meta.url));
    const failure = await run("npx", ["tsx", cli, "--rpc", "http://127.0.0.1:1"]).then(
      () => null,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("usage: deploy-cli --rpc URL");
  }, 30_000);
});
