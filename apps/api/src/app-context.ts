import type { AssetSource } from "./assets/asset-source.ts";
import type { CatalogService } from "./assets/catalog-service.ts";
import type { ImageChecker } from "./assets/image-check.ts";
import type { ApiConfig } from "./config/config.ts";
import type { Database } from "./db/database.ts";
import type { PriceService } from "./prices/price-service.ts";
import type { RpcClient } from "./solana/rpc-client.ts";

/** Everything a route needs, built once in createApp and passed explicitly (no module globals). */
export interface AppContext {
  config: ApiConfig;
  db: Database;
  rpc: RpcClient;
  prices: PriceService;
  catalog: CatalogService;
  assets: AssetSource;
  images: ImageChecker;
  /** Current time in epoch seconds (injectable for tests). */
  now(): number;
}
