/**
 * Classic Metaplex NFTs minted through the real Token Metadata program: the instructions that bring a mint from
 * "exists, supply 0, faucet is mint authority" to a one-of-one NFT with metadata, a master edition and (for an
 * item) a verified collection. Each step is included only when the chain lacks it, so a half-done mint resumes.
 */
import { decodeMetadata } from "@cistern/sdk";
import type { LiteSvm } from "litesvm/dist/internal";
import { decodeAddress } from "./base58.ts";
import { decodeMint, getAssociatedTokenAddress } from "./token-layout.ts";
import {
  createAssociatedTokenAccountIdempotent,
  createMasterEditionV3,
  createMetadataAccountV3,
  getMasterEditionAddress,
  getMetadataAddress,
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
