import {
  DEFAULT_PRIORITY_FEE_SETTINGS,
  getPriorityFeeOptions,
  PRIORITY_FEE_LEVELS,
  type PriorityFeeLevel,
  type PriorityFeeOptions,
} from "@cistern/protocol";
import { badRequest } from "../tx-errors.ts";

/** Options object of every builder request (spec section 9 priority fee settings). */
export interface BuildOptionsInput {
  priorityFeeLevel?: PriorityFeeLevel;
  /** Whole SOL, decimal string (cap in maxCap mode, the fee itself in exactFee mode, the tip in jito). */
  amount?: string;
  type?: "maxCap" | "exactFee";
  broadcastMode?: "priorityFees" | "jito";
  /** Simulate before answering: exact CU limit, and a failing transaction is a 422 (default false). */
  simulate?: boolean;
}

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Whole SOL text of a lamport amount (e.g. 10000000 -> "0.01"). */
function solText(lamports: bigint): string {
  const fraction = (lamports % LAMPORTS_PER_SOL).toString().padStart(9, "0").replace(/0+$/, "");
  return `${lamports / LAMPORTS_PER_SOL}${fraction ? `.${fraction}` : ""}`;
}

/**
 * Parses the request options into lamport amounts; a bad amount is a 400, and so is a fee budget or jito
 * tip above `maxLamports` (the configured cap, so a request can never make anyone pay an unbounded fee).
 */
export function parseBuildOptions(
  input: BuildOptionsInput | undefined,
  maxLamports: bigint,
): PriorityFeeOptions {
  const level = input?.priorityFeeLevel ?? DEFAULT_PRIORITY_FEE_SETTINGS.level;
  if (!PRIORITY_FEE_LEVELS.includes(level))
    throw badRequest(`options.priorityFeeLevel '${level}' is unknown`);
  let options: PriorityFeeOptions;
  try {
    options = getPriorityFeeOptions({
      level,
      amountSol: input?.amount ?? DEFAULT_PRIORITY_FEE_SETTINGS.amountSol,
      type: input?.type ?? DEFAULT_PRIORITY_FEE_SETTINGS.type,
      broadcastMode: input?.broadcastMode ?? DEFAULT_PRIORITY_FEE_SETTINGS.broadcastMode,
    });
  } catch (error) {
    throw badRequest(`options.amount: ${(error as Error).message}`);
  }
  if (options.maxCapLamports > maxLamports || options.jitoTipLamports > maxLamports)
    throw badRequest(
      `options.amount ${input?.amount} SOL is above the maximum priority fee / tip of ${solText(maxLamports)} SOL`,
    );
  return options;
}
