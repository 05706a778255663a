import {
  DEFAULT_PRIORITY_FEE_SETTINGS,
  getPriorityFeeOptions,
  PRIORITY_FEE_LEVELS,
  type PriorityFeeLevel,
  type PriorityFeeSettings,
  parseUnits,
} from "@cistern/protocol";

const TYPES: readonly PriorityFeeSettings["type"][] = ["maxCap", "exactFee"];
const MODES: readonly PriorityFeeSettings["broadcastMode"][] = ["priorityFees", "jito"];

/** True when `text` is a SOL amount with at most 9 decimals. */
export function isValidSolAmount(text: string): boolean {
  try {
    parseUnits(text, 9);
    return true;
  } catch {
    return false;
  }
}

/** Validates stored settings, falling back to the protocol defaults field by field. */
export function parsePriorityFeeSettings(input: unknown): PriorityFeeSettings {
  const raw = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const defaults = DEFAULT_PRIORITY_FEE_SETTINGS;
  return {
    level: PRIORITY_FEE_LEVELS.includes(raw.level as PriorityFeeLevel)
      ? (raw.level as PriorityFeeLevel)
      : defaults.level,
    amountSol:
      typeof raw.amountSol === "string" && isValidSolAmount(raw.amountSol)
        ? raw.amountSol
        : defaults.amountSol,
    type: TYPES.includes(raw.type as PriorityFeeSettings["type"])
      ? (raw.type as PriorityFeeSettings["type"])
      : defaults.type,
    broadcastMode: MODES.includes(raw.broadcastMode as PriorityFeeSettings["broadcastMode"])
      ? (raw.broadcastMode as PriorityFeeSettings["broadcastMode"])
      : defaults.broadcastMode,
  };
}

/** The `options` object of every builder request (apps/api builder schema `BuildOptions`). */
export interface BuilderPriorityFeeOptions {
  priorityFeeLevel: PriorityFeeSettings["level"];
  /** Whole SOL, decimal string: the cap (maxCap), the fee (exactFee); also the tip in jito mode. */
  amount: string;
  type: PriorityFeeSettings["type"];
  broadcastMode: PriorityFeeSettings["broadcastMode"];
}

/**
 * The builder options for the user's settings. The amount is checked with the protocol's
 * getPriorityFeeOptions (cap = amount x 1e9 lamports, jito tip of the same amount) before it is sent.
 */
export function getBuilderPriorityFeeOptions(settings: PriorityFeeSettings): BuilderPriorityFeeOptions {
  getPriorityFeeOptions(settings);
  return {
    priorityFeeLevel: settings.level,
    amount: settings.amountSol,
    type: settings.type,
    broadcastMode: settings.broadcastMode,
  };
}
