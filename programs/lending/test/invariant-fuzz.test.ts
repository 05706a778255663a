/**
 * Invariant fuzz: random sequences of deposits, withdrawals, NFT and token loans, repays, extends,
 * liquidations and clock jumps against the program in LiteSVM. After every step:
 * - the vault's token balance equals the bank's availableLiquidity;
 * - the bank's borrowed liquidity (total - available) equals the outstanding principal of Ongoing loans,
 *   and each pool's borrowedAmount / currentLoans match its Ongoing loans;
 * - no collateral is created or lost: per collateral mint, borrower wallets + escrows + the lender's wallet
 *   hold the same total; no currency is created or lost either (wallets + vault + treasury).
 * Every action's outcome is predicted from a model (success, or the named program error with nothing moved).
 * Seeded and bounded: deterministic and a few seconds.
 */
import { fileURLToPath } from "node:url";
import { isLiquidatable } from "@cistern/protocol";
import { decodeLendingError } from "@cistern/sdk";
import {
  createFundedSigner,
  createLendingWorld,
  createMint,
  createPool,
  createWallet,
  deposit,
  extendLoan,
  getNow,
  getTokenBalance,
  type LendingWorld,
  liquidate,
  mintNft,
  mintTo,
  readBank,
  readLoan,
  readPool,
  repay,
  setUnixTime,
  takeLoan,
  tokenAccountOf,
  type Wallet,
  type WorldPool,
  withdraw,
} from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const SO_PATH = fileURLToPath(new URL("../build/lending.so", import.meta.url));
const DAY = 86_400n;
const BORROWERS = 3;
const NFTS_PER_BORROWER = 2;
const TOKEN_COLLATERAL_PER_BORROWER = 1_000_000_000_000n;
const BORROWER_CURRENCY = 10n ** 15n;
const LENDER_CURRENCY = 10n ** 13n;
const INITIAL_DEPOSIT = 10n ** 11n;

type Action =
  | { type: "deposit"; amount: bigint }
  | { type: "withdraw"; permille: number }
  | { type: "overWithdraw"; extra: bigint }
  | { type: "takeNft"; borrower: number; pick: number; principalPermille: number; days: number }
  | {
      type: "takeToken";
      borrower: number;
      mint: number;
      amountPermille: number;
      principalPermille: number;
      days: number;
    }
  | { type: "repay"; pick: number }
  | { type: "extend"; pick: number; principalPermille: number; days: number }
  | { type: "liquidate"; pick: number }
  | { type: "jump"; seconds: bigint };

const permille = fc.integer({ min: 1, max: 1000 });
const days = fc.integer({ min: 1, max: 30 });
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ type: fc.constant("deposit" as const), amount: fc.bigInt({ min: 1n, max: 10n ** 10n }) }),
  fc.record({ type: fc.constant("withdraw" as const), permille }),
  fc.record({ type: fc.constant("overWithdraw" as const), extra: fc.bigInt({ min: 1n, max: 10n ** 6n }) }),
  fc.record({
    type: fc.constant("takeNft" as const),
    borrower: fc.nat(BORROWERS - 1),
    pick: fc.nat(),
    principalPermille: permille,
    days,
  }),
  fc.record({
    type: fc.constant("takeToken" as const),
    borrower: fc.nat(BORROWERS - 1),
    mint: fc.nat(1),
    amountPermille: permille,
    principalPermille: permille,
    days,
  }),
  fc.record({ type: fc.constant("repay" as const), pick: fc.nat() }),
  fc.record({ type: fc.constant("extend" as const), pick: fc.nat(), principalPermille: permille, days }),
  fc.record({ type: fc.constant("liquidate" as const), pick: fc.nat() }),
  fc.record({ type: fc.constant("jump" as const), seconds: fc.bigInt({ min: 0n, max: 20n * DAY }) }),
);

interface ModelLoan {
  address: Address;
  borrower: Wallet;
  pool: WorldPool;
  collateralMint: Address;
}

interface Fixture {
  world: LendingWorld;
  nftPool: WorldPool;
  tokenPool: WorldPool;
  collection: Address;
  tokenMints: Address[];
  borrowers: Wallet[];
  nfts: Map<Address, Wallet>;
  liquidator: KeyPairSigner;
  loans: ModelLoan[];
  /** Collateral total per mint at the start (never changes). */
  collateralTotals: Map<Address, bigint>;
  currencyTotal: bigint;
}

async function createFixture(): Promise<Fixture> {
  const world = await createLendingWorld({ soPath: SO_PATH, depositBaseUnits: 0n });
  await mintTo(
    world.svm,
    world.admin,
    world.currencyMint,
    world.lender.tokenAccounts.get(world.currencyMint)!,
    LENDER_CURRENCY,
  );
  await deposit(world, INITIAL_DEPOSIT);
  const collection = (await generateKeyPairSigner()).address;
  const tokenMints = [
    await createMint(world.svm, world.admin, 9),
    await createMint(world.svm, world.admin, 6),
  ];
  const nftPool = await createPool(world, {
    poolType: "nft-pool",
    collectionIds: [collection],
    loanAprBps: 36_500,
  });
  const tokenPool = await createPool(world, {
    poolType: "defi-pool",
    collectionIds: tokenMints,
    loanAprBps: 12_000,
  });
  const borrowers: Wallet[] = [];
  const nfts = new Map<Address, Wallet>();
  const collateralTotals = new Map<Address, bigint>();
  for (let i = 0; i < BORROWERS; i++) {
    const borrower = await createWallet(world.svm, world.admin, [world.currencyMint, ...tokenMints]);
    await mintTo(
      world.svm,
      world.admin,
      world.currencyMint,
      borrower.tokenAccounts.get(world.currencyMint)!,
      BORROWER_CURRENCY,
    );
    for (const mint of tokenMints) {
      await mintTo(
        world.svm,
        world.admin,
        mint,
        borrower.tokenAccounts.get(mint)!,
        TOKEN_COLLATERAL_PER_BORROWER,
      );
      collateralTotals.set(mint, (collateralTotals.get(mint) ?? 0n) + TOKEN_COLLATERAL_PER_BORROWER);
    }
    for (let n = 0; n < NFTS_PER_BORROWER; n++) {
      const nft = await mintNft(world, borrower);
      nfts.set(nft, borrower);
      collateralTotals.set(nft, 1n);
    }
    borrowers.push(borrower);
  }
  // the lender (pool owner) receives liquidated collateral: its token accounts exist from the start
  for (const mint of collateralTotals.keys()) await tokenAccountOf(world, world.lender, mint);
  return {
    world,
    nftPool,
    tokenPool,
    collection,
    tokenMints,
    borrowers,
    nfts,
    liquidator: await createFundedSigner(world.svm, 10n),
    loans: [],
    collateralTotals,
    currencyTotal: LENDER_CURRENCY + BORROWER_CURRENCY * BigInt(BORROWERS),
  };
}

/** Runs `step`, expecting the named program error, and checks that no token balance moved. */
async function expectProgramError(
  f: Fixture,
  errorName: string,
  step: () => Promise<unknown>,
): Promise<void> {
  const before = balancesSnapshot(f);
  const error = await step().then(
    () => null,
    (e: unknown) => e,
  );
  expect(decodeLendingError(error, { programAddress: f.world.programAddress })?.name).toBe(errorName);
  expect(balancesSnapshot(f)).toEqual(before);
}

function walletTokenAccounts(f: Fixture): Address[] {
  const wallets = [...f.borrowers, f.world.lender, f.world.treasury];
  return wallets.flatMap((w) => [...w.tokenAccounts.values()]);
}

function balancesSnapshot(f: Fixture): bigint[] {
  const escrows = f.loans.map((l) => readLoan(f.world, l.address).escrow);
  return [...walletTokenAccounts(f), ...escrows, f.world.vault].map((a) => getTokenBalance(f.world.svm, a));
}

function ongoing(f: Fixture): ModelLoan[] {
  return f.loans.filter((l) => readLoan(f.world, l.address).status === "Ongoing");
}

function checkInvariants(f: Fixture): void {
  const { world } = f;
  const bank = readBank(world);
  expect(getTokenBalance(world.svm, world.vault)).toBe(bank.availableLiquidity);
  const live = ongoing(f).map((l) => ({ model: l, loan: readLoan(world, l.address) }));
  const outstanding = live.reduce((sum, { loan }) => sum + loan.principal, 0n);
  expect(bank.totalLiquidity - bank.availableLiquidity - bank.delegatedLiquidity).toBe(outstanding);
  expect(bank.ongoingLoans).toBe(BigInt(live.length));
  for (const pool of [f.nftPool, f.tokenPool]) {
    const mine = live.filter(({ loan }) => loan.pool === pool.address);
    const account = readPool(world, pool.address);
    expect(account.borrowedAmount).toBe(mine.reduce((sum, { loan }) => sum + loan.principal, 0n));
    expect(account.currentLoans).toBe(BigInt(mine.length));
    for (const entry of account.collections) {
      const ofEntry = mine.filter(({ loan }) => loan.collection === entry.id);
      expect(entry.borrowedAmount).toBe(ofEntry.reduce((sum, { loan }) => sum + loan.principal, 0n));
      expect(entry.ongoingLoans).toBe(BigInt(ofEntry.length));
    }
  }
  // collateral: borrower wallets + escrows + the lender's wallet
  const escrows = f.loans.map((l) => readLoan(world, l.address));
  for (const [mint, total] of f.collateralTotals) {
    const holders = [...f.borrowers, world.lender]
      .map((w) => w.tokenAccounts.get(mint))
      .filter((a): a is Address => a !== undefined);
    const inWallets = holders.reduce((sum, a) => sum + getTokenBalance(world.svm, a), 0n);
    const inEscrows = escrows
      .filter((loan) => loan.collateralMint === mint)
      .reduce((sum, loan) => sum + getTokenBalance(world.svm, loan.escrow), 0n);
    expect(inWallets + inEscrows).toBe(total);
  }
  // currency: wallets + vault + treasury
  const currencyAccounts = [...f.borrowers, world.lender, world.treasury].map(
    (w) => w.tokenAccounts.get(world.currencyMint)!,
  );
  const currency = [...currencyAccounts, world.vault].reduce(
    (sum, a) => sum + getTokenBalance(world.svm, a),
    0n,
  );
  expect(currency).toBe(f.currencyTotal);
}

const pickOf = <T>(items: T[], pick: number): T | undefined =>
  items.length ? items[pick % items.length] : undefined;

/** How often each outcome happened over the whole run (so the fuzz is known not to be vacuous). */
const outcomes = new Map<string, number>();
const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);

async function runAction(f: Fixture, action: Action): Promise<void> {
  const { world } = f;
  const available = readBank(world).availableLiquidity;
  switch (action.type) {
    case "deposit": {
      await deposit(world, action.amount);
      return;
    }
    case "withdraw": {
      const amount = (available * BigInt(action.permille)) / 1000n;
      if (amount > 0n) await withdraw(world, amount);
      return;
    }
    case "overWithdraw": {
      await expectProgramError(f, "InsufficientLiquidity", () => withdraw(world, available + action.extra));
      return;
    }
    case "takeNft":
    case "takeToken": {
      if (available === 0n) return;
      const borrower = f.borrowers[action.borrower]!;
      const principal = 1n + ((available - 1n) * BigInt(action.principalPermille)) / 1000n;
      const durationSeconds = BigInt(action.days) * DAY;
      let collateralMint: Address;
      let collateralAmount: bigint;
      let collection: Address;
      let pool: WorldPool;
      if (action.type === "takeNft") {
        const free = [...f.nfts.entries()]
          .filter(
            ([mint, owner]) =>
              owner === borrower && getTokenBalance(world.svm, borrower.tokenAccounts.get(mint)!) === 1n,
          )
          .map(([mint]) => mint);
        const nft = pickOf(free, action.pick);
        if (!nft) return;
        [collateralMint, collateralAmount, collection, pool] = [nft, 1n, f.collection, f.nftPool];
      } else {
        const mint = f.tokenMints[action.mint]!;
        const balance = getTokenBalance(world.svm, borrower.tokenAccounts.get(mint)!);
        const amount = (balance * BigInt(action.amountPermille)) / 1000n;
        if (amount === 0n) return;
        [collateralMint, collateralAmount, collection, pool] = [mint, amount, mint, f.tokenPool];
      }
      const address = await takeLoan(world, {
        pool,
        borrower,
        collateralMint,
        collection,
        collateralAmountBaseUnits: collateralAmount,
        collateralValueBaseUnits: principal * 2n,
        principalBaseUnits: principal,
        durationSeconds,
      });
      f.loans.push({ address, borrower, pool, collateralMint });
      count(action.type);
      return;
    }
    case "repay": {
      const loan = pickOf(ongoing(f), action.pick);
      if (!loan) {
        const closed = pickOf(f.loans, action.pick);
        if (closed)
          await expectProgramError(f, "LoanNotOngoing", () => repay(world, closed.borrower, closed.address));
        return;
      }
      await repay(world, loan.borrower, loan.address);
      count("repay");
      return;
    }
    case "extend": {
      const loan = pickOf(ongoing(f), action.pick);
      if (!loan) return;
      const old = readLoan(world, loan.address);
      const room = old.principal + available;
      const principal = 1n + ((room - 1n) * BigInt(action.principalPermille)) / 1000n;
      const address = await extendLoan(world, {
        pool: loan.pool,
        borrower: loan.borrower,
        oldLoan: loan.address,
        principalBaseUnits: principal,
        durationSeconds: BigInt(action.days) * DAY,
        collateralValueBaseUnits: principal * 2n,
      });
      expect(readLoan(world, loan.address)).toMatchObject({ status: "Repaid", extendedTo: address });
      f.loans.push({ ...loan, address });
      count("extend");
      return;
    }
    case "liquidate": {
      const loan = pickOf(ongoing(f), action.pick);
      if (!loan) return;
      const state = readLoan(world, loan.address);
      const now = getNow(world).unix;
      if (isLiquidatable({ createdAt: state.createdAt, durationSeconds: state.durationSeconds, now })) {
        await liquidate(world, f.liquidator, loan.address);
        expect(readLoan(world, loan.address).status).toBe("Liquidated");
        count("liquidate");
      } else {
        await expectProgramError(f, "NotLiquidatable", () => liquidate(world, f.liquidator, loan.address));
        count("notLiquidatable");
      }
      return;
    }
    case "jump": {
      setUnixTime(world, getNow(world).unix + action.seconds);
      return;
    }
  }
}

describe("invariants under random action sequences", () => {
  it("vault = available liquidity, borrowed = outstanding principal, collateral and currency conserved", async () => {
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 15, maxLength: 45 }), async (actions) => {
        const f = await createFixture();
        checkInvariants(f);
        for (const action of actions) {
          await runAction(f, action);
          checkInvariants(f);
          steps++;
        }
      }),
      { seed: 424_242, numRuns: 12, endOnFailure: true },
    );
    expect(steps).toBeGreaterThan(12 * 15 - 1);
    for (const outcome of ["takeNft", "takeToken", "repay", "extend", "liquidate", "notLiquidatable"]) {
      expect(outcomes.get(outcome) ?? 0, outcome).toBeGreaterThanOrEqual(2);
    }
  }, 180_000);
});
