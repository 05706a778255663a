import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getRoute } from "../http/route-helpers.ts";
import { withErrors } from "../http/schemas.ts";
import { parsePubkeyList } from "../pools/pool-routes.ts";

/** GET /prices: the price feed. */
export function registerPriceRoutes(app: FastifyInstance, ctx: AppContext): void {
  getRoute<{ ids?: string }, unknown>(
    app,
    "/prices",
    {
      description:
        "Reliable USD prices keyed by mint, each {price} (USD per whole token, number), from the valuation service " +
        "(localnet: the swap pools' time-weighted prices; production: Pyth); a missing, stale or too uncertain " +
        "price is left out. `ids` (comma-separated mints) narrows the answer.",
      tags: ["prices"],
      querystring: Type.Object(
        { ids: Type.Optional(Type.String({ pattern: "^[1-9A-HJ-NP-Za-km-z,]{0,4500}$" })) },
        { additionalProperties: false },
      ),
      response: withErrors({
        200: Type.Object({
          prices: Type.Record(Type.String(), Type.Object({ price: Type.Number() })),
          updatedAt: Type.Unsafe<number | null>({ type: ["integer", "null"] }),
          source: Type.String(),
        }),
      }),
    },
    async ({ ids }) => {
      await ctx.prices.ensureLoaded();
      const wanted = ids === undefined ? null : new Set(parsePubkeyList(ids, 500));
      const prices: Record<string, { price: number }> = {};
      for (const [mint, price] of ctx.prices.getPrices()) {
        if (wanted === null || wanted.has(mint)) prices[mint] = { price: Number(price) };
      }
      return { prices, updatedAt: ctx.prices.getUpdatedAt(), source: ctx.prices.sourceName };
    },
  );
}
