import {
  checkPriorityFeeAmount,
  DEFAULT_PRIORITY_FEE_SETTINGS,
  MAX_PRIORITY_FEE_SOL,
  PRIORITY_FEE_LEVELS,
  type PriorityFeeAmountProblem,
  type PriorityFeeLevel,
  type PriorityFeeSettings,
} from "@cistern/protocol";

const TYPES: readonly PriorityFeeSettings["type"][] = ["maxCap", "exactFee"];
const MODES: readonly PriorityFeeSettings["broadcastMode"][] = ["priorityFees", "jito"];

/** What the settings panel shows for each refused priority-fee amount. */
export const PRIORITY_FEE_AMOUNT_MESSAGES: Readonly<Record<PriorityFeeAmountProblem, string>> = Object.freeze(
  {
    format: "Enter a SOL amount with at most 9 decimals",
    tooManyDecimals: "Enter a SOL amount with at most 9 decimals",
    zero: "The priority fee must be more than 0 SOL",
    aboveMax: `The priority fee can be at most ${MAX_PRIORITY_FEE_SOL} SOL (the same limit applies to the Jito tip)`,
  },
);

/**
 * The message for a priority-fee amount the API would refuse (not a plain SOL amount, more than 9
 * decimals, 0, or above {@link MAX_PRIORITY_FEE_SOL}), or null when it is accepted.
 */
export function getPriorityFeeAmountError(amountSol: string): string | null {
  const check = checkPriorityFeeAmount(amountSol);
  return check.ok ? null : PRIORITY_FEE_AMOUNT_MESSAGES[check.problem];
}

/** True when `amountSol` is a priority fee the API accepts: more than 0, at most 9 decimals and 0.01 SOL. */
export function isValidPriorityFeeAmount(amountSol: string): boolean {
  return checkPriorityFeeAmount(amountSol).ok;
}

/**
 * Validates stored settings, falling back to the protocol defaults field by field (an amount the API
 * would refuse, such as one above 0.01 SOL, falls back to the default amount).
 */
export function parsePriorityFeeSettings(input: unknown): PriorityFeeSettings {
  const raw = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const defaults = DEFAULT_PRIORITY_FEE_SETTINGS;
  return {
    level: PRIORITY_FEE_LEVELS.includes(raw.level as PriorityFeeLevel)
      ? (raw.level as PriorityFeeLevel)
      : defaults.level,
    amountSol:
      typeof raw.amountSol === "string" && isValidPriorityFeeAmount(raw.amountSol)
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
 * The builder options for the user's settings. The amount (the cap or exact fee, and the Jito tip in
 * jito mode) is checked before it is sent: an amount the API would refuse (not a SOL amount with at
 * most 9 decimals, 0, or above 0.01 SOL) throws with the panel's message.
 */
export function getBuilderPriorityFeeOptions(settings: PriorityFeeSettings): BuilderPriorityFeeOptions {
  const error = getPriorityFeeAmountError(settings.amountSol);
  if (error !== null) throw new Error(`Priority fee ${settings.amountSol} SOL: ${error}`);
  return {
    priorityFeeLevel: settings.level,
    amount: settings.amountSol,
    type: settings.type,
    broadcastMode: settings.broadcastMode,
  };
}
