import { parseUnits } from "@cistern/protocol";

export type PriorityFeeLevel = "medium" | "fast" | "ultra";
export type PriorityFeeType = "maxCap" | "exactFee";
export type BroadcastMode = "priorityFees" | "jito";

/** Priority-fee settings as the user chooses them; amount is a SOL decimal string. */
export interface PriorityFeeSettings {
  level: PriorityFeeLevel;
  /** SOL, as typed ("0.0005"). */
  amountSol: string;
  type: PriorityFeeType;
  broadcastMode: BroadcastMode;
}

/** Spec section 9: level fast, amount 0.0005, type maxCap, broadcast mode priorityFees. */
export const DEFAULT_PRIORITY_FEE_SETTINGS: PriorityFeeSettings = {
  level: "fast",
  amountSol: "0.0005",
  type: "maxCap",
  broadcastMode: "priorityFees",
};

const LEVELS: readonly PriorityFeeLevel[] = ["medium", "fast", "ultra"];
const TYPES: readonly PriorityFeeType[] = ["maxCap", "exactFee"];
const MODES: readonly BroadcastMode[] = ["priorityFees", "jito"];

/** Validates stored settings, falling back to the defaults field by field. */
export function parsePriorityFeeSettings(input: unknown): PriorityFeeSettings {
  const raw = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const amountSol =
    typeof raw.amountSol === "string" && isValidSolAmount(raw.amountSol) ? raw.amountSol : null;
  return {
    level: LEVELS.includes(raw.level as PriorityFeeLevel)
      ? (raw.level as PriorityFeeLevel)
      : DEFAULT_PRIORITY_FEE_SETTINGS.level,
    amountSol: amountSol ?? DEFAULT_PRIORITY_FEE_SETTINGS.amountSol,
    type: TYPES.includes(raw.type as PriorityFeeType)
      ? (raw.type as PriorityFeeType)
      : DEFAULT_PRIORITY_FEE_SETTINGS.type,
    broadcastMode: MODES.includes(raw.broadcastMode as BroadcastMode)
      ? (raw.broadcastMode as BroadcastMode)
      : DEFAULT_PRIORITY_FEE_SETTINGS.broadcastMode,
  };
}

/** True when `text` is a SOL amount with at most 9 decimals. */
export function isValidSolAmount(text: string): boolean {
  try {
    parseUnits(text, 9);
    return true;
  } catch {
    return false;
  }
}

/** The priority-fee options sent with every builder request (lamports as decimal strings). */
export interface PriorityFeeOptions {
  priorityLevel: PriorityFeeLevel;
  priorityFeeType: PriorityFeeType;
  broadcastMode: BroadcastMode;
  /** Cap (maxCap) or exact fee: amount x 1e9 lamports. */
  priorityFeeLamports: string;
  /** In jito mode a tip of the same amount is added; "0" otherwise. */
  jitoTipLamports: string;
}

/** Converts the settings to builder options: the cap is amount x 1e9 lamports, jito adds a tip of the same. */
export function getPriorityFeeOptions(settings: PriorityFeeSettings): PriorityFeeOptions {
  const lamports = parseUnits(settings.amountSol, 9);
  return {
    priorityLevel: settings.level,
    priorityFeeType: settings.type,
    broadcastMode: settings.broadcastMode,
    priorityFeeLamports: lamports.toString(),
    jitoTipLamports: settings.broadcastMode === "jito" ? lamports.toString() : "0",
  };
}
