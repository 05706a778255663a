/**
 * A small Cistern world on LiteSVM built only with the sdk's instruction builders: the lending program
 * deployed through the upgradeable loader under a fresh id (the admin is its upgrade authority), a config (oracle, treasury), a currency, a lender's bank and pools, borrowers
 * with collateral. Used by the sdk's tests and the program's differential / invariant tests.
 */
import { readFileSync } from "node:fs";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { type BankAccount, decodeBankAccount } from "../accounts/bank.ts";
import { decodeLoanAccount, type LoanAccount } from "../accounts/loan.ts";
import { decodePoolAccount, type PoolAccount, type PoolType } from "../accounts/pool.ts";
import {
  getCollectFeesInstruction,
  getCreateBankInstruction,
  getDepositInstruction,
  getWithdrawInstruction,
} from "../instructions/bank-instructions.ts";
import { getInitializeConfigInstruction } from "../instructions/config-instructions.ts";
import {
  getExtendInstruction,
  getLiquidateInstruction,
  getRefinanceInstruction,
  getRepayInstruction,
  getTakeLoanInstruction,
  type VenuePull,
} from "../instructions/loan-instructions.ts";
import { getCreatePoolInstruction, type PoolParams } from "../instructions/pool-instructions.ts";
import { findBankPda, findVaultPda } from "../pda.ts";
import {
  createFundedSigner,
  createMint,
  createTestSvm,
  createTokenAccount,
  deployUpgradeableProgram,
  getAccountData,
  mintTo,
  sendWithLiteSvm,
  setClock,
  setNftMetadata,
} from "./litesvm-harness.ts";

/** The protocol fee the world's config uses (the shared contract: 2000 bps). */
export const WORLD_PROTOCOL_FEE_BPS = 2000;
/** Unix time the world starts at. */
export const WORLD_START_UNIX = 1_750_000_000n;
/** Slot the world starts at (attestations are made at the current slot). */
export const WORLD_START_SLOT = 1_000n;

/** A participant with a wallet and token accounts by mint. */
export interface Wallet {
  signer: KeyPairSigner;
  tokenAccounts: Map<Address, Address>;
}

/** A lender's bank the world created. */
export interface WorldBank {
  owner: Wallet;
  currencyMint: Address;
  address: Address;
  vault: Address;
}

/** A pool the world created. */
export interface WorldPool {
  address: Address;
  /** The bank the pool draws on (its owner is the pool owner). */
  bank: WorldBank;
  poolType: PoolType;
  /** Accepted collection ids (nft) or collateral mints (defi). */
  collectionIds: Address[];
  loanAprBps: number;
}

/** The lending world. */
export interface LendingWorld {
  svm: LiteSVM;
  programAddress: Address;
  admin: KeyPairSigner;
  oracle: KeyPairSigner;
  treasury: Wallet;
  currencyMint: Address;
  lender: Wallet;
  bank: Address;
  vault: Address;
  /** Next pool seed / loan nonce the world hands out (each pool and loan PDA is new). */
  counters: { poolSeed: bigint; loanNonce: bigint };
  /** The first bank (lender, currencyMint, bank, vault above); more with {@link createBank}. */
  defaultBank: WorldBank;
  /** Every pool created, by address. */
  pools: Map<Address, WorldPool>;
}

/**
 * Deploys the program from `soPath` (upgrade authority = the admin), initialises the config and creates the lender's bank for a 6-decimal
 * currency with `depositBaseUnits` deposited.
 */
export async function createLendingWorld(input: {
  soPath: string;
  depositBaseUnits: bigint;
}): Promise<LendingWorld> {
  const svm = createTestSvm();
  // the admin deploys through the upgradeable loader and so holds the upgrade authority InitializeConfig asks for
  const admin = await createFundedSigner(svm, 10_000n);
  const programAddress = await deployUpgradeableProgram(svm, {
    programBytes: new Uint8Array(readFileSync(input.soPath)),
    authority: admin,
  });
  setClock(svm, { slot: WORLD_START_SLOT, unixTimestamp: WORLD_START_UNIX });
  const oracle = await generateKeyPairSigner();
  const treasurySigner = await createFundedSigner(svm, 1n);
  await sendWithLiteSvm(
    svm,
    [
      await getInitializeConfigInstruction({
        programAddress,
        admin,
        oracle: oracle.address,
        treasury: treasurySigner.address,
        protocolFeeBps: WORLD_PROTOCOL_FEE_BPS,
      }),
    ],
    admin,
  );
  const currencyMint = await createMint(svm, admin, 6);
  const treasury: Wallet = { signer: treasurySigner, tokenAccounts: new Map() };
  treasury.tokenAccounts.set(
    currencyMint,
    await createTokenAccount(svm, admin, currencyMint, treasurySigner.address),
  );
  const lender = await createWallet(svm, admin, [currencyMint]);
  await mintTo(svm, admin, currencyMint, lender.tokenAccounts.get(currencyMint)!, input.depositBaseUnits);
  const defaultBank = await openBank(svm, programAddress, lender, currencyMint);
  const world: LendingWorld = {
    svm,
    programAddress,
    admin,
    oracle,
    treasury,
    currencyMint,
    lender,
    bank: defaultBank.address,
    vault: defaultBank.vault,
    counters: { poolSeed: 1n, loanNonce: 1n },
    defaultBank,
    pools: new Map(),
  };
  if (input.depositBaseUnits > 0n) await deposit(world, input.depositBaseUnits);
  return world;
}

async function openBank(
  svm: LiteSVM,
  programAddress: Address,
  owner: Wallet,
  currencyMint: Address,
): Promise<WorldBank> {
  await sendWithLiteSvm(
    svm,
    [await getCreateBankInstruction({ programAddress, owner: owner.signer, mint: currencyMint })],
    owner.signer,
  );
  const [address] = await findBankPda(programAddress, owner.signer.address, currencyMint);
  const [vault] = await findVaultPda(programAddress, address);
  return { owner, currencyMint, address, vault };
}

/**
 * Creates another bank: `owner` (default: a new wallet) for `currencyMint`, with `depositBaseUnits` minted to
 * the owner and deposited.
 */
export async function createBank(
  world: LendingWorld,
  input: { currencyMint: Address; owner?: Wallet; depositBaseUnits: bigint },
): Promise<WorldBank> {
  const owner = input.owner ?? (await createWallet(world.svm, world.admin, []));
  const ownerCurrency = await tokenAccountOf(world, owner, input.currencyMint);
  await tokenAccountOf(world, world.treasury, input.currencyMint);
  if (input.depositBaseUnits > 0n) {
    await mintTo(world.svm, world.admin, input.currencyMint, ownerCurrency, input.depositBaseUnits);
  }
  const bank = await openBank(world.svm, world.programAddress, owner, input.currencyMint);
  if (input.depositBaseUnits > 0n) await deposit(world, input.depositBaseUnits, bank);
  return bank;
}

/** A funded wallet with a token account for each mint. */
export async function createWallet(svm: LiteSVM, payer: KeyPairSigner, mints: Address[]): Promise<Wallet> {
  const signer = await createFundedSigner(svm, 100n);
  const tokenAccounts = new Map<Address, Address>();
  for (const mint of mints)
    tokenAccounts.set(mint, await createTokenAccount(svm, payer, mint, signer.address));
  return { signer, tokenAccounts };
}

/** Token account of `wallet` for `mint` (created on first use). */
export async function tokenAccountOf(world: LendingWorld, wallet: Wallet, mint: Address): Promise<Address> {
  let account = wallet.tokenAccounts.get(mint);
  if (!account) {
    account = await createTokenAccount(world.svm, world.admin, mint, wallet.signer.address);
    wallet.tokenAccounts.set(mint, account);
  }
  return account;
}

/** The bank owner deposits from its currency token account (default: the world's first bank). */
export async function deposit(
  world: LendingWorld,
  amountBaseUnits: bigint,
  bank: WorldBank = world.defaultBank,
): Promise<void> {
  await sendWithLiteSvm(
    world.svm,
    [
      await getDepositInstruction({
        programAddress: world.programAddress,
        owner: bank.owner.signer,
        mint: bank.currencyMint,
        sourceTokenAccount: bank.owner.tokenAccounts.get(bank.currencyMint)!,
        amountBaseUnits,
      }),
    ],
    bank.owner.signer,
  );
}

/** The bank owner withdraws to its currency token account (default: the world's first bank). */
export async function withdraw(
  world: LendingWorld,
  amountBaseUnits: bigint,
  bank: WorldBank = world.defaultBank,
): Promise<void> {
  await sendWithLiteSvm(
    world.svm,
    [
      await getWithdrawInstruction({
        programAddress: world.programAddress,
        owner: bank.owner.signer,
        mint: bank.currencyMint,
        destinationTokenAccount: bank.owner.tokenAccounts.get(bank.currencyMint)!,
        amountBaseUnits,
      }),
    ],
    bank.owner.signer,
  );
}

/** Anyone (the admin here) moves the bank's feesOwed to the treasury's token account of its currency. */
export async function collectFees(world: LendingWorld, bank: WorldBank = world.defaultBank): Promise<void> {
  await sendWithLiteSvm(
    world.svm,
    [
      await getCollectFeesInstruction({
        programAddress: world.programAddress,
        bank: bank.address,
        treasuryCurrencyTokenAccount: await tokenAccountOf(world, world.treasury, bank.currencyMint),
      }),
    ],
    world.admin,
  );
}

/** Default open pool params: one year max, no USD floor, 10^13 micro-USD ceiling, no conditions. */
export function createPoolParams(collections: PoolParams["collections"], loanAprBps: number): PoolParams {
  return {
    flags: { autoSell: false, mortgage: false, compounding: false },
    loanAprBps,
    mortgageAprBps: 0,
    maxDurationSeconds: 31_536_000n,
    minAmountMicroUsd: 0n,
    maxAmountMicroUsd: 10_000_000_000_000n,
    conditions: {
      isEnabled: false,
      whitelistEnabled: false,
      liquidationThresholdBps: 0,
      minAgeSeconds: 0n,
      minLoanCount: 0n,
      minVolumeMicroUsd: 0n,
      whitelist: null,
    },
    collections,
  };
}

/** A bank owner publishes a pool (default: the first bank; LTV and exposure 100% unless given). */
export async function createPool(
  world: LendingWorld,
  input: {
    poolType: PoolType;
    collectionIds: Address[];
    loanAprBps: number;
    ltvBps?: number;
    exposureBps?: number;
    bank?: WorldBank;
    /** Sell the collateral at liquidation (LiquidateSell) instead of handing it to the owner. */
    autoSell?: boolean;
    /** Offer mortgages (nft-pool) at this APR, basis points. */
    mortgageAprBps?: number;
  },
): Promise<WorldPool> {
  const bank = input.bank ?? world.defaultBank;
  const seed = world.counters.poolSeed++;
  const ix = await getCreatePoolInstruction({
    programAddress: world.programAddress,
    owner: bank.owner.signer,
    currencyMint: bank.currencyMint,
    poolType: input.poolType,
    seed,
    params: {
      ...createPoolParams(
        input.collectionIds.map((id) => ({
          id,
          ltvBps: input.ltvBps ?? 10_000,
          exposureBps: input.exposureBps ?? 10_000,
        })),
        input.loanAprBps,
      ),
      flags: {
        autoSell: input.autoSell ?? false,
        mortgage: input.mortgageAprBps !== undefined,
        compounding: false,
      },
      mortgageAprBps: input.mortgageAprBps ?? 0,
    },
  });
  await sendWithLiteSvm(world.svm, [ix], bank.owner.signer);
  const pool: WorldPool = {
    address: ix.accounts![1]!.address,
    bank,
    poolType: input.poolType,
    collectionIds: input.collectionIds,
    loanAprBps: input.loanAprBps,
  };
  world.pools.set(pool.address, pool);
  return pool;
}

/** Current unix time and slot of the world's clock. */
export function getNow(world: LendingWorld): { unix: bigint; slot: bigint } {
  const clock = world.svm.getClock();
  return { unix: clock.unixTimestamp, slot: clock.slot };
}

/** Moves the clock to `unix` (slot unchanged, so attestations stay fresh). */
export function setUnixTime(world: LendingWorld, unix: bigint): void {
  setClock(world.svm, { unixTimestamp: unix });
}

/** Terms of a loan the world opens. */
export interface WorldLoanInput {
  pool: WorldPool;
  borrower: Wallet;
  collateralMint: Address;
  /** nft: the NFT's collection id; defi: the collateral mint. */
  collection: Address;
  collateralAmountBaseUnits: bigint;
  collateralValueBaseUnits: bigint;
  principalBaseUnits: bigint;
  durationSeconds: bigint;
  /** Pull what the bank lacks from its lending venue position. */
  pullFromVenue?: VenuePull;
  /** Called with the transaction's compute units. */
  onSent?: (computeUnits: bigint) => void;
}

/** Borrower takes a loan with an oracle attestation at the current slot. Returns the loan address. */
export async function takeLoan(world: LendingWorld, input: WorldLoanInput): Promise<Address> {
  const nonce = world.counters.loanNonce++;
  const ix = await getTakeLoanInstruction({
    programAddress: world.programAddress,
    borrower: input.borrower.signer,
    oracle: world.oracle,
    pool: input.pool.address,
    poolType: input.pool.poolType,
    bank: input.pool.bank.address,
    collateralMint: input.collateralMint,
    borrowerCollateralTokenAccount: await tokenAccountOf(world, input.borrower, input.collateralMint),
    borrowerCurrencyTokenAccount: await tokenAccountOf(world, input.borrower, input.pool.bank.currencyMint),
    nonce,
    principalBaseUnits: input.principalBaseUnits,
    durationSeconds: input.durationSeconds,
    collateralAmountBaseUnits: input.collateralAmountBaseUnits,
    expectedAprBps: input.pool.loanAprBps,
    attestation: attest(world, input),
    pullFromVenue: input.pullFromVenue ?? null,
  });
  const sent = await sendWithLiteSvm(world.svm, [ix], input.borrower.signer);
  input.onSent?.(sent.computeUnits);
  return ix.loan;
}

/** An attestation of the world's oracle at the current slot (1 USD per currency unit, no borrower history). */
export function attest(
  world: LendingWorld,
  input: { collection: Address; collateralValueBaseUnits: bigint },
) {
  return {
    collateralValueBaseUnits: input.collateralValueBaseUnits,
    collection: input.collection,
    currencyPriceMicroUsd: 1_000_000n,
    walletAgeSeconds: 0n,
    pastLoans: 0n,
    volumeMicroUsd: 0n,
    slot: getNow(world).slot,
  };
}

/** Borrower repays a loan. */
export async function repay(world: LendingWorld, borrower: Wallet, loanAddress: Address): Promise<void> {
  const loan = readLoan(world, loanAddress);
  await sendWithLiteSvm(
    world.svm,
    [
      await getRepayInstruction({
        programAddress: world.programAddress,
        borrower: borrower.signer,
        pool: loan.pool,
        bank: loan.bank,
        loan: loanAddress,
        borrowerCollateralTokenAccount: await tokenAccountOf(world, borrower, loan.collateralMint),
        borrowerCurrencyTokenAccount: await tokenAccountOf(world, borrower, loan.currencyMint),
      }),
    ],
    borrower.signer,
  );
}

/** Borrower extends a loan into a new one. Returns the new loan address. */
export async function extendLoan(
  world: LendingWorld,
  input: {
    pool: WorldPool;
    borrower: Wallet;
    oldLoan: Address;
    principalBaseUnits: bigint;
    durationSeconds: bigint;
    collateralValueBaseUnits: bigint;
  },
): Promise<Address> {
  const old = readLoan(world, input.oldLoan);
  const ix = await getExtendInstruction({
    programAddress: world.programAddress,
    borrower: input.borrower.signer,
    oracle: world.oracle,
    pool: input.pool.address,
    bank: input.pool.bank.address,
    collateralMint: old.collateralMint,
    oldLoan: input.oldLoan,
    borrowerCurrencyTokenAccount: await tokenAccountOf(world, input.borrower, old.currencyMint),
    nonce: world.counters.loanNonce++,
    principalBaseUnits: input.principalBaseUnits,
    durationSeconds: input.durationSeconds,
    collateralAmountBaseUnits: old.collateralAmount,
    expectedAprBps: input.pool.loanAprBps,
    attestation: attest(world, {
      collection: old.collection,
      collateralValueBaseUnits: input.collateralValueBaseUnits,
    }),
  });
  await sendWithLiteSvm(world.svm, [ix], input.borrower.signer);
  return ix.loan;
}

/** Borrower moves a loan to another pool of the same currency (Refinance). Returns the new loan. */
export async function refinanceLoan(
  world: LendingWorld,
  input: {
    pool: WorldPool;
    borrower: Wallet;
    oldLoan: Address;
    principalBaseUnits: bigint;
    durationSeconds: bigint;
    collateralValueBaseUnits: bigint;
  },
): Promise<Address> {
  const old = readLoan(world, input.oldLoan);
  const ix = await getRefinanceInstruction({
    programAddress: world.programAddress,
    borrower: input.borrower.signer,
    oracle: world.oracle,
    pool: input.pool.address,
    bank: input.pool.bank.address,
    collateralMint: old.collateralMint,
    oldLoan: input.oldLoan,
    oldPool: old.pool,
    oldBank: old.bank,
    borrowerCurrencyTokenAccount: await tokenAccountOf(world, input.borrower, old.currencyMint),
    nonce: world.counters.loanNonce++,
    principalBaseUnits: input.principalBaseUnits,
    durationSeconds: input.durationSeconds,
    collateralAmountBaseUnits: old.collateralAmount,
    expectedAprBps: input.pool.loanAprBps,
    attestation: attest(world, {
      collection: old.collection,
      collateralValueBaseUnits: input.collateralValueBaseUnits,
    }),
  });
  await sendWithLiteSvm(world.svm, [ix], input.borrower.signer);
  return ix.loan;
}

/** Anyone liquidates a loan; the collateral goes to the pool owner's token account. */
export async function liquidate(
  world: LendingWorld,
  liquidator: KeyPairSigner,
  loanAddress: Address,
): Promise<void> {
  const loan = readLoan(world, loanAddress);
  const pool = world.pools.get(loan.pool);
  if (!pool) throw new Error(`pool ${loan.pool} was not created by this world`);
  await sendWithLiteSvm(
    world.svm,
    [
      await getLiquidateInstruction({
        programAddress: world.programAddress,
        liquidator,
        pool: loan.pool,
        bank: loan.bank,
        loan: loanAddress,
        poolOwnerCollateralTokenAccount: await tokenAccountOf(world, pool.bank.owner, loan.collateralMint),
      }),
    ],
    liquidator,
  );
}

/** Decoded Loan account (throws when missing). */
export function readLoan(world: LendingWorld, address: Address): LoanAccount {
  const data = getAccountData(world.svm, address);
  if (!data) throw new Error(`loan ${address} not found`);
  return decodeLoanAccount(data);
}

/** Decoded Bank account (default: the world's first bank). */
export function readBank(world: LendingWorld, bank: WorldBank = world.defaultBank): BankAccount {
  return decodeBankAccount(getAccountData(world.svm, bank.address)!);
}

/** Decoded Pool account. */
export function readPool(world: LendingWorld, address: Address): PoolAccount {
  return decodePoolAccount(getAccountData(world.svm, address)!);
}

/**
 * Creates an NFT (0 decimals, supply 1) owned by `owner`, with Metaplex metadata naming `collection` as its
 * verified collection (`null`: no metadata). Returns its mint.
 */
export async function mintNft(
  world: LendingWorld,
  owner: Wallet,
  collection: Address | null,
): Promise<Address> {
  const mint = await createMint(world.svm, world.admin, 0);
  await mintTo(world.svm, world.admin, mint, await tokenAccountOf(world, owner, mint), 1n);
  if (collection !== null) await setNftMetadata(world.svm, mint, { key: collection, verified: true });
  return mint;
}
