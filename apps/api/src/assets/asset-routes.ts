import { SOL_MINT, sortAssetsByFloorPrice } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getValuation, type Valuation } from "../catalog/token-info.ts";
import { ERROR_CODES, isApiError } from "../errors/api-error.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Nullable, NullableNumber, NullableString, Pubkey, withErrors } from "../http/schemas.ts";
import { getUsdValue } from "../prices/usd-value.ts";
import type { AssetNft } from "./asset-source.ts";

const LAMPORTS_PER_SOL = 1_000_000_000;

const NftSchema = Type.Object({
  mint: Pubkey,
  name: Type.String(),
  symbol: Type.String(),
  image: Type.String(),
  collection: NullableString({ description: "verified collection id" }),
  collectionName: NullableString(),
  nftType: Type.String({ description: "Nft, ProgrammableNft, CompressedNft or CoreNft" }),
  floorPrice: NullableNumber({ description: "collection floor in SOL; null when unknown" }),
  floorPriceLamports: NullableString(),
  floorPriceUsd: NullableNumber(),
});

function withFloor(nft: AssetNft, valuation: Valuation) {
  const collection = valuation.catalog.collections.find((c) => c.collectionId === nft.collection);
  // the valuation service's value, the one quotes use (null when there is no reliable value right now)
  const value = collection === undefined ? 0n : valuation.floorLamports(collection.collectionId);
  const lamports = value > 0n ? value : undefined;
  return {
    mint: nft.mint,
    name: nft.name,
    symbol: nft.symbol,
    image: nft.image,
    collection: nft.collection,
    collectionName: collection?.name ?? null,
    nftType: nft.nftType,
    floorPrice: lamports === undefined ? null : Number(lamports) / LAMPORTS_PER_SOL,
    floorPriceLamports: lamports === undefined ? null : lamports.toString(),
    floorPriceUsd: lamports === undefined ? null : getUsdValue(lamports, 9, valuation.price(SOL_MINT)),
  };
}

/** Wallet assets: NFTs (sorted by floor price), token balances, one asset, and the image URL check. */
export function registerAssetRoutes(app: FastifyInstance, ctx: AppContext): void {
  getRoute<{ pubkey: string }, unknown>(
    app,
    "/asset/assets",
    {
      description:
        "NFTs held by a wallet with their collection floor price (getAssetsFromUser), sorted by floor price " +
        "descending with unknown floors first (protocol sortAssetsByFloorPrice).",
      tags: ["assets"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          nfts: Type.Array(NftSchema),
          unavailable: Type.Optional(
            Type.String({
              description: "why the list is empty: the asset service could not be read just now",
            }),
          ),
        }),
      }),
    },
    async ({ pubkey }) => {
      const [nfts, valuation] = await Promise.all([
        ctx.assets.fetchNfts(pubkey).catch((error: unknown) => {
          // a degraded answer rather than a 5xx: the wallet's NFTs are unknown, and the reason is said
          if (isApiError(error, ERROR_CODES.UPSTREAM_FAILED)) return null;
          throw error;
        }),
        getValuation(ctx),
      ]);
      if (nfts === null)
        return { nfts: [], unavailable: "Your NFTs could not be loaded just now; try again in a moment." };
      return { nfts: sortAssetsByFloorPrice(nfts.map((n) => withFloor(n, valuation))) };
    },
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/asset/tokens",
    {
      description:
        "Fungible token balances of a wallet: tokens [{mint, amount, decimals}] with amount in base units (NFTs " +
        "excluded); when the asset service cannot be read, no tokens and `unavailable` says so.",
      tags: ["assets"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          tokens: Type.Array(Type.Object({ mint: Pubkey, amount: Type.String(), decimals: Type.Integer() })),
          unavailable: Type.Optional(
            Type.String({
              description: "why the list is empty: the asset service could not be read just now",
            }),
          ),
        }),
      }),
    },
    async ({ pubkey }) => {
      const balances = await ctx.assets.fetchTokenBalances(pubkey).catch((error: unknown) => {
        // a degraded answer rather than a 5xx, as for the NFTs
        if (isApiError(error, ERROR_CODES.UPSTREAM_FAILED)) return null;
        throw error;
      });
      if (balances === null)
        return {
          tokens: [],
          unavailable: "Your token balances could not be loaded just now; try again in a moment.",
        };
      return {
        tokens: balances.map((b) => ({ mint: b.mint, amount: b.amount.toString(), decimals: b.decimals })),
      };
    },
  );

  getRoute<{ mint: string }, unknown>(
    app,
    "/asset/asset",
    {
      description: "One NFT by mint with its collection floor; unknown -> 200 with null.",
      tags: ["assets"],
      querystring: Type.Object({ mint: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: Nullable(NftSchema) }),
    },
    async ({ mint }) => {
      const [nft, valuation] = await Promise.all([ctx.assets.fetchAsset(mint), getValuation(ctx)]);
      return nft === null ? null : withFloor(nft, valuation);
    },
  );

  getRoute<{ url: string }, unknown>(
    app,
    "/asset/image-check",
    {
      description:
        "The image URL rule: empty accepted; 'twimg' rejected; otherwise HEAD must answer an image content type, " +
        "retried through the image proxy at width 500. Answers the URL to store (possibly the proxied one).",
      tags: ["assets"],
      querystring: Type.Object({ url: Type.String({ maxLength: 2048 }) }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          accepted: Type.Boolean(),
          url: Type.String(),
          reason: Type.Optional(Type.String()),
        }),
      }),
    },
    async ({ url }) => {
      const result = await ctx.images.check(url);
      return result.accepted
        ? { accepted: true, url: result.url }
        : { accepted: false, url: result.url, reason: result.reason };
    },
  );
}
