import type { FastifyInstance } from "fastify";
import { type AppOverrides, createApp } from "./app.ts";
import { startChatTimeline } from "./chat/chat-timeline.ts";
import type { ApiConfig } from "./config/config.ts";
import { createIndexer, type Indexer } from "./indexer/indexer.ts";
import { registerTxRoutes } from "./tx/index.ts";
import type { LiquidationKeeper } from "./tx/keeper/liquidation-keeper.ts";
import { startDelegationKeeper, startLiquidationKeeper } from "./tx/keeper/start-keeper.ts";

export interface StartApiOptions {
  /**
   * Runs after the read side is built and before the server listens: where more routes are registered
   * (for example the write path: `registerTxRoutes(app, { env: process.env })` from `./tx/index.ts`).
   */
  beforeListen?: (app: FastifyInstance) => Promise<unknown>;
}

export interface RunningApi {
  app: FastifyInstance;
  /** Base URL the server listens on. */
  url: string;
  indexer: Indexer | undefined;
  /** The liquidation keeper when on (KEEPER; default on for localnet). */
  keeper: LiquidationKeeper | undefined;
  close(): Promise<void>;
}

/**
 * Starts the API: builds the app (with the write path when a lending program id is configured), starts the price refresh (every PRICE_REFRESH_MS) and, with a lending
 * program id and INDEXER not "off", the indexer (leader only), the liquidation keeper (KEEPER, leader only),
 * then listens on host:port.
 */
export async function startApi(
  config: ApiConfig,
  overrides: AppOverrides = {},
  options: StartApiOptions = {},
): Promise<RunningApi> {
  const app = await createApp(config, overrides);
  // The write path (loan calculator, builder, sender, user routes) needs the program it builds for.
  const tx =
    config.lendingProgramId === undefined
      ? undefined
      : await registerTxRoutes(app, { env: { ...process.env, LENDING_PROGRAM_ID: config.lendingProgramId } });
  if (options.beforeListen !== undefined) {
    try {
      await options.beforeListen(app);
    } catch (error) {
      await app.close();
      throw error;
    }
  }
  const ctx = app.cistern;
  ctx.prices.start();
  let indexer: Indexer | undefined;
  if (config.lendingProgramId !== undefined && config.indexerEnabled) {
    indexer = createIndexer({
      db: ctx.db,
      rpc: ctx.rpc,
      wsUrl: config.solanaWsUrl,
      programId: config.lendingProgramId,
      reconcileIntervalMs: config.reconcileIntervalMs,
      log: app.log,
      now: ctx.now,
    });
    app.addHook("onClose", async () => indexer?.stop());
    await indexer.start();
  }
  if (config.lendingProgramId !== undefined && config.indexerEnabled) startChatTimeline(app);
  const keeper = tx === undefined ? undefined : await startLiquidationKeeper(app, tx);
  if (tx !== undefined) await startDelegationKeeper(app, tx);
  const url = await app.listen({ host: config.host, port: config.port });
  return { app, url, indexer, keeper, close: () => app.close() };
}
