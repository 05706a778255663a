import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEMO_COLLECTIONS,
  DEMO_COMPRESSED_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  DEMO_TOKENS,
  getComputeUnitLimitKitInstruction,
  USDC_MINT_ADDRESS,
  WRAPPED_SOL_MINT_ADDRESS,
} from "@cistern/localnet";
import { parsePriceMicroUsd } from "@cistern/protocol";
import {
  type AccountReader,
  type CompressedCustody,
  compressedCustodyFromDas,
  type DasCompressedAsset,
  type DasProof,
  findMarketBidPda,
  getListCompressedNftInstruction,
  getListCoreAssetInstruction,
  getListNftInstruction,
  getListPnftInstruction,
  getPlaceBidInstruction,
  readNftCustody,
  readTreeShape,
} from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import type { ChainClient } from "./chain-client.ts";
import { ensureLendingProgram, type ProgramDeployAction } from "./deploy-lending.ts";
import { getKeysDir, loadOrCreateKeyFile } from "./key-files.ts";
import { ensureLocalnetLamports } from "./seed-demo.ts";
import { fundAdmin } from "./swap-venue.ts";
import { pinVenue, type VenuePinAction } from "./venue-pin.ts";

/**
 * The demo market maker's listings of each collection, one NFT each: currency and price in basis points of the
 * collection's floor in that currency.
 */
export const DEMO_LISTINGS = [
  { currency: WRAPPED_SOL_MINT_ADDRESS, bps: 10_000 },
  { currency: USDC_MINT_ADDRESS, bps: 11_000 },
  { currency: WRAPPED_SOL_MINT_ADDRESS, bps: 12_500 },
] as const;
/** Collection bids of the demo market maker in SOL and USDC, basis points of the collection's floor. */
export const DEMO_BID_PRICES_BPS = [9_000, 8_000];
/** The Core collections' bids take nonces from here on (their first one marks the Core book as seeded). */
export const CORE_BID_NONCE_BASE = 1_000_000n;
/** The compressed collections' bids take nonces from here on (their first one marks the compressed book as seeded). */
export const COMPRESSED_BID_NONCE_BASE = 2_000_000n;
/** The pNFT collections' bids take nonces from here on (their first one marks the pNFT book as seeded). */
export const PNFT_BID_NONCE_BASE = 3_000_000n;
/** Compute units of a ListPnft transaction (Token Metadata's Transfer v1 with the rule set: about 150,000). */
const LIST_PNFT_COMPUTE_UNITS = 400_000;

export interface NftMarketResult {
  programId: Address;
  programAction: ProgramDeployAction;
  venuesAction: VenuePinAction;
  /** Listings and bids the demo seeding placed (0 when the market was seeded before). */
  listings: number;
  bids: number;
}

type PricedCollection = {
  collectionId: string;
  symbol: string;
  floorPriceLamports: string;
  priceUsd: string;
};

/** A collection's floor in base units of `mint` (SOL: its seeded lamports; USDC: its USD price). */
function floorIn(collection: PricedCollection, mint: string): bigint {
  if (mint === WRAPPED_SOL_MINT_ADDRESS) return BigInt(collection.floorPriceLamports);
  const usdc = DEMO_TOKENS.find((t) => t.mint === mint)!;
  return (parsePriceMicroUsd(collection.priceUsd)! * 10n ** BigInt(usdc.decimals)) / 1_000_000n;
}

/**
 * A compressed NFT's leaf as the localnet's DAS serves it now (getAsset, a fresh getAssetProof on the RPC port), the
 * proof cut below its tree's canopy: what a listing's Bubblegum transfer needs. Read right before each listing (a
 * listing changes the tree, so the next leaf's proof is taken after it).
 */
async function compressedLeaf(chain: ChainClient, assetId: string): Promise<CompressedCustody> {
  const asset = (await chain.callLocalnetAdmin("getAsset", [assetId])) as DasCompressedAsset;
  const proof = (await chain.callLocalnetAdmin("getAssetProof", [assetId])) as DasProof;
  const tree = asset.compression?.tree ? await chain.fetchAccount(address(asset.compression.tree)) : null;
  const shape = tree ? readTreeShape(tree.data) : null;
  if (shape === null) throw new Error(`the tree of compressed NFT ${assetId} is not on the chain`);
  return compressedCustodyFromDas(asset, proof, shape.canopyDepth);
}

/**
 * The local NFT market, idempotently: its program deployed or upgraded (key `nft-market-program.json` in the
 * data dir, admin = upgrade authority), pinned as the lending program's NFT market (keeping the other pinned
 * venues), and with `demo` a market maker (key `demo-market-maker.json`) listing three NFTs of every demo
 * collection, classic, programmable, Core and compressed (DEMO_LISTINGS: two in SOL, one in USDC) and bidding
 * DEMO_BID_PRICES_BPS of its floor in SOL and USDC (its NFTs, pNFTs, Core assets, compressed NFTs and currency come
 * from the localnet faucet; a compressed NFT's proof from the localnet's DAS). Before listing pNFTs it has the demo
 * rule set allow the lending program and the market (a pNFT moves to the listing PDA only when the rule set allows
 * the market). Each book is seeded once: the classic one's first bid (nonce 1) marks it, the Core one's (nonce
 * CORE_BID_NONCE_BASE + 1), the compressed one's (COMPRESSED_BID_NONCE_BASE + 1) and the pNFT one's
 * (PNFT_BID_NONCE_BASE + 1) theirs, so a data dir seeded before them gets them on its next start.
 */
export async function ensureNftMarket(input: {
  chain: ChainClient;
  dataDir: string;
  admin: KeyPairSigner;
  lendingProgramId: Address;
  soPath: string;
  demo: boolean;
}): Promise<NftMarketResult> {
  const { chain, admin } = input;
  const program = await loadOrCreateKeyFile(join(getKeysDir(input.dataDir), "nft-market-program.json"));
  const deployed = await ensureLendingProgram({
    chain,
    programBytes: new Uint8Array(readFileSync(input.soPath)),
    program,
    admin,
  });
  const venuesAction = await pinVenue(chain, admin, input.lendingProgramId, {
    marketProgram: program.address,
  });
  const result = {
    programId: program.address,
    programAction: deployed.action,
    venuesAction,
    listings: 0,
    bids: 0,
  };
  if (!input.demo) return result;
  const maker = await loadOrCreateKeyFile(join(getKeysDir(input.dataDir), "demo-market-maker.json"));
  const seeded = async (nonce: bigint) =>
    (await chain.fetchAccount((await findMarketBidPda(program.address, maker.address, nonce))[0])) !== null;
  const classicDone = await seeded(1n);
  const coreDone = await seeded(CORE_BID_NONCE_BASE + 1n);
  const pnftDone = await seeded(PNFT_BID_NONCE_BASE + 1n);
  const compressedDone = await seeded(COMPRESSED_BID_NONCE_BASE + 1n);
  if (classicDone && coreDone && pnftDone && compressedDone) return result;
  await ensureLocalnetLamports(chain, maker.address, 50_000_000_000n, 100_000_000_000n);
  if (!pnftDone)
    await chain.callLocalnetAdmin("localnet_setDemoRuleSetPrograms", [
      [input.lendingProgramId, program.address],
    ]);
  const read: AccountReader = (addresses) => Promise.all(addresses.map((a) => chain.fetchAccount(a)));

  for (const round of DEMO_LISTINGS) {
    const faucet = (await chain.callLocalnetAdmin("localnet_faucet", [maker.address])) as {
      nfts: { mint: string; tokenAccount: string; collectionId: string }[];
      programmableNfts: { mint: string; tokenAccount: string; collectionId: string }[];
      coreAssets: { asset: string; collectionId: string }[];
      compressedNfts: { assetId: string; collectionId: string }[];
    };
    for (const nft of classicDone ? [] : faucet.nfts) {
      const collection = DEMO_COLLECTIONS.find((c) => c.collectionId === nft.collectionId)!;
      const list = await getListNftInstruction({
        programAddress: program.address,
        seller: maker,
        nftMint: address(nft.mint),
        sellerNftAccount: address(nft.tokenAccount),
        currencyMint: address(round.currency),
        price: (floorIn(collection, round.currency) * BigInt(round.bps)) / 10_000n,
      });
      await chain.send(`list ${collection.symbol} #${nft.mint.slice(0, 4)}`, [list], maker);
      result.listings++;
    }
    for (const nft of pnftDone ? [] : faucet.programmableNfts) {
      const collection = DEMO_PROGRAMMABLE_COLLECTIONS.find((c) => c.collectionId === nft.collectionId)!;
      const custody = await readNftCustody(read, {
        mint: address(nft.mint),
        tokenAccount: address(nft.tokenAccount),
      });
      if (custody.standard !== "ProgrammableNft") throw new Error(`${nft.mint} is not a pNFT`);
      const list = await getListPnftInstruction({
        programAddress: program.address,
        seller: maker,
        nft: custody,
        currencyMint: address(round.currency),
        price: (floorIn(collection, round.currency) * BigInt(round.bps)) / 10_000n,
      });
      await chain.send(
        `list ${collection.symbol} #${nft.mint.slice(0, 4)}`,
        [getComputeUnitLimitKitInstruction(LIST_PNFT_COMPUTE_UNITS), list],
        maker,
      );
      result.listings++;
    }
    for (const asset of coreDone ? [] : faucet.coreAssets) {
      const collection = DEMO_CORE_COLLECTIONS.find((c) => c.collectionId === asset.collectionId)!;
      const list = await getListCoreAssetInstruction({
        programAddress: program.address,
        seller: maker,
        asset: address(asset.asset),
        collection: address(collection.collectionId),
        currencyMint: address(round.currency),
        price: (floorIn(collection, round.currency) * BigInt(round.bps)) / 10_000n,
      });
      await chain.send(`list ${collection.symbol} ${asset.asset.slice(0, 4)}`, [list], maker);
      result.listings++;
    }
    for (const nft of compressedDone ? [] : faucet.compressedNfts) {
      const collection = DEMO_COMPRESSED_COLLECTIONS.find((c) => c.collectionId === nft.collectionId)!;
      const list = await getListCompressedNftInstruction({
        programAddress: program.address,
        seller: maker,
        leaf: await compressedLeaf(chain, nft.assetId),
        currencyMint: address(round.currency),
        price: (floorIn(collection, round.currency) * BigInt(round.bps)) / 10_000n,
      });
      await chain.send(`list ${collection.symbol} ${nft.assetId.slice(0, 4)}`, [list], maker);
      result.listings++;
    }
  }

  const bidsOn = (collections: readonly PricedCollection[], base: bigint) => {
    const bids = collections.flatMap((collection) =>
      [WRAPPED_SOL_MINT_ADDRESS, USDC_MINT_ADDRESS].flatMap((mint) =>
        DEMO_BID_PRICES_BPS.map((bps) => ({
          collection,
          mint,
          price: (floorIn(collection, mint) * BigInt(bps)) / 10_000n,
        })),
      ),
    );
    // the first bid (nonce base + 1) placed last: it marks the book as seeded
    return bids.map((bid, i) => ({ ...bid, nonce: base + BigInt(i + 1) })).reverse();
  };
  const bids = [
    ...(classicDone ? [] : bidsOn(DEMO_COLLECTIONS, 0n)),
    ...(coreDone ? [] : bidsOn(DEMO_CORE_COLLECTIONS, CORE_BID_NONCE_BASE)),
    ...(pnftDone ? [] : bidsOn(DEMO_PROGRAMMABLE_COLLECTIONS, PNFT_BID_NONCE_BASE)),
    ...(compressedDone ? [] : bidsOn(DEMO_COMPRESSED_COLLECTIONS, COMPRESSED_BID_NONCE_BASE)),
  ];
  const total = (mint: string) => bids.filter((b) => b.mint === mint).reduce((sum, b) => sum + b.price, 0n);
  const accounts = new Map<string, Address>();
  for (const mint of [WRAPPED_SOL_MINT_ADDRESS, USDC_MINT_ADDRESS])
    accounts.set(mint, await fundAdmin(chain, maker, address(mint), total(mint)));
  for (const bid of bids) {
    const place = await getPlaceBidInstruction({
      programAddress: program.address,
      bidder: maker,
      nonce: bid.nonce,
      collection: address(bid.collection.collectionId),
      currencyMint: address(bid.mint),
      bidderCurrencyAccount: accounts.get(bid.mint)!,
      price: bid.price,
    });
    await chain.send(`bid on ${bid.collection.symbol}`, [place], maker);
    result.bids++;
  }
  return result;
}
