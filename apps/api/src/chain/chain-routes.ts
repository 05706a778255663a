import {
  CHAIN_PERFORMANCE_FALLBACK,
  CHAIN_PERFORMANCE_SAMPLES,
  CHAIN_SLOW_SLOT_MS,
  computeChainPerformance,
  isChainSlow,
  TARGET_SLOT_MS,
} from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Nullable, StringEnum, withErrors } from "../http/schemas.ts";

/** /dirty/chain-performance. */
export function registerChainRoutes(app: FastifyInstance, ctx: AppContext): void {
  getRoute<Record<string, never>, unknown>(
    app,
    "/dirty/chain-performance",
    {
      description:
        `Chain performance from the RPC's getRecentPerformanceSamples (the newest ${CHAIN_PERFORMANCE_SAMPLES}; a ` +
        "validator samples every 60 s, the localnet too unless started with a shorter period): transactions per " +
        `second and the slot time. 'slow' is the one rule of @cistern/protocol: slots take at least ` +
        `${CHAIN_SLOW_SLOT_MS} ms, twice the ${TARGET_SLOT_MS} ms target (the worse of the samples' mean and the ` +
        "newest sample's own); an idle chain is not slow. When the RPC cannot be read or has no sample yet, " +
        `the answer is the spec's fallback ${CHAIN_PERFORMANCE_FALLBACK} with source 'fallback', no slot time ` +
        "and not slow.",
      tags: ["chain"],
      querystring: Type.Object({}, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          tps: Type.Integer({ description: "transactions per second over the samples (the fallback: 2000)" }),
          source: StringEnum(["rpc", "fallback"] as const),
          slotMs: Nullable(
            Type.Integer({ description: "slot time in milliseconds; null when not measured" }),
          ),
          slow: Type.Boolean({ description: "the cluster is running slow (protocol isChainSlow)" }),
          sampleSeconds: Type.Integer({ description: "wall seconds the samples cover (0: not measured)" }),
        }),
      }),
    },
    async () => {
      try {
        const figures = computeChainPerformance(
          await ctx.rpc.getRecentPerformanceSamples(CHAIN_PERFORMANCE_SAMPLES),
        );
        if (figures !== null)
          return { ...figures, source: "rpc" as const, slow: isChainSlow(figures.slotMs) };
      } catch (error) {
        app.log.warn({ err: error }, "chain performance unavailable");
      }
      return {
        tps: CHAIN_PERFORMANCE_FALLBACK,
        source: "fallback" as const,
        slotMs: null,
        slow: false,
        sampleSeconds: 0,
      };
    },
  );
}
