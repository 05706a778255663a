import { type InstantSellQuote, type MortgageTerms, PROGRAM_ERROR_CODE } from "@cistern/protocol";
import {
  address,
  findEscrowPda,
  findLoanPda,
  getMarketSellInstruction,
  getTakeMortgageInstruction,
  type NftStandard,
} from "@cistern/sdk";
import type { CollectionBid, NftListing } from "../../venues/nft/nft-market-venue.ts";
import { type QuoteJson, quoteLoanFresh } from "../calculator/quote-service.ts";
import { createAttestation } from "../oracle/attestation.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { currencyFlow } from "./currency-flows.ts";
import {
  ACCOUNT_NAMES,
  owedAt,
  REPAY_MARGIN_SECONDS,
  randomNonce,
  requireNotOracle,
} from "./loan-builder.ts";
import { loanSaleToBid } from "./loan-sale.ts";
import {
  asksRuleSet,
  BOUGHT_THROUGH_MARKET,
  describeStandard,
  readCustody,
  readLoanCustody,
  saleHolder,
} from "./nft-custody.ts";
import { requireOngoingLoan } from "./ongoing-loan.ts";
import type { BuildPlan } from "./route-kit.ts";
import {
  ASSOCIATED_TOKEN_PROGRAM,
  createAssociatedTokenIdempotent,
  findAssociatedTokenAddress,
  NATIVE_MINT,
} from "./wire-instructions.ts";

/** "Buying <a programmable NFT> with a loan is not available yet; buy it outright instead". */
const mortgageRefusal = (standard: NftStandard) =>
  `Buying ${describeStandard(standard)} with a loan is not available yet; buy it outright instead`;

function saleShort(message: string, params: Record<string, string>) {
  return Object.assign(unprocessable(message), {
    refusal: {
      code: PROGRAM_ERROR_CODE.SaleShort,
      name: "SaleShort",
      message: "the sale's proceeds would not cover principal + owed interest",
      params,
    },
  });
}

/**
 * Quotes the instant sell of an NFT loan to the best collection bid of its collection in its currency. Refuses
 * (422, the program's SaleShort code) when there is no bid or the best one would not cover principal + the
 * interest owed by the time it lands (two hours of margin): nothing would move on chain either.
 */
export async function quoteInstantSell(tx: TxContext, input: { borrower: string; loan: string }) {
  requireNotOracle(tx, "borrower", input.borrower);
  const borrower = address(input.borrower);
  const loan = await requireOngoingLoan(tx, input.loan, false);
  if (loan.borrower !== borrower)
    throw badRequest(`loan ${input.loan} belongs to ${loan.borrower}, not ${borrower}`);
  const [now, market] = await Promise.all([
    tx.clock.recentUnixTime(),
    tx.nftMarket.collection({ collection: loan.collection, currencyMint: loan.currencyMint, fresh: true }),
  ]);
  const owedNow = loan.principal + owedAt(loan, now);
  const due = loan.principal + owedAt(loan, now + REPAY_MARGIN_SECONDS);
  const params = { owed: due.toString(), currency: loan.currencyMint };
  const bid: CollectionBid | undefined = market.bids[0];
  if (bid === undefined)
    throw saleShort("No one bids on this collection in the loan's currency right now", {
      ...params,
      bid: "",
    });
  if (bid.price < due)
    throw saleShort(`The best bid, ${bid.price} base units, is less than the ${due} owed`, {
      ...params,
      bid: bid.price.toString(),
    });
  const quote: InstantSellQuote = {
    loan: input.loan,
    venue: tx.nftMarket.name,
    currency: loan.currencyMint,
    collection: loan.collection,
    bidPrice: bid.price.toString(),
    bid: bid.bid,
    owedNow: owedNow.toString(),
    borrowerKeeps: (bid.price - owedNow).toString(),
    borrowerKeepsAtLeast: (bid.price - due).toString(),
  };
  return { loan, borrower, bid, quote };
}

/**
 * Instant sell: the program's MarketSell with the market's sale of the loan's escrowed NFT (the loan signs) into
 * the best bid, paid into the borrower's currency account; the program repays the loan from it as Repay would and
 * the borrower keeps the rest. `minPrice` (the price the borrower was shown) must still be met. SOL proceeds are
 * unwrapped after. Kind Normal.
 */
export async function instantSellPlan(
  tx: TxContext,
  input: { borrower: string; loan: string; minPrice?: bigint; escrow?: string },
): Promise<BuildPlan> {
  const [{ loan, borrower, bid, quote }, config] = await Promise.all([
    quoteInstantSell(tx, input),
    tx.state.getConfig(),
  ]);
  if (config === null) throw unprocessable("The lending program is not initialised");
  // a classic NFT sits in the loan's escrow; a Core asset is owned by the loan PDA (read from the chain now), a
  // compressed NFT's leaf too (read from DAS now, with a fresh proof)
  const custody = await readLoanCustody(tx, loan);
  const escrow = await saleHolder(tx, address(input.loan), custody);
  if (input.escrow !== undefined && input.escrow !== escrow)
    throw badRequest(`escrowAddress ${input.escrow} is not loan ${input.loan}'s escrow`);
  if (input.minPrice !== undefined && bid.price < input.minPrice)
    throw saleShort(
      `The best bid fell to ${bid.price} base units, below the ${input.minPrice} you accepted`,
      {
        owed: quote.owedNow,
        currency: loan.currencyMint,
        bid: bid.price.toString(),
      },
    );
  const flow = await currencyFlow(borrower, loan.currencyMint);
  // a leaf's sale carries its proof and MetadataArgs: the currency account is created only when missing (read now),
  // which keeps the transaction within the 1,232-byte packet
  const before =
    custody.standard === "CompressedNft" && (await tx.state.getAccounts([flow.tokenAccount]))[0]
      ? flow.before.filter((ix) => ix.programAddress !== ASSOCIATED_TOKEN_PROGRAM)
      : flow.before;
  const sale = await loanSaleToBid(tx, {
    bid,
    loan: address(input.loan),
    collateralMint: loan.collateralMint,
    custody,
    proceeds: flow.tokenAccount,
    minPrice: input.minPrice ?? bid.price,
    payer: borrower,
  });
  // a classic NFT's unsold part returns to the borrower's token account; a Core asset, a pNFT or a leaf leaves whole
  const collateralAta =
    custody.standard === "Nft" ? await findAssociatedTokenAddress(borrower, loan.collateralMint) : null;
  const ix = await getMarketSellInstruction({
    programAddress: tx.programId,
    borrower,
    pool: loan.pool,
    bank: loan.bank,
    loan: address(input.loan),
    borrowerCollateralTokenAccount: collateralAta ?? escrow,
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    swap: sale.sale,
    custody,
  });
  return {
    feePayer: borrower,
    groups: [
      [
        ...before,
        ...sale.setup,
        ...(collateralAta === null
          ? []
          : [createAssociatedTokenIdempotent(borrower, collateralAta, borrower, loan.collateralMint)]),
        ix,
        ...flow.after,
      ],
    ],
    accountNames: {
      // a pNFT loan's NFT never left the borrower's account (its rent comes back when the sale closes it)
      [escrow]:
        custody.standard === "ProgrammableNft" && !custody.held
          ? ACCOUNT_NAMES.yourNft
          : ACCOUNT_NAMES.loanNft,
      [await findAssociatedTokenAddress(bid.bidder, loan.collateralMint)]: ACCOUNT_NAMES.bidderNft,
      [flow.tokenAccount]: ACCOUNT_NAMES.currency,
    },
    metadata: { loan: input.loan, venue: tx.nftMarket.name, sale: quote },
  };
}

/** The listing of `mint` on the NFT market, or 400 when it is not for sale. */
export async function requireListing(tx: TxContext, mint: string): Promise<NftListing> {
  const listing = await tx.nftMarket.listingOf(address(mint));
  if (listing === null) throw badRequest("This NFT is not listed for sale.");
  return listing;
}

/**
 * Quotes a mortgage of a listed NFT: the rule-book decides the best mortgage-enabled pool of the listing's
 * currency that accepts its collection (or `pool`), lending at most its LTV of the lower of the oracle's value
 * and the price at its mortgage APR; the buyer pays the rest of the price as the down payment.
 */
export async function quoteMortgage(
  tx: TxContext,
  input: { buyer: string; mint: string; durationSeconds: number; amount?: bigint; pool?: string },
) {
  requireNotOracle(tx, "buyer", input.buyer);
  const listing = await requireListing(tx, input.mint);
  if (listing.seller === input.buyer) throw badRequest("you cannot buy your own listing");
  // the listed NFT's standard (read from the chain; a compressed listing says so): the program buys a classic NFT, a
  // Core asset or a pNFT with a mortgage (a pNFT lands in the buyer's associated token account, its custody there)
  if (listing.standard === "compressed") throw unprocessable(mortgageRefusal("CompressedNft"));
  const buyerToken = await findAssociatedTokenAddress(address(input.buyer), listing.mint);
  const custody = await readCustody(tx, listing.mint, buyerToken);
  if (!BOUGHT_THROUGH_MARKET.includes(custody.standard))
    throw unprocessable(mortgageRefusal(custody.standard));
  const request = {
    poolType: "nft-pool" as const,
    collateralId: listing.collection,
    collateralAmount: 1n,
    durationSeconds: input.durationSeconds,
    currency: listing.currencyMint,
    borrower: input.buyer,
    mortgagePrice: listing.price,
    ...(input.amount !== undefined ? { amount: input.amount } : {}),
  };
  const result = await quoteLoanFresh(
    tx,
    input.pool === undefined ? request : { ...request, pool: input.pool },
  );
  const principal = result.offer.amount;
  const interest = result.offer.interest;
  const terms: MortgageTerms = {
    mint: input.mint,
    collection: listing.collection,
    currency: listing.currencyMint,
    price: listing.price.toString(),
    downPayment: (listing.price - principal).toString(),
    principal: principal.toString(),
    aprBps: result.offer.offer.aprBps,
    durationSeconds: input.durationSeconds,
    interest: interest.toString(),
    totalCost: (listing.price + interest).toString(),
    seller: listing.seller,
  };
  return { ...result, listing, terms, custody };
}

/**
 * TakeMortgage: the quote above, the oracle's attestation, then the program's TakeMortgage with the market's buy
 * of the listing (paid from the buyer's currency account, which holds the down payment and receives the
 * principal) into the new loan's custody (a classic NFT: its escrow; a Core asset: the loan PDA; a pNFT: the buyer's
 * associated token account, delegated to the loan and locked). SOL down payments are wrapped first and what is left
 * unwrapped after. A pNFT under a rule set is simulated first (a rule set that refuses the loan answers 422 with
 * TRANSACTION_SEND_RULE_SET_REFUSED before anything is signed). Kind NormalCoSigned.
 */
export async function takeMortgagePlan(
  tx: TxContext,
  input: { buyer: string; mint: string; durationSeconds: number; amount?: bigint; pool?: string },
): Promise<BuildPlan> {
  const { offer, valuation, quote, listing, terms, custody } = await quoteMortgage(tx, input);
  const buyer = address(input.buyer);
  const attestation = await createAttestation(tx, {
    offer,
    collection: listing.collection,
    borrower: input.buyer,
    valuation,
  });
  const nonce = randomNonce();
  const [loan] = await findLoanPda(tx.programId, address(offer.pool), buyer, nonce);
  // a classic NFT is delivered into the loan's escrow; a Core asset to the loan PDA as its new owner; a pNFT to the
  // buyer, its new owner (into their associated token account)
  const escrow =
    custody.standard === "CoreNft"
      ? loan
      : custody.standard === "ProgrammableNft"
        ? buyer
        : (await findEscrowPda(tx.programId, loan))[0];
  const downPayment = listing.price - offer.amount;
  const flow = await currencyFlow(
    buyer,
    listing.currencyMint,
    listing.currencyMint === NATIVE_MINT ? downPayment : 0n,
  );
  const buy = await tx.nftMarket.buyInstruction({
    listing,
    buyer,
    payFrom: flow.tokenAccount,
    nftDestination: escrow,
    maxPrice: listing.price,
  });
  const ix = await getTakeMortgageInstruction({
    programAddress: tx.programId,
    borrower: buyer,
    oracle: tx.oracle.address,
    pool: address(offer.pool),
    bank: address(offer.bankAddress),
    collateralMint: listing.mint,
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    buy,
    nonce,
    principalBaseUnits: offer.amount,
    durationSeconds: BigInt(input.durationSeconds),
    collateralAmountBaseUnits: 1n,
    expectedAprBps: offer.offer.aprBps,
    attestation,
    custody,
    poolOwner: offer.account.owner,
  });
  // where a classic NFT goes if the mortgage is liquidated (a Core asset goes to the pool owner's wallet itself; a
  // pNFT's account is created by Token Metadata's transfer at liquidation), and the seller's proceeds account,
  // created when missing
  const poolOwner = offer.account.owner;
  const ownerCollateral =
    custody.standard !== "Nft"
      ? []
      : [
          createAssociatedTokenIdempotent(
            buyer,
            await findAssociatedTokenAddress(poolOwner, listing.mint),
            poolOwner,
            listing.mint,
          ),
        ];
  const sellerCurrency = await findAssociatedTokenAddress(listing.seller, listing.currencyMint);
  return {
    feePayer: buyer,
    groups: [
      [
        ...flow.before,
        ...ownerCollateral,
        createAssociatedTokenIdempotent(buyer, sellerCurrency, listing.seller, listing.currencyMint),
        ix,
        ...flow.after,
      ],
    ],
    needsOracle: true,
    simulate: asksRuleSet(custody),
    accountNames: {
      [escrow]: ACCOUNT_NAMES.loanNft,
      [await findAssociatedTokenAddress(poolOwner, listing.mint)]: ACCOUNT_NAMES.poolOwnerNft,
      [sellerCurrency]: ACCOUNT_NAMES.sellerCurrency,
      [flow.tokenAccount]: ACCOUNT_NAMES.currency,
      // last: a Core asset's "escrow" is the loan PDA itself
      [ix.loan]: ACCOUNT_NAMES.loan,
    },
    metadata: { loan: ix.loan, pool: offer.pool, quote: quote satisfies QuoteJson, mortgage: terms },
  };
}
