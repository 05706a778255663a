/** Loan requests in the LiteSVM lending world: post, cancel, fill, read. */
import type { Address } from "@solana/kit";
import { decodeRequestAccount, type RequestAccount } from "../accounts/request.ts";
import {
  getCancelRequestInstruction,
  getFillRequestInstruction,
  getPostRequestInstruction,
} from "../instructions/request-instructions.ts";
import { type LendingWorld, tokenAccountOf, type Wallet, type WorldPool } from "./lending-world.ts";
import { getAccountData, sendWithLiteSvm } from "./litesvm-harness.ts";

/** A borrower posts a request with its collateral escrowed. Returns the request address. */
export async function postRequest(
  world: LendingWorld,
  input: {
    borrower: Wallet;
    collateralMint: Address;
    isDefi: boolean;
    currencyMint?: Address;
    collateralAmountBaseUnits: bigint;
    principalBaseUnits: bigint;
    durationSeconds: bigint;
    maxAprBps: number;
  },
): Promise<Address> {
  const ix = await getPostRequestInstruction({
    programAddress: world.programAddress,
    borrower: input.borrower.signer,
    collateralMint: input.collateralMint,
    borrowerCollateralTokenAccount: await tokenAccountOf(world, input.borrower, input.collateralMint),
    currencyMint: input.currencyMint ?? world.currencyMint,
    isDefi: input.isDefi,
    nonce: world.counters.loanNonce++,
    principalBaseUnits: input.principalBaseUnits,
    durationSeconds: input.durationSeconds,
    collateralAmountBaseUnits: input.collateralAmountBaseUnits,
    maxAprBps: input.maxAprBps,
  });
  await sendWithLiteSvm(world.svm, [ix], input.borrower.signer);
  return ix.request;
}

/** The request's borrower (or, to test refusals, anyone) cancels it. */
export async function cancelRequest(world: LendingWorld, who: Wallet, request: Address): Promise<void> {
  const rq = readRequest(world, request);
  const ix = await getCancelRequestInstruction({
    programAddress: world.programAddress,
    borrower: who.signer,
    request,
    borrowerCollateralTokenAccount: await tokenAccountOf(world, who, rq.collateralMint),
  });
  await sendWithLiteSvm(world.svm, [ix], who.signer);
}

/**
 * The owner of `pool` fills a request (`terms` default to the request's own, at its maximum APR). Returns the
 * new loan.
 */
export async function fillRequest(
  world: LendingWorld,
  input: {
    pool: WorldPool;
    request: Address;
    /** The request's borrower (their currency account receives the principal). */
    borrower: Wallet;
    lender?: Wallet;
    terms?: Partial<{ principalBaseUnits: bigint; durationSeconds: bigint; aprBps: number }>;
  },
): Promise<Address> {
  const rq = readRequest(world, input.request);
  const lender = input.lender ?? input.pool.bank.owner;
  const ix = await getFillRequestInstruction({
    programAddress: world.programAddress,
    lender: lender.signer,
    pool: input.pool.address,
    bank: input.pool.bank.address,
    request: input.request,
    borrower: rq.borrower,
    collateralMint: rq.collateralMint,
    borrowerCurrencyTokenAccount: await tokenAccountOf(world, input.borrower, rq.currencyMint),
    nonce: world.counters.loanNonce++,
    principalBaseUnits: input.terms?.principalBaseUnits ?? rq.principal,
    durationSeconds: input.terms?.durationSeconds ?? rq.durationSeconds,
    aprBps: input.terms?.aprBps ?? rq.maxAprBps,
  });
  await sendWithLiteSvm(world.svm, [ix], lender.signer);
  return ix.loan;
}

/** Decoded Request account (throws when missing). */
export function readRequest(world: LendingWorld, address: Address): RequestAccount {
  const data = getAccountData(world.svm, address);
  if (!data) throw new Error(`request ${address} not found`);
  return decodeRequestAccount(data);
}
