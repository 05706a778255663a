import type { RecentPrioritizationFee } from "@cistern/protocol";
import { requireJsonRpc } from "./json-rpc.ts";

/** A recent blockhash and the last block height at which a transaction using it is accepted. */
export interface Lifetime {
  blockhash: string;
  lastValidBlockHeight: number;
}

/** Short-lived caches of the node's clock-like values, shared by concurrent builds. */
export interface ChainClock {
  /** Latest blockhash (refreshed every `maxAgeMs`; at most 5 x `maxAgeMs` old, far inside its 150 blocks). */
  lifetime(): Promise<Lifetime>;
  /** Current block height (never cached). */
  blockHeight(): Promise<number>;
  /** Current confirmed slot (never cached). */
  slot(): Promise<number>;
  /** A confirmed slot, refreshed every 400 ms, at most 4 s old (the oracle attests at it; 150 slots accepted). */
  recentSlot(): Promise<number>;
  /** The cluster's unix time from the Clock sysvar (the time the program computes interest with). */
  unixTime(): Promise<number>;
  /**
   * The cluster's unix time for quotes: read at most every 500 ms (at most 5 s old while a reload runs) and
   * advanced by the wall clock since it was read. Builders that settle interest use {@link unixTime}.
   */
  recentUnixTime(): Promise<number>;
  /** getRecentPrioritizationFees (refreshed every 2 s, at most 10 s old). */
  recentFees(): Promise<RecentPrioritizationFee[]>;
}

/**
 * Caches `load()`: fresh for `freshMs`; until `staleMs` the old value is still answered while one
 * background reload runs (so a slow node never stalls every request at once); older values are reloaded
 * before answering. A failed background reload keeps the old value.
 */
export function cachedFor<T>(freshMs: number, staleMs: number, load: () => Promise<T>): () => Promise<T> {
  let value: { at: number; v: T } | undefined;
  let inFlight: Promise<T> | undefined;
  const reload = () => {
    inFlight ??= load()
      .then((v) => {
        value = { at: Date.now(), v };
        return v;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  return () => {
    const age = value === undefined ? Number.POSITIVE_INFINITY : Date.now() - value.at;
    if (value !== undefined && age < freshMs) return Promise.resolve(value.v);
    if (value !== undefined && age < staleMs) {
      reload().catch(() => undefined);
      return Promise.resolve(value.v);
    }
    return reload();
  };
}

/** Creates the clock over the node at `rpcUrl`; the blockhash is reused for `maxAgeMs` (default 1 s). */
export function createChainClock(rpcUrl: string, maxAgeMs = 1000): ChainClock {
  async function unixTime(): Promise<number> {
    const r = await requireJsonRpc<{ value: { data: [string, string] } | null }>(rpcUrl, "getAccountInfo", [
      "SysvarC1ock11111111111111111111111111111111",
      { encoding: "base64", commitment: "confirmed" },
    ]);
    if (r.value === null) return Math.floor(Date.now() / 1000);
    // Clock: slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64, unix_timestamp i64.
    return Number(Buffer.from(r.value.data[0], "base64").readBigInt64LE(32));
  }
  const readClock = cachedFor(500, 5000, async () => ({
    chainSeconds: await unixTime(),
    readAtMs: Date.now(),
  }));
  return {
    lifetime: cachedFor(maxAgeMs, maxAgeMs * 5, async () => {
      const r = await requireJsonRpc<{ value: Lifetime }>(rpcUrl, "getLatestBlockhash", [
        { commitment: "confirmed" },
      ]);
      return { blockhash: r.value.blockhash, lastValidBlockHeight: Number(r.value.lastValidBlockHeight) };
    }),
    blockHeight: () => requireJsonRpc<number>(rpcUrl, "getBlockHeight", [{ commitment: "confirmed" }]),
    slot: () => requireJsonRpc<number>(rpcUrl, "getSlot", [{ commitment: "confirmed" }]),
    recentSlot: cachedFor(400, 4000, () =>
      requireJsonRpc<number>(rpcUrl, "getSlot", [{ commitment: "confirmed" }]),
    ),
    unixTime,
    async recentUnixTime() {
      const { chainSeconds, readAtMs } = await readClock();
      return chainSeconds + Math.floor((Date.now() - readAtMs) / 1000);
    },
    recentFees: cachedFor(2000, 10_000, () =>
      requireJsonRpc<RecentPrioritizationFee[]>(rpcUrl, "getRecentPrioritizationFees", [[]]),
    ),
  };
}
