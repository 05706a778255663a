import { CHAIN_PERFORMANCE_FALLBACK } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getRoute } from "../http/route-helpers.ts";
import { StringEnum, withErrors } from "../http/schemas.ts";

const PERFORMANCE_SAMPLES = 5;

/** /dirty/chain-performance. */
export function registerChainRoutes(app: FastifyInstance, ctx: AppContext): void {
  getRoute<Record<string, never>, unknown>(
    app,
    "/dirty/chain-performance",
    {
      description:
        "Chain throughput in transactions per second from the RPC's recent performance samples (last 5). " +
        "When the RPC fails or has no samples the answer is the spec's fallback 2000 with source 'fallback'.",
      tags: ["chain"],
      querystring: Type.Object({}, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          tps: Type.Integer(),
          source: StringEnum(["rpc", "fallback"] as const),
        }),
      }),
    },
    async () => {
      try {
        const samples = await ctx.rpc.getRecentPerformanceSamples(PERFORMANCE_SAMPLES);
        const seconds = samples.reduce((s, x) => s + x.samplePeriodSecs, 0);
        const transactions = samples.reduce((s, x) => s + x.numTransactions, 0);
        if (seconds > 0) return { tps: Math.round(transactions / seconds), source: "rpc" as const };
      } catch (error) {
        app.log.warn({ err: error }, "chain performance unavailable");
      }
      return { tps: CHAIN_PERFORMANCE_FALLBACK, source: "fallback" as const };
    },
  );
}
