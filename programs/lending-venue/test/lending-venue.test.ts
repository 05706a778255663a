import { fileURLToPath } from "node:url";
import {
  accrueLendingIndex,
  decodeLendingPosition,
  decodeLendingReserve,
  LENDING_VENUE_ERRORS as E,
  getInitializeLendingReserveInstruction,
  getLendingDepositInstruction,
  getLendingWithdrawInstruction,
  getOpenLendingPositionInstruction,
  getSetLendingRateInstruction,
  INDEX_ONE,
  lendingAmountForShares,
  lendingSharesForAmount,
} from "@cistern/sdk";
import { setClock } from "@cistern/sdk/testing";
import { AccountRole, type Address, type KeyPairSigner } from "@solana/kit";
import { getTransferInstruction } from "@solana-program/token";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { VenueHarness } from "../../swap-venue/test/venue-harness.ts";

const SO_PATH = fileURLToPath(new URL("../build/lending-venue.so", import.meta.url));
const RATE_BPS = 800; // 8% a year
const T0 = 1_800_000_000n;

interface World {
  h: VenueHarness;
  mint: Address;
  reserve: Address;
  vault: Address;
}

async function world(): Promise<World> {
  const h = await VenueHarness.create(SO_PATH);
  setClock(h.svm, { unixTimestamp: T0 });
  const mint = await h.createMint(6);
  const init = await getInitializeLendingReserveInstruction({
    programAddress: h.programId,
    admin: h.payer,
    mint,
    rateBps: RATE_BPS,
  });
  await h.send([init]);
  // the operator funds the yield the reserve will pay (as marginfi's borrowers would)
  const treasury = await h.tokenAccount(mint, h.payer.address, 1_000_000_000_000n);
  await h.send([
    getTransferInstruction({
      source: treasury,
      destination: init.vault,
      authority: h.payer,
      amount: 1_000_000_000_000n,
    }),
  ]);
  return { h, mint, reserve: init.reserve, vault: init.vault };
}

async function depositor(
  w: World,
  amount: bigint,
): Promise<{ owner: KeyPairSigner; token: Address; position: Address }> {
  const owner = await w.h.wallet();
  const token = await w.h.tokenAccount(w.mint, owner.address, amount);
  const open = await getOpenLendingPositionInstruction({
    programAddress: w.h.programId,
    payer: w.h.payer,
    owner,
    reserve: w.reserve,
  });
  await w.h.send([open]);
  return { owner, token, position: open.position };
}

const reserveOf = (w: World) => decodeLendingReserve(w.h.data(w.reserve));
const positionOf = (w: World, position: Address) => decodeLendingPosition(w.h.data(position));
const ix = (w: World, d: { owner: KeyPairSigner; token: Address; position: Address }) => ({
  programAddress: w.h.programId,
  owner: d.owner,
  reserve: w.reserve,
  vault: w.vault,
  position: d.position,
  tokenAccount: d.token,
});

describe("local lending venue (LiteSVM)", () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });

  it("creates a reserve at index 1 and a position per owner", async () => {
    const r = reserveOf(w);
    expect(r).toMatchObject({
      rateBps: RATE_BPS,
      mint: w.mint,
      vault: w.vault,
      index: INDEX_ONE,
      totalShares: 0n,
      lastUpdate: T0,
    });
    const d = await depositor(w, 0n);
    expect(positionOf(w, d.position)).toMatchObject({
      reserve: w.reserve,
      owner: d.owner.address,
      shares: 0n,
    });
    // a second reserve for the same mint, or a second position for the same owner, is refused
    const again = await getInitializeLendingReserveInstruction({
      programAddress: w.h.programId,
      admin: w.h.payer,
      mint: w.mint,
      rateBps: 1,
    });
    expect((await w.h.trySend([again])).ok).toBe(false);
    const reopen = await getOpenLendingPositionInstruction({
      programAddress: w.h.programId,
      payer: w.h.payer,
      owner: d.owner,
      reserve: w.reserve,
    });
    expect((await w.h.trySend([reopen])).customCode).toBe(E.AlreadyInitialized);
  });

  it("accrues interest exactly as the formula says over clock jumps, and pays it on withdraw", async () => {
    const d = await depositor(w, 1_000_000_000n);
    await w.h.send([getLendingDepositInstruction({ ...ix(w, d), amount: 1_000_000_000n })]);
    expect(positionOf(w, d.position).shares).toBe(1_000_000_000n);
    let expected = reserveOf(w);
    for (const jump of [1n, 3_600n, 86_400n * 30n, 86_400n * 365n]) {
      const now = expected.lastUpdate + jump;
      setClock(w.h.svm, { unixTimestamp: now });
      // SetRate (same rate) makes the program accrue; the index must be the formula's, to the unit
      await w.h.send([
        getSetLendingRateInstruction({
          programAddress: w.h.programId,
          admin: w.h.payer,
          reserve: w.reserve,
          rateBps: RATE_BPS,
        }),
      ]);
      const index = accrueLendingIndex(expected, now);
      expected = reserveOf(w);
      expect(expected.index).toBe(index);
      expect(expected.lastUpdate).toBe(now);
    }
    // 8% a year over 395 days, compounded at each jump: (1 + 0.08 x 30/365) x 1.08 = 1.0871
    expect(expected.index).toBeGreaterThan((INDEX_ONE * 10_870n) / 10_000n);
    expect(expected.index).toBeLessThan((INDEX_ONE * 10_872n) / 10_000n);
    const before = w.h.balance(d.token);
    const out = await w.h.send([getLendingWithdrawInstruction({ ...ix(w, d), shares: 1_000_000_000n })]);
    expect(w.h.balance(d.token) - before).toBe(lendingAmountForShares(1_000_000_000n, expected.index));
    expect(positionOf(w, d.position).shares).toBe(0n);
    expect(reserveOf(w).totalShares).toBe(0n);
    expect(out.computeUnits).toBeLessThan(20_000n);
  });

  it("never rounds shares in the depositor's favour (fast-check over amounts and times)", async () => {
    const d = await depositor(w, 10_000_000_000_000n);
    let now = T0;
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 1n, max: 5_000_000_000n }),
        fc.bigInt({ min: 0n, max: 86_400n * 200n }),
        async (amount, jump) => {
          now += jump;
          setClock(w.h.svm, { unixTimestamp: now });
          const index = accrueLendingIndex(reserveOf(w), now);
          const shares = lendingSharesForAmount(amount, index);
          const held = positionOf(w, d.position).shares;
          const out = await w.h.trySend([getLendingDepositInstruction({ ...ix(w, d), amount })]);
          if (shares === 0n) {
            expect(out.customCode).toBe(E.ZeroAmount);
            return;
          }
          expect(out.ok).toBe(true);
          const got = positionOf(w, d.position).shares - held;
          expect(got).toBe(shares);
          // what the new shares are worth never exceeds what was paid
          expect(lendingAmountForShares(got, index)).toBeLessThanOrEqual(amount);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("refuses a withdrawal beyond the position's shares, someone else's position and a foreign vault; nothing moves", async () => {
    const a = await depositor(w, 500_000_000n);
    const b = await depositor(w, 500_000_000n);
    await w.h.send([getLendingDepositInstruction({ ...ix(w, a), amount: 500_000_000n })]);
    await w.h.send([getLendingDepositInstruction({ ...ix(w, b), amount: 500_000_000n })]);
    const vault = w.h.balance(w.vault);
    const tooMany = await w.h.trySend([getLendingWithdrawInstruction({ ...ix(w, a), shares: 500_000_001n })]);
    expect(tooMany.customCode).toBe(E.InsufficientShares);
    // a signs, but names b's position
    const theirs = await w.h.trySend([
      getLendingWithdrawInstruction({ ...ix(w, a), position: b.position, shares: 1n }),
    ]);
    expect(theirs.customCode).toBe(E.PositionMismatch);
    const foreignVault = await w.h.tokenAccount(w.mint, w.h.payer.address, 1_000n);
    const wrongVault = await w.h.trySend([
      getLendingWithdrawInstruction({ ...ix(w, a), vault: foreignVault, shares: 1n }),
    ]);
    expect(wrongVault.customCode).toBe(E.InvalidVault);
    // the owner must sign
    const signed = getLendingWithdrawInstruction({ ...ix(w, a), owner: a.owner.address, shares: 1n });
    const unsigned = {
      ...signed,
      accounts: signed.accounts!.map((m, i) =>
        i === 0 ? { address: m.address, role: AccountRole.READONLY } : m,
      ),
    };
    expect((await w.h.trySend([unsigned])).customCode).toBe(E.MissingSigner);
    expect(w.h.balance(w.vault)).toBe(vault);
    expect(positionOf(w, a.position).shares).toBe(500_000_000n);
    expect(positionOf(w, b.position).shares).toBe(500_000_000n);
  });

  it("lets only the reserve's admin change its rate, within 0..10000 bps", async () => {
    const stranger = await w.h.wallet();
    const r1 = await w.h.trySend([
      getSetLendingRateInstruction({
        programAddress: w.h.programId,
        admin: stranger,
        reserve: w.reserve,
        rateBps: 9_000,
      }),
    ]);
    expect(r1.customCode).toBe(E.Unauthorized);
    const r2 = await w.h.trySend([
      getSetLendingRateInstruction({
        programAddress: w.h.programId,
        admin: w.h.payer,
        reserve: w.reserve,
        rateBps: 10_001,
      }),
    ]);
    expect(r2.customCode).toBe(E.InvalidRate);
    expect(reserveOf(w).rateBps).toBe(RATE_BPS);
  });
});
