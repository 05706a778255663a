import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAddress } from "../src/base58.ts";
import { buildSignedTransaction, generateLocalKeypair, startLocalnet } from "../src/index.ts";
import { SPL_NOOP_PROGRAM, VENDORED_PROGRAMS, VENDORED_PROGRAMS_DIR } from "../src/vendored-programs.ts";
import { rpc, startTestLocalnet } from "./helpers.ts";

const UPGRADEABLE_LOADER = "BPFLoaderUpgradeab1e11111111111111111111111";

/** The rows of PROVENANCE.md's table: file, program id, sha256, size. */
function provenanceRows() {
  const text = readFileSync(join(VENDORED_PROGRAMS_DIR, "PROVENANCE.md"), "utf8");
  return text
    .split("\n")
    .filter((l) => /^\| [a-z0-9_]+\.so \|/.test(l))
    .map((l) => {
      const cells = l.split("|").map((c) => c.trim());
      return {
        file: cells[1]!,
        programId: cells[2]!,
        size: Number(cells[6]),
        sha256: cells[7]!,
        licence: cells[8]!,
      };
    });
}

describe("vendored program binaries", () => {
  it("are the files PROVENANCE.md names, byte for byte (sha256 and size), with their licence texts", () => {
    const rows = provenanceRows();
    expect(rows.map((r) => r.file).sort()).toEqual(VENDORED_PROGRAMS.map((p) => p.file).sort());
    expect(
      readdirSync(VENDORED_PROGRAMS_DIR)
        .filter((f) => f.endsWith(".so"))
        .sort(),
    ).toEqual(rows.map((r) => r.file).sort());
    for (const row of rows) {
      const bytes = readFileSync(join(VENDORED_PROGRAMS_DIR, row.file));
      expect(createHash("sha256").update(bytes).digest("hex"), row.file).toBe(row.sha256);
      expect(bytes.length, row.file).toBe(row.size);
      expect(VENDORED_PROGRAMS.find((p) => p.file === row.file)?.programId).toBe(row.programId);
      const licence = row.licence.startsWith("Apache")
        ? "APACHE-2.0.txt"
        : "METAPLEX-NFT-OPEN-SOURCE-LICENSE-1.0.txt";
      expect(existsSync(join(VENDORED_PROGRAMS_DIR, "licenses", licence)), licence).toBe(true);
    }
  });

  it("are read from inside the package, never from outside the project", () => {
    const src = join(VENDORED_PROGRAMS_DIR, "..", "src");
    for (const f of readdirSync(src, { recursive: true }) as string[])
      if (f.endsWith(".ts")) expect(readFileSync(join(src, f), "utf8"), f).not.toMatch(/shared\/vendor/);
  });
});

describe("the localnet runs the vendored programs at their mainnet ids", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
  });
  afterAll(async () => {
    await net.cleanup();
  });

  const programAccounts = async (url: string) =>
    (
      (
        await rpc(url, "getMultipleAccounts", [
          VENDORED_PROGRAMS.map((p) => p.programId),
          { encoding: "base64" },
        ])
      ).result as { value: ({ executable: boolean; owner: string } | null)[] }
    ).value;

  it("shows each program executable, owned by the upgradeable loader, even without the demo world", async () => {
    for (const [i, a] of (await programAccounts(net.rpcUrl)).entries())
      expect(a, VENDORED_PROGRAMS[i]!.name).toMatchObject({ executable: true, owner: UPGRADEABLE_LOADER });
  });

  it("executes them: a transaction calling SPL Noop lands", async () => {
    const payer = generateLocalKeypair();
    await net.airdrop(payer.address, 1_000_000_000n);
    const { blockhash } = (
      (await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } }
    ).value;
    const tx = buildSignedTransaction(
      payer,
      [{ programId: decodeAddress(SPL_NOOP_PROGRAM), keys: [], data: Buffer.from("cistern") }],
      decodeAddress(blockhash),
    );
    const sent = await rpc(net.rpcUrl, "sendTransaction", [
      Buffer.from(tx).toString("base64"),
      { encoding: "base64" },
    ]);
    expect(sent.error).toBeUndefined();
    const landed = (await rpc(net.rpcUrl, "getTransaction", [sent.result, { encoding: "json" }])).result as {
      meta: { err: unknown; logMessages: string[] };
    };
    expect(landed.meta.err).toBeNull();
    expect(landed.meta.logMessages[0]).toBe(`Program ${SPL_NOOP_PROGRAM} invoke [1]`);
  });

  it("still has them after a restart (from the snapshot) and after a reset", async () => {
    await net.close();
    for (const reset of [false, true]) {
      const again = await startLocalnet({
        rpcPort: 0,
        dataDir: net.dataDir,
        slotMs: 100,
        seed: false,
        reset,
      });
      try {
        for (const a of await programAccounts(again.rpcUrl)) expect(a?.executable).toBe(true);
      } finally {
        await again.close();
      }
    }
  });
});
