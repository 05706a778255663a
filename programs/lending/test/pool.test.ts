import {
  findPoolPda,
  getClosePoolInstruction,
  getCreatePoolInstruction,
  getUpdatePoolInstruction,
  LENDING_ERROR_CODE,
} from "@cistern/sdk";
import { AccountRole, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { patchData, setMeta, swapAccount } from "./support/mutate.ts";
import {
  APR_BPS,
  buildWorld,
  DAY,
  nftLoanIx,
  poolOf,
  poolParams,
  repayIx,
  USD_PRICE,
  type World,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;
/** PoolParams start at byte 11 of CreatePool data and byte 2 of UpdatePool data. */
const CREATE_PARAMS = 11;

async function createIx(w: World, seed: bigint, overrides: Parameters<typeof poolParams>[1] = {}) {
  return getCreatePoolInstruction({
    programAddress: w.program,
    owner: w.lender,
    currencyMint: w.currency,
    poolType: "nft-pool",
    seed,
    params: poolParams(w.collection, overrides),
  });
}

function updateIx(w: World, status: "Open" | "Frozen", overrides: Parameters<typeof poolParams>[1] = {}) {
  return getUpdatePoolInstruction({
    programAddress: w.program,
    owner: w.lender,
    pool: w.nftPool,
    poolType: "nft-pool",
    status,
    params: poolParams(w.collection, overrides),
  });
}

describe("create pool", () => {
  it("stores type, bank, curve, limits, conditions and collections", async () => {
    const w = await buildWorld();
    const p = poolOf(w);
    expect(p.poolType).toBe("nft-pool");
    expect(p.status).toBe("Open");
    expect(p.owner).toBe(w.lender.address);
    expect(p.bank).toBe(w.bank);
    expect(p.currencyMint).toBe(w.currency);
    expect(p.seed).toBe(1n);
    expect(p.loanAprBps).toBe(APR_BPS);
    expect(p.minDurationSeconds).toBe(DAY);
    expect(p.maxDurationSeconds).toBe(30n * DAY);
    expect(p.minAmountMicroUsd).toBe(10n * USD_PRICE);
    expect(p.maxAmountMicroUsd).toBe(5_000n * USD_PRICE);
    expect(p.collections).toEqual([
      { id: w.collection, ltvBps: 5000, exposureBps: 5000, borrowedAmount: 0n, ongoingLoans: 0n },
    ]);
    expect(p.totalLoans).toBe(0n);
    expect(p.createdAt).toBe(w.h.now);
    expect(p.collectionsUpdatedAt).toBe(w.h.now);
    const d = poolOf(w, w.defiPool);
    expect(d.poolType).toBe("defi-pool");
    expect(d.collections[0]?.id).toBe(w.collateralMint);
  });

  it("stores flags and conditions", async () => {
    const w = await buildWorld();
    const whitelist = (await generateKeyPairSigner()).address;
    await w.h.send([
      await createIx(w, 9n, {
        flags: { autoSell: true, mortgage: true, compounding: true },
        mortgageAprBps: 3000,
        conditions: {
          isEnabled: true,
          whitelistEnabled: true,
          liquidationThresholdBps: 8000,
          minAgeSeconds: 30n * DAY,
          minLoanCount: 2n,
          minVolumeMicroUsd: 500n * USD_PRICE,
          whitelist,
        },
      }),
    ]);
    const [pool] = await findPoolPda(w.program, w.lender.address, 9n);
    const p = poolOf(w, pool);
    expect(p.flags).toEqual({ autoSell: true, mortgage: true, compounding: true });
    expect(p.mortgageAprBps).toBe(3000);
    expect(p.conditions).toEqual({
      isEnabled: true,
      whitelistEnabled: true,
      liquidationThresholdBps: 8000,
      minAgeSeconds: 30n * DAY,
      minLoanCount: 2n,
      minVolumeMicroUsd: 500n * USD_PRICE,
      whitelist,
    });
  });

  it("rejects out-of-range parameters", async () => {
    const w = await buildWorld();
    const ix = await createIx(w, 3n);
    const cases: [string, (d: Uint8Array, v: DataView) => void][] = [
      ["apr 0", (_, v) => v.setUint32(CREATE_PARAMS + 1, 0, true)],
      ["apr above 100000", (_, v) => v.setUint32(CREATE_PARAMS + 1, 100_001, true)],
      ["max duration below a day", (_, v) => v.setBigUint64(CREATE_PARAMS + 9, 86_399n, true)],
      ["max duration above a year", (_, v) => v.setBigUint64(CREATE_PARAMS + 9, 31_536_001n, true)],
      ["min usd above max usd", (_, v) => v.setBigUint64(CREATE_PARAMS + 17, 6_000n * USD_PRICE, true)],
      ["threshold above 10000", (_, v) => v.setUint16(CREATE_PARAMS + 35, 10_001, true)],
      ["whitelist enabled without address", (d) => (d[CREATE_PARAMS + 34] = 1)],
      ["ltv 0", (_, v) => v.setUint16(CREATE_PARAMS + 94 + 32, 0, true)],
      ["exposure above 10000", (_, v) => v.setUint16(CREATE_PARAMS + 94 + 34, 10_001, true)],
      ["unknown flag", (d) => (d[CREATE_PARAMS] = 8)],
      ["unknown pool type", (d) => (d[2] = 2)],
    ];
    for (const [, edit] of cases) await w.h.expectCode([patchData(ix, edit)], E.InvalidPoolParams);
    // collection count that does not match the data length
    await w.h.expectCode([patchData(ix, (d) => (d[CREATE_PARAMS + 93] = 2))], E.InvalidInstruction);
    // a seed that does not match the PDA
    await w.h.expectCode([patchData(ix, (_, v) => v.setBigUint64(3, 4n, true))], E.InvalidPda);
    await w.h.send([ix]);
  });

  it("only lets the bank owner publish a pool on the bank", async () => {
    const w = await buildWorld();
    const intruder = await w.h.wallet();
    const ix = await getCreatePoolInstruction({
      programAddress: w.program,
      owner: intruder,
      currencyMint: w.currency,
      poolType: "nft-pool",
      seed: 1n,
      params: poolParams(w.collection),
    });
    await w.h.expectCode([swapAccount(ix, 2, w.bank)], E.Unauthorized);
    // the intruder has no bank: the derived bank address is not a program account
    await w.h.expectCode([ix], E.InvalidOwner);
  });
});

describe("update pool", () => {
  it("changes curve and status; a frozen pool takes no loans", async () => {
    const w = await buildWorld();
    w.h.advance(100n);
    await w.h.send([updateIx(w, "Frozen", { loanAprBps: 4000 })]);
    let p = poolOf(w);
    expect(p.status).toBe("Frozen");
    expect(p.loanAprBps).toBe(4000);
    expect(p.updatedAt).toBe(w.h.now);
    expect(p.collectionsUpdatedAt).toBe(w.h.now - 100n);
    await w.h.expectCode([await nftLoanIx(w)], E.PoolNotOpen);
    await w.h.send([updateIx(w, "Open")]);
    p = poolOf(w);
    expect(p.status).toBe("Open");
    await w.h.send([await nftLoanIx(w)]);
  });

  it("keeps counters of kept collections and refuses to drop one with ongoing loans", async () => {
    const w = await buildWorld();
    const { loan } = await nftLoanIx(w).then(async (ix) => {
      await w.h.send([ix]);
      return ix;
    });
    const other = (await generateKeyPairSigner()).address;
    await w.h.expectCode(
      [updateIx(w, "Open", { collections: [{ id: other, ltvBps: 4000, exposureBps: 4000 }] })],
      E.CollectionInUse,
    );
    w.h.advance(10n);
    await w.h.send([
      updateIx(w, "Open", {
        collections: [
          { id: other, ltvBps: 4000, exposureBps: 4000 },
          { id: w.collection, ltvBps: 6000, exposureBps: 5000 },
        ],
      }),
    ]);
    const p = poolOf(w);
    expect(p.collections).toEqual([
      { id: other, ltvBps: 4000, exposureBps: 4000, borrowedAmount: 0n, ongoingLoans: 0n },
      { id: w.collection, ltvBps: 6000, exposureBps: 5000, borrowedAmount: 100_000_000n, ongoingLoans: 1n },
    ]);
    expect(p.collectionsUpdatedAt).toBe(w.h.now);
    // repaying releases the moved entry
    await w.h.send([await repayIx(w, loan)]);
    expect(poolOf(w).collections[1]).toMatchObject({ borrowedAmount: 0n, ongoingLoans: 0n });
  });

  it("refuses an update by someone else", async () => {
    const w = await buildWorld();
    const intruder = await w.h.wallet();
    const ix = setMeta(updateIx(w, "Frozen"), 0, {
      address: intruder.address,
      role: AccountRole.READONLY_SIGNER,
      signer: intruder,
    });
    await w.h.expectCode([ix], E.Unauthorized);
  });
});

describe("close pool", () => {
  it("closes only without ongoing loans and returns the rent to the owner", async () => {
    const w = await buildWorld();
    const take = await nftLoanIx(w);
    await w.h.send([take]);
    const close = getClosePoolInstruction({ programAddress: w.program, owner: w.lender, pool: w.nftPool });
    await w.h.expectCode([close], E.PoolHasOngoingLoans);
    await w.h.send([await repayIx(w, take.loan)]);
    const rent = w.h.lamports(w.nftPool);
    const before = w.h.lamports(w.lender.address);
    await w.h.send([close]);
    expect(w.h.exists(w.nftPool)).toBe(false);
    expect(w.h.lamports(w.lender.address)).toBe(before + rent);
    // a closed pool takes no loans
    await w.h.expectCode([await nftLoanIx(w)], E.InvalidOwner);
  });

  it("refuses a close by someone else", async () => {
    const w = await buildWorld();
    const intruder = await w.h.wallet();
    const ix = getClosePoolInstruction({ programAddress: w.program, owner: intruder, pool: w.nftPool });
    await w.h.expectCode([ix], E.Unauthorized);
    expect(w.h.exists(w.nftPool)).toBe(true);
  });
});
