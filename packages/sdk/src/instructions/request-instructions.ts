/**
 * Loan requests (LAYOUT.md 20 PostRequest, 21 CancelRequest, 22 FillRequest): a borrower escrows collateral with
 * the terms they want; a lender fills it from one of their pools' bank; the borrower may cancel while it is open.
 */
import { type Address, type FixedSizeCodec, getStructCodec, type Instruction } from "@solana/kit";
import { bool8, u8, u32, u64 } from "../codecs/primitives.ts";
import { INSTRUCTION_TAG, TOKEN_PROGRAM_ADDRESS } from "../constants.ts";
import { getRequestCustody, type NftCustody } from "../custody/nft-custody.ts";
import { SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import { findMetadataPda } from "../metaplex/metadata.ts";
import { findConfigPda, findEscrowPda, findLoanPda, findRequestPda, findVaultPda } from "../pda.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import { readonly, type SignerInput, signer, signerAddress, writable } from "./account-metas.ts";

const U64_MAX = 0xffff_ffff_ffff_ffffn;

function fail(message: string): never {
  throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, message);
}

function checkU64(value: bigint, name: string, min = 0n): void {
  if (value < min || value > U64_MAX) fail(`${name} must be ${min}..2^64-1`);
}

/** Decoded PostRequest data (41 bytes). */
export interface PostRequestData {
  tag: number;
  requestBump: number;
  escrowBump: number;
  /** NFT: bump of the NFT's metadata PDA; tokens: 0. */
  metadataBump: number;
  isDefi: boolean;
  nonce: bigint;
  principalBaseUnits: bigint;
  durationSeconds: bigint;
  collateralAmountBaseUnits: bigint;
  maxAprBps: number;
}

export function getPostRequestDataCodec(): FixedSizeCodec<PostRequestData, PostRequestData> {
  return getStructCodec([
    ["tag", u8()],
    ["requestBump", u8()],
    ["escrowBump", u8()],
    ["metadataBump", u8()],
    ["isDefi", bool8()],
    ["nonce", u64()],
    ["principalBaseUnits", u64()],
    ["durationSeconds", u64()],
    ["collateralAmountBaseUnits", u64()],
    ["maxAprBps", u32()],
  ]) as FixedSizeCodec<PostRequestData, PostRequestData>;
}

/** Decoded FillRequest data (32 bytes). */
export interface FillRequestData {
  tag: number;
  loanBump: number;
  escrowBump: number;
  reserved: number;
  nonce: bigint;
  principalBaseUnits: bigint;
  durationSeconds: bigint;
  aprBps: number;
}

export function getFillRequestDataCodec(): FixedSizeCodec<FillRequestData, FillRequestData> {
  return getStructCodec([
    ["tag", u8()],
    ["loanBump", u8()],
    ["escrowBump", u8()],
    ["reserved", u8()],
    ["nonce", u64()],
    ["principalBaseUnits", u64()],
    ["durationSeconds", u64()],
    ["aprBps", u32()],
  ]) as FixedSizeCodec<FillRequestData, FillRequestData>;
}

/** The terms a borrower asks for. */
export interface RequestTerms {
  /** Any u64 making the request PDA ["request", borrower, nonce] new. */
  nonce: bigint;
  principalBaseUnits: bigint;
  durationSeconds: bigint;
  /** 1 for an NFT. */
  collateralAmountBaseUnits: bigint;
  /** The highest APR the borrower accepts. */
  maxAprBps: number;
}

/** A request's custody of a Core asset, a compressed leaf or a programmable NFT (readNftCustody / DAS); absent: the
 * classic escrow. */
function requestCustody(
  custody: NftCustody | undefined,
  parties: { request: Address; borrower: Address; loan?: Address },
) {
  return custody === undefined || custody.standard === "Nft" ? null : getRequestCustody(custody, parties);
}

/**
 * PostRequest (tag 20, borrower): takes the collateral into the new request's custody (an NFT of a verified
 * collection or tokens: the request's escrow; a Core asset or a compressed leaf: the request PDA owns it) and records
 * the terms.
 */
export async function getPostRequestInstruction(
  input: RequestTerms & {
    programAddress: Address;
    borrower: SignerInput;
    /** The mint; a Core asset: the asset; a compressed leaf: its asset id. */
    collateralMint: Address;
    /** The borrower's token account of the collateral mint (a Core asset or a leaf: ignored). */
    borrowerCollateralTokenAccount: Address;
    currencyMint: Address;
    isDefi: boolean;
    /** The NFT's custody as read from the chain (readNftCustody, a fresh DAS proof); classic escrow when absent. */
    custody?: NftCustody;
  },
): Promise<Instruction & { request: Address; escrow: Address }> {
  checkU64(input.nonce, "nonce");
  checkU64(input.principalBaseUnits, "principal", 1n);
  checkU64(input.durationSeconds, "duration", 1n);
  checkU64(input.collateralAmountBaseUnits, "collateral amount", 1n);
  if (!Number.isInteger(input.maxAprBps) || input.maxAprBps < 0 || input.maxAprBps > 0xffffffff)
    fail("maxAprBps must be a u32");
  const borrower = signerAddress(input.borrower);
  const [request, requestBump] = await findRequestPda(input.programAddress, borrower, input.nonce);
  const [escrow, escrowBump] = await findEscrowPda(input.programAddress, request);
  const [config] = await findConfigPda(input.programAddress);
  const custody = await requestCustody(input.custody, { request, borrower });
  if (custody !== null && (input.isDefi || custody.collateral !== input.collateralMint))
    fail("the custody was read for another collateral than the request's");
  const metadata = input.isDefi || custody !== null ? null : await findMetadataPda(input.collateralMint);
  const terms = getPostRequestDataCodec().encode({
    tag: INSTRUCTION_TAG.PostRequest,
    requestBump,
    escrowBump: custody === null ? escrowBump : 0,
    metadataBump: metadata === null ? 0 : metadata[1],
    isDefi: input.isDefi,
    nonce: input.nonce,
    principalBaseUnits: input.principalBaseUnits,
    durationSeconds: input.durationSeconds,
    collateralAmountBaseUnits: input.collateralAmountBaseUnits,
    maxAprBps: input.maxAprBps,
  }) as Uint8Array;
  const holder = custody?.holder ?? escrow;
  const accounts = [
    signer(input.borrower, true),
    readonly(config),
    writable(request),
    writable(holder),
    custody?.mintWritable ? writable(input.collateralMint) : readonly(input.collateralMint),
    writable(custody?.post.collateralAccount ?? input.borrowerCollateralTokenAccount),
    readonly(input.currencyMint),
    readonly(TOKEN_PROGRAM_ADDRESS),
    readonly(SYSTEM_PROGRAM_ADDRESS),
  ];
  if (metadata !== null) accounts.push(readonly(metadata[0]));
  if (custody !== null) accounts.push(...custody.post.accounts);
  const data = custody === null ? terms : Uint8Array.from([...terms, ...custody.post.data]);
  return { programAddress: input.programAddress, accounts, data, request, escrow: holder };
}

/** CancelRequest (tag 21, the request's borrower): the collateral returns and the request ends Cancelled. */
export async function getCancelRequestInstruction(input: {
  programAddress: Address;
  borrower: SignerInput;
  request: Address;
  /** The borrower's token account of the collateral mint (a Core asset or a leaf: ignored). */
  borrowerCollateralTokenAccount: Address;
  /** The NFT's custody as read from the chain (a leaf: a fresh DAS proof); classic escrow when absent. */
  custody?: NftCustody;
}): Promise<Instruction> {
  const custody = await requestCustody(input.custody, {
    request: input.request,
    borrower: signerAddress(input.borrower),
  });
  const holder = custody?.holder ?? (await findEscrowPda(input.programAddress, input.request))[0];
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.borrower, true),
      writable(input.request),
      writable(holder),
      writable(custody?.cancel.collateralAccount ?? input.borrowerCollateralTokenAccount),
      readonly(TOKEN_PROGRAM_ADDRESS),
      ...(custody?.cancel.accounts ?? []),
    ],
    data: Uint8Array.from([INSTRUCTION_TAG.CancelRequest, ...(custody?.cancel.dataTail ?? [])]),
  };
}

/**
 * FillRequest (tag 22, a lender): the lender's bank lends the request's principal to the borrower under a new
 * loan of kind RequestLoan in `pool` (the lender's, of the request's kind); the collateral moves from the
 * request's escrow into the loan's. The lender restates the terms it fills (principal, duration: the request's;
 * APR: at most the request's maximum).
 */
export async function getFillRequestInstruction(input: {
  programAddress: Address;
  lender: SignerInput;
  pool: Address;
  /** = pool.bank. */
  bank: Address;
  request: Address;
  borrower: Address;
  collateralMint: Address;
  /** The borrower's token account of the bank's currency (receives the principal). */
  borrowerCurrencyTokenAccount: Address;
  /** Any u64 making the loan PDA ["loan", pool, borrower, nonce] new. */
  nonce: bigint;
  principalBaseUnits: bigint;
  durationSeconds: bigint;
  aprBps: number;
  /** The NFT's custody as read from the chain (a leaf: a fresh DAS proof); classic escrow when absent. */
  custody?: NftCustody;
}): Promise<Instruction & { loan: Address; escrow: Address }> {
  checkU64(input.nonce, "nonce");
  checkU64(input.principalBaseUnits, "principal", 1n);
  checkU64(input.durationSeconds, "duration", 1n);
  if (!Number.isInteger(input.aprBps) || input.aprBps < 0 || input.aprBps > 0xffffffff)
    fail("aprBps must be a u32");
  const [loan, loanBump] = await findLoanPda(input.programAddress, input.pool, input.borrower, input.nonce);
  const [escrow, escrowBump] = await findEscrowPda(input.programAddress, loan);
  const custody = await requestCustody(input.custody, {
    request: input.request,
    borrower: input.borrower,
    loan,
  });
  if (custody !== null && custody.collateral !== input.collateralMint)
    fail("the custody was read for another collateral than the request's");
  const requestEscrow = custody?.holder ?? (await findEscrowPda(input.programAddress, input.request))[0];
  const loanEscrow = custody?.fill.loanHolder ?? escrow;
  const [config] = await findConfigPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  const terms = getFillRequestDataCodec().encode({
    tag: INSTRUCTION_TAG.FillRequest,
    loanBump,
    escrowBump: custody === null ? escrowBump : 0,
    reserved: 0,
    nonce: input.nonce,
    principalBaseUnits: input.principalBaseUnits,
    durationSeconds: input.durationSeconds,
    aprBps: input.aprBps,
  }) as Uint8Array;
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.lender, true),
      readonly(config),
      writable(input.pool),
      writable(input.bank),
      writable(vault),
      writable(input.request),
      writable(requestEscrow),
      writable(loan),
      writable(loanEscrow),
      custody?.mintWritable ? writable(input.collateralMint) : readonly(input.collateralMint),
      writable(input.borrowerCurrencyTokenAccount),
      readonly(TOKEN_PROGRAM_ADDRESS),
      readonly(SYSTEM_PROGRAM_ADDRESS),
      ...(custody?.fill.accounts ?? []),
    ],
    data: custody === null ? terms : Uint8Array.from([...terms, ...custody.fill.dataTail]),
    loan,
    escrow: loanEscrow,
  };
}
