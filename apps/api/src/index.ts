export { type AppOverrides, createApp } from "./app.ts";
export type { AppContext } from "./app-context.ts";
export { type ApiConfig, loadConfig } from "./config/config.ts";
export type { Database } from "./db/database.ts";
export { openDatabase } from "./db/open-database.ts";
export { ApiError, ERROR_CODES, isApiError } from "./errors/api-error.ts";
export { createIndexer, type Indexer } from "./indexer/indexer.ts";
export { type RunningApi, type StartApiOptions, startApi } from "./start-api.ts";
