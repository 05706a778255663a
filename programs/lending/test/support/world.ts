/**
 * A small lending world built through the @cistern/sdk instruction builders: config, a lender's bank
 * with liquidity, an nft-pool and a defi-pool, a borrower holding an NFT and collateral tokens.
 */
import {
  type Attestation,
  decodeBankAccount,
  decodeLoanAccount,
  decodePoolAccount,
  findBankPda,
  findPoolPda,
  findVaultPda,
  getCollectFeesInstruction,
  getCreateBankInstruction,
  getCreatePoolInstruction,
  getDepositInstruction,
  getExtendInstruction,
  getInitializeConfigInstruction,
  getLiquidateInstruction,
  getRefinanceInstruction,
  getRepayInstruction,
  getSetVenuesInstruction,
  getTakeLoanInstruction,
  type LoanTerms,
  NO_VENUE,
  type PoolParams,
  type PoolType,
} from "@cistern/sdk";
import { type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from "@solana/kit";
import { Harness, type HarnessDeploy } from "./harness.ts";
import { expectOk } from "./kit.ts";
import { createMint, createNft, createTokenAccount, fundedTokenAccount } from "./tokens.ts";

/** USDC-like currency: 6 decimals, 1 USD = 1_000_000 micro-USD per whole token. */
export const USD_PRICE = 1_000_000n;
export const DECIMALS = 6;
export const ONE = 1_000_000n;
export const DEPOSIT = 10_000n * ONE;
export const APR_BPS = 5000;
export const DAY = 86_400n;

/** Pool params with one entry; override what a test needs. */
export function poolParams(id: Address, overrides: Partial<PoolParams> = {}): PoolParams {
  return {
    flags: { autoSell: false, mortgage: false, compounding: false },
    loanAprBps: APR_BPS,
    mortgageAprBps: 0,
    maxDurationSeconds: 30n * DAY,
    minAmountMicroUsd: 10n * USD_PRICE,
    maxAmountMicroUsd: 5_000n * USD_PRICE,
    conditions: {
      isEnabled: false,
      whitelistEnabled: false,
      liquidationThresholdBps: 0,
      minAgeSeconds: 0n,
      minLoanCount: 0n,
      minVolumeMicroUsd: 0n,
      whitelist: null,
    },
    collections: [{ id, ltvBps: 5000, exposureBps: 5000 }],
    ...overrides,
  };
}

export interface World {
  h: Harness;
  program: Address;
  admin: KeyPairSigner;
  oracle: KeyPairSigner;
  treasury: KeyPairSigner;
  treasuryAta: Address;
  currency: Address;
  lender: KeyPairSigner;
  lenderAta: Address;
  bank: Address;
  vault: Address;
  collection: Address;
  nftPool: Address;
  defiPool: Address;
  collateralMint: Address;
  borrower: KeyPairSigner;
  borrowerAta: Address;
  nft: { mint: Address; account: Address };
  borrowerCollateralAta: Address;
}

/** Builds the world; `deposit` base units go into the lender's bank. */
export async function buildWorld(deposit = DEPOSIT, deploy: HarnessDeploy = {}): Promise<World> {
  const h = await Harness.create(undefined, deploy);
  const program = h.programId;
  const admin = h.upgradeAuthority;
  const [oracle, treasury, lender, borrower] = await Promise.all([
    h.wallet(),
    h.wallet(),
    h.wallet(),
    h.wallet(),
  ]);
  await h.send([
    await getInitializeConfigInstruction({
      programAddress: program,
      admin,
      oracle: oracle.address,
      treasury: treasury.address,
      protocolFeeBps: 2000,
    }),
  ]);
  const currency = await createMint(h, DECIMALS);
  const treasuryAta = await createTokenAccount(h, currency, treasury.address);
  const { lenderAta, bank, vault } = await openBank(h, lender, currency, deposit);
  const collection = (await generateKeyPairSigner()).address;
  const collateralMint = await createMint(h, 9);
  const nftPool = await createPool(h, lender, currency, "nft-pool", 1n, poolParams(collection));
  const defiPool = await createPool(h, lender, currency, "defi-pool", 2n, poolParams(collateralMint));
  const borrowerAta = await fundedTokenAccount(h, currency, borrower.address, 1_000n * ONE);
  const nft = await createNft(h, borrower.address, collection);
  const borrowerCollateralAta = await fundedTokenAccount(
    h,
    collateralMint,
    borrower.address,
    1_000_000_000_000n,
  );
  return {
    h,
    program,
    admin,
    oracle,
    treasury,
    treasuryAta,
    currency,
    lender,
    lenderAta,
    bank,
    vault,
    collection,
    nftPool,
    defiPool,
    collateralMint,
    borrower,
    borrowerAta,
    nft,
    borrowerCollateralAta,
  };
}

/** `lender`'s bank of `currency` holding `deposit` (its currency account keeps as much again). */
async function openBank(h: Harness, lender: KeyPairSigner, currency: Address, deposit: bigint) {
  const program = h.programId;
  const lenderAta = await fundedTokenAccount(h, currency, lender.address, deposit + DEPOSIT);
  await h.send([await getCreateBankInstruction({ programAddress: program, owner: lender, mint: currency })]);
  const [bank] = await findBankPda(program, lender.address, currency);
  const [vault] = await findVaultPda(program, bank);
  if (deposit > 0n) {
    await h.send([
      await getDepositInstruction({
        programAddress: program,
        owner: lender,
        mint: currency,
        sourceTokenAccount: lenderAta,
        amountBaseUnits: deposit,
      }),
    ]);
  }
  return { lenderAta, bank, vault };
}

/** Another lender of the world's currency, with a bank and an nft-pool listing `collection` (a Refinance target). */
export async function otherLenderPool(w: World, collection: Address) {
  const lender = await w.h.wallet();
  const { bank } = await openBank(w.h, lender, w.currency, DEPOSIT);
  const pool = await createPool(w.h, lender, w.currency, "nft-pool", 1n, poolParams(collection));
  return { lender, bank, pool };
}

export async function createPool(
  h: Harness,
  owner: KeyPairSigner,
  currency: Address,
  poolType: PoolType,
  seed: bigint,
  params: PoolParams,
): Promise<Address> {
  await h.send([
    await getCreatePoolInstruction({
      programAddress: h.programId,
      owner,
      currencyMint: currency,
      poolType,
      seed,
      params,
    }),
  ]);
  const [pool] = await findPoolPda(h.programId, owner.address, seed);
  return pool;
}

/** The world with a new NFT (same collection) held by the borrower, for a further loan. */
export async function withFreshNft(w: World): Promise<World> {
  return { ...w, nft: await createNft(w.h, w.borrower.address, w.collection) };
}

/** Attestation for the current slot; collateral worth 1000 USD, a well-established borrower. */
export function attestation(w: World, overrides: Partial<Attestation> = {}): Attestation {
  return {
    collateralValueBaseUnits: 1_000n * ONE,
    collection: w.collection,
    currencyPriceMicroUsd: USD_PRICE,
    walletAgeSeconds: 365n * DAY,
    pastLoans: 10n,
    volumeMicroUsd: 100_000n * USD_PRICE,
    slot: w.h.slot,
    ...overrides,
  };
}

let nonceCounter = 1n;

/** Loan terms against the world's NFT: 100 USDC for 7 days. */
export function nftTerms(w: World, overrides: Partial<LoanTerms> = {}): LoanTerms {
  return {
    nonce: nonceCounter++,
    principalBaseUnits: 100n * ONE,
    durationSeconds: 7n * DAY,
    collateralAmountBaseUnits: 1n,
    expectedAprBps: APR_BPS,
    attestation: attestation(w),
    ...overrides,
  };
}

/** TakeLoan instruction against the world's NFT (nft-pool). */
export function nftLoanIx(
  w: World,
  terms: LoanTerms = nftTerms(w),
  extra: { whitelist?: Address; pool?: Address } = {},
): Promise<Instruction & { loan: Address; escrow: Address }> {
  return getTakeLoanInstruction({
    programAddress: w.program,
    borrower: w.borrower,
    oracle: w.oracle,
    pool: extra.pool ?? w.nftPool,
    poolType: "nft-pool",
    bank: w.bank,
    collateralMint: w.nft.mint,
    borrowerCollateralTokenAccount: w.nft.account,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    whitelist: extra.whitelist ?? null,
    ...terms,
  });
}

/** TakeLoan instruction against an NFT `mint` held in `account`, valued in `collection` (nft-pool `pool`); the
 * tests of the other standards adjust its accounts and data bytes for their custody. */
export function nftLoanIxFor(
  w: World,
  nft: { mint: Address; account: Address; collection: Address; pool: Address },
): Promise<Instruction & { loan: Address; escrow: Address }> {
  return getTakeLoanInstruction({
    programAddress: w.program,
    borrower: w.borrower,
    oracle: w.oracle,
    pool: nft.pool,
    poolType: "nft-pool",
    bank: w.bank,
    collateralMint: nft.mint,
    borrowerCollateralTokenAccount: nft.account,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    whitelist: null,
    ...nftTerms(w, { attestation: attestation(w, { collection: nft.collection }) }),
  });
}

/** Extend of `oldLoan` (in `oldPool`) against `mint` of `collection`, or, given a target pool, Refinance into it; the
 * tests of the other standards adjust its accounts for their custody. */
export function moveLoanIx(
  w: World,
  m: {
    mint: Address;
    collection: Address;
    oldLoan: Address;
    oldPool: Address;
    target?: { pool: Address; bank: Address };
  },
): Promise<Instruction & { loan: Address; escrow: Address }> {
  const input = {
    programAddress: w.program,
    borrower: w.borrower,
    oracle: w.oracle,
    pool: m.target?.pool ?? m.oldPool,
    bank: m.target?.bank ?? w.bank,
    collateralMint: m.mint,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    oldLoan: m.oldLoan,
    ...nftTerms(w, { attestation: attestation(w, { collection: m.collection }) }),
  };
  return m.target
    ? getRefinanceInstruction({ ...input, oldPool: m.oldPool, oldBank: w.bank })
    : getExtendInstruction(input);
}

/** TakeLoan instruction pledging `amount` collateral tokens (defi-pool). */
export function tokenLoanIx(
  w: World,
  amount: bigint,
  overrides: Partial<LoanTerms> = {},
): Promise<Instruction & { loan: Address; escrow: Address }> {
  return getTakeLoanInstruction({
    programAddress: w.program,
    borrower: w.borrower,
    oracle: w.oracle,
    pool: w.defiPool,
    poolType: "defi-pool",
    bank: w.bank,
    collateralMint: w.collateralMint,
    borrowerCollateralTokenAccount: w.borrowerCollateralAta,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    ...nftTerms(w, {
      collateralAmountBaseUnits: amount,
      attestation: attestation(w, { collection: w.collateralMint }),
      ...overrides,
    }),
  });
}

/** Repay instruction for a loan of the world's borrower. */
export function repayIx(w: World, loan: Address, pool = w.nftPool, collateralAta = w.nft.account) {
  return getRepayInstruction({
    programAddress: w.program,
    borrower: w.borrower,
    pool,
    bank: w.bank,
    loan,
    borrowerCollateralTokenAccount: collateralAta,
    borrowerCurrencyTokenAccount: w.borrowerAta,
  });
}

/** CollectFees instruction moving the world bank's feesOwed to `treasuryAccount` (the treasury's by default). */
export function collectFeesIx(w: World, treasuryAccount = w.treasuryAta, bank = w.bank) {
  return getCollectFeesInstruction({
    programAddress: w.program,
    bank,
    treasuryCurrencyTokenAccount: treasuryAccount,
  });
}

/** Liquidate instruction sending the collateral to `dest` (a token account of the pool owner). */
export function liquidateIx(
  w: World,
  liquidator: KeyPairSigner,
  loan: Address,
  dest: Address,
  pool = w.nftPool,
) {
  return getLiquidateInstruction({
    programAddress: w.program,
    liquidator,
    pool,
    bank: w.bank,
    loan,
    poolOwnerCollateralTokenAccount: dest,
  });
}

export const bankOf = (w: World) => decodeBankAccount(w.h.data(w.bank));
export const poolOf = (w: World, pool = w.nftPool) => decodePoolAccount(w.h.data(pool));
export const loanOf = (w: World, loan: Address) => decodeLoanAccount(w.h.data(loan));

/** Deploys the NFT market's build (`so`) at `market` and pins it in the lending program's Venues (the admin signs). */
export async function pinMarket(w: World, market: Address, so: Uint8Array): Promise<void> {
  w.h.svm.addProgram(market, so);
  expectOk(
    await w.h.trySend(
      [
        await getSetVenuesInstruction({
          programAddress: w.program,
          admin: w.admin,
          swapProgram: NO_VENUE,
          marketProgram: market,
        }),
      ],
      w.admin,
    ),
  );
}
