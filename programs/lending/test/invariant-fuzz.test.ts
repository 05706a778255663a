/**
 * Invariant fuzz: random sequences of deposits, withdrawals, NFT and token loans, repays, extends,
 * liquidations and clock jumps against the program in LiteSVM, over two banks (two lenders, two
 * currencies), each with an nft-pool and a defi-pool. After every step:
 * - every vault's token balance equals its bank's availableLiquidity + feesOwed (+ donations, below);
 * - each bank's borrowed liquidity (total - available) equals the outstanding principal of its Ongoing
 *   loans, and each pool's (and pool entry's) borrowedAmount / loan counts match its Ongoing loans;
 * - no collateral is created or lost: per collateral mint, borrower wallets + escrows + pool owners'
 *   wallets hold the same total; no currency is created or lost either (wallets + vault + treasury).
 * - a vault holds its bank's availableLiquidity and feesOwed plus exactly what strangers paid into it (counted
 *   nowhere); CollectFees moves exactly feesOwed to the treasury.
 * Anyone can send tokens to any token account: before any instruction the fuzz may donate a random amount to a
 * random program-owned token account (a vault, a token loan's escrow), and every ending must still succeed.
 * Every action's outcome is predicted from a model (success, or the named program error with nothing moved).
 * Seeded and bounded: deterministic and a few seconds (FUZZ_SEED=N runs another seed).
 */
import { fileURLToPath } from "node:url";
import { isLiquidatable } from "@cistern/protocol";
import { decodeLendingError } from "@cistern/sdk";
import {
  collectFees,
  createBank,
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
  sendWithLiteSvm,
  setUnixTime,
  takeLoan,
  tokenAccountOf,
  type Wallet,
  type WorldBank,
  type WorldPool,
  withdraw,
} from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { getTransferInstruction } from "@solana-program/token";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const SO_PATH = fileURLToPath(new URL("../build/lending.so", import.meta.url));
const DAY = 86_400n;
const BANKS = 2;
const BORROWERS = 3;
const NFTS_PER_BORROWER = 2;
const TOKEN_COLLATERAL_PER_BORROWER = 1_000_000_000_000n;
const BORROWER_CURRENCY = 10n ** 15n;
const LENDER_CURRENCY = 10n ** 13n;
const INITIAL_DEPOSIT = 10n ** 11n;
/** What the donor (a stranger paying into program-owned token accounts) holds of every mint at the start. */
const DONOR_BALANCE = 10n ** 15n;

type Action =
  | { type: "deposit"; bank: number; amount: bigint }
  | { type: "withdraw"; bank: number; permille: number }
  | { type: "overWithdraw"; bank: number; extra: bigint }
  | { type: "takeNft"; bank: number; borrower: number; pick: number; principalPermille: number; days: number }
  | {
      type: "takeToken";
      bank: number;
      borrower: number;
      mint: number;
      amountPermille: number;
      principalPermille: number;
      days: number;
    }
  | { type: "repay"; pick: number }
  | { type: "extend"; pick: number; principalPermille: number; days: number }
  | { type: "liquidate"; pick: number }
  | { type: "jump"; seconds: bigint }
  | { type: "donate"; pick: number; amount: bigint }
  | { type: "collect"; bank: number };

const permille = fc.integer({ min: 1, max: 1000 });
const days = fc.integer({ min: 1, max: 30 });
const bankIndex = fc.nat(BANKS - 1);
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    type: fc.constant("deposit" as const),
    bank: bankIndex,
    amount: fc.bigInt({ min: 1n, max: 10n ** 10n }),
  }),
  fc.record({ type: fc.constant("withdraw" as const), bank: bankIndex, permille }),
  fc.record({
    type: fc.constant("overWithdraw" as const),
    bank: bankIndex,
    extra: fc.bigInt({ min: 1n, max: 10n ** 6n }),
  }),
  fc.record({
    type: fc.constant("takeNft" as const),
    bank: bankIndex,
    borrower: fc.nat(BORROWERS - 1),
    pick: fc.nat(),
    principalPermille: permille,
    days,
  }),
  fc.record({
    type: fc.constant("takeToken" as const),
    bank: bankIndex,
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
  fc.record({ type: fc.constant("collect" as const), bank: bankIndex }),
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant("donate" as const),
      pick: fc.nat(),
      amount: fc.oneof(fc.constant(1n), fc.bigInt({ min: 1n, max: 10n ** 12n })),
    }),
  },
);

interface ModelLoan {
  address: Address;
  borrower: Wallet;
  pool: WorldPool;
  collateralMint: Address;
}

/** One lender's bank with its nft-pool and defi-pool. */
interface FixtureBank {
  bank: WorldBank;
  nftPool: WorldPool;
  tokenPool: WorldPool;
  /** Currency minted into existence for this bank's mint (never changes). */
  currencyTotal: bigint;
  /** What strangers paid into the vault so far (the books never count it). */
  donated: bigint;
}

interface Fixture {
  world: LendingWorld;
  banks: FixtureBank[];
  collection: Address;
  tokenMints: Address[];
  borrowers: Wallet[];
  nfts: Map<Address, Wallet>;
  liquidator: KeyPairSigner;
  /** A stranger holding every currency and collateral token, who pays into program-owned token accounts. */
  donor: Wallet;
  /** Loans whose escrow a stranger paid into (their endings are counted apart). */
  donatedLoans: Set<Address>;
  loans: ModelLoan[];
  /** Collateral total per mint at the start (never changes). */
  collateralTotals: Map<Address, bigint>;
}

async function createFixture(): Promise<Fixture> {
  const world = await createLendingWorld({ soPath: SO_PATH, depositBaseUnits: INITIAL_DEPOSIT });
  const collection = (await generateKeyPairSigner()).address;
  const tokenMints = [
    await createMint(world.svm, world.admin, 9),
    await createMint(world.svm, world.admin, 6),
  ];
  // bank 0: the world's first bank (6-decimal currency); bank 1: another lender, a 9-decimal currency
  const secondCurrency = await createMint(world.svm, world.admin, 9);
  const worldBanks = [
    world.defaultBank,
    await createBank(world, { currencyMint: secondCurrency, depositBaseUnits: INITIAL_DEPOSIT }),
  ];
  const banks: FixtureBank[] = [];
  for (const [i, bank] of worldBanks.entries()) {
    await mintTo(
      world.svm,
      world.admin,
      bank.currencyMint,
      bank.owner.tokenAccounts.get(bank.currencyMint)!,
      LENDER_CURRENCY,
    );
    banks.push({
      bank,
      nftPool: await createPool(world, {
        bank,
        poolType: "nft-pool",
        collectionIds: [collection],
        loanAprBps: 36_500 - i,
      }),
      tokenPool: await createPool(world, {
        bank,
        poolType: "defi-pool",
        collectionIds: tokenMints,
        loanAprBps: 12_000 + i,
      }),
      currencyTotal:
        INITIAL_DEPOSIT + LENDER_CURRENCY + BORROWER_CURRENCY * BigInt(BORROWERS) + DONOR_BALANCE,
      donated: 0n,
    });
  }
  const borrowers: Wallet[] = [];
  const nfts = new Map<Address, Wallet>();
  const collateralTotals = new Map<Address, bigint>();
  for (let i = 0; i < BORROWERS; i++) {
    const borrower = await createWallet(world.svm, world.admin, [
      ...worldBanks.map((b) => b.currencyMint),
      ...tokenMints,
    ]);
    for (const bank of worldBanks) {
      await mintTo(
        world.svm,
        world.admin,
        bank.currencyMint,
        borrower.tokenAccounts.get(bank.currencyMint)!,
        BORROWER_CURRENCY,
      );
    }
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
      const nft = await mintNft(world, borrower, collection);
      nfts.set(nft, borrower);
      collateralTotals.set(nft, 1n);
    }
    borrowers.push(borrower);
  }
  const donorMints = [...worldBanks.map((b) => b.currencyMint), ...tokenMints];
  const donor = await createWallet(world.svm, world.admin, donorMints);
  for (const mint of donorMints) {
    await mintTo(world.svm, world.admin, mint, donor.tokenAccounts.get(mint)!, DONOR_BALANCE);
    if (tokenMints.includes(mint)) collateralTotals.set(mint, collateralTotals.get(mint)! + DONOR_BALANCE);
  }
  // pool owners receive liquidated collateral: their token accounts exist from the start
  for (const { bank } of banks) {
    for (const mint of collateralTotals.keys()) await tokenAccountOf(world, bank.owner, mint);
  }
  return {
    world,
    banks,
    collection,
    tokenMints,
    borrowers,
    nfts,
    liquidator: await createFundedSigner(world.svm, 10n),
    donor,
    donatedLoans: new Set(),
    loans: [],
    collateralTotals,
  };
}

/** Every wallet that holds tokens: borrowers, bank owners, the treasury, the donor. */
function wallets(f: Fixture): Wallet[] {
  return [...f.borrowers, ...f.banks.map((b) => b.bank.owner), f.world.treasury, f.donor];
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

function balancesSnapshot(f: Fixture): bigint[] {
  const escrows = f.loans.map((l) => readLoan(f.world, l.address).escrow);
  const accounts = [
    ...wallets(f).flatMap((w) => [...w.tokenAccounts.values()]),
    ...escrows,
    ...f.banks.map((b) => b.bank.vault),
  ];
  return accounts.map((a) => getTokenBalance(f.world.svm, a));
}

function ongoing(f: Fixture): ModelLoan[] {
  return f.loans.filter((l) => readLoan(f.world, l.address).status === "Ongoing");
}

function checkInvariants(f: Fixture): void {
  const { world } = f;
  const live = ongoing(f).map((l) => ({ model: l, loan: readLoan(world, l.address) }));
  const sumPrincipal = (loans: typeof live) => loans.reduce((sum, { loan }) => sum + loan.principal, 0n);
  for (const { bank: worldBank, nftPool, tokenPool, currencyTotal, donated } of f.banks) {
    const bank = readBank(world, worldBank);
    // every vault holds exactly its bank's available liquidity, the fees owed to the treasury and what strangers
    // paid into it
    expect(getTokenBalance(world.svm, worldBank.vault)).toBe(
      bank.availableLiquidity + bank.feesOwed + donated,
    );
    const ofBank = live.filter(({ loan }) => loan.bank === worldBank.address);
    expect(bank.totalLiquidity - bank.availableLiquidity - bank.delegatedLiquidity).toBe(
      sumPrincipal(ofBank),
    );
    expect(bank.ongoingLoans).toBe(BigInt(ofBank.length));
    for (const pool of [nftPool, tokenPool]) {
      const mine = live.filter(({ loan }) => loan.pool === pool.address);
      const account = readPool(world, pool.address);
      expect(account.borrowedAmount).toBe(sumPrincipal(mine));
      expect(account.currentLoans).toBe(BigInt(mine.length));
      for (const entry of account.collections) {
        const ofEntry = mine.filter(({ loan }) => loan.collection === entry.id);
        expect(entry.borrowedAmount).toBe(sumPrincipal(ofEntry));
        expect(entry.ongoingLoans).toBe(BigInt(ofEntry.length));
      }
    }
    // no currency created or lost: wallets + vaults + treasury
    const currencyAccounts = wallets(f)
      .map((w) => w.tokenAccounts.get(worldBank.currencyMint))
      .filter((a): a is Address => a !== undefined);
    // (each bank has its own currency, so only its own vault holds this mint)
    const currency = [...currencyAccounts, worldBank.vault].reduce(
      (sum, a) => sum + getTokenBalance(world.svm, a),
      0n,
    );
    expect(currency).toBe(currencyTotal);
  }
  // collateral: borrower wallets + escrows + pool owners' wallets + the donor
  const loans = f.loans.map((l) => readLoan(world, l.address));
  for (const [mint, total] of f.collateralTotals) {
    const holders = [...f.borrowers, ...f.banks.map((b) => b.bank.owner), f.donor]
      .map((w) => w.tokenAccounts.get(mint))
      .filter((a): a is Address => a !== undefined);
    const inWallets = holders.reduce((sum, a) => sum + getTokenBalance(world.svm, a), 0n);
    const inEscrows = loans
      .filter((loan) => loan.collateralMint === mint)
      .reduce((sum, loan) => sum + getTokenBalance(world.svm, loan.escrow), 0n);
    expect(inWallets + inEscrows).toBe(total);
  }
}

const pickOf = <T>(items: T[], pick: number): T | undefined =>
  items.length ? items[pick % items.length] : undefined;

/** How often each outcome happened over the whole run (so the fuzz is known not to be vacuous). */
const outcomes = new Map<string, number>();
const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);

async function runAction(f: Fixture, action: Action): Promise<void> {
  const { world } = f;
  switch (action.type) {
    case "deposit": {
      await deposit(world, action.amount, f.banks[action.bank]!.bank);
      return;
    }
    case "withdraw": {
      const bank = f.banks[action.bank]!.bank;
      const amount = (readBank(world, bank).availableLiquidity * BigInt(action.permille)) / 1000n;
      if (amount > 0n) await withdraw(world, amount, bank);
      return;
    }
    case "overWithdraw": {
      const bank = f.banks[action.bank]!.bank;
      const available = readBank(world, bank).availableLiquidity;
      await expectProgramError(f, "InsufficientLiquidity", () =>
        withdraw(world, available + action.extra, bank),
      );
      count("insufficientLiquidity");
      return;
    }
    case "takeNft":
    case "takeToken": {
      const fixtureBank = f.banks[action.bank]!;
      const available = readBank(world, fixtureBank.bank).availableLiquidity;
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
        [collateralMint, collateralAmount, collection, pool] = [nft, 1n, f.collection, fixtureBank.nftPool];
      } else {
        const mint = f.tokenMints[action.mint]!;
        const balance = getTokenBalance(world.svm, borrower.tokenAccounts.get(mint)!);
        const amount = (balance * BigInt(action.amountPermille)) / 1000n;
        if (amount === 0n) return;
        [collateralMint, collateralAmount, collection, pool] = [mint, amount, mint, fixtureBank.tokenPool];
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
        if (closed) {
          await expectProgramError(f, "LoanNotOngoing", () => repay(world, closed.borrower, closed.address));
          count("loanNotOngoing");
        }
        return;
      }
      await repay(world, loan.borrower, loan.address);
      count("repay");
      if (f.donatedLoans.has(loan.address)) count(`${action.type}AfterDonation`);
      return;
    }
    case "extend": {
      const loan = pickOf(ongoing(f), action.pick);
      if (!loan) return;
      const old = readLoan(world, loan.address);
      const now = getNow(world).unix;
      if (isLiquidatable({ createdAt: old.createdAt, durationSeconds: old.durationSeconds, now })) {
        await expectProgramError(f, "LoanLiquidatable", () =>
          extendLoan(world, {
            pool: loan.pool,
            borrower: loan.borrower,
            oldLoan: loan.address,
            principalBaseUnits: old.principal,
            durationSeconds: old.durationSeconds,
            collateralValueBaseUnits: old.principal * 2n,
          }),
        );
        count("loanLiquidatable");
        return;
      }
      const room = old.principal + readBank(world, loan.pool.bank).availableLiquidity;
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
      if (f.donatedLoans.has(loan.address)) {
        f.donatedLoans.add(address); // the surplus moved into the new escrow
        count(`${action.type}AfterDonation`);
      }
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
        expect(
          getTokenBalance(world.svm, loan.pool.bank.owner.tokenAccounts.get(loan.collateralMint)!),
        ).toBeGreaterThan(0n);
        count("liquidate");
        if (f.donatedLoans.has(loan.address)) count(`${action.type}AfterDonation`);
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
    case "collect": {
      const bank = f.banks[action.bank]!.bank;
      if (readBank(world, bank).feesOwed === 0n) {
        await expectProgramError(f, "NoFeesOwed", () => collectFees(world, bank));
        count("noFeesOwed");
        return;
      }
      await collectFees(world, bank);
      expect(readBank(world, bank).feesOwed).toBe(0n);
      count("collect");
      return;
    }
    case "donate": {
      // a vault, or the escrow of an ongoing token loan (an NFT's escrow can take no more of its mint)
      const targets = [
        ...f.banks.map((b) => ({ account: b.bank.vault, mint: b.bank.currencyMint, bank: b, loan: null })),
        ...ongoing(f)
          .filter((l) => f.tokenMints.includes(l.collateralMint))
          .map((l) => ({
            account: readLoan(world, l.address).escrow,
            mint: l.collateralMint,
            bank: null,
            loan: l,
          })),
      ];
      const target = pickOf(targets, action.pick)!;
      const source = f.donor.tokenAccounts.get(target.mint)!;
      const amount = action.amount > getTokenBalance(world.svm, source) ? 1n : action.amount;
      await sendWithLiteSvm(
        world.svm,
        [getTransferInstruction({ source, destination: target.account, authority: f.donor.signer, amount })],
        f.donor.signer,
      );
      if (target.bank) target.bank.donated += amount;
      if (target.loan) f.donatedLoans.add(target.loan.address);
      count(target.bank ? "donateVault" : "donateEscrow");
      return;
    }
  }
}

describe("invariants under random action sequences", () => {
  it("vault = available liquidity, borrowed = outstanding principal, collateral and currency conserved", async () => {
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 15, maxLength: 55 }), async (actions) => {
        const f = await createFixture();
        checkInvariants(f);
        for (const action of actions) {
          await runAction(f, action);
          checkInvariants(f);
          steps++;
        }
      }),
      { seed: Number(process.env.FUZZ_SEED ?? 5), numRuns: 16, endOnFailure: true },
    );
    expect(steps).toBeGreaterThan(16 * 15 - 1);
    for (const outcome of [
      "takeNft",
      "takeToken",
      "repay",
      "extend",
      "liquidate",
      "notLiquidatable",
      "insufficientLiquidity",
      "donateVault",
      "donateEscrow",
      "collect",
    ]) {
      expect(outcomes.get(outcome) ?? 0, outcome).toBeGreaterThanOrEqual(2);
    }
    // every ending happened after a stranger paid into the loan's escrow
    for (const outcome of ["repayAfterDonation", "extendAfterDonation", "liquidateAfterDonation"]) {
      expect(outcomes.get(outcome) ?? 0, outcome).toBeGreaterThanOrEqual(1);
    }
  }, 180_000);
});
