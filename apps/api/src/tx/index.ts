import type { FastifyInstance } from "fastify";
import { registerSwapRoutes } from "../venues/swap/swap-routes.ts";
import { registerUserUpdateRoutes } from "./auth/user-routes.ts";
import { registerBankPoolBuilderRoutes } from "./builder/builder-routes.ts";
import { registerLiquidateBuilderRoutes } from "./builder/liquidate-routes.ts";
import { registerLoanBuilderRoutes } from "./builder/loan-routes.ts";
import { registerNftMarketRoutes } from "./builder/nft-market-routes.ts";
import { registerRequestBuilderRoutes } from "./builder/request-routes.ts";
import { registerSwapBuilderRoute } from "./builder/swap-builder.ts";
import { registerCalculatorRoutes } from "./calculator/calculator-routes.ts";
import { registerSenderRoutes } from "./sender/sender-routes.ts";
import { loadTxConfig, type TxConfig } from "./tx-config.ts";
import { createTxContext, type TxContext } from "./tx-context.ts";

export { loadTxConfig, type TxConfig } from "./tx-config.ts";
export { createTxContext, type TxContext } from "./tx-context.ts";

/** Dependencies of {@link registerTxRoutes}: a ready TxContext, or the tx settings to build one from. */
export type TxDeps =
  | { context: TxContext }
  | { config: TxConfig }
  | { env: Record<string, string | undefined> };

/**
 * Registers the write path on an app built by createApp (call before `ready()`): loan calculator,
 * transaction builder, sender and user routes. Returns the TxContext it used.
 */
export async function registerTxRoutes(app: FastifyInstance, deps: TxDeps): Promise<TxContext> {
  const tx =
    "context" in deps
      ? deps.context
      : await createTxContext(
          app.cistern,
          "config" in deps ? deps.config : loadTxConfig(app.cistern.config, deps.env),
        );
  registerCalculatorRoutes(app, tx);
  registerBankPoolBuilderRoutes(app, tx);
  registerLoanBuilderRoutes(app, tx);
  registerRequestBuilderRoutes(app, tx);
  registerNftMarketRoutes(app, tx);
  registerLiquidateBuilderRoutes(app, tx);
  registerSwapBuilderRoute(app, tx);
  registerSenderRoutes(app, tx);
  registerUserUpdateRoutes(app, tx);
  // the swap venue in Jupiter's shapes on the API itself: the local AMM, or Jupiter forwarded in production
  registerSwapRoutes(app, tx.swapVenue);
  return tx;
}
