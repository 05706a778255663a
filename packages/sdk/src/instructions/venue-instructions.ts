import { type Address, getAddressEncoder, type Instruction, type ReadonlyUint8Array } from "@solana/kit";
import { addressBytes, addressFromBytes } from "../address-text.ts";
import { INSTRUCTION_TAG, TOKEN_PROGRAM_ADDRESS } from "../constants.ts";
import { getMortgageCustody, getSaleCustody, type NftCustody } from "../custody/nft-custody.ts";
import { SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import { findMetadataPda } from "../metaplex/metadata.ts";
import { findConfigPda, findEscrowPda, findVaultPda, findVenuesPda } from "../pda.ts";
import { readonly, type SignerInput, signer, signerAddress, writable } from "./account-metas.ts";
import { encodeTerms, type LoanTerms } from "./loan-instructions.ts";

/** The system program's address: "no venue" in a Venues account. */
export const NO_VENUE = SYSTEM_PROGRAM_ADDRESS;
/** Size of the Venues account, bytes. */
export const VENUES_ACCOUNT_SIZE = 128;

/** The outside programs the lending program composes with, as the admin pinned them. */
export interface VenuesAccount {
  swapProgram: Address;
  marketProgram: Address;
  lendingProgram: Address;
  updatedAt: bigint;
}

/** Decodes the Venues account (tag 5). */
export function decodeVenuesAccount(data: ReadonlyUint8Array): VenuesAccount {
  if (data.length !== VENUES_ACCOUNT_SIZE || data[0] !== 5 || data[1] !== 1)
    throw new Error("not a Venues account");
  const key = (offset: number) => addressFromBytes(data.slice(offset, offset + 32));
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    swapProgram: key(8),
    marketProgram: key(40),
    lendingProgram: key(72),
    updatedAt: view.getBigInt64(104, true),
  };
}

/** A venue swap's accounts for the lending program to pass on: the loan (its signing user) as a plain account. */
function passThrough(swap: Instruction, loan: Address) {
  return (swap.accounts ?? []).map((a) =>
    a.address === loan ? readonly(a.address) : { address: a.address, role: a.role },
  );
}

/** A venue instruction's accounts with the borrower's meta carrying its signer (the borrower pays the venue). */
function passThroughAsBorrower(venue: Instruction, borrower: SignerInput) {
  return (venue.accounts ?? []).map((a) =>
    a.address === signerAddress(borrower) ? signer(borrower, true) : { address: a.address, role: a.role },
  );
}

/** SetVenues (tag 12, admin only): pins the swap, NFT market and lending venue programs (NO_VENUE: none). */
export async function getSetVenuesInstruction(input: {
  programAddress: Address;
  admin: SignerInput;
  swapProgram: Address;
  marketProgram?: Address;
  lendingProgram?: Address;
}): Promise<Instruction> {
  const [config] = await findConfigPda(input.programAddress);
  const [venues, bump] = await findVenuesPda(input.programAddress);
  const data = new Uint8Array(98);
  data[0] = INSTRUCTION_TAG.SetVenues;
  data[1] = bump;
  const enc = getAddressEncoder();
  data.set(enc.encode(input.swapProgram), 2);
  data.set(enc.encode(input.marketProgram ?? NO_VENUE), 34);
  data.set(enc.encode(input.lendingProgram ?? NO_VENUE), 66);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.admin, true),
      readonly(config),
      writable(venues),
      readonly(SYSTEM_PROGRAM_ADDRESS),
    ],
    data,
  };
}

/**
 * MarketSell (tag 13): sells the loan's collateral through a pinned venue and repays the loan from the proceeds
 * in the same instruction. `swap` is the venue's instruction (the swap venue's swap for tokens, the NFT market's
 * SellToBid for an NFT: the instant sell) whose input is the loan's escrow,
 * whose authority is the loan (the program signs for it) and whose output is the borrower's currency account;
 * its accounts and data are passed through. The program refuses unless the proceeds cover principal + owed
 * interest; what remains after repaying stays with the borrower, unsold collateral comes back. A Core asset's loan
 * (`custody` as readNftCustody reads it): `swap` is the market's SellCoreToBid with the loan as the seller and the
 * borrower's currency account as the proceeds account; accounts 7 and 8 are the asset. A compressed NFT's loan:
 * `swap` is the market's SellCnftToBid (the loan the seller, signing by CPI; a fresh proof), accounts 7 and 8 the
 * tree, and the leaf's data hash and creator hash go between the tag and the venue's data.
 */
export async function getMarketSellInstruction(input: {
  programAddress: Address;
  borrower: SignerInput;
  pool: Address;
  bank: Address;
  loan: Address;
  /** A Core or compressed NFT loan: ignored (account 8 is the asset, the tree). */
  borrowerCollateralTokenAccount: Address;
  borrowerCurrencyTokenAccount: Address;
  swap: Instruction;
  /** The NFT's custody as read from the chain (readNftCustody); classic escrow when absent. */
  custody?: NftCustody;
}): Promise<Instruction> {
  const [config] = await findConfigPda(input.programAddress);
  const [venues] = await findVenuesPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  const custody = getSaleCustody(input.custody ?? { standard: "Nft" });
  const escrow = custody.holder ?? (await findEscrowPda(input.programAddress, input.loan))[0];
  const swapData = input.swap.data ?? new Uint8Array();
  const data = Uint8Array.from([INSTRUCTION_TAG.MarketSell, ...custody.dataPrefix, ...swapData]);

  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.borrower, true),
      readonly(config),
      readonly(venues),
      writable(input.pool),
      writable(input.bank),
      writable(vault),
      writable(input.loan),
      writable(escrow),
      writable(custody.collateralAccount ?? input.borrowerCollateralTokenAccount),
      writable(input.borrowerCurrencyTokenAccount),
      readonly(TOKEN_PROGRAM_ADDRESS),
      readonly(input.swap.programAddress),
      ...passThrough(input.swap, input.loan),
    ],
    data,
  };
}

/**
 * LiquidateSell (tag 14, anyone, auto-sell pools only): liquidates a loan past expiry + grace by selling its
 * collateral through the pinned swap venue into the bank's vault. `swap` sells from the loan's escrow (the loan
 * signs) into the vault; the program requires the vault to gain at least principal + owed interest, and sends
 * what the sale leaves of the collateral to the pool owner's account. A Core asset's loan (`custody`): `swap` is the
 * market's SellCoreToBid with the loan as the seller and the vault as the proceeds account; accounts 7 and 8 are the
 * asset. A compressed NFT's loan: SellCnftToBid likewise, accounts 7 and 8 the tree, the leaf's hashes after the tag.
 * A programmable NFT's loan: 7 the borrower's token account (a filled request's, `custody.held`: the loan PDA's
 * associated token account), 8 its token record, 11 the borrower's wallet (`borrower`),
 * then the market's SellPnftToBid (the loan the seller, the liquidator the payer, the vault the proceeds account).
 */
export async function getLiquidateSellInstruction(input: {
  programAddress: Address;
  liquidator: SignerInput;
  pool: Address;
  bank: Address;
  loan: Address;
  /** A Core or compressed NFT loan: ignored (account 8 is the asset, the tree). */
  poolOwnerCollateralTokenAccount: Address;
  swap: Instruction;
  /** The NFT's custody as read from the chain (readNftCustody); classic escrow when absent. */
  custody?: NftCustody;
  /** A programmable NFT's loan: the borrower's wallet (the loan's borrower; the token's owner). */
  borrower?: Address;
}): Promise<Instruction> {
  const [config] = await findConfigPda(input.programAddress);
  const [venues] = await findVenuesPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  const custody = getSaleCustody(
    input.custody ?? { standard: "Nft" },
    "LiquidateSell",
    input.borrower ?? null,
  );
  const escrow = custody.holder ?? (await findEscrowPda(input.programAddress, input.loan))[0];
  const swapData = input.swap.data ?? new Uint8Array();
  const data = Uint8Array.from([INSTRUCTION_TAG.LiquidateSell, ...custody.dataPrefix, ...swapData]);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.liquidator, true),
      readonly(config),
      readonly(venues),
      writable(input.pool),
      writable(input.bank),
      writable(vault),
      writable(input.loan),
      writable(escrow),
      writable(custody.collateralAccount ?? input.poolOwnerCollateralTokenAccount),
      readonly(TOKEN_PROGRAM_ADDRESS),
      readonly(input.swap.programAddress),
      ...(custody.beforeVenue ?? []),
      ...passThrough(input.swap, input.loan),
    ],
    data,
  };
}

/**
 * MarginSwap (tag 15, oracle co-signed): borrows `principalBaseUnits` from a defi-pool and swaps it with the
 * down payment (both in the borrower's currency account) through the pinned venue into the pool's collateral
 * token, locked in the new loan's escrow as a MarginSwapLoan. `collateralAmountBaseUnits` is the least the swap
 * must deliver (the attestation values it; the LTV applies to it). `swap` spends from the borrower's currency
 * account (the borrower signs) into the escrow returned here, which the caller derives with
 * {@link findLoanPda} / findEscrowPda before building the swap.
 */
export async function getMarginSwapInstruction(
  input: {
    programAddress: Address;
    borrower: SignerInput;
    oracle: SignerInput;
    pool: Address;
    bank: Address;
    collateralMint: Address;
    borrowerCurrencyTokenAccount: Address;
    downPaymentBaseUnits: bigint;
    swap: Instruction;
  } & LoanTerms,
): Promise<Instruction & { loan: Address; escrow: Address }> {
  const {
    loan,
    escrow,
    data: terms,
  } = await encodeTerms(
    INSTRUCTION_TAG.MarginSwap,
    input.programAddress,
    input.pool,
    signerAddress(input.borrower),
    input,
  );
  const [config] = await findConfigPda(input.programAddress);
  const [venues] = await findVenuesPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  const swapData = input.swap.data ?? new Uint8Array();
  const data = new Uint8Array(terms.length + 8 + swapData.length);
  data.set(terms, 0);
  new DataView(data.buffer).setBigUint64(terms.length, input.downPaymentBaseUnits, true);
  data.set(swapData, terms.length + 8);
  return {
    programAddress: input.programAddress,
    loan,
    escrow,
    accounts: [
      signer(input.borrower, true),
      signer(input.oracle, false),
      readonly(config),
      writable(input.pool),
      writable(input.bank),
      writable(vault),
      writable(loan),
      writable(escrow),
      readonly(input.collateralMint),
      writable(input.borrowerCurrencyTokenAccount),
      readonly(venues),
      readonly(TOKEN_PROGRAM_ADDRESS),
      readonly(SYSTEM_PROGRAM_ADDRESS),
      readonly(input.swap.programAddress),
      ...passThroughAsBorrower(input.swap, input.borrower),
    ],
    data,
  };
}

/**
 * TakeMortgage (tag 23, oracle co-signed): buys a listing of the pinned NFT market with the down payment in the
 * borrower's currency account plus a loan from a mortgage-enabled nft-pool at its mortgage APR; the NFT lands in
 * the new loan's escrow. `buy` is the market's Buy instruction paying from `borrowerCurrencyTokenAccount` (the
 * borrower signs) into the escrow, which the caller derives with {@link findLoanPda} / findEscrowPda first.
 * `expectedAprBps` is the pool's mortgageAprBps; `collateralAmountBaseUnits` is 1. A Core asset (`custody` as
 * readNftCustody reads the listed asset; `collateralMint` the asset): `buy` is the market's BuyCore naming the loan
 * PDA as the asset's new owner; the returned `escrow` is the asset. A pNFT (`custody` read with `tokenAccount` the
 * borrower's associated token account of it): `buy` is the market's BuyPnft naming the borrower as the new owner,
 * `poolOwner` the pool's owner; the returned `escrow` is the borrower's associated token account.
 */
export async function getTakeMortgageInstruction(
  input: {
    programAddress: Address;
    borrower: SignerInput;
    oracle: SignerInput;
    pool: Address;
    bank: Address;
    collateralMint: Address;
    borrowerCurrencyTokenAccount: Address;
    buy: Instruction;
    /** The listed NFT's custody as read from the chain (readNftCustody); classic escrow when absent. */
    custody?: NftCustody;
    /** The pool's owner (a pNFT's mortgage: account 13). */
    poolOwner?: Address;
  } & LoanTerms,
): Promise<Instruction & { loan: Address; escrow: Address }> {
  const custody = getMortgageCustody(input.custody ?? { standard: "Nft" }, input.poolOwner ?? null);
  const [metadata, metadataBump] = await findMetadataPda(input.collateralMint);
  const {
    loan,
    escrow: escrowPda,
    data: terms,
  } = await encodeTerms(
    INSTRUCTION_TAG.TakeMortgage,
    input.programAddress,
    input.pool,
    signerAddress(input.borrower),
    input,
    metadataBump,
  );
  const [config] = await findConfigPda(input.programAddress);
  const [venues] = await findVenuesPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  const escrow = custody.holder ?? escrowPda;
  if (custody.holder !== null) {
    terms[2] = 0; // no escrow PDA
    [terms[3], terms[122], terms[123]] = custody.bumps; // a pNFT's metadata, edition, token record bumps (Core: 0)
    terms[121] = custody.nftType;
  }
  const buyData = input.buy.data ?? new Uint8Array();
  const data = new Uint8Array(terms.length + buyData.length);
  data.set(terms, 0);
  data.set(buyData, terms.length);
  return {
    programAddress: input.programAddress,
    loan,
    escrow,
    accounts: [
      signer(input.borrower, true),
      signer(input.oracle, false),
      readonly(config),
      writable(input.pool),
      writable(input.bank),
      writable(vault),
      writable(loan),
      writable(escrow),
      custody.mintWritable ? writable(input.collateralMint) : readonly(input.collateralMint),
      writable(input.borrowerCurrencyTokenAccount),
      readonly(venues),
      readonly(TOKEN_PROGRAM_ADDRESS),
      readonly(SYSTEM_PROGRAM_ADDRESS),
      readonly(custody.replacesMetadata ?? metadata),
      readonly(input.buy.programAddress),
      ...passThroughAsBorrower(input.buy, input.borrower),
    ],
    data,
  };
}

/** SetDelegation (tag 16, bank owner): who besides the owner may delegate idle liquidity (NO_VENUE: nobody). */
export function getSetDelegationInstruction(input: {
  programAddress: Address;
  owner: SignerInput;
  bank: Address;
  keeper: Address;
}): Instruction {
  const data = new Uint8Array(33);
  data[0] = INSTRUCTION_TAG.SetDelegation;
  data.set(addressBytes(input.keeper), 1);
  return {
    programAddress: input.programAddress,
    accounts: [signer(input.owner, false), writable(input.bank)],
    data,
  };
}

/** The accounts Delegate and WithdrawDelegated share: the bank, its vault and its position in the venue's reserve. */
export interface DelegationAccounts {
  programAddress: Address;
  bank: Address;
  /** The pinned lending venue program. */
  venueProgram: Address;
  /** The venue's reserve of the bank's mint, its vault and the bank's position (PDAs of the venue). */
  reserve: Address;
  venueVault: Address;
  position: Address;
}

async function delegationMetas(input: DelegationAccounts, authority: SignerInput) {
  const [venues] = await findVenuesPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  return [
    signer(authority, false),
    readonly(venues),
    writable(input.bank),
    writable(vault),
    readonly(input.venueProgram),
    writable(input.reserve),
    writable(input.position),
    writable(input.venueVault),
    readonly(TOKEN_PROGRAM_ADDRESS),
  ];
}

/**
 * Delegate (tag 17): moves `amount` of the bank's available liquidity into its position in the pinned lending
 * venue (opened on first use; `payer` pays its rent). `authority`: the bank's owner or its delegation keeper.
 */
export async function getDelegateInstruction(
  input: DelegationAccounts & {
    authority: SignerInput;
    payer: SignerInput;
    amount: bigint;
    positionBump: number;
  },
): Promise<Instruction> {
  const data = new Uint8Array(10);
  data[0] = INSTRUCTION_TAG.Delegate;
  new DataView(data.buffer).setBigUint64(1, input.amount, true);
  data[9] = input.positionBump;
  return {
    programAddress: input.programAddress,
    accounts: [
      ...(await delegationMetas(input, input.authority)),
      signer(input.payer, true),
      readonly(SYSTEM_PROGRAM_ADDRESS),
    ],
    data,
  };
}

/** WithdrawDelegated (tag 18, bank owner): `shares` of the bank's position back to its vault (0n: all of them). */
export async function getWithdrawDelegatedInstruction(
  input: DelegationAccounts & { owner: SignerInput; shares: bigint },
): Promise<Instruction> {
  const data = new Uint8Array(9);
  data[0] = INSTRUCTION_TAG.WithdrawDelegated;
  new DataView(data.buffer).setBigUint64(1, input.shares, true);
  return { programAddress: input.programAddress, accounts: await delegationMetas(input, input.owner), data };
}
