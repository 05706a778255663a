/**
 * Differential test: the owed interest, protocol fee and liquidation boundary the program computes ON
 * CHAIN (instructions run in LiteSVM with the clock set; amounts read from the token balances that moved)
 * equal @cistern/protocol's numbers. Seeded and bounded so it is deterministic and runs in seconds.
 */
import { fileURLToPath } from "node:url";
import {
  computeGraceSeconds,
  computeRepayment,
  computeTotalInterest,
  isLiquidatable,
} from "@cistern/protocol";
import { decodeLendingError } from "@cistern/sdk";
import {
  createFundedSigner,
  createLendingWorld,
  createPool,
  createWallet,
  extendLoan,
  getTokenBalance,
  type LendingWorld,
  liquidate,
  mintNft,
  mintTo,
  readBank,
  readLoan,
  repay,
  setUnixTime,
  takeLoan,
  type Wallet,
  WORLD_START_UNIX,
  type WorldPool,
} from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";

const SO_PATH = fileURLToPath(new URL("../build/lending.so", import.meta.url));
const DAY = 86_400n;
const MAX_POOL_DURATION = 31_536_000n;
const BANK_DEPOSIT = 10n ** 15n;

interface Setup {
  world: LendingWorld;
  collection: Address;
  pools: Map<number, WorldPool>;
  borrower: Wallet;
}

let setup: Setup;

async function poolFor(aprBps: number): Promise<WorldPool> {
  let pool = setup.pools.get(aprBps);
  if (!pool) {
    pool = await createPool(setup.world, {
      poolType: "nft-pool",
      collectionIds: [setup.collection],
      loanAprBps: aprBps,
    });
    setup.pools.set(aprBps, pool);
  }
  return pool;
}

/** Takes an NFT loan at `createdAt` and returns its address and collateral mint. */
async function openLoan(aprBps: number, principal: bigint, durationSeconds: bigint, createdAt: bigint) {
  const { world, borrower } = setup;
  setUnixTime(world, createdAt);
  const nft = await mintNft(world, borrower, setup.collection);
  const loan = await takeLoan(world, {
    pool: await poolFor(aprBps),
    borrower,
    collateralMint: nft,
    collection: setup.collection,
    collateralAmountBaseUnits: 1n,
    collateralValueBaseUnits: principal * 2n,
    principalBaseUnits: principal,
    durationSeconds,
  });
  return { loan, nft };
}

type When =
  | { kind: "within"; permille: number }
  | { kind: "created" | "expiry" | "expiry+1" }
  | { kind: "overdue"; seconds: bigint };

/** The repay instant a generated case describes. */
function instantOf(when: When, createdAt: bigint, expiredAt: bigint, durationSeconds: bigint): bigint {
  switch (when.kind) {
    case "within":
      return createdAt + (durationSeconds * BigInt(when.permille)) / 1000n;
    case "created":
      return createdAt;
    case "expiry":
      return expiredAt;
    case "expiry+1":
      return expiredAt + 1n;
    case "overdue":
      return expiredAt + when.seconds;
  }
}

beforeAll(async () => {
  const world = await createLendingWorld({ soPath: SO_PATH, depositBaseUnits: BANK_DEPOSIT });
  const borrower = await createWallet(world.svm, world.admin, [world.currencyMint]);
  // the borrower holds enough to pay any interest the properties can produce
  await mintTo(
    world.svm,
    world.admin,
    world.currencyMint,
    borrower.tokenAccounts.get(world.currencyMint)!,
    10n ** 17n,
  );
  setup = { world, collection: (await generateKeyPairSigner()).address, pools: new Map(), borrower };
}, 60_000);

const aprArb = fc.integer({ min: 1, max: 100_000 });
const principalArb = fc.bigInt({ min: 1n, max: 10n ** 12n });
const durationArb = fc.oneof(
  fc.bigInt({ min: DAY, max: MAX_POOL_DURATION }),
  fc.constantFrom(DAY, DAY + 1n, 7n * DAY, 8n * DAY, 9n * DAY, MAX_POOL_DURATION),
);

describe("on-chain maths equals @cistern/protocol", () => {
  it("loan interest, owed interest, protocol fee and lender share at repay", async () => {
    const { world, borrower } = setup;
    const borrowerCurrency = borrower.tokenAccounts.get(world.currencyMint)!;
    const treasuryCurrency = world.treasury.tokenAccounts.get(world.currencyMint)!;
    await fc.assert(
      fc.asyncProperty(
        aprArb,
        principalArb,
        durationArb,
        // where `now` falls: a fraction of the loan, an exact boundary, or overdue by up to 60 days
        fc.oneof(
          fc.record({ kind: fc.constant("within" as const), permille: fc.integer({ min: 0, max: 1000 }) }),
          fc.record({ kind: fc.constantFrom("created" as const, "expiry" as const, "expiry+1" as const) }),
          fc.record({
            kind: fc.constant("overdue" as const),
            seconds: fc.bigInt({ min: 1n, max: 60n * DAY }),
          }),
        ),
        async (aprBps, principal, durationSeconds, when) => {
          const createdAt = WORLD_START_UNIX;
          const { loan, nft } = await openLoan(aprBps, principal, durationSeconds, createdAt);
          const onChainLoan = readLoan(world, loan);
          expect(onChainLoan.interest).toBe(computeTotalInterest({ aprBps, principal, durationSeconds }));
          const expiredAt = createdAt + durationSeconds;
          const now = instantOf(when, createdAt, expiredAt, durationSeconds);
          setUnixTime(world, now);
          const before = {
            borrower: getTokenBalance(world.svm, borrowerCurrency),
            treasury: getTokenBalance(world.svm, treasuryCurrency),
            feesOwed: readBank(world).feesOwed,
            vault: getTokenBalance(world.svm, world.vault),
          };
          await repay(world, borrower, loan);
          const moved = {
            borrowerPaid: before.borrower - getTokenBalance(world.svm, borrowerCurrency),
            fee: readBank(world).feesOwed - before.feesOwed,
            treasury: getTokenBalance(world.svm, treasuryCurrency) - before.treasury,
            vault: getTokenBalance(world.svm, world.vault) - before.vault,
          };
          const expected = computeRepayment({ aprBps, principal, durationSeconds, createdAt, now });
          expect(moved).toEqual({
            borrowerPaid: expected.repayment,
            fee: expected.protocolFee,
            treasury: 0n,
            vault: principal + expected.lenderInterest + expected.protocolFee,
          });
          expect(readLoan(world, loan)).toMatchObject({
            status: "Repaid",
            repaidAmount: expected.repayment,
            protocolFeePaid: expected.protocolFee,
          });
          expect(getTokenBalance(world.svm, borrower.tokenAccounts.get(nft)!)).toBe(1n);
        },
      ),
      { seed: 20_261_121, numRuns: 120, endOnFailure: true },
    );
  }, 120_000);

  it("extend settles the old loan with the protocol's owed interest and fee, netting the principals", async () => {
    const { world, borrower } = setup;
    const borrowerCurrency = borrower.tokenAccounts.get(world.currencyMint)!;
    await fc.assert(
      fc.asyncProperty(
        aprArb,
        principalArb,
        principalArb,
        durationArb,
        durationArb,
        fc.bigInt({ min: 0n, max: 400n * DAY }),
        async (aprBps, oldPrincipal, newPrincipal, oldDuration, newDuration, elapsed) => {
          const createdAt = WORLD_START_UNIX;
          const { loan: oldLoan, nft } = await openLoan(aprBps, oldPrincipal, oldDuration, createdAt);
          const now = createdAt + elapsed;
          setUnixTime(world, now);
          const before = {
            borrower: getTokenBalance(world.svm, borrowerCurrency),
            feesOwed: readBank(world).feesOwed,
            vault: getTokenBalance(world.svm, world.vault),
          };
          const extend = () =>
            extendLoan(world, {
              pool: aprPool,
              borrower,
              oldLoan,
              principalBaseUnits: newPrincipal,
              durationSeconds: newDuration,
              collateralValueBaseUnits: newPrincipal * 2n,
            });
          const aprPool = await poolFor(aprBps);
          if (isLiquidatable({ createdAt, durationSeconds: oldDuration, now })) {
            // past expiry + grace the loan belongs to the liquidation path: both sides refuse the extension
            const refused = await extend().then(
              () => null,
              (error: unknown) => error,
            );
            expect(decodeLendingError(refused, { programAddress: world.programAddress })?.name).toBe(
              "LoanLiquidatable",
            );
            expect(getTokenBalance(world.svm, borrowerCurrency)).toBe(before.borrower);
            return;
          }
          const newLoan = await extend();
          const old = computeRepayment({
            aprBps,
            principal: oldPrincipal,
            durationSeconds: oldDuration,
            createdAt,
            now,
          });
          expect({
            borrowerDelta: getTokenBalance(world.svm, borrowerCurrency) - before.borrower,
            fee: readBank(world).feesOwed - before.feesOwed,
            vaultDelta: getTokenBalance(world.svm, world.vault) - before.vault,
          }).toEqual({
            borrowerDelta: newPrincipal - oldPrincipal - old.owedInterest,
            fee: old.protocolFee,
            vaultDelta: oldPrincipal - newPrincipal + old.owedInterest,
          });
          expect(readLoan(world, oldLoan)).toMatchObject({
            status: "Repaid",
            repaidAt: now,
            extendedTo: newLoan,
            protocolFeePaid: old.protocolFee,
          });
          expect(readLoan(world, newLoan)).toMatchObject({
            status: "Ongoing",
            collateralMint: nft,
            principal: newPrincipal,
            durationSeconds: newDuration,
            createdAt: now,
            expiredAt: now + newDuration,
            interest: computeTotalInterest({ aprBps, principal: newPrincipal, durationSeconds: newDuration }),
          });
          // close it so the next case starts from the same liquidity
          await repay(world, borrower, newLoan);
        },
      ),
      { seed: 11_2026, numRuns: 60, endOnFailure: true },
    );
  }, 120_000);

  it("the liquidation boundary is expiry + grace, exactly as the protocol says", async () => {
    const { world } = setup;
    const liquidator = await createFundedSigner(world.svm, 10n);
    await fc.assert(
      fc.asyncProperty(durationArb, fc.integer({ min: 1, max: 100_000 }), async (durationSeconds, aprBps) => {
        const createdAt = WORLD_START_UNIX;
        const { loan, nft } = await openLoan(aprBps, 1_000_000n, durationSeconds, createdAt);
        const boundary = createdAt + durationSeconds + BigInt(computeGraceSeconds(durationSeconds));
        // at the boundary the protocol says "not yet" and the program refuses
        setUnixTime(world, boundary);
        expect(isLiquidatable({ createdAt, durationSeconds, now: boundary })).toBe(false);
        const refused = await liquidate(world, liquidator, loan).then(
          () => null,
          (error: unknown) => error,
        );
        expect(decodeLendingError(refused, { programAddress: world.programAddress })?.name).toBe(
          "NotLiquidatable",
        );
        // one second later both agree it is liquidatable; the NFT goes to the pool owner
        setUnixTime(world, boundary + 1n);
        expect(isLiquidatable({ createdAt, durationSeconds, now: boundary + 1n })).toBe(true);
        await liquidate(world, liquidator, loan);
        expect(readLoan(world, loan)).toMatchObject({ status: "Liquidated", liquidatedAt: boundary + 1n });
        expect(getTokenBalance(world.svm, world.lender.tokenAccounts.get(nft)!)).toBe(1n);
      }),
      { seed: 7_2026, numRuns: 50, endOnFailure: true },
    );
  }, 120_000);
});
