import cors from "@fastify/cors";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { registerAnalyticsRoutes } from "./analytics/analytics-routes.ts";
import type { AppContext } from "./app-context.ts";
import { registerAssetRoutes } from "./assets/asset-routes.ts";
import type { AssetSource } from "./assets/asset-source.ts";
import { createCatalogService } from "./assets/catalog-service.ts";
import {
  type Catalog,
  type CatalogSource,
  createFileCatalogSource,
  getCatalogFilePath,
} from "./assets/catalog-source.ts";
import { createDasAssetSource } from "./assets/das-asset-source.ts";
import { createImageChecker } from "./assets/image-check.ts";
import { registerBankRoutes } from "./banks/bank-routes.ts";
import { BankSchema } from "./banks/bank-view.ts";
import { registerCalendarRoutes } from "./calendar/calendar-routes.ts";
import { registerCatalogRoutes } from "./catalog/catalog-routes.ts";
import { registerChainRoutes } from "./chain/chain-routes.ts";
import { type ChatServer, registerChatServer } from "./chat/chat-server.ts";
import type { ApiConfig } from "./config/config.ts";
import type { Database } from "./db/database.ts";
import { openDatabase } from "./db/open-database.ts";
import { registerErrorHandler } from "./errors/error-handler.ts";
import { registerFiniteQueryNumbers } from "./http/finite-numbers.ts";
import { registerQueryTextGuard } from "./http/query-text.ts";
import { registerRateLimits } from "./http/rate-limits.ts";
import { ADDRESS_FORMAT, ErrorBody, isSolanaAddress } from "./http/schemas.ts";
import { registerLoanRoutes } from "./loans/loan-routes.ts";
import { LoanListSchema, LoanSchema } from "./loans/loan-view.ts";
import { readIndexerLagSlots, registerHealthRoutes } from "./ops/health-routes.ts";
import { type ApiMetrics, createApiMetrics, registerMetricsRoutes } from "./ops/metrics.ts";
import { createPrettyLogStream } from "./ops/pretty-log-stream.ts";
import { registerPoolRoutes } from "./pools/pool-routes.ts";
import { PoolSchema } from "./pools/pool-view.ts";
import { registerPriceRoutes } from "./prices/price-routes.ts";
import { registerRequestRoutes } from "./requests/request-routes.ts";
import { createRpcClient, type RpcClient } from "./solana/rpc-client.ts";
import { createChainClock } from "./tx/chain/chain-clock.ts";
import { registerUserRoutes } from "./users/user-routes.ts";
import { createValuationService } from "./valuation/valuation-service.ts";
import { createValuationSources, type ValuationSources } from "./valuation/valuation-sources.ts";

/** Parts createApp would otherwise build from the config (tests pass their own). */
export interface AppOverrides {
  db?: Database;
  rpc?: RpcClient;
  /** Where token prices and collection values come from (default: the configured sources). */
  valuationSources?: ValuationSources;
  catalogSource?: CatalogSource;
  assetSource?: AssetSource;
  now?: () => number;
}

declare module "fastify" {
  interface FastifyInstance {
    /** The services the routes use; also how startApi reaches them. */
    cistern: AppContext;
    metrics: ApiMetrics;
    chat: ChatServer;
  }
}

/**
 * Builds the Fastify app: plugins in a fixed order (CORS, OpenAPI, docs UI, error handler, shared schemas,
 * routes by domain). Opens (and migrates) the database unless one is given; closes what it opened on close.
 */
export async function createApp(config: ApiConfig, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: config.bodyLimitBytes,
    logger:
      config.logLevel === "silent"
        ? false
        : {
            level: config.logLevel,
            ...(config.logFormat === "pretty" ? { stream: createPrettyLogStream() } : {}),
          },
    // One line per request, at debug level (see the onResponse hook), instead of two at info.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: {
      customOptions: {
        coerceTypes: true,
        removeAdditional: false,
        useDefaults: true,
        allErrors: false,
        formats: { [ADDRESS_FORMAT]: isSolanaAddress },
      },
    },
    // fast-json-stringify validates anyOf branches of response schemas with an Ajv of its own: it needs the
    // address format too (without it, every such schema logged 'unknown format "solana-address" ignored').
    serializerOpts: { ajv: { formats: { [ADDRESS_FORMAT]: isSolanaAddress } } },
  });
  const ownsDb = overrides.db === undefined;
  const db = overrides.db ?? (await openDatabase(config));
  const rpc = overrides.rpc ?? createRpcClient(config.solanaRpcUrl);
  const now = overrides.now ?? (() => Date.now() / 1000);
  const chainClock = createChainClock(rpc.url);
  const chainNow =
    overrides.now !== undefined
      ? async () => overrides.now!()
      : () => chainClock.recentUnixTime().catch(() => Math.floor(Date.now() / 1000));
  // one read path: the localnet answers DAS on its own RPC port, as DAS-enabled mainnet RPC providers do
  const assets = overrides.assetSource ?? createDasAssetSource(config.dasUrl ?? config.solanaRpcUrl);
  const catalog = createCatalogService(
    overrides.catalogSource ??
      createFileCatalogSource(config.valuation.catalogFile ?? getCatalogFilePath(config.cluster)),
    db,
    now,
    (error) => app.log.warn({ err: error }, "catalogue load failed"),
    // a token or collection the catalogue file gives no image takes its mint's (a collection's: its collection
    // NFT's), from DAS
    (id) => assets.fetchImage(id),
  );
  let loadedCatalog: Catalog | undefined;
  const prices = createValuationService({
    catalog: async () => (loadedCatalog = await catalog.getCatalog()),
    ...(overrides.valuationSources ??
      createValuationSources({
        config: config.valuation,
        rpc,
        lendingProgramId: config.lendingProgramId,
        catalog: () => loadedCatalog,
        now,
      })),
    guards: {
      maxAgeSeconds: config.valuation.maxAgeSeconds,
      maxConfidenceBps: config.valuation.maxConfidenceBps,
    },
    now,
    log: app.log,
  });
  const ctx: AppContext = {
    config,
    db,
    rpc,
    prices,
    catalog,
    assets,
    images: createImageChecker(config.imageProxyUrl),
    now,
    chainNow,
    chainClock,
  };
  app.decorate("cistern", ctx);

  // 1. CORS: the web app runs on another origin.
  await app.register(cors, { origin: true, methods: ["GET", "HEAD", "POST", "OPTIONS"] });
  // 2. OpenAPI document generated from the route schemas, 3. served at /docs.
  await app.register(swagger, {
    openapi: {
      info: {
        title: "Cistern API",
        version: "0.1.0",
        description:
          "Read side of Cistern: indexed banks, pools and loans, analytics, catalogue, wallet assets and prices. " +
          "Amounts are base units as decimal strings; rates are basis points; times are epoch seconds. Errors " +
          "answer {code, message} with 400 (bad input), 404 (unknown route), 422 (cannot process) or 5xx " +
          "(never with internals). A pool or bank that does not exist answers 200 with a null body.",
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  // 3b. Rate limits on the routes that make the API work (before any of them is declared).
  await registerRateLimits(app, config.rateLimitPerMinute);
  // 4. One error handler and a JSON 404.
  registerErrorHandler(app);
  registerFiniteQueryNumbers(app);
  registerQueryTextGuard(app);
  // 5. Shared schemas referenced by $ref.
  for (const schema of [ErrorBody, LoanSchema, LoanListSchema, PoolSchema, BankSchema]) app.addSchema(schema);
  // 6. Routes by domain.
  await app.register(async (scope) => {
    registerLoanRoutes(scope, ctx);
    await registerPoolRoutes(scope, ctx);
    registerBankRoutes(scope, ctx);
    registerAnalyticsRoutes(scope, ctx);
    registerUserRoutes(scope, ctx);
    registerCatalogRoutes(scope, ctx);
    registerAssetRoutes(scope, ctx);
    registerPriceRoutes(scope, ctx);
    registerChainRoutes(scope, ctx);
    registerCalendarRoutes(scope, ctx);
    registerRequestRoutes(scope, ctx);
  });
  app.addHook("onResponse", async (request, reply) => {
    request.log.debug(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      "request",
    );
  });
  // 7. The loan chat: GraphQL at /graphql (HTTP and websocket).
  app.decorate("chat", await registerChatServer(app, ctx));
  const metrics = createApiMetrics();
  metrics.setIndexerLag(() => readIndexerLagSlots(ctx));
  app.decorate("metrics", metrics);
  registerMetricsRoutes(app, metrics);
  registerHealthRoutes(app, ctx);

  app.addHook("onClose", async () => {
    prices.stop();
    if (ownsDb) await db.close();
  });
  return app;
}
