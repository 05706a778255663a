import { CHAIN_PERFORMANCE_FALLBACK } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getRoute } from "../http/route-helpers.ts";
import { StringEnum, withErrors } from "../http/schemas.ts";

const PERFORMANCE_SAMPLES = 5;
/** Two transaction-count readings must be at least this far apart to give a rate. */
const MIN_COUNT_INTERVAL_SECONDS = 1;

/** /dirty/chain-performance. */
export function registerChainRoutes(app: FastifyInstance, ctx: AppContext): void {
  // Last transaction-count reading of this process (for RPCs without performance samples).
  let lastCount: { count: number; at: number } | undefined;

  async function fromPerformanceSamples(): Promise<number | undefined> {
    const samples = await ctx.rpc.getRecentPerformanceSamples(PERFORMANCE_SAMPLES);
    const seconds = samples.reduce((s, x) => s + x.samplePeriodSecs, 0);
    const transactions = samples.reduce((s, x) => s + x.numTransactions, 0);
    return seconds > 0 ? Math.round(transactions / seconds) : undefined;
  }

  async function fromTransactionCount(): Promise<number | undefined> {
    const count = await ctx.rpc.call<number>("getTransactionCount", [{ commitment: "confirmed" }]);
    const at = Date.now() / 1000;
    const previous = lastCount;
    if (previous === undefined || at - previous.at >= MIN_COUNT_INTERVAL_SECONDS) lastCount = { count, at };
    if (previous === undefined || at - previous.at < MIN_COUNT_INTERVAL_SECONDS || count < previous.count) {
      return undefined;
    }
    return Math.round((count - previous.count) / (at - previous.at));
  }

  getRoute<Record<string, never>, unknown>(
    app,
    "/dirty/chain-performance",
    {
      description:
        "Chain throughput in transactions per second: from the RPC's recent performance samples (last 5), or, " +
        "on an RPC without them, from the growth of getTransactionCount between two calls at least 1 s apart. " +
        "When neither gives a figure the answer is the spec's fallback 2000 with source 'fallback'.",
      tags: ["chain"],
      querystring: Type.Object({}, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          tps: Type.Integer(),
          source: StringEnum(["rpc", "transaction-count", "fallback"] as const),
        }),
      }),
    },
    async () => {
      try {
        const tps = await fromPerformanceSamples();
        if (tps !== undefined) return { tps, source: "rpc" as const };
      } catch {
        // Not every RPC serves performance samples (the localnet does not); try the transaction count.
      }
      try {
        const tps = await fromTransactionCount();
        if (tps !== undefined) return { tps, source: "transaction-count" as const };
      } catch (error) {
        app.log.warn({ err: error }, "chain performance unavailable");
      }
      return { tps: CHAIN_PERFORMANCE_FALLBACK, source: "fallback" as const };
    },
  );
}
