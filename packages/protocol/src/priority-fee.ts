/**
 * Priority fee options (spec section 9): level fast, amount 0.0005 SOL, type maxCap, broadcast mode
 * priorityFees. The cap is amount x 1e9 lamports; in jito mode a tip of the same amount is added.
 */
import { type BaseUnits, ceilDiv, parseUnits } from "./amounts.ts";
import { readAmount } from "./server-fields.ts";

export const PRIORITY_FEE_LEVELS = ["medium", "fast", "ultra"] as const;
export type PriorityFeeLevel = (typeof PRIORITY_FEE_LEVELS)[number];
export type PriorityFeeType = "maxCap" | "exactFee";
export type BroadcastMode = "priorityFees" | "jito";

/** Priority fee settings a user chooses. `amountSol` is whole SOL as a decimal string. */
export interface PriorityFeeSettings {
  level: PriorityFeeLevel;
  amountSol: string;
  type: PriorityFeeType;
  broadcastMode: BroadcastMode;
}

/** Defaults: fast, 0.0005 SOL, maxCap, priorityFees. */
export const DEFAULT_PRIORITY_FEE_SETTINGS: Readonly<PriorityFeeSettings> = Object.freeze({
  level: "fast",
  amountSol: "0.0005",
  type: "maxCap",
  broadcastMode: "priorityFees",
});

/** What the builder receives: caps and tips in lamports. */
export interface PriorityFeeOptions {
  level: PriorityFeeLevel;
  type: PriorityFeeType;
  broadcastMode: BroadcastMode;
  /** amountSol x 1e9 lamports (exact; more than 9 decimals is rejected). */
  maxCapLamports: BaseUnits;
  /** Same amount in jito mode, else 0. */
  jitoTipLamports: bigint;
}

/** Turn settings into builder options (lamports, bigint). */
export function getPriorityFeeOptions(
  settings: PriorityFeeSettings = DEFAULT_PRIORITY_FEE_SETTINGS,
): PriorityFeeOptions {
  const maxCapLamports = parseUnits(settings.amountSol, 9);
  return {
    level: settings.level,
    type: settings.type,
    broadcastMode: settings.broadcastMode,
    maxCapLamports,
    jitoTipLamports: settings.broadcastMode === "jito" ? maxCapLamports : 0n,
  };
}

/** One entry of getRecentPrioritizationFees. */
export interface RecentPrioritizationFee {
  slot: number | bigint;
  prioritizationFee: number | bigint | string;
}

/**
 * Average of recent prioritization fees (micro-lamports per compute unit), ROUNDED UP so the
 * estimate never underprices the transaction. An empty list gives 0.
 */
export function computeAveragePrioritizationFee(fees: readonly RecentPrioritizationFee[]): bigint {
  if (fees.length === 0) return 0n;
  let sum = 0n;
  fees.forEach((fee, i) => {
    sum += readAmount("prioritizationFee", `[${i}].prioritizationFee`, fee.prioritizationFee);
  });
  return ceilDiv(sum, BigInt(fees.length));
}
