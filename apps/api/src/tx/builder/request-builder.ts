/**
 * Loan requests: a borrower posts terms with the collateral in the request's custody (PostRequest: a classic NFT or
 * tokens in its escrow, a Core asset, a compressed leaf or a programmable NFT owned by the request PDA), cancels an open one
 * (CancelRequest); a lender fills one from a pool of theirs (FillRequest). Off-chain refusals come from the
 * rule-book (packages/protocol loan-requests.ts) with the program's codes.
 */
import {
  checkRequestFill,
  checkRequestFillable,
  checkRequestTerms,
  type FillableRequest,
  type OfferRefusal,
  PROGRAM_ERROR_CODE,
} from "@cistern/protocol";
import {
  address,
  decodeRequestAccount,
  decodeTokenRecord,
  getCancelRequestInstruction,
  getFillRequestInstruction,
  getPostRequestInstruction,
  type NftCustody,
  type RequestAccount,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { resolveNft } from "../calculator/collateral.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { currencyFlow } from "./currency-flows.ts";
import { randomNonce, requireNotOracle } from "./loan-builder.ts";
import { asksRuleSet, readCustody, readHeldCustody } from "./nft-custody.ts";
import type { BuildPlan } from "./route-kit.ts";
import { createAssociatedTokenIdempotent, findAssociatedTokenAddress } from "./wire-instructions.ts";

/**
 * The custody of a request's NFT read from the chain now: a Core asset (the request PDA, or the borrower before the
 * post, owns it), a compressed leaf with a fresh DAS proof (the tree must be the request's custody), a programmable NFT
 * in the request PDA's associated token account; null for a classic NFT or tokens (the request's escrow).
 */
async function readRequestCustody(tx: TxContext, request: RequestAccount): Promise<NftCustody | null> {
  if (request.isDefi || request.nftType === "Nft") return null;
  return readHeldCustody(tx, request, "request");
}

/** A pNFT locked in the wallet (pledged to a loan from an offer, or locked by another program) cannot move into a
 * request: 422 in one sentence before anything is built. */
async function requireUnlocked(tx: TxContext, tokenRecord: Address): Promise<void> {
  const [record] = await tx.state.getAccounts([tokenRecord]);
  if (record && decodeTokenRecord(record.data).state !== "Unlocked")
    throw unprocessable(
      "This programmable NFT is locked (pledged to a loan or listed): repay or unlist it before posting a loan request",
    );
}

/** A 422 carrying the program's refusal (its code travels to the web's sentence). */
function refused(refusal: OfferRefusal, message: string): Error {
  return Object.assign(unprocessable(message), { refusal });
}

/** The request account on chain (400 when it is not one of the program's requests). */
export async function readRequest(tx: TxContext, request: string): Promise<RequestAccount> {
  const [account] = await tx.state.getAccounts([request]);
  if (account === null || account === undefined || account.owner !== tx.programId)
    throw badRequest(`unknown loan request ${request}`);
  try {
    return decodeRequestAccount(account.data);
  } catch {
    throw badRequest(`${request} is not a loan request`);
  }
}

/** The request in the rule-book's shape. */
export function toFillable(request: RequestAccount): FillableRequest {
  return {
    status: request.status,
    borrower: request.borrower,
    isDefi: request.isDefi,
    currency: request.currencyMint,
    principal: request.principal,
    durationSeconds: Number(request.durationSeconds),
    maxAprBps: request.maxAprBps,
  };
}

export interface PostRequestInput {
  borrower: string;
  /** nft: the NFT mint; defi: the collateral token mint. */
  collateralMint: string;
  collateralAmount: bigint;
  currency: string;
  amount: bigint;
  durationSeconds: number;
  maxAprBps: number;
}

/** PostRequest: the borrower's collateral goes into the new request's escrow with the terms. */
export async function postRequestPlan(
  tx: TxContext,
  isDefi: boolean,
  input: PostRequestInput,
): Promise<BuildPlan> {
  requireNotOracle(tx, "borrower", input.borrower);
  const refusal = checkRequestTerms({
    principal: input.amount,
    durationSeconds: input.durationSeconds,
    maxAprBps: input.maxAprBps,
    collateralAmount: input.collateralAmount,
  });
  if (refusal !== null) throw refused(refusal, `These request terms are refused: ${refusal.name}`);
  if (input.collateralMint === input.currency)
    throw badRequest("the collateral and the currency must differ");
  const borrower = address(input.borrower);
  let collateralAccount: Address;
  let custody: NftCustody | undefined;
  if (isDefi) {
    collateralAccount = await findAssociatedTokenAddress(borrower, address(input.collateralMint));
  } else {
    if (input.collateralAmount !== 1n) throw badRequest("an NFT request pledges exactly 1 NFT");
    const nft = await resolveNft(tx, input.collateralMint, input.borrower);
    collateralAccount = nft.ownerTokenAccount!;
    // a classic NFT goes into the request's escrow, a Core asset or a compressed leaf (its proof read from DAS just
    // now) to the request PDA, a programmable NFT into the request PDA's associated token account (Transfer v1)
    custody = nft.compressed ?? (await readCustody(tx, address(input.collateralMint), collateralAccount));
    if (custody.standard === "ProgrammableNft") await requireUnlocked(tx, custody.tokenRecord);
  }
  const ix = await getPostRequestInstruction({
    programAddress: tx.programId,
    borrower,
    collateralMint: address(input.collateralMint),
    borrowerCollateralTokenAccount: collateralAccount,
    currencyMint: address(input.currency),
    isDefi,
    nonce: randomNonce(),
    principalBaseUnits: input.amount,
    durationSeconds: BigInt(input.durationSeconds),
    collateralAmountBaseUnits: input.collateralAmount,
    maxAprBps: input.maxAprBps,
    ...(custody !== undefined ? { custody } : {}),
  });
  return {
    feePayer: borrower,
    groups: [[ix]],
    metadata: { request: ix.request },
    // a pNFT's rule set is asked in the post (Token Auth Rules): simulated, a refusal is told before signing
    simulate: custody !== undefined && asksRuleSet(custody),
  };
}

/** CancelRequest: the borrower's open request ends and the collateral returns to the borrower's account. */
export async function cancelRequestPlan(
  tx: TxContext,
  input: { borrower: string; request: string },
): Promise<BuildPlan> {
  requireNotOracle(tx, "borrower", input.borrower);
  const request = await readRequest(tx, input.request);
  if (request.borrower !== input.borrower)
    throw refused(
      { code: PROGRAM_ERROR_CODE.Unauthorized, name: "Unauthorized", params: {} },
      `request ${input.request} belongs to another wallet`,
    );
  if (request.status !== "Open")
    throw refused(
      { code: PROGRAM_ERROR_CODE.RequestNotOpen, name: "RequestNotOpen", params: {} },
      `request ${input.request} is ${request.status}`,
    );
  const borrower = address(input.borrower);
  const custody = await readRequestCustody(tx, request);
  if (custody !== null) {
    // a Core asset or a leaf returns to the borrower's wallet, a pNFT to their associated token account (Token Metadata
    // creates it): no token account to create
    const ix = await getCancelRequestInstruction({
      programAddress: tx.programId,
      borrower,
      request: address(input.request),
      borrowerCollateralTokenAccount: request.escrow,
      custody,
    });
    return {
      feePayer: borrower,
      groups: [[ix]],
      metadata: { request: input.request },
      // a pNFT's transfer runs its rule set (Token Metadata, Token Auth Rules): measured, its units are the limit
      simulate: asksRuleSet(custody),
    };
  }
  const collateral = await findAssociatedTokenAddress(borrower, request.collateralMint);
  const ix = await getCancelRequestInstruction({
    programAddress: tx.programId,
    borrower,
    request: address(input.request),
    borrowerCollateralTokenAccount: collateral,
  });
  return {
    feePayer: borrower,
    groups: [[createAssociatedTokenIdempotent(borrower, collateral, borrower, request.collateralMint), ix]],
    metadata: { request: input.request },
  };
}

/**
 * FillRequest: the lender's pool (the one named, else their pool of the request's kind whose bank of its
 * currency has the most available) lends the request's principal at `aprBps` (the request's maximum when
 * absent). The borrower's currency account is created when missing (the lender pays its rent).
 */
export async function fillRequestPlan(
  tx: TxContext,
  input: { lender: string; request: string; pool?: string; aprBps?: number },
): Promise<BuildPlan> {
  requireNotOracle(tx, "lender", input.lender);
  const request = await readRequest(tx, input.request);
  const fillable = toFillable(request);
  const aprBps = input.aprBps ?? request.maxAprBps;
  const early = checkRequestFillable(fillable, input.lender);
  if (early !== null) throw refused(early, `This request cannot be filled: ${early.name}`);
  const source = await chooseSource(tx, input.lender, fillable, input.pool);
  const refusal = checkRequestFill(fillable, source.rules, aprBps);
  if (refusal !== null) throw refused(refusal, `This request cannot be filled: ${refusal.name}`);
  const lender = address(input.lender);
  const flow = await currencyFlow(request.borrower, request.currencyMint);
  // a Core asset or a leaf moves from the request PDA to the loan PDA (a leaf with a proof taken from DAS now), a pNFT
  // into the loan PDA's associated token account
  const custody = await readRequestCustody(tx, request);
  const ix = await getFillRequestInstruction({
    programAddress: tx.programId,
    lender,
    pool: address(source.pool),
    bank: address(source.bank),
    request: address(input.request),
    borrower: request.borrower,
    collateralMint: request.collateralMint,
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    nonce: randomNonce(),
    principalBaseUnits: request.principal,
    durationSeconds: request.durationSeconds,
    aprBps,
    ...(custody !== null ? { custody } : {}),
  });
  const borrowerCurrency = createAssociatedTokenIdempotent(
    lender,
    flow.tokenAccount,
    request.borrower,
    request.currencyMint,
  );
  const metadata = {
    request: input.request,
    loan: ix.loan,
    pool: source.pool,
    loanType: request.isDefi ? "Token" : request.nftType,
  };
  // a Core asset or a leaf defaults to the lender's wallet, a pNFT to their associated token account (Token Metadata
  // creates it): no token account of it to create; a pNFT's rule set is asked about that default in the fill
  if (custody !== null)
    return {
      feePayer: lender,
      groups: [[borrowerCurrency, ix]],
      metadata,
      simulate: asksRuleSet(custody),
    };
  // where a liquidation sends the collateral: the lender's own token account of it
  const lenderCollateral = await findAssociatedTokenAddress(lender, request.collateralMint);
  return {
    feePayer: lender,
    groups: [
      [
        borrowerCurrency,
        createAssociatedTokenIdempotent(lender, lenderCollateral, lender, request.collateralMint),
        ix,
      ],
    ],
    metadata,
  };
}

async function chooseSource(
  tx: TxContext,
  lender: string,
  request: FillableRequest,
  pool: string | undefined,
): Promise<{ pool: string; bank: string; rules: Parameters<typeof checkRequestFill>[1] }> {
  const poolType = request.isDefi ? ("defi-pool" as const) : ("nft-pool" as const);
  if (pool !== undefined) {
    const account = await tx.state.getPool(pool);
    if (account === null) throw badRequest(`unknown pool ${pool}`);
    const bank = await tx.state.getBank(account.bank);
    if (bank === null) throw badRequest(`the bank of pool ${pool} is missing`);
    return {
      pool,
      bank: account.bank,
      rules: {
        lender,
        poolOwner: account.owner,
        poolType: account.poolType,
        bankCurrency: bank.mint,
        bankAvailable: bank.availableLiquidity,
        bankDelegated: bank.delegatedLiquidity,
      },
    };
  }
  const snapshot = await tx.state.snapshot();
  let best: { pool: string; bank: string; available: bigint } | null = null;
  for (const [address, account] of snapshot.pools) {
    if (account.owner !== lender || account.poolType !== poolType) continue;
    const bank = snapshot.banks.get(account.bank);
    if (bank === undefined || bank.mint !== request.currency) continue;
    if (best === null || bank.availableLiquidity > best.available)
      best = { pool: address, bank: account.bank, available: bank.availableLiquidity };
  }
  if (best === null)
    throw unprocessable(
      `You have no ${poolType === "nft-pool" ? "NFT" : "token"} pool lending this currency. Create one on My pools to fill this request.`,
    );
  // decided on the bank's fresh state, not the snapshot's
  return chooseSource(tx, lender, request, best.pool);
}
