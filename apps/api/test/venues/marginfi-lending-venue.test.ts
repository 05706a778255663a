import { readFileSync } from "node:fs";
import { type Address, address, getAddressEncoder } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRpcClient } from "../../src/solana/rpc-client.ts";
import {
  decodeMarginfiAccount,
  decodeMarginfiBank,
  I80F48_ONE,
  type MarginfiInterestRateConfig,
  marginfiAssetAmount,
  marginfiBaseRate,
  marginfiRatesBps,
} from "../../src/venues/lending/marginfi-accounts.ts";
import {
  createMarginfiLendingVenue,
  findMarginfiPositionPda,
} from "../../src/venues/lending/marginfi-lending-venue.ts";
import { startHttpServer } from "../helpers/http-server.ts";

/** marginfi v2 accounts as recorded from chain: a mainnet jitoSOL bank, a BONK bank and a user account. */
const recorded = JSON.parse(
  readFileSync(new URL("./fixtures/marginfi-accounts.json", import.meta.url), "utf8"),
) as { accounts: Record<string, { pubkey: string; owner: string; data: string }> };
const bytesOf = (name: string) => new Uint8Array(Buffer.from(recorded.accounts[name]!.data, "base64"));

const JITOSOL = address("J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn");
const BONK = address("DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263");
const GROUP = address("4qp6Fx6tnZkY5Wropq9wUYgtFxXKwE6viZxFHg3rdAG8");
const BONK_BANK = address(recorded.accounts.bonkBank!.pubkey);
/** The program that owns the recorded BONK bank (marginfi's staging deployment). */
const STAGING_PROGRAM = address(recorded.accounts.bonkBank!.owner);
/** A Cistern bank PDA (any address works as the marginfi authority). */
const CISTERN_BANK = address("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM");
/** A lending program id (the bank's marginfi account is its PDA ["marginfi_account", bank]). */
const LENDING_PROGRAM = address("CiSTkx4wVbb4kqhPydS6ZoMRxCTGuhpQ2Pc5Gnzn4sx9");

describe("marginfi v2 decoders, on recorded account data", () => {
  it("reads a mainnet bank: mint, decimals, group, vault, share values and state", () => {
    const bank = decodeMarginfiBank(bytesOf("jitosolBank"));
    expect(bank).toMatchObject({
      mint: JITOSOL,
      mintDecimals: 9,
      group: GROUP,
      liquidityVault: "38VGtXd2pDPq9FMh1z6AVjcHCoHgvWyMhdNyamDTeeks",
      operationalState: "operational",
      depositLimit: 2_000_000_000_000_000n,
      borrowLimit: 500_000_000_000_000n,
      lastUpdate: 1_711_697_727n,
    });
    expect(bank.interestRate.curveType).toBe(0);
    // share values as decimals: 1.000561... and 1.007376...
    expect((bank.assetShareValue * 1_000_000n) / I80F48_ONE).toBe(1_000_561n);
    expect((bank.liabilityShareValue * 1_000_000n) / I80F48_ONE).toBe(1_007_376n);
    // legacy curve: optimal 80%, plateau 10%, max 300%
    expect((bank.interestRate.optimalUtilizationRate * 100n) / I80F48_ONE).toBe(80n);
    expect((bank.interestRate.maxInterestRate * 100n) / I80F48_ONE).toBe(300n);
  });

  it("computes the rates marginfi's curve gives at the bank's utilization (floored basis points)", () => {
    // utilization 8.04%: base = 0.0804 / 0.8 x 10%; lending = base x utilization; borrowing = base x 1.05 + 1%
    expect(marginfiRatesBps(decodeMarginfiBank(bytesOf("jitosolBank")))).toEqual({
      lendingRateBps: 8,
      borrowingRateBps: 205,
      utilizationBps: 804,
    });
    expect(marginfiRatesBps(decodeMarginfiBank(bytesOf("bonkBank")))).toEqual({
      lendingRateBps: 0,
      borrowingRateBps: 150,
      utilizationBps: 117,
    });
  });

  it("interpolates the multipoint curve between its points", () => {
    const u32 = (fraction: number) => Math.floor(fraction * 0xffff_ffff);
    const config: MarginfiInterestRateConfig = {
      optimalUtilizationRate: 0n,
      plateauInterestRate: 0n,
      maxInterestRate: 0n,
      insuranceFeeFixedApr: 0n,
      insuranceIrFee: 0n,
      protocolFixedFeeApr: 0n,
      protocolIrFee: 0n,
      zeroUtilRate: 0,
      hundredUtilRate: u32(0.1), // rates are u32 out of 1000%: 0.1 of it is 100%
      points: [
        { util: u32(0.5), rate: u32(0.01) }, // 10% at 50% utilization
        { util: 0, rate: 0 },
        { util: 0, rate: 0 },
        { util: 0, rate: 0 },
        { util: 0, rate: 0 },
      ],
      curveType: 1,
    };
    const bps = (utilizationPercent: bigint) =>
      (marginfiBaseRate(config, (utilizationPercent * I80F48_ONE) / 100n) * 10_000n) / I80F48_ONE;
    expect(bps(0n)).toBe(0n);
    expect(bps(25n)).toBe(499n); // half way to 10%, floored
    expect(bps(50n)).toBe(999n);
    expect(bps(75n)).toBe(5499n); // half way from 10% to 100%
  });

  it("reads a user account's active balances and values deposits at the share value, floored", () => {
    const account = decodeMarginfiAccount(bytesOf("account"));
    expect(account.authority).toBe("J5TXjZFLDRHJyivYpxmdu38izekJUvRnDnzvY2PZ2krF");
    expect(
      account.balances.map((b) => [b.bank, b.assetShares / I80F48_ONE, b.liabilityShares / I80F48_ONE]),
    ).toEqual([
      ["AS6TnrAic2NV4eppLbLwyNj6LYzDV9SdBRjZiJmavYSN", 10_000_000n, 0n],
      ["7rw9Bbg3R3vQ3LDApqfrYS1qTV3vFpigWJFUmh7eZfwE", 1_000_000_000n, 0n],
      ["HPAZgpFHTA9Wqx22Gk1C75Wyonxz1L55LJhXom4uZfaL", 0n, 1_000_000n],
    ]);
    const bonk = decodeMarginfiBank(bytesOf("bonkBank"));
    // 10,000,000 shares x 1.000140694... = 10,001,406.94 -> 10,001,406 (never rounded up)
    expect(marginfiAssetAmount(bonk, 10_000_000n * I80F48_ONE)).toBe(10_001_406n);
    expect(marginfiAssetAmount(bonk, 0n)).toBe(0n);
  });

  it("refuses bytes that are not the account it expects", () => {
    expect(() => decodeMarginfiBank(bytesOf("account"))).toThrow("not a marginfi bank");
    expect(() => decodeMarginfiAccount(bytesOf("bonkBank"))).toThrow("not a marginfi account");
    expect(() => decodeMarginfiBank(bytesOf("bonkBank").subarray(0, 1000))).toThrow("not a marginfi bank");
  });
});

describe("the marginfi lending venue, against an RPC server answering the recorded accounts", () => {
  const accounts = new Map<string, { owner: string; data: Uint8Array }>();
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  let position: Address;

  beforeAll(async () => {
    accounts.set(BONK_BANK, { owner: STAGING_PROGRAM, data: bytesOf("bonkBank") });
    accounts.set(recorded.accounts.jitosolBank!.pubkey, {
      owner: recorded.accounts.jitosolBank!.owner,
      data: bytesOf("jitosolBank"),
    });
    // the recorded user account, re-pointed at our bank: group, authority and its first balance's bank
    [position] = await findMarginfiPositionPda(LENDING_PROGRAM, CISTERN_BANK);
    const data = bytesOf("account");
    const encoder = getAddressEncoder();
    data.set(encoder.encode(GROUP), 8);
    data.set(encoder.encode(CISTERN_BANK), 40);
    data.set(encoder.encode(BONK_BANK), 72 + 1);
    accounts.set(position, { owner: STAGING_PROGRAM, data });
    server = await startHttpServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: [string[]] };
        const value =
          method === "getMultipleAccounts"
            ? params[0].map((key) => {
                const a = accounts.get(key);
                return a
                  ? {
                      owner: a.owner,
                      lamports: 1,
                      executable: false,
                      data: [Buffer.from(a.data).toString("base64"), "base64"],
                    }
                  : null;
              })
            : null;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id, result: { context: { slot: 1 }, value } }));
      });
    });
  });
  afterAll(() => server.close());

  const venue = (overrides: { programId?: Address; group?: Address } = {}) =>
    createMarginfiLendingVenue(createRpcClient(server.url), {
      programId: overrides.programId ?? STAGING_PROGRAM,
      group: overrides.group ?? GROUP,
      bankByMint: new Map<Address, Address>([
        [BONK, BONK_BANK],
        [JITOSOL, address(recorded.accounts.jitosolBank!.pubkey)],
      ]),
      lendingProgram: LENDING_PROGRAM,
    });

  it("answers a mint's reserve with marginfi's lending rate", async () => {
    expect(await venue().reserve(BONK)).toEqual({
      venueProgram: STAGING_PROGRAM,
      reserve: BONK_BANK,
      rateBps: 0,
    });
  });

  it("values the bank's marginfi account at the bank's share value", async () => {
    const d = await venue().delegation(CISTERN_BANK, BONK, 0);
    expect(d).toMatchObject({
      venue: "marginfi",
      reserve: BONK_BANK,
      position,
      venueVault: "7FdQsXmCW3N5JQbknj3F9Yqq73er9VZJjGhEEMS8Ct2A",
      shares: 10_000_000n,
      positionValue: 10_001_406n,
      index: 1_000_140_694_185n,
    });
  });

  it("a bank without a marginfi account holds no shares", async () => {
    const d = await venue().delegation(address("So11111111111111111111111111111111111111112"), BONK, 0);
    expect(d).toMatchObject({ shares: 0n, positionValue: 0n });
  });

  it("trusts no account it did not ask for: other program, other group, unmapped mint", async () => {
    // the jitoSOL bank is owned by marginfi's mainnet program, not the configured one
    expect(await venue().reserve(JITOSOL)).toBeNull();
    expect(await venue({ group: CISTERN_BANK }).reserve(BONK)).toBeNull();
    expect(await venue({ programId: CISTERN_BANK }).delegation(CISTERN_BANK, BONK, 0)).toBeNull();
    expect(await venue().reserve(address("So11111111111111111111111111111111111111112"))).toBeNull();
  });
});
