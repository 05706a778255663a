import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  DEMO_COLLECTIONS,
  DEMO_TOKENS,
  USDC_MINT_ADDRESS,
  WRAPPED_SOL_MINT_ADDRESS,
} from "@cistern/localnet";
import { parsePriceMicroUsd } from "@cistern/protocol";
import { findMarketBidPda, getListNftInstruction, getPlaceBidInstruction } from "@cistern/sdk";
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

export interface NftMarketResult {
  programId: Address;
  programAction: ProgramDeployAction;
  venuesAction: VenuePinAction;
  /** Listings and bids the demo seeding placed (0 when the market was seeded before). */
  listings: number;
  bids: number;
}

/** A collection's floor in base units of `mint` (SOL: its seeded lamports; USDC: its USD price). */
function floorIn(collection: (typeof DEMO_COLLECTIONS)[number], mint: string): bigint {
  if (mint === WRAPPED_SOL_MINT_ADDRESS) return BigInt(collection.floorPriceLamports);
  const usdc = DEMO_TOKENS.find((t) => t.mint === mint)!;
  return (parsePriceMicroUsd(collection.priceUsd)! * 10n ** BigInt(usdc.decimals)) / 1_000_000n;
}

/**
 * The local NFT market, idempotently: its program deployed or upgraded (key `nft-market-program.json` in the
 * data dir, admin = upgrade authority), pinned as the lending program's NFT market (keeping the other pinned
 * venues), and with `demo` a market maker (key `demo-market-maker.json`) listing three NFTs of every demo
 * collection (DEMO_LISTINGS: two in SOL, one in USDC) and bidding DEMO_BID_PRICES_BPS of its floor in SOL and USDC
 * (its NFTs and currency come from the localnet faucet). The market is seeded once: its first bid marks it.
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
  const [firstBid] = await findMarketBidPda(program.address, maker.address, 1n);
  if ((await chain.fetchAccount(firstBid)) !== null) return result;
  await ensureLocalnetLamports(chain, maker.address, 50_000_000_000n, 100_000_000_000n);

  for (const round of DEMO_LISTINGS) {
    const faucet = (await chain.callLocalnetAdmin("localnet_faucet", [maker.address])) as {
      nfts: { mint: string; tokenAccount: string; collectionId: string }[];
    };
    for (const nft of faucet.nfts) {
      const collection = DEMO_COLLECTIONS.find((c) => c.collectionId === nft.collectionId)!;
      const price = (floorIn(collection, round.currency) * BigInt(round.bps)) / 10_000n;
      const list = await getListNftInstruction({
        programAddress: program.address,
        seller: maker,
        nftMint: address(nft.mint),
        sellerNftAccount: address(nft.tokenAccount),
        currencyMint: address(round.currency),
        price,
      });
      await chain.send(`list ${collection.symbol} #${nft.mint.slice(0, 4)}`, [list], maker);
      result.listings++;
    }
  }

  const bids = DEMO_COLLECTIONS.flatMap((collection) =>
    [WRAPPED_SOL_MINT_ADDRESS, USDC_MINT_ADDRESS].flatMap((mint) =>
      DEMO_BID_PRICES_BPS.map((bps) => ({
        collection,
        mint,
        price: (floorIn(collection, mint) * BigInt(bps)) / 10_000n,
      })),
    ),
  );
  const total = (mint: string) => bids.filter((b) => b.mint === mint).reduce((sum, b) => sum + b.price, 0n);
  const accounts = new Map<string, Address>();
  for (const mint of [WRAPPED_SOL_MINT_ADDRESS, USDC_MINT_ADDRESS])
    accounts.set(mint, await fundAdmin(chain, maker, address(mint), total(mint)));
  // the first bid placed last: it marks the market as seeded
  let nonce = BigInt(bids.length);
  for (const bid of [...bids].reverse()) {
    const place = await getPlaceBidInstruction({
      programAddress: program.address,
      bidder: maker,
      nonce: nonce--,
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
