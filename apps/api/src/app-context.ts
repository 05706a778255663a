import type { AssetSource } from "./assets/asset-source.ts";
import type { CatalogService } from "./assets/catalog-service.ts";
import type { ImageChecker } from "./assets/image-check.ts";
import type { ApiConfig } from "./config/config.ts";
import type { Database } from "./db/database.ts";
import type { RpcClient } from "./solana/rpc-client.ts";
import type { ChainClock } from "./tx/chain/chain-clock.ts";
import type { ValuationService } from "./valuation/valuation-service.ts";

/** Everything a route needs, built once in createApp and passed explicitly (no module globals). */
export interface AppContext {
  config: ApiConfig;
  db: Database;
  rpc: RpcClient;
  /** The one valuation service: token prices and collection values, guarded (valuation/). */
  prices: ValuationService;
  catalog: CatalogService;
  assets: AssetSource;
  images: ImageChecker;
  /** Current time in epoch seconds (injectable for tests). */
  now(): number;
  /**
   * The cluster's time in epoch seconds (its Clock sysvar, read at most every 500 ms and advanced by the wall
   * clock): what loan dates are stamped with, so analytics windows ("today", "the last 30 days") use it. A
   * localnet whose clock was advanced is respected. Tests that inject `now` get it here too.
   */
  chainNow(): Promise<number>;
  /** The cluster's clock-like values, cached (one per process: the write path shares it). */
  chainClock: ChainClock;
}
