/**
 * The demo world's compressed collections, through the real programs: the collection NFT (Token Metadata, sized),
 * the Bubblegum V1 tree (System createAccount of the tree account owned by SPL Account Compression, then
 * CreateTreeConfig), and leaves minted into the collection with MintToCollectionV1, one transaction each. Nothing
 * is written for the DAS index: it reads these transactions like any other.
 */
import { decodeAddress } from "./base58.ts";
import {
  createTreeInstructions,
  getCompressedAssetId,
  getMerkleTreeAccountSize,
  getTreeConfigAddress,
  mintToCollectionV1,
  readTreeConfig,
} from "./bubblegum.ts";
import { getDemoMetadataUri } from "./das/offchain-metadata.ts";
import { getDemoKeypair } from "./demo-address.ts";
import { DEMO_COMPRESSED_COLLECTIONS, type DemoCompressedCollection } from "./demo-world.ts";
import { DEMO_SELLER_FEE_BPS } from "./nft-mint.ts";
import type { SeedAdmin } from "./seed-admin.ts";

/** A compressed NFT the faucet gave. */
export interface CompressedNftGiven {
  assetId: string;
  collectionId: string;
  name: string;
  tree: string;
  leafIndex: number;
}

/** Leaves minted into a tree so far (its TreeConfig's num_minted; 0 before the tree exists). */
function mintedLeaves(admin: SeedAdmin, c: DemoCompressedCollection): number {
  const config = admin.chain.svm.getAccount(decodeAddress(getTreeConfigAddress(c.tree)));
  return config ? Number(readTreeConfig(config.data())?.numMinted ?? 0n) : 0;
}

/** Creates what is missing of each compressed collection (collection NFT, tree, listed leaves); idempotent. */
export async function seedCompressedCollections(admin: SeedAdmin): Promise<number> {
  const faucet = admin.faucetKeypair.address;
  let sent = 0;
  for (const c of DEMO_COMPRESSED_COLLECTIONS) {
    if (!admin.chain.svm.getAccount(decodeAddress(c.collectionId)))
      await admin.batch((pending) => pending.set(c.collectionId, admin.nftMintWrite(c.collectionId)));
    sent += await admin.mintClassicNfts([
      {
        mint: c.collectionId,
        name: c.name,
        symbol: c.symbol,
        uri: getDemoMetadataUri(c.collectionId),
        owner: faucet,
        collection: null,
        isCollection: true,
      },
    ]);
    if (!admin.chain.svm.getAccount(decodeAddress(c.tree))) {
      const shape = { maxDepth: c.maxDepth, maxBufferSize: c.maxBufferSize, canopyDepth: c.canopyDepth };
      const lamports = admin.chain.svm.minimumBalanceForRentExemption(
        BigInt(getMerkleTreeAccountSize(shape)),
      );
      const ixs = createTreeInstructions({ payer: faucet, tree: c.tree, shape, lamports });
      sent += await admin.sendInOrder([
        { what: `create the tree of ${c.name}`, build: () => ixs, signers: [getDemoKeypair(c.treeSeed)] },
      ]);
    }
    const missing = c.listedLeaves - mintedLeaves(admin, c);
    if (missing > 0) sent += (await mintLeaves(admin, c, Array(missing).fill(faucet))).length;
  }
  return sent;
}

/** Mints one leaf per owner into `c` (MintToCollectionV1, one transaction each), in order. */
export async function mintLeaves(
  admin: SeedAdmin,
  c: DemoCompressedCollection,
  owners: string[],
): Promise<CompressedNftGiven[]> {
  const authority = admin.faucetKeypair.address;
  const first = mintedLeaves(admin, c);
  const given = owners.map((owner, k) => {
    const leafIndex = first + k;
    const assetId = getCompressedAssetId(c.tree, BigInt(leafIndex));
    return {
      owner,
      assetId,
      collectionId: c.collectionId,
      name: `${c.itemName} #${leafIndex + 1}`,
      uri: getDemoMetadataUri(assetId),
      tree: c.tree,
      leafIndex,
    };
  });
  await admin.sendInOrder(
    given.map((g) => ({
      what: `mint ${g.name}`,
      build: () => [
        mintToCollectionV1({
          tree: c.tree,
          owner: g.owner,
          authority,
          metadata: {
            name: g.name,
            symbol: c.symbol,
            uri: g.uri,
            sellerFeeBasisPoints: DEMO_SELLER_FEE_BPS,
            collection: c.collectionId,
            creators: [{ address: authority, verified: false, share: 100 }],
          },
        }),
      ],
    })),
  );
  return given.map(({ assetId, collectionId, name, tree, leafIndex }) => ({
    assetId,
    collectionId,
    name,
    tree,
    leafIndex,
  }));
}
