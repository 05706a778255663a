import type { RecentPrioritizationFee } from "@cistern/protocol";
import { requireJsonRpc } from "./json-rpc.ts";

/** A recent blockhash and the last block height at which a transaction using it is accepted. */
export interface Lifetime {
  blockhash: string;
  lastValidBlockHeight: number;
}

/** Short-lived caches of the node's clock-like values, shared by concurrent builds. */
export interface ChainClock {
  /** Latest blockhash (at most `maxAgeMs` old). */
  lifetime(): Promise<Lifetime>;
  /** Current block height (never cached). */
  blockHeight(): Promise<number>;
  /** Current confirmed slot (never cached). */
  slot(): Promise<number>;
  /** A confirmed slot at most 400 ms old (the oracle attests at it; the program accepts 150 slots of age). */
  recentSlot(): Promise<number>;
  /** The cluster's unix time from the Clock sysvar (the time the program computes interest with). */
  unixTime(): Promise<number>;
  /** getRecentPrioritizationFees (at most 2 s old). */
  recentFees(): Promise<RecentPrioritizationFee[]>;
}

function cachedFor<T>(ms: number, load: () => Promise<T>): () => Promise<T> {
  let value: { at: number; v: T } | undefined;
  let inFlight: Promise<T> | undefined;
  return () => {
    if (value !== undefined && Date.now() - value.at < ms) return Promise.resolve(value.v);
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
}

/** Creates the clock over the node at `rpcUrl`; the blockhash is reused for `maxAgeMs` (default 1 s). */
export function createChainClock(rpcUrl: string, maxAgeMs = 1000): ChainClock {
  return {
    lifetime: cachedFor(maxAgeMs, async () => {
      const r = await requireJsonRpc<{ value: Lifetime }>(rpcUrl, "getLatestBlockhash", [
        { commitment: "confirmed" },
      ]);
      return { blockhash: r.value.blockhash, lastValidBlockHeight: Number(r.value.lastValidBlockHeight) };
    }),
    blockHeight: () => requireJsonRpc<number>(rpcUrl, "getBlockHeight", [{ commitment: "confirmed" }]),
    slot: () => requireJsonRpc<number>(rpcUrl, "getSlot", [{ commitment: "confirmed" }]),
    recentSlot: cachedFor(400, () =>
      requireJsonRpc<number>(rpcUrl, "getSlot", [{ commitment: "confirmed" }]),
    ),
    async unixTime() {
      const r = await requireJsonRpc<{ value: { data: [string, string] } | null }>(rpcUrl, "getAccountInfo", [
        "SysvarC1ock11111111111111111111111111111111",
        { encoding: "base64", commitment: "confirmed" },
      ]);
      if (r.value === null) return Math.floor(Date.now() / 1000);
      // Clock: slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64, unix_timestamp i64.
      return Number(Buffer.from(r.value.data[0], "base64").readBigInt64LE(32));
    },
    recentFees: cachedFor(2000, () =>
      requireJsonRpc<RecentPrioritizationFee[]>(rpcUrl, "getRecentPrioritizationFees", [[]]),
    ),
  };
}
