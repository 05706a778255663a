import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { computeUnitPrice, getPriorityFeeOptions } from "@cistern/protocol";
import { TOKEN_METADATA_PROGRAM_ADDRESS } from "@cistern/sdk";
import { generateKeyPairSigner } from "@solana/kit";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import { parseBaseUnits } from "../../src/tx/builder/builder-schemas.ts";
import { estimateComputeUnits } from "../../src/tx/builder/compute-units.ts";
import { parseBuildOptions } from "../../src/tx/builder/priority-fees.ts";
import { remainingDays } from "../../src/tx/builder/refinance-builder.ts";
import { setComputeUnitLimit, systemTransfer } from "../../src/tx/builder/wire-instructions.ts";
import { loadOracleKeypair } from "../../src/tx/oracle/oracle-keypair.ts";
import { DEFAULT_MAX_PRIORITY_FEE_LAMPORTS, loadTxConfig } from "../../src/tx/tx-config.ts";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "cistern-tx-unit-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const PROGRAM = "Cistern1111111111111111111111111111111111111";

describe("tx settings and oracle key", () => {
  it("reads LENDING_PROGRAM_ID and defaults the oracle key path to <DATA_DIR>/keys/oracle.json", () => {
    const dataDir = tempDir();
    const api = loadConfig({ DATA_DIR: dataDir });
    const tx = loadTxConfig(api, { LENDING_PROGRAM_ID: PROGRAM });
    expect(tx).toMatchObject({
      lendingProgramId: PROGRAM,
      oracleKeypairPath: join(dataDir, "keys", "oracle.json"),
      generateOracleKeypair: true,
      keeper: { enabled: true, keypairPath: join(dataDir, "keys", "keeper.json"), intervalMs: 15_000 },
    });
    // the keeper is off by default away from localnet, and its settings are checked
    const mainnet = loadConfig({ DATA_DIR: dataDir, SOLANA_CLUSTER: "mainnet" });
    expect(loadTxConfig(mainnet, { LENDING_PROGRAM_ID: PROGRAM }).keeper.enabled).toBe(false);
    expect(loadTxConfig(mainnet, { LENDING_PROGRAM_ID: PROGRAM, KEEPER: "on" }).keeper.enabled).toBe(true);
    expect(() => loadTxConfig(api, { LENDING_PROGRAM_ID: PROGRAM, KEEPER: "yes" })).toThrow(/KEEPER must be/);
    expect(() => loadTxConfig(api, { LENDING_PROGRAM_ID: PROGRAM, KEEPER_INTERVAL_MS: "-1" })).toThrow(
      /KEEPER_INTERVAL_MS/,
    );
    expect(
      loadTxConfig(loadConfig({ DATA_DIR: dataDir, SOLANA_CLUSTER: "mainnet" }), {
        LENDING_PROGRAM_ID: PROGRAM,
      }).generateOracleKeypair,
    ).toBe(false);
    expect(() => loadTxConfig(api, {})).toThrow(/LENDING_PROGRAM_ID is required/);
    expect(() => loadTxConfig(api, { LENDING_PROGRAM_ID: "not-base58!" })).toThrow(/not a base58 address/);
    expect(() => loadTxConfig(api, { LENDING_PROGRAM_ID: PROGRAM, TX_REBROADCAST_MS: "0" })).toThrow(
      /TX_REBROADCAST_MS/,
    );
  });

  it("generates the oracle key on localnet only (mode 0600), then reloads the same key", async () => {
    const path = join(tempDir(), "keys", "oracle.json");
    await expect(loadOracleKeypair(path, false)).rejects.toThrow(/missing/);
    const created = await loadOracleKeypair(path, true);
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(path, "utf8")) as number[]).length).toBe(64);
    const again = await loadOracleKeypair(path, false);
    expect(again.address).toBe(created.address);
  });
});

describe("priority fees and compute units", () => {
  const recent = [
    { slot: 1, prioritizationFee: 10_000 },
    { slot: 2, prioritizationFee: 20_001 },
  ];
  it("averages recent fees (rounded up), scales by level and caps by the max fee", () => {
    const fast = getPriorityFeeOptions({
      level: "fast",
      amountSol: "1",
      type: "maxCap",
      broadcastMode: "priorityFees",
    });
    expect(computeUnitPrice(recent, fast, 100_000)).toBe(22_502n); // ceil(30001/2)=15001, x 1.5 = 22501.5 rounded up
    const medium = { ...fast, level: "medium" as const };
    expect(computeUnitPrice(recent, medium, 100_000)).toBe(15_001n);
    // a quiet cluster: the 1000 floor, scaled by each level, so the levels still differ
    expect(computeUnitPrice([], medium, 100_000)).toBe(1_000n);
    expect(computeUnitPrice([], fast, 100_000)).toBe(1_500n);
    expect(computeUnitPrice([], { ...fast, level: "ultra" as const }, 100_000)).toBe(3_000n);
    // Cap 0.000001 SOL = 1000 lamports over 100,000 CU -> at most 10,000 micro-lamports per CU.
    const capped = getPriorityFeeOptions({
      level: "ultra",
      amountSol: "0.000001",
      type: "maxCap",
      broadcastMode: "priorityFees",
    });
    expect(computeUnitPrice(recent, capped, 100_000)).toBe(10_000n);
    const exact = getPriorityFeeOptions({
      level: "fast",
      amountSol: "0.0001",
      type: "exactFee",
      broadcastMode: "jito",
    });
    expect(exact.jitoTipLamports).toBe(100_000n);
    expect(computeUnitPrice(recent, exact, 200_000)).toBe(500_000n);
  });

  it("parses request options with defaults and rejects bad amounts", () => {
    const cap = DEFAULT_MAX_PRIORITY_FEE_LAMPORTS;
    expect(parseBuildOptions(undefined, cap)).toMatchObject({
      level: "fast",
      type: "maxCap",
      broadcastMode: "priorityFees",
      maxCapLamports: 500_000n,
    });
    expect(() => parseBuildOptions({ amount: "1.0000000001" }, cap)).toThrow(/options.amount/);
  });

  it("caps the requested priority fee and jito tip at the configured maximum (default 0.01 SOL)", () => {
    const cap = DEFAULT_MAX_PRIORITY_FEE_LAMPORTS;
    expect(cap).toBe(10_000_000n);
    expect(parseBuildOptions({ amount: "0.01", type: "exactFee" }, cap).maxCapLamports).toBe(10_000_000n);
    for (const options of [
      { amount: "0.010000001", type: "exactFee" as const },
      { amount: "5", broadcastMode: "jito" as const },
      { amount: "1000" },
    ])
      expect(() => parseBuildOptions(options, cap)).toThrow(
        /above the maximum priority fee \/ tip of 0.01 SOL/,
      );
    expect(() => parseBuildOptions({ amount: "0.002" }, 1_000_000n)).toThrow(/of 0.001 SOL/);
    const api = loadConfig({ DATA_DIR: tempDir() });
    expect(loadTxConfig(api, { LENDING_PROGRAM_ID: PROGRAM }).maxPriorityFeeLamports).toBe(cap);
    expect(
      loadTxConfig(api, { LENDING_PROGRAM_ID: PROGRAM, TX_MAX_PRIORITY_FEE_LAMPORTS: "5000" })
        .maxPriorityFeeLamports,
    ).toBe(5000n);
    expect(() =>
      loadTxConfig(api, { LENDING_PROGRAM_ID: PROGRAM, TX_MAX_PRIORITY_FEE_LAMPORTS: "0.5" }),
    ).toThrow(/TX_MAX_PRIORITY_FEE_LAMPORTS/);
  });

  it("estimates a CU limit from the instructions with headroom", async () => {
    const payer = (await generateKeyPairSigner()).address;
    const units = estimateComputeUnits([setComputeUnitLimit(1), systemTransfer(payer, payer, 1n)], PROGRAM);
    expect(units).toBe(Math.ceil(450 * 1.1) + 5_000);
    const lending = estimateComputeUnits(
      [{ programAddress: PROGRAM as never, data: new Uint8Array([8]) }],
      PROGRAM,
    );
    expect(lending).toBe(Math.ceil(35_000 * 1.1) + 5_000);
    // Migrate grows with the loans it carries
    const migrate = (loans: number) =>
      estimateComputeUnits(
        [
          {
            programAddress: PROGRAM as never,
            accounts: Array.from({ length: 3 + loans }, () => ({ address: payer, role: 1 })),
            data: new Uint8Array([24]),
          },
        ],
        PROGRAM,
      );
    expect(migrate(0)).toBe(Math.ceil(6_000 * 1.1) + 5_000);
    expect(migrate(29)).toBe(Math.ceil((6_000 + 29 * 5_000) * 1.1) + 5_000);
    // a mortgage naming Token Metadata buys and locks a pNFT (a pNFT without a rule set is not simulated first)
    const mortgage = (accounts: string[]) =>
      estimateComputeUnits(
        [
          {
            programAddress: PROGRAM as never,
            accounts: accounts.map((address) => ({ address: address as never, role: 0 })),
            data: new Uint8Array([23]),
          },
        ],
        PROGRAM,
      );
    expect(mortgage([payer])).toBe(Math.ceil(50_000 * 1.1) + 5_000);
    expect(mortgage([payer, TOKEN_METADATA_PROGRAM_ADDRESS])).toBe(Math.ceil(420_000 * 1.1) + 5_000);
  });
});

describe("amounts, signatures and issued messages", () => {
  it("parses base units strictly", () => {
    expect(parseBaseUnits("a", "18446744073709551615")).toBe(18_446_744_073_709_551_615n);
    expect(() => parseBaseUnits("a", "18446744073709551616")).toThrow(/larger than a u64/);
    expect(() => parseBaseUnits("a", "1.25")).toThrow(/too many decimals/);
    expect(() => parseBaseUnits("a", "-1")).toThrow(/decimal integer/);
    expect(() => parseBaseUnits("a", "0")).toThrow(/greater than 0/);
    expect(parseBaseUnits("a", "0", { allowZero: true })).toBe(0n);
  });
});

describe("refinance duration", () => {
  const DAY = 86_400;
  const loan = { createdAt: 1_000_000n, expiredAt: 1_000_000n + BigInt(14 * DAY) } as never;

  it("is the old loan's remaining whole days, never more than it had, at least one", () => {
    expect(remainingDays(loan, 1_000_000 + 60)).toBe(14 * DAY);
    // a cached chain clock read a moment before the loan landed does not add a day
    expect(remainingDays(loan, 1_000_000 - 30)).toBe(14 * DAY);
    expect(remainingDays(loan, 1_000_000 + 13 * DAY + 1)).toBe(DAY);
    expect(remainingDays(loan, 1_000_000 + 20 * DAY)).toBe(DAY);
  });
});
