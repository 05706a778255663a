import { type Address, type FixedSizeCodec, getStructCodec, type Instruction } from "@solana/kit";
import { u8, u32, u64, withReserved } from "../codecs/primitives.ts";
import { INSTRUCTION_TAG, TOKEN_PROGRAM_ADDRESS } from "../constants.ts";
import { compressedEndingData } from "../custody/compressed-custody.ts";
import {
  getLiquidateCustody,
  getMoveCustody,
  getRepayCustody,
  getTakeLoanCustody,
  type NftCustody,
} from "../custody/nft-custody.ts";
import { SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import { findMetadataPda } from "../metaplex/metadata.ts";
import { findConfigPda, findEscrowPda, findLoanPda, findVaultPda } from "../pda.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import { readonly, type SignerInput, signer, signerAddress, writable } from "./account-metas.ts";
import { type Attestation, getAttestationCodec } from "./attestation.ts";

/** Decoded TakeLoan / Extend data. */
export interface LoanTermsData {
  tag: number;
  loanBump: number;
  escrowBump: number;
  /** TakeLoan of an NFT: bump of the NFT's metadata PDA; 0 otherwise (reserved). */
  metadataBump: number;
  nonce: bigint;
  principalBaseUnits: bigint;
  durationSeconds: bigint;
  collateralAmountBaseUnits: bigint;
  expectedAprBps: number;
  attestation: Attestation;
  /** TakeLoan: index of the first of the 5 accounts to pull delegated liquidity back from (0: none). */
  pullIndex: number;
}

let cachedLoanTermsDataCodec: FixedSizeCodec<LoanTermsData, LoanTermsData> | undefined;

/** Codec of TakeLoan / Extend data (124 bytes), built once. */
export function getLoanTermsDataCodec(): FixedSizeCodec<LoanTermsData, LoanTermsData> {
  cachedLoanTermsDataCodec ??= buildLoanTermsDataCodec();
  return cachedLoanTermsDataCodec;
}

function buildLoanTermsDataCodec(): FixedSizeCodec<LoanTermsData, LoanTermsData> {
  return getStructCodec([
    ["tag", u8()],
    ["loanBump", u8()],
    ["escrowBump", u8()],
    ["metadataBump", u8()],
    ["nonce", u64()],
    ["principalBaseUnits", u64()],
    ["durationSeconds", u64()],
    ["collateralAmountBaseUnits", u64()],
    ["expectedAprBps", u32()],
    ["attestation", getAttestationCodec()],
    ["pullIndex", withReserved(u8(), 3)],
  ]) as FixedSizeCodec<LoanTermsData, LoanTermsData>;
}

/** Terms of a new loan (TakeLoan, or the new loan of Extend). */
export interface LoanTerms {
  /** Any u64 making the loan PDA ["loan", pool, borrower, nonce] new. */
  nonce: bigint;
  principalBaseUnits: bigint;
  durationSeconds: bigint;
  /** 1 for an NFT. */
  collateralAmountBaseUnits: bigint;
  /** Must equal pool.loanAprBps (protects against a changed rate). */
  expectedAprBps: number;
  attestation: Attestation;
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;

function checkTerms(terms: LoanTerms): void {
  const fail = (message: string): never => {
    throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, message);
  };
  if (terms.principalBaseUnits <= 0n || terms.principalBaseUnits > U64_MAX)
    fail("principal must be 1..2^64-1");
  if (terms.collateralAmountBaseUnits <= 0n || terms.collateralAmountBaseUnits > U64_MAX)
    fail("collateral amount must be 1..2^64-1");
  if (terms.durationSeconds <= 0n || terms.durationSeconds > U64_MAX) fail("duration must be positive");
  if (terms.nonce < 0n || terms.nonce > U64_MAX) fail("nonce must be a u64");
  if (
    !Number.isInteger(terms.expectedAprBps) ||
    terms.expectedAprBps < 0 ||
    terms.expectedAprBps > 0xffffffff
  )
    fail("expectedAprBps must be a u32");
}

/** The 124 bytes of a new loan's terms under `tag` with its loan and escrow PDAs (TakeLoan, Extend, MarginSwap). */
export async function encodeTerms(
  tag: number,
  programAddress: Address,
  pool: Address,
  borrower: Address,
  terms: LoanTerms,
  metadataBump = 0,
): Promise<{ loan: Address; escrow: Address; data: Uint8Array }> {
  checkTerms(terms);
  const [loan, loanBump] = await findLoanPda(programAddress, pool, borrower, terms.nonce);
  const [escrow, escrowBump] = await findEscrowPda(programAddress, loan);
  const data = getLoanTermsDataCodec().encode({
    tag,
    loanBump,
    escrowBump,
    metadataBump,
    pullIndex: 0,
    ...terms,
  }) as Uint8Array;
  return { loan, escrow, data };
}

/** Addresses a new loan needs besides the derivable PDAs. */
interface NewLoanAccounts {
  programAddress: Address;
  borrower: SignerInput;
  /** Co-signs; must be config.oracle. */
  oracle: SignerInput;
  pool: Address;
  /** = pool.bank (the vault is derived from it). */
  bank: Address;
  collateralMint: Address;
  /** Borrower's token account of bank.mint. */
  borrowerCurrencyTokenAccount: Address;
  /** The pool's whitelist ALT, only when pool.conditions.whitelistEnabled. */
  whitelist?: Address | null;
}

/**
 * Where a TakeLoan larger than the bank's available liquidity pulls the rest from: the bank's position in the
 * pinned lending venue (the program withdraws the fewest shares that cover it).
 */
export interface VenuePull {
  venues: Address;
  venueProgram: Address;
  reserve: Address;
  position: Address;
  venueVault: Address;
}

/**
 * TakeLoan (tag 8): opens a loan; collateral moves borrower -> escrow, principal vault -> borrower.
 * For an nft-pool the NFT's Metaplex metadata account goes along (the program reads the verified collection
 * from it). Returns the instruction and the new loan / escrow addresses.
 */
export async function getTakeLoanInstruction(
  input: NewLoanAccounts &
    LoanTerms & {
      borrowerCollateralTokenAccount: Address;
      poolType: "nft-pool" | "defi-pool";
      pullFromVenue?: VenuePull | null;
      /** The NFT's custody as read from the chain (readNftCustody); classic escrow when absent. */
      custody?: NftCustody;
      /** pool.owner: a programmable NFT's TakeLoan names it (the rule set is asked about the default's transfer). */
      poolOwner?: Address;
    },
): Promise<Instruction & { loan: Address; escrow: Address }> {
  const metadata = input.poolType === "nft-pool" ? await findMetadataPda(input.collateralMint) : null;
  const { loan, escrow, data } = await encodeTerms(
    INSTRUCTION_TAG.TakeLoan,
    input.programAddress,
    input.pool,
    signerAddress(input.borrower),
    input,
    metadata?.[1] ?? 0,
  );
  const [config] = await findConfigPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  if (input.custody !== undefined && input.custody.standard !== "Nft" && metadata === null)
    throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, "an NFT custody needs an nft-pool");
  const custody = getTakeLoanCustody(input.custody ?? { standard: "Nft" }, input.poolOwner ?? null);
  if (custody.holder !== null) {
    data[2] = 0; // no escrow PDA: the NFT stays in the borrower's token account
    data[121] = custody.data.nftType;
    data[122] = custody.data.masterEditionBump;
    data[123] = custody.data.tokenRecordBump;
  }
  if (custody.holder !== null && custody.holder !== input.borrowerCollateralTokenAccount)
    throw new SdkError(
      SDK_ERROR.INVALID_ARGUMENT,
      "the custody was read for another token account than the borrower's collateral account",
    );
  const holder = custody.holder ?? escrow;
  if (custody.replacesMetadata !== null) data[3] = 0; // a Core asset or a leaf has no metadata PDA
  const accounts = [
    signer(input.borrower, true),
    signer(input.oracle, false),
    readonly(config),
    writable(input.pool),
    writable(input.bank),
    writable(vault),
    writable(loan),
    writable(holder),
    // a Core asset is its own "mint", written by Core's transfer
    custody.replacesMint !== undefined
      ? readonly(custody.replacesMint)
      : custody.replacesMetadata === null
        ? readonly(input.collateralMint)
        : writable(input.collateralMint),
    writable(input.borrowerCollateralTokenAccount),
    writable(input.borrowerCurrencyTokenAccount),
    readonly(TOKEN_PROGRAM_ADDRESS),
    readonly(SYSTEM_PROGRAM_ADDRESS),
  ];
  if (metadata) accounts.push(readonly(custody.replacesMetadata ?? metadata[0]), ...custody.accounts);
  if (input.whitelist) accounts.push(readonly(input.whitelist));
  accounts.push(...(custody.trailingAccounts ?? []));
  if (input.pullFromVenue) {
    const pull = input.pullFromVenue;
    data[120] = accounts.length;
    accounts.push(
      readonly(pull.venues),
      readonly(pull.venueProgram),
      writable(pull.reserve),
      writable(pull.position),
      writable(pull.venueVault),
    );
  }
  const full = custody.dataTail === undefined ? data : Uint8Array.from([...data, ...custody.dataTail]);
  return { programAddress: input.programAddress, accounts, data: full, loan, escrow: holder };
}

/** A Repay's or Liquidate's data: the tag (a compressed leaf: then root, data hash and creator hash). */
function endingData(tag: number, custody: NftCustody | undefined): Uint8Array {
  return custody?.standard === "CompressedNft" ? compressedEndingData(tag, custody) : new Uint8Array([tag]);
}

/**
 * Repay (tag 9, borrower only): pays principal + owed interest into the vault (the protocol fee part waits there
 * as the bank's feesOwed until CollectFees) and returns the collateral.
 */
export async function getRepayInstruction(input: {
  programAddress: Address;
  borrower: SignerInput;
  pool: Address;
  bank: Address;
  loan: Address;
  borrowerCollateralTokenAccount: Address;
  borrowerCurrencyTokenAccount: Address;
  /** The NFT's custody as read from the chain (readNftCustody); classic escrow when absent. */
  custody?: NftCustody;
}): Promise<Instruction> {
  const [config] = await findConfigPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  const custody = await getRepayCustody(
    input.custody ?? { standard: "Nft" },
    input.borrowerCollateralTokenAccount,
  );
  const escrow = custody.holder ?? (await findEscrowPda(input.programAddress, input.loan))[0];
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.borrower, true),
      readonly(config),
      writable(input.pool),
      writable(input.bank),
      writable(vault),
      writable(input.loan),
      writable(escrow),
      writable(input.borrowerCollateralTokenAccount),
      writable(input.borrowerCurrencyTokenAccount),
      readonly(TOKEN_PROGRAM_ADDRESS),
      ...custody.accounts,
    ],
    data: endingData(INSTRUCTION_TAG.Repay, input.custody),
  };
}

/**
 * Extend (tag 10): repays `oldLoan` and opens a new loan with `terms` on the same collateral and pool,
 * atomically. Returns the instruction and the new loan / escrow addresses.
 */
export async function getExtendInstruction(
  input: NewLoanAccounts &
    LoanTerms & {
      oldLoan: Address;
      /** The NFT's custody as read from the chain (readNftCustody); classic escrow when absent. */
      custody?: NftCustody;
      /** The new loan's pool owner: a pNFT's move asks the rule set about the new loan's liquidation to it. */
      poolOwner?: Address;
    },
): Promise<Instruction & { loan: Address; escrow: Address }> {
  const { loan, escrow, data } = await encodeTerms(
    INSTRUCTION_TAG.Extend,
    input.programAddress,
    input.pool,
    signerAddress(input.borrower),
    input,
  );
  const [config] = await findConfigPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  const custody = await getMoveCustody(input.custody ?? { standard: "Nft" }, input.poolOwner ?? null, loan);
  const oldEscrow = custody.holder ?? (await findEscrowPda(input.programAddress, input.oldLoan))[0];
  const accounts = [
    signer(input.borrower, true),
    signer(input.oracle, false),
    readonly(config),
    writable(input.pool),
    writable(input.bank),
    writable(vault),
    writable(input.oldLoan),
    writable(oldEscrow),
    writable(loan),
    writable(custody.newHolder ?? custody.holder ?? escrow),
    custody.mintWritable ? writable(input.collateralMint) : readonly(input.collateralMint),
    writable(input.borrowerCurrencyTokenAccount),
    readonly(TOKEN_PROGRAM_ADDRESS),
    readonly(SYSTEM_PROGRAM_ADDRESS),
  ];
  if (input.whitelist) accounts.push(readonly(input.whitelist));
  accounts.push(...custody.accounts);
  const full = custody.dataTail === undefined ? data : Uint8Array.from([...data, ...custody.dataTail]);
  return {
    programAddress: input.programAddress,
    accounts,
    data: full,
    loan,
    escrow: custody.newHolder ?? custody.holder ?? escrow,
  };
}

/**
 * Refinance (tag 19, borrower + oracle): moves an ongoing loan to another pool of the same currency. The new
 * pool's bank lends the new principal; the old loan is paid off as Repay would pay it now (into the old vault,
 * the fee part as the old bank's feesOwed); the collateral moves old escrow -> new escrow. Terms describe the new
 * loan.
 */
export async function getRefinanceInstruction(
  input: NewLoanAccounts &
    LoanTerms & {
      oldLoan: Address;
      oldPool: Address;
      oldBank: Address;
      /** The NFT's custody as read from the chain (readNftCustody); classic escrow when absent. */
      custody?: NftCustody;
      /** The new pool's owner (a pNFT's move asks the rule set about the new loan's liquidation to it). */
      poolOwner?: Address;
    },
): Promise<Instruction & { loan: Address; escrow: Address }> {
  const extend = await getExtendInstruction(input);
  const data = new Uint8Array(extend.data!);
  data[0] = INSTRUCTION_TAG.Refinance;
  const [oldVault] = await findVaultPda(input.programAddress, input.oldBank);
  const accounts = [
    ...extend.accounts!.slice(0, 14),
    writable(input.oldPool),
    writable(input.oldBank),
    writable(oldVault),
  ];
  if (input.whitelist) accounts.push(readonly(input.whitelist));
  const move = await getMoveCustody(
    input.custody ?? { standard: "Nft" },
    input.poolOwner ?? null,
    extend.loan,
  );
  accounts.push(...move.accounts);
  return { ...extend, accounts, data };
}

/**
 * Liquidate (tag 11, anyone): after expiry + grace, the collateral goes to the pool owner's token account.
 */
export async function getLiquidateInstruction(input: {
  programAddress: Address;
  liquidator: SignerInput;
  pool: Address;
  bank: Address;
  loan: Address;
  /**
   * Token account of the collateral mint owned by pool.owner (a pNFT: its associated token account; a Core asset:
   * the pool owner's wallet, its new owner).
   */
  poolOwnerCollateralTokenAccount: Address;
  /** The NFT's custody as read from the chain (readNftCustody) and the parties a pNFT's transfer names. */
  custody?: { custody: NftCustody; borrower: Address; poolOwner: Address };
}): Promise<Instruction> {
  const custody = input.custody
    ? await getLiquidateCustody(input.custody.custody, {
        loan: input.loan,
        borrower: input.custody.borrower,
        poolOwner: input.custody.poolOwner,
        poolOwnerTokenAccount: input.poolOwnerCollateralTokenAccount,
      })
    : { holder: null, accounts: [] };
  const escrow = custody.holder ?? (await findEscrowPda(input.programAddress, input.loan))[0];
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.liquidator, true),
      writable(input.pool),
      writable(input.bank),
      writable(input.loan),
      writable(escrow),
      writable(input.poolOwnerCollateralTokenAccount),
      readonly(TOKEN_PROGRAM_ADDRESS),
      ...custody.accounts,
    ],
    data: endingData(INSTRUCTION_TAG.Liquidate, input.custody?.custody),
  };
}
