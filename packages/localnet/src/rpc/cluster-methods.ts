import { decodeBase58 } from "../base58.ts";
import { SLOTS_PER_EPOCH } from "../chain.ts";
import { invalidParams, LocalnetRpcError, RPC_ERROR } from "../errors.ts";
import { computeFee } from "../execution.ts";
import { MAX_PERFORMANCE_SAMPLES } from "../performance-samples.ts";
import { parseWireMessage } from "../wire.ts";
import { API_VERSION, type RpcHandler, withContext } from "./context.ts";
import { asParams, checkMinContextSlot, config, str, strArray, uint } from "./params.ts";

function decodeMessage(text: string) {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw invalidParams("invalid base64 encoding: InvalidByte");
  return parseWireMessage(Buffer.from(text, "base64"));
}

/** Cluster, slot, blockhash and fee methods. */
export const clusterMethods: Record<string, RpcHandler> = {
  getHealth: () => "ok",
  getVersion: () => ({ "solana-core": API_VERSION, "feature-set": 3294202862 }),
  getGenesisHash: (_p, ctx) => ctx.chain.genesisHash,
  getIdentity: (_p, ctx) => ({ identity: ctx.identity }),
  getSlot: (p, ctx) => {
    checkMinContextSlot(config(asParams(p), 0), ctx.chain.slot);
    return ctx.chain.slot;
  },
  getBlockHeight: (p, ctx) => {
    checkMinContextSlot(config(asParams(p), 0), ctx.chain.slot);
    return ctx.chain.blockHeight;
  },
  getEpochInfo: (_p, ctx) => {
    const slot = ctx.chain.slot;
    return {
      absoluteSlot: slot,
      blockHeight: ctx.chain.blockHeight,
      epoch: Math.floor(slot / SLOTS_PER_EPOCH),
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: ctx.chain.history.size,
    };
  },
  getEpochSchedule: () => ({
    firstNormalEpoch: 0,
    firstNormalSlot: 0,
    leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
    slotsPerEpoch: SLOTS_PER_EPOCH,
    warmup: false,
  }),
  getSlotLeader: (_p, ctx) => ctx.identity,
  getFirstAvailableBlock: () => 0,
  getTransactionCount: (_p, ctx) => ctx.chain.history.size,
  getBlockTime: (params, ctx) => {
    const slot = uint(asParams(params), 0, "slot");
    const t = ctx.chain.blockTime(slot);
    if (t === null)
      throw new LocalnetRpcError(RPC_ERROR.BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
    return t;
  },
  getRecentPerformanceSamples: (params, ctx) => {
    const p = asParams(params);
    const limit = p[0] === undefined || p[0] === null ? MAX_PERFORMANCE_SAMPLES : uint(p, 0, "limit");
    if (limit > MAX_PERFORMANCE_SAMPLES) throw invalidParams(`Invalid limit; max ${MAX_PERFORMANCE_SAMPLES}`);
    return ctx.chain.performanceSampler.samples.slice(0, limit);
  },
  getLatestBlockhash: (p, ctx) => {
    checkMinContextSlot(config(asParams(p), 0), ctx.chain.slot);
    return withContext(ctx, ctx.chain.latestBlockhash());
  },
  isBlockhashValid: (params, ctx) => {
    const p = asParams(params);
    const hash = str(p, 0, "blockhash");
    return withContext(ctx, ctx.chain.window.isValid(hash, ctx.chain.blockHeight));
  },
  getMinimumBalanceForRentExemption: (params, ctx) => {
    const p = asParams(params);
    const len = p[0] === undefined ? 0 : uint(p, 0, "data length");
    if (len > 10 * 1024 * 1024) throw invalidParams("Invalid params: data length exceeds 10 MiB");
    return Number(ctx.chain.svm.minimumBalanceForRentExemption(BigInt(len)));
  },
  getFeeForMessage: (params, ctx) => {
    const m = decodeMessage(str(asParams(params), 0, "message"));
    if (!ctx.chain.window.isValidBytes(m.recentBlockhash, ctx.chain.blockHeight))
      return withContext(ctx, null);
    return withContext(ctx, computeFee(m).feeLamports);
  },
  getRecentPrioritizationFees: (params, ctx) => {
    const p = asParams(params);
    const filter = p[0] === undefined || p[0] === null ? [] : strArray(p, 0, "account addresses", 128);
    for (const a of filter)
      if (decodeBase58(a).length !== 32) throw invalidParams("Invalid param: WrongSize");
    const current = ctx.chain.slot;
    const first = Math.max(1, current - 149);
    const minBySlot = new Map<number, number>();
    for (const r of ctx.chain.history.since(first)) {
      if (filter.length > 0 && !r.accountKeys.some((k, i) => r.writable[i] && filter.includes(k))) continue;
      const prev = minBySlot.get(r.slot);
      minBySlot.set(
        r.slot,
        prev === undefined ? r.priorityFeeMicroLamports : Math.min(prev, r.priorityFeeMicroLamports),
      );
    }
    const out: { slot: number; prioritizationFee: number }[] = [];
    for (let s = first; s <= current; s++) out.push({ slot: s, prioritizationFee: minBySlot.get(s) ?? 0 });
    return out;
  },
};
