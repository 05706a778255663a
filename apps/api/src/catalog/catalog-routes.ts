import { CURRENCY_IMAGE_SIZE_PX, getCurrencyByMint } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getSizedImageUrl } from "../assets/image-check.ts";
import { readNumber } from "../db/database.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Nullable, Pubkey, withErrors } from "../http/schemas.ts";

const CurrencySchema = Type.Object({
  currencyId: Pubkey,
  mint: Pubkey,
  metadata: Type.Object({
    symbol: Type.String(),
    name: Type.String(),
    decimals: Type.Integer(),
    isLendingCurrency: Type.Boolean({ description: "true for the currencies pools lend (SOL, USDC)" }),
  }),
  image: Type.String({ description: "image resized to 500 through the image helper" }),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});

const CollectionSchema = Type.Object({
  collectionId: Pubkey,
  metadata: Type.Object({
    collectionName: Type.String(),
    thumbnail: Type.String(),
    banner: Type.String(),
    url: Type.String(),
    mortgageEnabled: Type.Boolean(),
    magicEdenSlug: Type.String(),
    tensorSlug: Type.String(),
  }),
  isLocked: Type.Boolean({ description: "true when no open pool accepts the collection" }),
  floorPrice: Nullable(
    Type.String({
      description:
        "lamports of SOL: what one NFT is worth as quotes value it (the valuation service's conservative value: the " +
        "lower of the market's floor and 125% of its best bid, with at least 2 listings and 1 bid); null when there " +
        "is no reliable value right now",
    }),
  ),
  supply: Type.Integer(),
  currentLoan: Type.Integer({ description: "ongoing loans against the collection" }),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
});

interface CurrencyRow {
  mint: string;
  symbol: string;
  name: string;
  decimals: unknown;
  image: string;
  created_at: unknown;
  updated_at: unknown;
}

/** Collections and currencies (enhanced). */
export function registerCatalogRoutes(app: FastifyInstance, ctx: AppContext): void {
  function toCurrency(row: CurrencyRow) {
    return {
      currencyId: row.mint,
      mint: row.mint,
      metadata: {
        symbol: row.symbol,
        name: row.name,
        decimals: readNumber(row.decimals),
        isLendingCurrency: getCurrencyByMint(row.mint) !== undefined,
      },
      image: getSizedImageUrl(row.image, CURRENCY_IMAGE_SIZE_PX, ctx.config.imageProxyUrl),
      createdAt: readNumber(row.created_at),
      updatedAt: readNumber(row.updated_at),
    };
  }

  async function collections(id: string | null) {
    const catalog = await ctx.catalog.getCatalog();
    await ctx.prices.ensureLoaded();
    const slugs = new Map(catalog.collections.map((c) => [c.collectionId, c]));
    const rows = await ctx.db.query<Record<string, unknown>>(
      `SELECT c.collection_id, c.name, c.image, c.banner, c.url, c.supply, c.created_at, c.updated_at,
         (SELECT count(*) FROM loans l WHERE l.collection = c.collection_id AND l.status = 'Ongoing') AS current_loan,
         EXISTS (SELECT 1 FROM pools p WHERE p.status = 'Open' AND p.collections @> jsonb_build_array(
           jsonb_build_object('collection', c.collection_id))) AS has_pool,
         EXISTS (SELECT 1 FROM pools p WHERE p.status = 'Open' AND p.is_mortgage_enabled AND p.collections @>
           jsonb_build_array(jsonb_build_object('collection', c.collection_id))) AS mortgage
       FROM collections c WHERE ($1::text IS NULL OR c.collection_id = $1) ORDER BY c.name, c.collection_id`,
      [id],
    );
    return rows.map((r) => {
      const id = String(r.collection_id);
      const value = ctx.prices.collection(id);
      return {
        collectionId: id,
        metadata: {
          collectionName: String(r.name),
          thumbnail: String(r.image),
          banner: String(r.banner),
          url: String(r.url),
          mortgageEnabled: r.mortgage === true,
          magicEdenSlug: slugs.get(id)?.magicEdenSlug ?? "",
          tensorSlug: slugs.get(id)?.tensorSlug ?? "",
        },
        isLocked: r.has_pool !== true,
        floorPrice: value.ok ? value.value.valueLamports.toString() : null,
        supply: readNumber(r.supply),
        currentLoan: readNumber(r.current_loan),
        createdAt: readNumber(r.created_at),
        updatedAt: readNumber(r.updated_at),
      };
    });
  }

  getRoute<Record<string, never>, unknown>(
    app,
    "/collection/collections",
    {
      description:
        "Every known NFT collection with floor price (lamports), supply and ongoing loans (getCollections).",
      tags: ["catalogue"],
      querystring: Type.Object({}, { additionalProperties: false }),
      response: withErrors({ 200: Type.Array(CollectionSchema) }),
    },
    async () => collections(null),
  );

  getRoute<{ collectionId: string }, unknown>(
    app,
    "/collection/collection",
    {
      description: "One collection by id (the collection mint); unknown -> 200 with null.",
      tags: ["catalogue"],
      querystring: Type.Object({ collectionId: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: Nullable(CollectionSchema) }),
    },
    async ({ collectionId }) => (await collections(collectionId))[0] ?? null,
  );

  getRoute<Record<string, never>, unknown>(
    app,
    "/currency/currencies",
    {
      description:
        "Enhanced currencies keyed by mint (getEnhancedCurrencies): lending currencies and collateral tokens.",
      tags: ["catalogue"],
      querystring: Type.Object({}, { additionalProperties: false }),
      response: withErrors({ 200: Type.Record(Type.String(), CurrencySchema) }),
    },
    async () => {
      await ctx.catalog.getCatalog();
      const rows = await ctx.db.query<CurrencyRow>("SELECT * FROM currencies ORDER BY mint");
      return Object.fromEntries(rows.map((r) => [r.mint, toCurrency(r)]));
    },
  );

  getRoute<{ currencyId: string }, unknown>(
    app,
    "/currency/currency",
    {
      description: "One enhanced currency by mint; unknown -> 200 with null.",
      tags: ["catalogue"],
      querystring: Type.Object({ currencyId: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: Nullable(CurrencySchema) }),
    },
    async ({ currencyId }) => {
      await ctx.catalog.getCatalog();
      const [row] = await ctx.db.query<CurrencyRow>("SELECT * FROM currencies WHERE mint = $1", [currencyId]);
      return row === undefined ? null : toCurrency(row);
    },
  );
}
