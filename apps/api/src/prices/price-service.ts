import type { FastifyBaseLogger } from "fastify";
import type { PriceSource, UsdPrice } from "./price-source.ts";

/** Keeps the latest price snapshot in memory, refreshed on a timer; a failed refresh keeps the old one. */
export interface PriceService {
  readonly sourceName: string;
  /** Latest prices (empty before the first successful refresh). */
  getPrices(): ReadonlyMap<string, UsdPrice>;
  /** Epoch seconds of the last successful refresh, or null. */
  getUpdatedAt(): number | null;
  refresh(): Promise<void>;
  /** Refreshes once if no refresh was ever attempted (a failing source is not retried per request). */
  ensureLoaded(): Promise<void>;
  start(intervalMs: number): void;
  stop(): void;
}

/** Creates the price service over `source`; `mints()` lists the mints to ask for (empty = all). */
export function createPriceService(
  source: PriceSource,
  mints: () => Promise<readonly string[]>,
  log: Pick<FastifyBaseLogger, "warn">,
): PriceService {
  let prices: ReadonlyMap<string, UsdPrice> = new Map();
  let updatedAt: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let attempted = false;
  async function doRefresh(): Promise<void> {
    attempted = true;
    try {
      const next = await source.fetchPrices(await mints());
      prices = next;
      updatedAt = Math.floor(Date.now() / 1000);
    } catch (error) {
      // Spec: a price refresh failure is logged only.
      log.warn({ err: error }, `price refresh from ${source.name} failed`);
    }
  }
  return {
    sourceName: source.name,
    getPrices: () => prices,
    getUpdatedAt: () => updatedAt,
    refresh() {
      inFlight ??= doRefresh().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    async ensureLoaded() {
      if (!attempted) await this.refresh();
    },
    start(intervalMs) {
      if (timer !== undefined) return;
      void this.refresh();
      timer = setInterval(() => void this.refresh(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
