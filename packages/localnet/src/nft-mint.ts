/**
 * Classic Metaplex NFTs minted through the real Token Metadata program: the instructions that bring a mint from
 * "exists, supply 0, faucet is mint authority" to a one-of-one NFT with metadata, a master edition and (for an
 * item) a verified collection. Each step is included only when the chain lacks it, so a half-done mint resumes.
 */
import { decodeMetadata } from "@cistern/sdk";
import type { LiteSvm } from "litesvm/dist/internal";
import { decodeAddress } from "./base58.ts";
import { DEMO_RULE_SET_NAME } from "./demo-world.ts";
import type { LocalKeypair } from "./keypair.ts";
import { createCoreAssetV1, createCoreCollectionV1 } from "./mpl-core.ts";
import { createOrUpdateRuleSetTransactions, getRuleSetAddress, type RuleV2 } from "./token-auth-rules.ts";
import { decodeMint, getAssociatedTokenAddress } from "./token-layout.ts";
import {
  createAssociatedTokenAccountIdempotent,
  createMasterEditionV3,
  createMetadataAccountV3,
  createProgrammableNftV1,
  getMasterEditionAddress,
  getMetadataAddress,
  mintProgrammableNftV1,
  mintTo,
  verifyCollectionV1,
} from "./token-metadata.ts";
import type { BuildInstruction } from "./tx-builder.ts";

/** Seller fee of the demo NFTs (5%). */
export const DEMO_SELLER_FEE_BPS = 500;

/** One classic NFT to mint. */
export interface ClassicNftSpec {
  mint: string;
  name: string;
  symbol: string;
  /** Metaplex `uri` (<= 200 bytes). */
  uri: string;
  /** Who receives the token (its associated token account). */
  owner: string;
  /** The collection NFT's mint it is verified into; null for a collection NFT itself. */
  collection: string | null;
  /** Marks a sized collection NFT (its size counts the items verified into it). */
  isCollection: boolean;
}

/**
 * The instructions still needed to mint `nft` (the faucet keypair is payer, mint authority, update authority,
 * verified creator and collection authority). Empty when the NFT is complete.
 */
export function getClassicNftMintInstructions(
  svm: LiteSvm,
  authority: string,
  nft: ClassicNftSpec,
): BuildInstruction[] {
  const mintAccount = svm.getAccount(decodeAddress(nft.mint));
  if (!mintAccount) throw new Error(`mint ${nft.mint} does not exist`);
  const ixs: BuildInstruction[] = [];
  if (decodeMint(mintAccount.data()).supply === 0n) {
    const ata = getAssociatedTokenAddress(nft.owner, nft.mint);
    ixs.push(
      createAssociatedTokenAccountIdempotent({ payer: authority, ata, owner: nft.owner, mint: nft.mint }),
    );
    ixs.push(mintTo({ mint: nft.mint, destination: ata, authority, amount: 1n }));
  }
  const metadata = svm.getAccount(decodeAddress(getMetadataAddress(nft.mint)));
  if (!metadata)
    ixs.push(
      createMetadataAccountV3({
        mint: nft.mint,
        mintAuthority: authority,
        payer: authority,
        updateAuthority: authority,
        data: {
          name: nft.name,
          symbol: nft.symbol,
          uri: nft.uri,
          sellerFeeBasisPoints: DEMO_SELLER_FEE_BPS,
          creators: [{ address: authority, verified: true, share: 100 }],
          collection: nft.collection,
          isMutable: true,
          collectionSize: nft.isCollection ? 0n : null,
        },
      }),
    );
  if (!svm.getAccount(decodeAddress(getMasterEditionAddress(nft.mint))))
    ixs.push(
      createMasterEditionV3({
        mint: nft.mint,
        updateAuthority: authority,
        mintAuthority: authority,
        payer: authority,
        maxSupply: 0n,
      }),
    );
  if (nft.collection) {
    const verified = metadata ? decodeMetadata(metadata.data()).collection?.verified === true : false;
    if (!verified)
      ixs.push(verifyCollectionV1({ mint: nft.mint, collectionMint: nft.collection, authority }));
  }
  return ixs;
}

/**
 * The demo rule set's operations: a transfer between two wallets passes; any other transfer (from or to an account
 * a program owns, or by a delegate) passes only when the program-owned side belongs to one of `allowedPrograms`,
 * and a token delegate (sale, transfer, utility, staking, locked transfer) must be an account one of them owns.
 * Metadata delegates (authority, collection...) are not restricted.
 */
export function getDemoRuleSetOperations(allowedPrograms: string[]): Record<string, RuleV2> {
  const owned = (field: string): RuleV2 => ({ type: "ProgramOwnedList", field, programs: allowedPrograms });
  const transfer: RuleV2 = { type: "Any", rules: [owned("Source"), owned("Destination")] };
  const ops: Record<string, RuleV2> = { "Transfer:WalletToWallet": { type: "Pass" } };
  for (const scenario of ["Owner", "TransferDelegate", "SaleDelegate", "MigrationDelegate"])
    ops[`Transfer:${scenario}`] = transfer;
  for (const role of ["Transfer", "Sale", "Utility", "Staking", "LockedTransfer"])
    ops[`Delegate:${role}`] = owned("Delegate");
  for (const role of ["Authority", "Collection", "Standard", "ProgrammableConfig"])
    ops[`Delegate:${role}`] = { type: "Pass" };
  return ops;
}

/** The transactions that create or update the demo rule set allowing `allowedPrograms` (the faucet owns it). */
export function getDemoRuleSetTransactions(owner: string, allowedPrograms: string[]): BuildInstruction[][] {
  return createOrUpdateRuleSetTransactions({
    owner,
    name: DEMO_RULE_SET_NAME,
    operations: getDemoRuleSetOperations(allowedPrograms),
  });
}

/** The demo rule set's address for a faucet (its owner). */
export function getDemoRuleSetAddress(faucet: string): string {
  return getRuleSetAddress(faucet, DEMO_RULE_SET_NAME);
}

/** CollectionDetails::V1 size of a (pNFT or classic) collection NFT's metadata, or null when it has none. */
export function readCollectionSize(metadata: Uint8Array): bigint | null {
  const d = Buffer.from(metadata);
  let at = 1 + 32 + 32;
  for (let i = 0; i < 3; i++) at += 4 + d.readUInt32LE(at); // name, symbol, uri
  at += 2; // seller fee
  if (d[at++] === 1) at += 4 + 34 * d.readUInt32LE(at); // creators
  at += 2; // primary sale happened, is mutable
  if (d[at++] === 1) at += 1; // edition nonce
  if (d[at++] === 1) at += 1; // token standard
  if (d[at++] === 1) at += 33; // collection
  if (d[at++] === 1) at += 17; // uses
  if (d[at++] !== 1 || d[at++] !== 0) return null; // Some(CollectionDetails::V1)
  return d.readBigUInt64LE(at);
}

/** A programmable NFT to mint (the mint is a keypair, which signs its creation). */
export interface ProgrammableNftSpec {
  mint: LocalKeypair;
  name: string;
  symbol: string;
  uri: string;
  owner: string;
  /** Its collection (a pNFT collection NFT's mint), or null for the collection NFT itself (sized). */
  collection: string | null;
  ruleSet: string;
}

/** The instructions still needed to mint a pNFT (Create v1, Mint v1, Verify); empty when complete. */
export function getProgrammableNftMintInstructions(
  svm: LiteSvm,
  authority: string,
  nft: ProgrammableNftSpec,
): BuildInstruction[] {
  const mint = nft.mint.address;
  const ixs: BuildInstruction[] = [];
  const metadata = svm.getAccount(decodeAddress(getMetadataAddress(mint)));
  if (!metadata)
    ixs.push(
      createProgrammableNftV1({
        mint,
        authority,
        ruleSet: nft.ruleSet,
        data: {
          name: nft.name,
          symbol: nft.symbol,
          uri: nft.uri,
          sellerFeeBasisPoints: DEMO_SELLER_FEE_BPS,
          creators: [{ address: authority, verified: true, share: 100 }],
          collection: nft.collection,
          collectionSize: nft.collection ? null : 0n,
        },
      }),
    );
  const mintAccount = svm.getAccount(decodeAddress(mint));
  if (!mintAccount || decodeMint(mintAccount.data()).supply === 0n)
    ixs.push(mintProgrammableNftV1({ mint, authority, owner: nft.owner, ruleSet: nft.ruleSet }));
  if (nft.collection) {
    const verified = metadata ? decodeMetadata(metadata.data()).collection?.verified === true : false;
    if (!verified) ixs.push(verifyCollectionV1({ mint, collectionMint: nft.collection, authority }));
  }
  return ixs;
}

/** Bytes before a Core collection's counters: key, update authority, then the name and uri strings. */
function coreCollectionCountersAt(d: Buffer): number {
  let at = 1 + 32;
  for (let i = 0; i < 2; i++) at += 4 + d.readUInt32LE(at);
  return at;
}

/** How many assets a Core collection has minted (its `num_minted`), or null when it does not exist. */
export function readCoreCollectionMinted(svm: LiteSvm, collection: string): number | null {
  const data = svm.getAccount(decodeAddress(collection))?.data();
  if (!data || data.length === 0) return null;
  const d = Buffer.from(data);
  return d.readUInt32LE(coreCollectionCountersAt(d));
}

/** A Core collection to create (its account is a keypair, which signs); the faucet is its update authority. */
export function getCoreCollectionInstructions(
  svm: LiteSvm,
  authority: string,
  c: { collection: LocalKeypair; name: string; uri: string },
): BuildInstruction[] {
  if (svm.getAccount(decodeAddress(c.collection.address))) return [];
  return [
    createCoreCollectionV1({ collection: c.collection.address, payer: authority, name: c.name, uri: c.uri }),
  ];
}

/** A Core asset to create in a collection, owned by `owner` (empty when it exists). */
export function getCoreAssetInstructions(
  svm: LiteSvm,
  authority: string,
  a: { asset: LocalKeypair; collection: string; owner: string; name: string; uri: string },
): BuildInstruction[] {
  if (svm.getAccount(decodeAddress(a.asset.address))) return [];
  return [
    createCoreAssetV1({
      asset: a.asset.address,
      collection: a.collection,
      authority,
      owner: a.owner,
      name: a.name,
      uri: a.uri,
    }),
  ];
}
