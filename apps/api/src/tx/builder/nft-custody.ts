import {
  type AccountReader,
  type CompressedCustody,
  compressedCustodyFromDas,
  findEscrowPda,
  type LoanAccount,
  type NftCustody,
  type NftStandard,
  readNftCustody,
  readTreeShape,
  SdkError,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { createDasAssetSource } from "../../assets/das-asset-source.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";

/** The SDK's chain read over the builder's batched account reader (what a standard's custody needs). */
export function chainReader(tx: TxContext): AccountReader {
  return (addresses) => tx.state.getAccounts(addresses);
}

/** The custody of `mint` held in `tokenAccount`, read from the chain now (metadata, rule set, record PDAs); `held`: a
 * programmable NFT a request or loan PDA owns in that account (nftType 4). */
export function readCustody(
  tx: TxContext,
  mint: Address,
  tokenAccount: Address,
  held = false,
): Promise<NftCustody> {
  return readNftCustody(chainReader(tx), { mint, tokenAccount, ...(held ? { held } : {}) });
}

/**
 * A compressed NFT's custody from DAS now (getAsset and a fresh getAssetProof, never cached: a proof goes stale when
 * another leaf of the tree changes), the proof cut below the tree's canopy (read from the tree account). Null when
 * DAS knows no compressed asset by this id; 400 when its metadata or proof do not match its leaf.
 */
export async function readCompressedCustody(
  tx: TxContext,
  assetId: string,
): Promise<CompressedCustody | null> {
  const das = createDasAssetSource(tx.app.config.dasUrl ?? tx.app.config.solanaRpcUrl);
  const found = await das.fetchCompressedAsset(assetId);
  if (found === null) return null;
  const tree = found.asset.compression?.tree;
  const [treeAccount] = tree ? await tx.state.getAccounts([tree]) : [null];
  const shape = treeAccount ? readTreeShape(treeAccount.data) : null;
  if (shape === null) throw badRequest(`the tree of compressed NFT ${assetId} is not on the chain`);
  try {
    return await compressedCustodyFromDas(found.asset, found.proof, shape.canopyDepth);
  } catch (error) {
    if (error instanceof SdkError) throw badRequest(error.message);
    throw error;
  }
}

/**
 * The custody of the NFT a loan or a request holds (`holder` its record: the collateral and the account that holds it;
 * a pNFT stays in the token account recorded as its escrow (the borrower's, or the request or loan PDA's own when
 * `pnftHeld`), a leaf in the recorded tree), read now: a leaf with a fresh DAS proof. 422 when DAS does not serve the
 * leaf in that tree.
 */
export async function readHeldCustody(
  tx: TxContext,
  holder: { collateralMint: Address; escrow: Address; nftType: NftStandard; pnftHeld?: boolean },
  what: string,
): Promise<NftCustody> {
  if (holder.nftType === "CompressedNft") {
    const custody = await readCompressedCustody(tx, holder.collateralMint);
    if (custody === null || custody.tree !== holder.escrow)
      throw unprocessable(`DAS does not serve the compressed NFT ${holder.collateralMint} of this ${what}`);
    return custody;
  }
  return readCustody(tx, holder.collateralMint, holder.escrow, holder.pnftHeld === true);
}

/** The custody of an ongoing loan's NFT (classic escrow for tokens and classic NFTs). */
export async function readLoanCustody(tx: TxContext, loan: LoanAccount): Promise<NftCustody> {
  if (loan.isDefi || loan.nftType === "Nft") return { standard: "Nft" };
  return readHeldCustody(tx, loan, "loan");
}

/** The standards the program sells through the NFT market in every sale (MarketSell, LiquidateSell). */
export const SOLD_THROUGH_MARKET: readonly NftStandard[] = [
  "Nft",
  "ProgrammableNft",
  "CoreNft",
  "CompressedNft",
];
/** The standards the program sells instantly (MarketSell): all those. */
export const SOLD_INSTANTLY: readonly NftStandard[] = SOLD_THROUGH_MARKET;
/** The standards the program buys through the NFT market (TakeMortgage). */
export const BOUGHT_THROUGH_MARKET: readonly NftStandard[] = ["Nft", "CoreNft", "ProgrammableNft"];

/**
 * Whether building for this custody asks the chain first: a pNFT governed by a rule set, which only Token Auth Rules
 * can say allows the loan (its delegate and the transfers a liquidation makes). Its builds are simulated, so a
 * refusal is told before anything is signed (TRANSACTION_SEND_RULE_SET_REFUSED).
 */
export function asksRuleSet(custody: NftCustody): boolean {
  return custody.standard === "ProgrammableNft" && custody.ruleSet !== null;
}

/**
 * Refuses (422) an instant sell the program does not take (none now: a classic NFT's, a Core asset's, a programmable
 * NFT's and a compressed NFT's loans are sold); repay and liquidation work for every standard.
 */
export function requireSaleCustody(loan: LoanAccount, what: string): void {
  if (!loan.isDefi) refuseUnless(loan.nftType, SOLD_INSTANTLY, `${what} a loan against`, "repay it instead");
}

/** Refuses (422) `standard` when it is not a classic NFT: "<what> <a programmable NFT> is not available yet; <instead>". */
export function refuseUnlessClassic(standard: NftStandard, what: string, instead: string): void {
  refuseUnless(standard, ["Nft"], what, instead);
}

/** Refuses (422) `standard` when it is not one of `taken`: "<what> <a programmable NFT> is not available yet; <instead>". */
export function refuseUnless(
  standard: NftStandard,
  taken: readonly NftStandard[],
  what: string,
  instead: string,
): void {
  if (taken.includes(standard)) return;
  throw unprocessable(`${what} ${describeStandard(standard)} is not available yet; ${instead}`);
}

/** A standard as a sentence names it: "a programmable NFT", "a Core asset", "a compressed NFT", "a classic NFT". */
export function describeStandard(standard: NftStandard): string {
  return standard === "ProgrammableNft"
    ? "a programmable NFT"
    : standard === "CoreNft"
      ? "a Core asset"
      : standard === "CompressedNft"
        ? "a compressed NFT"
        : "a classic NFT";
}

/** Bytes of the uri in a leaf's MetadataArgs (Borsh: name, symbol, uri, each a u32 length then the bytes). */
function uriBytes(metadataArgs: Uint8Array): number {
  const view = new DataView(metadataArgs.buffer, metadataArgs.byteOffset, metadataArgs.byteLength);
  const symbolAt = 4 + view.getUint32(0, true);
  const uriAt = symbolAt + 4 + view.getUint32(symbolAt, true);
  return view.getUint32(uriAt, true);
}

/**
 * What fills a loan transaction of this custody, as the 422 TRANSACTION_TOO_LARGE tells it when one is over 1,232
 * bytes: a leaf's MetadataArgs and proof nodes, a pNFT's accounts; `extras`: the pool's whitelist, a venue pull.
 */
export function describeLoanLoad(
  custody: NftCustody,
  extras: { whitelist?: boolean; venuePull?: boolean } = {},
) {
  const what =
    custody.standard === "CompressedNft"
      ? `the compressed NFT's metadata (${custody.metadataArgs.length} bytes, its uri ${uriBytes(custody.metadataArgs)}) and its proof (${custody.proof.length} accounts, the levels its tree keeps off chain) travel in it`
      : custody.standard === "ProgrammableNft"
        ? "a programmable NFT's accounts (metadata, edition, token record, rule set and their programs) travel in it"
        : `${describeStandard(custody.standard)}'s loan accounts and terms travel in it`;
  const also = [
    ...(extras.whitelist ? ["the pool's whitelist"] : []),
    ...(extras.venuePull ? ["the lending venue's accounts the loan pulls liquidity back through"] : []),
  ];
  return also.length === 0 ? what : `${what}, with ${also.join(" and ")}`;
}

/**
 * The account that holds a sold loan's NFT (a Core asset: the asset; a pNFT: the borrower's token account; a leaf: its
 * tree; a classic NFT: the escrow PDA).
 */
export async function saleHolder(tx: TxContext, loan: Address, custody: NftCustody): Promise<Address> {
  if (custody.standard === "CoreNft") return custody.asset;
  if (custody.standard === "ProgrammableNft") return custody.tokenAccount;
  if (custody.standard === "CompressedNft") return custody.tree;
  return (await findEscrowPda(tx.programId, loan))[0];
}
