import { randomBytes } from "node:crypto";
import { computeOwedInterest, marginfiBankRefusal } from "@cistern/protocol";
import {
  address,
  getExtendInstruction,
  getRepayInstruction,
  getTakeLoanInstruction,
  type LoanAccount,
  type NftCustody,
  type VenuePull,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import type { BankDelegation } from "../../venues/lending/lending-venue.ts";
import { toVenuePull } from "../../venues/lending/local-lending-venue.ts";
import { withMarginfiPull } from "../../venues/lending/marginfi-delegation-instructions.ts";
import { resolveNft } from "../calculator/collateral.ts";
import type { PoolOffer } from "../calculator/pool-selection.ts";
import { type QuoteJson, quoteLoan, quoteLoanFresh } from "../calculator/quote-service.ts";
import { createAttestation } from "../oracle/attestation.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, loanNotOngoing, marginfiRefused, unprocessable } from "../tx-errors.ts";
import { currencyFlow } from "./currency-flows.ts";
import { asksRuleSet, describeLoanLoad, readCustody, readLoanCustody } from "./nft-custody.ts";
import { requireOngoingLoan } from "./ongoing-loan.ts";
import type { BuildPlan } from "./route-kit.ts";
import {
  createAssociatedTokenIdempotent,
  findAssociatedTokenAddress,
  NATIVE_MINT,
} from "./wire-instructions.ts";

/** What the costs a build answers call the accounts its transaction opens or closes. */
export const ACCOUNT_NAMES = {
  loan: "the loan",
  loanNft: "the loan's NFT account",
  yourNft: "your NFT account",
  poolOwnerNft: "the pool owner's NFT account",
  currency: "your currency account",
  bidderNft: "the bidder's NFT account",
  sellerCurrency: "the seller's currency account",
} as const;

/** Seconds of interest accrual the SOL wrapped for a repayment covers beyond now (the rest is unwrapped). */
export const REPAY_MARGIN_SECONDS = 2 * 3600;

/** Take-loan request after parsing. */
export interface TakeLoanInput {
  borrower: string;
  /** nft: the NFT mint; defi: the collateral token mint. */
  collateralMint: string;
  /** 1 for an NFT. */
  collateralAmount: bigint;
  durationSeconds: number;
  amount?: bigint;
  pool?: string;
  currency?: string;
}

/** A random u64 making a new loan PDA. */
export const randomNonce = () => randomBytes(8).readBigUInt64LE(0);

/** Refuses (400) a borrower that is the oracle: the oracle would co-sign as borrower and fee payer. */
export function requireNotOracle(tx: TxContext, field: string, value: string): void {
  if (value === tx.oracle.address) throw badRequest(`${field} must not be the oracle's address`);
}

/** Owed interest of `loan` at `now` (shared maths). */
export function owedAt(loan: LoanAccount, now: number): bigint {
  return computeOwedInterest({
    aprBps: loan.aprBps,
    principal: loan.principal,
    durationSeconds: loan.durationSeconds,
    createdAt: loan.createdAt,
    now,
  });
}

/**
 * TakeLoan: picks the best pool (or the one asked for), has the oracle attest the collateral and the
 * borrower, and builds the co-signed transaction (borrower currency ATA and the pool owner's collateral ATA
 * created when missing; SOL unwrapped after).
 */
export async function takeLoanPlan(tx: TxContext, isDefi: boolean, input: TakeLoanInput): Promise<BuildPlan> {
  requireNotOracle(tx, "borrower", input.borrower);
  const borrower = address(input.borrower);
  let collection = input.collateralMint;
  let collateralAccount: Address;
  let custody: NftCustody = { standard: "Nft" };
  if (isDefi) {
    collateralAccount = await findAssociatedTokenAddress(borrower, address(input.collateralMint));
  } else {
    // a Core asset is its own account: resolveNft reads its owner and collection from it
    const nft = await resolveNft(tx, input.collateralMint, input.borrower);
    collection = nft.collection;
    collateralAccount = nft.ownerTokenAccount!;
    // a compressed NFT's custody (with its proof) was read from DAS just now
    custody = nft.compressed ?? (await readCustody(tx, address(input.collateralMint), collateralAccount));
  }
  const request = {
    poolType: isDefi ? ("defi-pool" as const) : ("nft-pool" as const),
    collateralId: collection,
    collateralAmount: input.collateralAmount,
    durationSeconds: input.durationSeconds,
    borrower: input.borrower,
    ...(input.amount !== undefined ? { amount: input.amount } : {}),
    ...(input.currency !== undefined ? { currency: input.currency } : {}),
  };
  // The best pool is chosen on the cached snapshot, then decided again on its fresh on-chain state.
  const { offer, valuation, quote } = await quoteLoanFresh(tx, {
    ...request,
    ...(input.pool !== undefined ? { pool: input.pool } : {}),
  });
  const attestation = await createAttestation(tx, { offer, collection, borrower: input.borrower, valuation });
  const currency = offer.account.currencyMint;
  const flow = await currencyFlow(borrower, currency);
  // a compressed NFT's proof and metadata fill the packet: the borrower's token account is created only when missing
  if (custody.standard === "CompressedNft" && currency !== NATIVE_MINT) {
    const [existing] = await tx.state.getAccounts([flow.tokenAccount]);
    if (existing) flow.before = [];
  }
  const pull = await venuePullFor(tx, offer);
  const built = await getTakeLoanInstruction({
    poolType: offer.account.poolType,
    programAddress: tx.programId,
    borrower,
    oracle: tx.oracle.address,
    pool: address(offer.pool),
    bank: address(offer.bankAddress),
    collateralMint: address(input.collateralMint),
    borrowerCollateralTokenAccount: collateralAccount,
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    whitelist: offer.account.conditions.whitelistEnabled ? offer.account.conditions.whitelist : null,
    nonce: randomNonce(),
    principalBaseUnits: offer.amount,
    durationSeconds: BigInt(input.durationSeconds),
    collateralAmountBaseUnits: input.collateralAmount,
    expectedAprBps: offer.account.loanAprBps,
    attestation,
    pullFromVenue: pull?.local ?? null,
    custody,
    poolOwner: offer.account.owner,
  });
  // through marginfi the pull is 8 accounts the SDK's VenuePull does not carry (LAYOUT.md, TakeLoan)
  const ix = pull?.marginfi
    ? { ...built, ...(await withMarginfiPull(built, tx.programId, pull.marginfi)) }
    : built;
  // The pool owner's token account for the collateral (where a liquidation sends it), created if missing; a
  // programmable NFT's is created by Token Metadata's transfer at liquidation (with its token record).
  const poolOwner = offer.account.owner;
  const ownerCollateral = await findAssociatedTokenAddress(poolOwner, address(input.collateralMint));
  const ownerAta =
    custody.standard === "Nft"
      ? [createAssociatedTokenIdempotent(borrower, ownerCollateral, poolOwner, address(input.collateralMint))]
      : [];
  return {
    feePayer: borrower,
    groups: [[...flow.before, ...ownerAta, ix, ...flow.after]],
    needsOracle: true,
    simulate: asksRuleSet(custody),
    tooLargeReason: describeLoanLoad(custody, {
      whitelist: offer.account.conditions.whitelistEnabled,
      venuePull: pull !== null,
    }),
    accountNames: {
      [ix.escrow]: ACCOUNT_NAMES.loanNft,
      [ownerCollateral]: ACCOUNT_NAMES.poolOwnerNft,
      [flow.tokenAccount]: ACCOUNT_NAMES.currency,
      [ix.loan]: ACCOUNT_NAMES.loan,
    },
    metadata: {
      loan: ix.loan,
      pool: offer.pool,
      quote: quote satisfies QuoteJson,
      loanType: isDefi ? "Token" : custody.standard,
    },
  };
}

/**
 * The lending venue accounts a loan needs when its principal exceeds the bank's idle liquidity and the bank
 * has delegated some (the program then pulls the rest back in the same transaction); null otherwise.
 */
async function venuePullFor(
  tx: TxContext,
  offer: PoolOffer,
): Promise<{ local: VenuePull | null; marginfi: BankDelegation | null } | null> {
  if (offer.amount <= offer.bank.availableLiquidity || offer.bank.delegatedLiquidity === 0n) return null;
  const delegation = await tx.lendingVenue.delegation(
    address(offer.bankAddress),
    offer.bank.mint,
    await tx.clock.recentUnixTime(),
  );
  if (delegation === null || delegation.shares === 0n) return null;
  if (delegation.venue === "marginfi") {
    // the pull is a withdrawal from marginfi: refused now in a paused or killed marginfi bank, with its reason
    const refusal = delegation.marginfi ? marginfiBankRefusal(delegation.marginfi.state, "withdraw") : null;
    if (refusal !== null)
      throw marginfiRefused(refusal, "the bank's delegated funds cannot come back for this loan now");
    return { local: null, marginfi: delegation };
  }
  return { local: await toVenuePull(tx.programId, delegation), marginfi: null };
}

/** Most NFTs one take-loans request borrows against. */
export const MAX_NFTS_PER_REQUEST = 5;

/**
 * Borrows against several NFTs at once: one TakeLoan per NFT, each its own oracle co-signed transaction (a
 * TakeLoan with its accounts and attestation fills most of a transaction), sent as a BundleCoSigned in
 * order. Every loan comes from the same pool, the best for the first NFT or the one asked for, at `amount`
 * each (the most the pool allows per NFT when absent); the bank must hold all of it now. Each transaction is
 * a whole loan: if the chain refuses one, the loans before it stand and the rest are not sent.
 */
export async function takeLoansPlan(
  tx: TxContext,
  input: Omit<TakeLoanInput, "collateralMint" | "collateralAmount"> & { nftMints: string[] },
): Promise<BuildPlan> {
  if (new Set(input.nftMints).size !== input.nftMints.length) throw badRequest("nftMints lists an NFT twice");
  const { nftMints, ...rest } = input;
  const first = await takeLoanPlan(tx, false, {
    ...rest,
    collateralMint: nftMints[0]!,
    collateralAmount: 1n,
  });
  const pool = first.metadata!.pool as string;
  const plans = [first];
  for (const mint of nftMints.slice(1))
    plans.push(await takeLoanPlan(tx, false, { ...rest, pool, collateralMint: mint, collateralAmount: 1n }));
  const quotes = plans.map((p) => p.metadata!.quote as QuoteJson);
  const total = quotes.reduce((sum, q) => sum + BigInt(q.amount), 0n);
  const bank = await tx.state.getBank(quotes[0]!.bank);
  if (bank === null || bank.availableLiquidity < total)
    throw unprocessable(
      `pool ${pool} cannot lend ${total} base units for ${nftMints.length} NFTs now (its bank has ${bank?.availableLiquidity ?? 0n} available)`,
    );
  return {
    feePayer: first.feePayer,
    groups: plans.map((p) => p.groups[0]!),
    needsOracle: true,
    simulate: plans.some((p) => p.simulate === true),
    tooLargeReason: [...new Set(plans.map((p) => p.tooLargeReason))].join("; "),
    metadata: { loans: plans.map((p) => p.metadata!.loan), pool, quotes },
  };
}

/** Repays loans of one borrower; as many per transaction as fit, the rest in more (a bundle). */
export async function repayPlan(
  tx: TxContext,
  isDefi: boolean,
  input: { borrower: string; loans: string[] },
): Promise<BuildPlan> {
  requireNotOracle(tx, "borrower", input.borrower);
  const borrower = address(input.borrower);
  if (new Set(input.loans).size !== input.loans.length) throw badRequest("loans must not repeat");
  const [accounts, config, now] = await Promise.all([
    tx.state.getLoans(input.loans),
    tx.state.getConfig(),
    tx.clock.unixTime(),
  ]);
  if (config === null) throw unprocessable("The lending program is not initialised");
  const loans = accounts.map((loan, i) => {
    const key = input.loans[i]!;
    if (loan === null) throw badRequest(`unknown loan ${key}`);
    if (loan.borrower !== borrower)
      throw badRequest(`loan ${key} belongs to ${loan.borrower}, not ${borrower}`);
    if (loan.status !== "Ongoing") throw loanNotOngoing(loan, "borrower");
    if (loan.isDefi !== isDefi)
      throw badRequest(`loan ${key} is ${loan.isDefi ? "a token" : "an NFT"} loan; use the other route`);
    return { key: address(key), loan };
  });
  const custodies = await Promise.all(loans.map(({ loan }) => readLoanCustody(tx, loan)));
  const custodyOf = new Map(loans.map(({ key }, i) => [key, custodies[i]!]));

  async function group(items: typeof loans) {
    const currencies = [...new Set(items.map((l) => l.loan.currencyMint))];
    const before = [];
    const after = [];
    const currencyAccount = new Map<string, Address>();
    for (const mint of currencies) {
      const wrap =
        mint === NATIVE_MINT
          ? items
              .filter((l) => l.loan.currencyMint === mint)
              .reduce((sum, l) => sum + l.loan.principal + owedAt(l.loan, now + REPAY_MARGIN_SECONDS), 0n)
          : 0n;
      const flow = await currencyFlow(borrower, mint, wrap);
      before.push(...flow.before);
      after.push(...flow.after);
      currencyAccount.set(mint, flow.tokenAccount);
    }
    const body = [];
    for (const { key, loan } of items) {
      const custody = custodyOf.get(key)!;
      // a programmable NFT never left the borrower's token account (the loan's escrow), unless the loan PDA holds it
      // (a filled request's): then it returns to the borrower's associated token account (Token Metadata creates it)
      const collateralAta =
        custody.standard === "Nft" || (custody.standard === "ProgrammableNft" && custody.held)
          ? await findAssociatedTokenAddress(borrower, loan.collateralMint)
          : loan.escrow;
      if (custody.standard === "Nft")
        body.push(createAssociatedTokenIdempotent(borrower, collateralAta, borrower, loan.collateralMint));
      body.push(
        await getRepayInstruction({
          programAddress: tx.programId,
          borrower,
          pool: loan.pool,
          bank: loan.bank,
          loan: key,
          borrowerCollateralTokenAccount: collateralAta,
          borrowerCurrencyTokenAccount: currencyAccount.get(loan.currencyMint)!,
          custody,
        }),
      );
    }
    return [...before, ...body, ...after];
  }

  const accountNames: Record<string, string> = {};
  for (const { loan } of loans) accountNames[loan.escrow] = ACCOUNT_NAMES.loanNft;
  const groups = [];
  let current: typeof loans = [];
  for (const item of loans) {
    const candidate = [...current, item];
    if (current.length > 0 && !tx.factory.fits(borrower, await group(candidate))) {
      groups.push(await group(current));
      current = [item];
    } else current = candidate;
  }
  if (current.length > 0) groups.push(await group(current));
  return {
    feePayer: borrower,
    groups,
    accountNames,
    metadata: {
      loans: input.loans,
      owedInterest: loans.map((l) => owedAt(l.loan, now).toString()),
      repayment: loans.map((l) => (l.loan.principal + owedAt(l.loan, now)).toString()),
    },
  };
}

/** Extend: repays the loan and opens a new one on the same collateral and pool, co-signed by the oracle. */
export async function extendPlan(
  tx: TxContext,
  isDefi: boolean,
  input: { borrower: string; loan: string; durationSeconds: number; amount?: bigint },
): Promise<BuildPlan> {
  requireNotOracle(tx, "borrower", input.borrower);
  const borrower = address(input.borrower);
  const loan = await requireOngoingLoan(tx, input.loan, isDefi, true);
  if (loan.borrower !== borrower)
    throw badRequest(`loan ${input.loan} belongs to ${loan.borrower}, not ${borrower}`);
  const [config, now] = await Promise.all([tx.state.getConfig(), tx.clock.unixTime()]);
  if (config === null) throw unprocessable("The lending program is not initialised");
  const { offer, valuation, quote } = await quoteLoan(
    tx,
    {
      poolType: isDefi ? "defi-pool" : "nft-pool",
      collateralId: loan.collection,
      collateralAmount: loan.collateralAmount,
      durationSeconds: input.durationSeconds,
      amount: input.amount ?? loan.principal,
      pool: loan.pool,
      borrower: input.borrower,
      extending: loan,
    },
    now,
  );
  const attestation = await createAttestation(tx, {
    offer,
    collection: loan.collection,
    borrower: input.borrower,
    valuation,
  });
  const currency = loan.currencyMint;
  const owedWithMargin = owedAt(loan, now + REPAY_MARGIN_SECONDS);
  const decrease = loan.principal > offer.amount ? loan.principal - offer.amount : 0n;
  const flow = await currencyFlow(
    borrower,
    currency,
    currency === NATIVE_MINT ? owedWithMargin + decrease : 0n,
  );
  const custody = await readLoanCustody(tx, loan);
  const ix = await getExtendInstruction({
    programAddress: tx.programId,
    borrower,
    oracle: tx.oracle.address,
    pool: loan.pool,
    bank: loan.bank,
    oldLoan: address(input.loan),
    collateralMint: loan.collateralMint,
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    whitelist: offer.account.conditions.whitelistEnabled ? offer.account.conditions.whitelist : null,
    nonce: randomNonce(),
    principalBaseUnits: offer.amount,
    durationSeconds: BigInt(input.durationSeconds),
    collateralAmountBaseUnits: loan.collateralAmount,
    expectedAprBps: offer.account.loanAprBps,
    attestation,
    // a pNFT or Core loan's custody passes to the new loan (the rule set asked about the pool owner again)
    custody,
    poolOwner: offer.account.owner,
  });
  return {
    feePayer: borrower,
    groups: [[...flow.before, ix, ...flow.after]],
    needsOracle: true,
    simulate: asksRuleSet(custody),
    metadata: { loan: ix.loan, oldLoan: input.loan, pool: offer.pool, quote },
  };
}
