/**
 * Priority fee options (spec section 9): level fast, amount 0.0005 SOL, type maxCap, broadcast mode
 * priorityFees. The cap is amount x 1e9 lamports; in jito mode a tip of the same amount is added.
 */
import { type BaseUnits, ceilDiv, parseUnits } from "./amounts.ts";
import { ERROR_CODES, isCisternError } from "./errors.ts";
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

/**
 * Largest priority fee (max cap or exact fee) and Jito tip, in whole SOL: the API's transaction builder
 * refuses anything above TX_MAX_PRIORITY_FEE_LAMPORTS (default {@link MAX_PRIORITY_FEE_LAMPORTS}) with a 400.
 */
export const MAX_PRIORITY_FEE_SOL = "0.01";
/** {@link MAX_PRIORITY_FEE_SOL} in lamports (0.01 x 1e9). */
export const MAX_PRIORITY_FEE_LAMPORTS = 10_000_000n as BaseUnits;

/** Why a priority-fee amount is refused. */
export type PriorityFeeAmountProblem = "format" | "tooManyDecimals" | "zero" | "aboveMax";

/** Result of {@link checkPriorityFeeAmount}: the amount in lamports, or why it is refused. */
export type PriorityFeeAmountCheck =
  | { ok: true; lamports: BaseUnits }
  | { ok: false; problem: PriorityFeeAmountProblem };

/**
 * Checks a priority-fee amount typed in whole SOL: it must be a plain decimal ("0.001"), have at most 9
 * decimals (1 lamport), be more than 0 and at most `maxLamports` (default {@link MAX_PRIORITY_FEE_LAMPORTS},
 * the API's default cap). Never throws.
 *
 * @example checkPriorityFeeAmount("0.02") // { ok: false, problem: "aboveMax" }
 */
export function checkPriorityFeeAmount(
  amountSol: string,
  maxLamports: bigint = MAX_PRIORITY_FEE_LAMPORTS,
): PriorityFeeAmountCheck {
  let lamports: BaseUnits;
  try {
    lamports = parseUnits(amountSol, 9);
  } catch (error) {
    if (isCisternError(error, ERROR_CODES.AMOUNT_TOO_MANY_DECIMALS))
      return { ok: false, problem: "tooManyDecimals" };
    if (isCisternError(error, ERROR_CODES.AMOUNT_TOO_LARGE)) return { ok: false, problem: "aboveMax" };
    return { ok: false, problem: "format" };
  }
  if (lamports === 0n) return { ok: false, problem: "zero" };
  if (lamports > maxLamports) return { ok: false, problem: "aboveMax" };
  return { ok: true, lamports };
}

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

/** Multiplier (percent) applied to the averaged recent fee for each level. */
export const PRIORITY_LEVEL_PERCENT: Readonly<Record<PriorityFeeLevel, bigint>> = Object.freeze({
  medium: 100n,
  fast: 150n,
  ultra: 300n,
});
/** Floor of the averaged price before the level applies, so every level always adds its share (micro-lamports per CU). */
export const MIN_PRIORITY_PRICE_MICRO_LAMPORTS = 1_000n;

/**
 * Compute unit price (micro-lamports per CU): the node's recent fees averaged (at least 1000) x the level
 * (medium 1x, fast 1.5x, ultra 3x, so the levels differ even on a quiet cluster), rounded up; then capped so
 * price x units never costs more than the cap (maxCap), or set so it costs exactly the amount (exactFee).
 */
export function computeUnitPrice(
  recent: readonly RecentPrioritizationFee[],
  options: PriorityFeeOptions,
  computeUnits: number,
): bigint {
  const units = BigInt(Math.max(1, computeUnits));
  const budgetPrice = (options.maxCapLamports * 1_000_000n) / units;
  if (options.type === "exactFee") return budgetPrice;
  const recentAverage = computeAveragePrioritizationFee(recent);
  const average =
    recentAverage < MIN_PRIORITY_PRICE_MICRO_LAMPORTS ? MIN_PRIORITY_PRICE_MICRO_LAMPORTS : recentAverage;
  const price = ceilDiv(average * PRIORITY_LEVEL_PERCENT[options.level], 100n);
  return price > budgetPrice ? budgetPrice : price;
}

/** Lamports a compute-unit price costs over `computeUnits` (rounded up, as the runtime charges). */
export function computePriorityFeeLamports(unitPriceMicroLamports: bigint, computeUnits: number): bigint {
  return ceilDiv(unitPriceMicroLamports * BigInt(Math.max(0, computeUnits)), 1_000_000n);
}

/**
 * Jito's eight mainnet tip accounts (a tip is a plain SOL transfer to one of them, chosen at random to spread
 * write locks). The localnet creates them, so that tips behave as on mainnet.
 */
export const JITO_TIP_ACCOUNTS = [
  "96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5",
  "HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe",
  "Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY",
  "ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49",
  "DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh",
  "ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt",
  "DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL",
  "3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT",
] as const;
