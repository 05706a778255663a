/**
 * The one place that lists the accounts each NFT standard's custody needs in TakeLoan, Repay and Liquidate
 * (programs/lending/LAYOUT.md "Custody"), read from the chain: the metadata's token standard and the rule set it
 * names, the master edition and token record PDAs with their bumps. Nothing is assumed about the cluster: the
 * same reads answer on the localnet and on mainnet.
 */
import type { AccountMeta, Address } from "@solana/kit";
import { addressBytes, addressFromBytes } from "../address-text.ts";
import { TOKEN_PROGRAM_ADDRESS } from "../constants.ts";
import { SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import { findProgramDerivedAddress } from "../find-pda.ts";
import { readonly, writable } from "../instructions/account-metas.ts";
import { decodeCoreAsset, MPL_CORE_PROGRAM_ADDRESS } from "../metaplex/core-asset.ts";
import {
  decodeMetadata,
  findMasterEditionPda,
  findMetadataPda,
  findTokenRecordPda,
  TOKEN_METADATA_PROGRAM_ADDRESS,
  TOKEN_STANDARD_PROGRAMMABLE_NON_FUNGIBLE,
} from "../metaplex/metadata.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import {
  BUBBLEGUM_PROGRAM_ADDRESS,
  type CompressedCustody,
  compressedTakeLoanTail,
  SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS,
  SPL_NOOP_PROGRAM_ADDRESS,
} from "./compressed-custody.ts";
import { NFT_TYPE_BYTE, NFT_TYPE_PNFT_HELD } from "./nft-standard.ts";

export * from "./compressed-custody.ts";
export * from "./nft-standard.ts";

export const SYSVAR_INSTRUCTIONS_ADDRESS = "Sysvar1nstructions1111111111111111111111111" as Address;
export const TOKEN_AUTH_RULES_PROGRAM_ADDRESS = "auth9SigNpDKz4sJJ1DfCTuZrZNSAgh9sFD3rboVmgg" as Address;
export const ASSOCIATED_TOKEN_PROGRAM_ADDRESS = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address;

/** An account as a chain read answers it (null: it does not exist). */
export interface ReadAccount {
  owner: string;
  data: Uint8Array;
}
/** Reads accounts from the chain (the API's state reader, an RPC getMultipleAccounts, LiteSVM in tests). */
export type AccountReader = (addresses: readonly Address[]) => Promise<readonly (ReadAccount | null)[]>;

/** A classic NFT (or tokens): the loan's escrow token account holds it. */
export interface ClassicCustody {
  standard: "Nft";
}

/**
 * A programmable NFT: it stays in `tokenAccount`, delegated to the loan PDA and locked; or, `held` (nftType 4: a loan
 * request's custody and the loan that fills it), the request or loan PDA owns it in its associated token account
 * `tokenAccount`.
 */
export interface ProgrammableCustody {
  standard: "ProgrammableNft";
  mint: Address;
  /** The token account that holds it (the borrower's; held: the holder PDA's associated token account); the loan
   * records it as its escrow. A request's post: the borrower's token account it comes from. */
  tokenAccount: Address;
  /** Owned by the holder PDA in its associated token account (nftType 4) rather than delegated and locked. */
  held?: boolean;
  metadata: Address;
  metadataBump: number;
  masterEdition: Address;
  masterEditionBump: number;
  tokenRecord: Address;
  tokenRecordBump: number;
  /** The rule set the metadata names; null when it names none. */
  ruleSet: Address | null;
}

/** A Metaplex Core asset: the loan PDA owns it for the loan's life (Core TransferV1 in and out). */
export interface CoreCustody {
  standard: "CoreNft";
  /** The asset's address (the loan's collateral "mint" and escrow). */
  asset: Address;
  /** The collection the asset names now (its update authority); null when it names none. */
  collection: Address | null;
  /** Its owner now (the borrower before the loan, the loan PDA during it). */
  owner: Address;
}

/** What a custody ending or beginning needs for one NFT. */
export type NftCustody = ClassicCustody | ProgrammableCustody | CoreCustody | CompressedCustody;

/** The SPL associated token account of `owner` for `mint` (classic Token program). */
export async function findAssociatedTokenPda(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findProgramDerivedAddress({
    programAddress: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
    seeds: [addressBytes(owner), addressBytes(TOKEN_PROGRAM_ADDRESS), addressBytes(mint)],
  });
  return ata;
}

function invalid(message: string): never {
  throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, message);
}

/**
 * Reads what custody of `mint` needs: its metadata (the token standard, the rule set it names) and, for a
 * programmable NFT, the master edition and the token record of `tokenAccount`; a Metaplex Core asset (the address
 * is an account of the Core program): the collection it names now. Refuses an address that is neither an NFT with
 * Token Metadata metadata nor a Core asset.
 */
export async function readNftCustody(
  read: AccountReader,
  input: {
    mint: Address;
    tokenAccount: Address;
    /** A programmable NFT a request or loan PDA owns (nftType 4: Loan / Request `pnftHeld`). */
    held?: boolean;
  },
): Promise<NftCustody> {
  const [metadata, metadataBump] = await findMetadataPda(input.mint);
  const [metadataAccount, assetAccount] = await read([metadata, input.mint]);
  if (assetAccount && assetAccount.owner === MPL_CORE_PROGRAM_ADDRESS) {
    const asset = decodeCoreAsset(assetAccount.data);
    if (asset === null) invalid(`${input.mint} is a Metaplex Core account but not an asset`);
    return { standard: "CoreNft", asset: input.mint, collection: asset.collection, owner: asset.owner };
  }
  if (!metadataAccount || metadataAccount.owner !== TOKEN_METADATA_PROGRAM_ADDRESS)
    invalid(`${input.mint} is not an NFT with Metaplex metadata`);
  const decoded = decodeMetadata(metadataAccount.data);
  if (decoded.tokenStandard !== TOKEN_STANDARD_PROGRAMMABLE_NON_FUNGIBLE) return { standard: "Nft" };
  const [[masterEdition, masterEditionBump], [tokenRecord, tokenRecordBump]] = await Promise.all([
    findMasterEditionPda(input.mint),
    findTokenRecordPda(input.mint, input.tokenAccount),
  ]);
  return {
    standard: "ProgrammableNft",
    mint: input.mint,
    tokenAccount: input.tokenAccount,
    metadata,
    metadataBump,
    masterEdition,
    masterEditionBump,
    tokenRecord,
    tokenRecordBump,
    ruleSet: decoded.ruleSet === null ? null : addressFromBytes(decoded.ruleSet),
    ...(input.held ? { held: true } : {}),
  };
}

/**
 * A held pNFT's accounts after the block's owner (LAYOUT.md "Loan requests of a programmable NFT"): the pNFT block
 * (its token record the holder's associated token account's), the associated token program, the token record of
 * `other` (the associated token account the transfer goes to; the post: the borrower's account it comes from).
 */
async function heldAccounts(c: ProgrammableCustody, other: Address): Promise<AccountMeta[]> {
  const [otherRecord] = await findTokenRecordPda(c.mint, other);
  return [...programmableBlock(c), readonly(ASSOCIATED_TOKEN_PROGRAM_ADDRESS), writable(otherRecord)];
}

/** `c` for the pNFT held in `owner`'s associated token account (its token record the block's). */
async function heldBy(c: ProgrammableCustody, owner: Address): Promise<ProgrammableCustody> {
  const tokenAccount = await findAssociatedTokenPda(owner, c.mint);
  const [tokenRecord, tokenRecordBump] = await findTokenRecordPda(c.mint, tokenAccount);
  return { ...c, tokenAccount, tokenRecord, tokenRecordBump, held: true };
}

/**
 * The pNFT block of TakeLoan, Repay and Liquidate (LAYOUT.md "Custody"): mint, metadata (w), master edition,
 * token record of the holder's token account (w), sysvar instructions, Token Metadata, Token Auth Rules, the rule
 * set the metadata names (Token Metadata's id when none, and then in the Token Auth Rules slot too), system program.
 */
function programmableBlock(c: ProgrammableCustody): AccountMeta[] {
  const hasRules = c.ruleSet !== null;
  return [
    readonly(c.mint),
    writable(c.metadata),
    readonly(c.masterEdition),
    writable(c.tokenRecord),
    readonly(SYSVAR_INSTRUCTIONS_ADDRESS),
    readonly(TOKEN_METADATA_PROGRAM_ADDRESS),
    readonly(hasRules ? TOKEN_AUTH_RULES_PROGRAM_ADDRESS : TOKEN_METADATA_PROGRAM_ADDRESS),
    readonly(c.ruleSet ?? TOKEN_METADATA_PROGRAM_ADDRESS),
    readonly(SYSTEM_PROGRAM_ADDRESS),
  ];
}

/** Bubblegum, SPL Account Compression, SPL Noop (a compressed leaf's transfer). */
function compressionPrograms(): AccountMeta[] {
  return [
    readonly(BUBBLEGUM_PROGRAM_ADDRESS),
    readonly(SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS),
    readonly(SPL_NOOP_PROGRAM_ADDRESS),
  ];
}

/** A compressed leaf's Repay / Liquidate accounts: the tree config, the three programs, System, the proof. */
function compressedEndingBlock(c: CompressedCustody): AccountMeta[] {
  return [
    readonly(c.treeConfig),
    ...compressionPrograms(),
    readonly(SYSTEM_PROGRAM_ADDRESS),
    ...c.proof.map(readonly),
  ];
}

/** A Core asset's Repay / Liquidate accounts: the collection it names now (the Core program's id if none), Core. */
function coreEndingBlock(c: CoreCustody): AccountMeta[] {
  return [readonly(c.collection ?? MPL_CORE_PROGRAM_ADDRESS), readonly(MPL_CORE_PROGRAM_ADDRESS)];
}

/**
 * What a standard adds to TakeLoan: the account that holds the NFT during the loan (account 7; null: the escrow
 * PDA), the data bytes 121-123 and the accounts after the metadata (account 14 on: a pNFT's block, then 23 the pool
 * owner's wallet, whose receipt at liquidation the program checks against the rule set now). A Core asset: accounts 7-9 are
 * the asset, 13 its collection (instead of the metadata), 14 the Core program.
 */
export function getTakeLoanCustody(
  c: NftCustody,
  /** The pool's owner: a pNFT's TakeLoan checks the liquidation's transfer to it against the rule set. */
  poolOwner: Address | null = null,
): {
  holder: Address | null;
  data: { nftType: number; masterEditionBump: number; tokenRecordBump: number };
  /** Account 13 instead of the metadata PDA (a Core asset: its collection); null: the metadata PDA. */
  replacesMetadata: Address | null;
  accounts: AccountMeta[];
  /** Accounts after the optional whitelist (a compressed leaf: its proof). */
  trailingAccounts?: AccountMeta[];
  /** Data after the 124 bytes of terms (a compressed leaf: root, nonce, proof length, MetadataArgs). */
  dataTail?: Uint8Array;
  /** Account 8 (a compressed leaf: its asset id, no account); null: the collateral mint as given. */
  replacesMint?: Address;
} {
  if (c.standard === "Nft")
    return {
      holder: null,
      data: { nftType: 0, masterEditionBump: 0, tokenRecordBump: 0 },
      replacesMetadata: null,
      accounts: [],
    };
  if (c.standard === "CompressedNft") {
    if (c.collection === null)
      invalid(`compressed NFT ${c.assetId} is in no verified collection, so no pool lends against it`);
    return {
      holder: c.tree,
      data: {
        nftType: NFT_TYPE_BYTE.CompressedNft,
        masterEditionBump: c.assetBump,
        tokenRecordBump: c.treeConfigBump,
      },
      replacesMetadata: c.treeConfig,
      accounts: compressionPrograms(),
      trailingAccounts: c.proof.map(readonly),
      dataTail: compressedTakeLoanTail(c),
      replacesMint: c.assetId,
    };
  }
  if (c.standard === "CoreNft") {
    if (c.collection === null)
      invalid(`Core asset ${c.asset} belongs to no collection, so no pool lends against it`);
    return {
      holder: c.asset,
      data: { nftType: NFT_TYPE_BYTE.CoreNft, masterEditionBump: 0, tokenRecordBump: 0 },
      replacesMetadata: c.collection,
      accounts: [readonly(MPL_CORE_PROGRAM_ADDRESS)],
    };
  }
  if (poolOwner === null) invalid("a programmable NFT's take-loan needs the pool owner (account 23)");
  return {
    replacesMetadata: null,
    holder: c.tokenAccount,
    data: {
      nftType: NFT_TYPE_BYTE.ProgrammableNft,
      masterEditionBump: c.masterEditionBump,
      tokenRecordBump: c.tokenRecordBump,
    },
    accounts: [...programmableBlock(c), readonly(poolOwner)],
  };
}

/**
 * What a standard adds to Repay: the account holding the NFT (account 6; null: the escrow PDA) and accounts 10 on. A
 * held pNFT: the block, the associated token program and the token record of `borrowerTokenAccount` (account 7, the
 * borrower's associated token account it returns to).
 */
export async function getRepayCustody(
  c: NftCustody,
  borrowerTokenAccount: Address | null = null,
): Promise<{ holder: Address | null; accounts: AccountMeta[] }> {
  if (c.standard === "Nft") return { holder: null, accounts: [] };
  if (c.standard === "CoreNft") return { holder: c.asset, accounts: coreEndingBlock(c) };
  if (c.standard === "CompressedNft") return { holder: c.tree, accounts: compressedEndingBlock(c) };
  if (!c.held) return { holder: c.tokenAccount, accounts: programmableBlock(c) };
  if (borrowerTokenAccount === null)
    invalid("a held pNFT's repay needs the borrower's associated token account");
  return { holder: c.tokenAccount, accounts: await heldAccounts(c, borrowerTokenAccount) };
}

/**
 * What a standard adds to Liquidate: the account holding the NFT (account 4; null: the escrow PDA) and accounts 7
 * on. A Core asset: its collection now and the Core program (account 5 is then the pool owner's wallet). A pNFT goes to the pool owner in two Transfer v1 through the loan PDA's own associated token account: the
 * borrower, the pool owner, the pool owner's token record (w), the associated token program, the loan PDA's
 * associated token account (w) and its token record (w) follow the block.
 */
export async function getLiquidateCustody(
  c: NftCustody,
  parties: { loan: Address; borrower: Address; poolOwner: Address; poolOwnerTokenAccount: Address },
): Promise<{ holder: Address | null; accounts: AccountMeta[] }> {
  if (c.standard === "Nft") return { holder: null, accounts: [] };
  if (c.standard === "CoreNft") return { holder: c.asset, accounts: coreEndingBlock(c) };
  if (c.standard === "CompressedNft") return { holder: c.tree, accounts: compressedEndingBlock(c) };
  if (c.held)
    // the loan PDA, its owner, transfers it straight to the pool owner's associated token account (account 5)
    return {
      holder: c.tokenAccount,
      accounts: [...(await heldAccounts(c, parties.poolOwnerTokenAccount)), readonly(parties.poolOwner)],
    };
  const via = await findAssociatedTokenPda(parties.loan, c.mint);
  const [[ownerRecord], [viaRecord]] = await Promise.all([
    findTokenRecordPda(c.mint, parties.poolOwnerTokenAccount),
    findTokenRecordPda(c.mint, via),
  ]);
  return {
    holder: c.tokenAccount,
    accounts: [
      ...programmableBlock(c),
      readonly(parties.borrower),
      readonly(parties.poolOwner),
      writable(ownerRecord),
      readonly(ASSOCIATED_TOKEN_PROGRAM_ADDRESS),
      writable(via),
      writable(viaRecord),
    ],
  };
}

/** A held leaf's root, data hash and creator hash (the data after the terms of a move, or after an ending's tag). */
function leafHashes(c: CompressedCustody): Uint8Array {
  return Uint8Array.from([...c.root, ...c.dataHash, ...c.creatorHash]);
}

/** A held leaf's accounts in a move (Extend, Refinance, FillRequest): the tree config, the three programs, the proof. */
function compressedMoveBlock(c: CompressedCustody): AccountMeta[] {
  return [readonly(c.treeConfig), ...compressionPrograms(), ...c.proof.map(readonly)];
}

/**
 * What a standard adds to Extend and Refinance (LAYOUT.md "Extend and Refinance of a pNFT, Core or compressed NFT
 * loan"): the account holding the NFT (old and new escrow, accounts 7 and 9; null: the escrow PDAs), whether account
 * 10 (the collateral mint: a Core asset) is written, the accounts after the optional whitelist (Core: the collection
 * now and Core; pNFT: the block and the new pool's owner, whom the rule set is asked about; a compressed leaf: the tree
 * config, the programs and a fresh proof) and the data after the terms (a leaf: its root and hashes).
 */
export async function getMoveCustody(
  c: NftCustody,
  newPoolOwner: Address | null = null,
  /** The new loan (a held pNFT moves into its associated token account). */
  newLoan: Address | null = null,
): Promise<{
  holder: Address | null;
  /** Account 9 when it differs from account 7 (a held pNFT: the new loan's associated token account). */
  newHolder?: Address;
  mintWritable: boolean;
  accounts: AccountMeta[];
  dataTail?: Uint8Array;
}> {
  if (c.standard === "Nft") return { holder: null, mintWritable: false, accounts: [] };
  if (c.standard === "CoreNft") return { holder: c.asset, mintWritable: true, accounts: coreEndingBlock(c) };
  if (c.standard === "CompressedNft")
    return { holder: c.tree, mintWritable: false, accounts: compressedMoveBlock(c), dataTail: leafHashes(c) };
  if (newPoolOwner === null) invalid("moving a programmable NFT's loan needs the new pool's owner");
  if (c.held) {
    if (newLoan === null) invalid("moving a held programmable NFT needs the new loan");
    const newHolder = await findAssociatedTokenPda(newLoan, c.mint);
    return {
      holder: c.tokenAccount,
      newHolder,
      mintWritable: false,
      accounts: [...(await heldAccounts(c, newHolder)), readonly(newPoolOwner)],
    };
  }
  return {
    holder: c.tokenAccount,
    mintWritable: false,
    accounts: [...programmableBlock(c), readonly(newPoolOwner)],
  };
}

function notSoldThroughVenue(c: NftCustody): never {
  const what = c.standard === "ProgrammableNft" ? "a programmable NFT" : "a compressed NFT";
  invalid(
    `selling or buying ${what} through the NFT market with a loan is not available (the program refuses it)`,
  );
}

/**
 * What a standard changes in MarketSell and LiquidateSell (LAYOUT.md "Sales of a Core asset", "Instant sell of a pNFT
 * loan", "Sales of a compressed NFT"): account 7 (null: the escrow PDA), account 8 (null: the collateral token account
 * given), the accounts between the venue program and the venue's instruction (none but a pNFT's LiquidateSell) and the
 * data between the tag and the venue's data. A Core asset: 7 and 8 the asset, the venue's instruction the NFT market's
 * SellCoreToBid with the loan PDA as its seller. A pNFT: 7 the token account that holds it (the borrower's; a filled
 * request's loan, `held`: the loan PDA's associated token account), 8 its token record, and the venue's instruction the
 * market's SellPnftToBid selling from the loan PDA's associated token account; LiquidateSell adds the borrower's wallet
 * (`borrower`, account 11: Token Metadata's transfer by the loan PDA, the delegate, names the token's owner; a held
 * pNFT's sale has no such transfer but the program checks the same layout) before it. A compressed NFT: 7 and 8 the tree, the leaf's data hash and creator
 * hash after the tag (the program hashes the leaf the loan PDA holds from them), the venue's instruction the market's
 * SellCnftToBid with the loan PDA as its seller.
 */
export function getSaleCustody(
  c: NftCustody,
  ending: "MarketSell" | "LiquidateSell" = "MarketSell",
  borrower: Address | null = null,
): {
  holder: Address | null;
  collateralAccount: Address | null;
  dataPrefix: Uint8Array;
  beforeVenue?: AccountMeta[];
} {
  const none = new Uint8Array();
  if (c.standard === "Nft") return { holder: null, collateralAccount: null, dataPrefix: none };
  if (c.standard === "CoreNft") return { holder: c.asset, collateralAccount: c.asset, dataPrefix: none };
  if (c.standard === "CompressedNft")
    return {
      holder: c.tree,
      collateralAccount: c.tree,
      dataPrefix: Uint8Array.from([...c.dataHash, ...c.creatorHash]),
    };
  const pnft = { holder: c.tokenAccount, collateralAccount: c.tokenRecord, dataPrefix: none };
  if (ending === "MarketSell") return pnft;
  if (borrower === null) invalid("the auto-sell of a programmable NFT's loan needs the borrower's wallet");
  return { ...pnft, beforeVenue: [readonly(borrower)] };
}

/**
 * What a standard changes in TakeMortgage (LAYOUT.md "Sales of a Core asset", "### 23 TakeMortgage"): the account the
 * purchase delivers the NFT to (account 7; null: the escrow PDA), whether account 8 (the asset) is written, account 13
 * (null: the metadata PDA), data byte 121 and the PDA bumps of data bytes 3, 122 and 123. A Core asset: 7 and 8 the
 * asset, 13 the collection it names, byte 121 CoreNft; the market's BuyCore names the loan PDA as the new owner. A pNFT
 * (read with `tokenAccount` the borrower's associated token account of it): 7 that account, 13 the pool owner's
 * wallet (the liquidation's receiver the rule set is asked about), byte 121 ProgrammableNft, bytes 3, 122, 123 its
 * metadata, master edition and token record bumps; the market's BuyPnft names the borrower as the new owner.
 */
export function getMortgageCustody(
  c: NftCustody,
  /** The pool's owner: a pNFT's mortgage checks the liquidation's transfer to it against the rule set. */
  poolOwner: Address | null = null,
): {
  holder: Address | null;
  mintWritable: boolean;
  replacesMetadata: Address | null;
  nftType: number;
  /** Data bytes 3, 122 and 123 when `holder` is not null. */
  bumps: [number, number, number];
} {
  if (c.standard === "Nft")
    return { holder: null, mintWritable: false, replacesMetadata: null, nftType: 0, bumps: [0, 0, 0] };
  if (c.standard === "CoreNft") {
    if (c.collection === null)
      invalid(`Core asset ${c.asset} belongs to no collection, so no pool lends against it`);
    return {
      holder: c.asset,
      mintWritable: true,
      replacesMetadata: c.collection,
      nftType: NFT_TYPE_BYTE.CoreNft,
      bumps: [0, 0, 0],
    };
  }
  if (c.standard === "ProgrammableNft") {
    if (poolOwner === null) invalid("a programmable NFT's mortgage needs the pool owner (account 13)");
    return {
      holder: c.tokenAccount,
      mintWritable: false,
      replacesMetadata: poolOwner,
      nftType: NFT_TYPE_BYTE.ProgrammableNft,
      bumps: [c.metadataBump, c.masterEditionBump, c.tokenRecordBump],
    };
  }
  return notSoldThroughVenue(c);
}

/**
 * What a standard adds to a loan request (LAYOUT.md "Loan requests of a Core asset or a compressed NFT", "Loan
 * requests of a programmable NFT"); the request PDA holds the NFT: a Core asset it owns, a compressed leaf it owns, a
 * programmable NFT it owns in its associated token account (`c` read for the borrower's token account it comes from).
 *
 * - post: the account holding it (account 3; a Core asset or a leaf: also 5, and 4 is the asset or the asset id; a
 *   pNFT: 5 the borrower's token account), the data after byte 40 (nftType, PDA bumps, a leaf's root, nonce, proof
 *   length and MetadataArgs) and accounts 9 on;
 * - cancel: account 2, account 3 (a pNFT: the borrower's associated token account it returns to), accounts 5 on, the
 *   data after the tag (a leaf: root and hashes);
 * - fill: account 6, account 8 (a pNFT: the new loan's associated token account; 9 the asset or the asset id, written
 *   for a Core asset), accounts 13 on, the data after the 32 bytes (a leaf: root and hashes).
 */
export async function getRequestCustody(
  c: NftCustody,
  parties: { request: Address; borrower: Address; loan?: Address },
): Promise<{
  holder: Address;
  /** Account 4 (post) and 9 (fill): the asset, the leaf's asset id or the pNFT's mint. */
  collateral: Address;
  mintWritable: boolean;
  post: { data: Uint8Array; accounts: AccountMeta[]; collateralAccount: Address };
  cancel: { dataTail: Uint8Array; accounts: AccountMeta[]; collateralAccount: Address };
  fill: { dataTail: Uint8Array; accounts: AccountMeta[]; loanHolder: Address };
}> {
  if (c.standard === "CoreNft") {
    if (c.collection === null)
      invalid(`Core asset ${c.asset} belongs to no collection, so no lender can value it`);
    const accounts = coreEndingBlock(c);
    return {
      holder: c.asset,
      collateral: c.asset,
      mintWritable: true,
      post: { data: Uint8Array.of(NFT_TYPE_BYTE.CoreNft, 0, 0), accounts, collateralAccount: c.asset },
      cancel: { dataTail: new Uint8Array(), accounts, collateralAccount: c.asset },
      fill: { dataTail: new Uint8Array(), accounts, loanHolder: c.asset },
    };
  }
  if (c.standard === "CompressedNft") {
    if (c.collection === null)
      invalid(`compressed NFT ${c.assetId} is in no verified collection, so no lender can value it`);
    return {
      holder: c.tree,
      collateral: c.assetId,
      mintWritable: false,
      post: {
        data: Uint8Array.from([
          NFT_TYPE_BYTE.CompressedNft,
          c.assetBump,
          c.treeConfigBump,
          ...compressedTakeLoanTail(c),
        ]),
        accounts: [readonly(c.treeConfig), ...compressionPrograms(), ...c.proof.map(readonly)],
        collateralAccount: c.tree,
      },
      cancel: { dataTail: leafHashes(c), accounts: compressedEndingBlock(c), collateralAccount: c.tree },
      fill: { dataTail: leafHashes(c), accounts: compressedMoveBlock(c), loanHolder: c.tree },
    };
  }
  if (c.standard === "ProgrammableNft") {
    const held = await heldBy(c, parties.request);
    const borrowerAta = await findAssociatedTokenPda(parties.borrower, c.mint);
    const loanAta = parties.loan === undefined ? null : await findAssociatedTokenPda(parties.loan, c.mint);
    return {
      holder: held.tokenAccount,
      collateral: c.mint,
      mintWritable: false,
      post: {
        data: Uint8Array.of(NFT_TYPE_PNFT_HELD, c.metadataBump, c.masterEditionBump, c.tokenRecordBump),
        // the block names the request's account's token record; the borrower's follows it
        accounts: [
          ...programmableBlock(held),
          readonly(ASSOCIATED_TOKEN_PROGRAM_ADDRESS),
          writable(c.tokenRecord),
        ],
        collateralAccount: c.tokenAccount,
      },
      cancel: {
        dataTail: new Uint8Array(),
        accounts: await heldAccounts(held, borrowerAta),
        collateralAccount: borrowerAta,
      },
      fill: {
        dataTail: new Uint8Array(),
        accounts: loanAta === null ? [] : await heldAccounts(held, loanAta),
        loanHolder: loanAta ?? held.tokenAccount,
      },
    };
  }
  invalid("a classic NFT's request holds it in the request's escrow: no custody accounts to add");
}
