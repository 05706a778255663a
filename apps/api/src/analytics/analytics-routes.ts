import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { registerDirtyRoutes } from "./dirty-routes.ts";
import { registerLiquidityRoutes } from "./liquidity-routes.ts";
import { registerLoanStatsRoutes } from "./loan-stats-routes.ts";

/** All analytics routes: /loan/* statistics, /dirty/* analytics, /tvl and /liquidity/*. */
export function registerAnalyticsRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerLoanStatsRoutes(app, ctx);
  registerDirtyRoutes(app, ctx);
  registerLiquidityRoutes(app, ctx);
}
