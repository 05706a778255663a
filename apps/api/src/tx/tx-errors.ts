import {
  decodeProgramFailure,
  describeOtherProgramFailure,
  getProgramErrorEntry,
  isRuleSetRefusal,
  isStaleProof,
  type MarginfiBankRefusal,
  type OfferRefusal,
  PROGRAM_ERROR_CODE,
  ERROR_CODES as PROTOCOL_CODES,
  ERROR_MESSAGES as PROTOCOL_MESSAGES,
} from "@cistern/protocol";
import { isSdkError, TOKEN_AUTH_RULES_PROGRAM_ADDRESS } from "@cistern/sdk";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { isInvalidAddressError } from "../errors/error-handler.ts";

/** A 400: the request is wrong (missing/invalid field, unknown pool, foreign owner ...). */
export function badRequest(message: string): ApiError {
  return new ApiError(ERROR_CODES.INVALID_INPUT, message);
}

/** A 422: the request is well formed but cannot be carried out now (no pool fits, chain refuses ...). */
export function unprocessable(message: string): ApiError {
  return new ApiError(ERROR_CODES.UNPROCESSABLE, message);
}

/**
 * A 422 for a loan no pool can give: the rule-book's refusal of the first pool (the program's code,
 * name and params travel as the error's `refusal`), with every pool's reason in the message.
 */
export function offerRefused(
  refusals: readonly { pool: string; refusal: OfferRefusal }[],
  collateralId: string,
): ApiError & { refusal?: OfferRefusal } {
  const why = refusals
    .slice(0, 5)
    .map(
      (r) =>
        `${r.pool}: ${r.refusal.name} (${r.refusal.code}): ${getProgramErrorEntry(r.refusal.code)?.message ?? ""}`,
    )
    .join("; ");
  const error: ApiError & { refusal?: OfferRefusal } = unprocessable(
    `No pool can lend against ${collateralId} on these terms${why ? ` (${why})` : ""}`,
  );
  const first = refusals[0];
  if (first !== undefined) error.refusal = first.refusal;
  return error;
}

/**
 * A 422 for an action on a loan that already ended: the program's LoanNotOngoing (6033) with how it ended
 * (`status`: closedBy when the program recorded it, else the status), what its collateral is and, when known,
 * who asks (`viewer`), so every client words it from the code (packages/protocol's sentence), never an address.
 */
export function loanNotOngoing(
  loan: { status: string; closedBy?: string | null; isDefi: boolean },
  viewer?: "lender" | "borrower",
): ApiError & { refusal: OfferRefusal } {
  const status = loan.closedBy && loan.closedBy !== "Open" ? loan.closedBy : loan.status;
  const params: Record<string, string> = { status, collateral: loan.isDefi ? "tokens" : "NFT" };
  if (viewer) params.viewer = viewer;
  const error = unprocessable(`This loan already ended (${status}), so it cannot be changed.`);
  return Object.assign(error, {
    refusal: { code: PROGRAM_ERROR_CODE.LoanNotOngoing, name: "LoanNotOngoing" as const, params },
  });
}

/** Turns sdk argument errors and invalid addresses into 400s; everything else passes through unchanged. */
export function toRequestError(error: unknown): unknown {
  if (isSdkError(error)) return badRequest(error.message);
  if (isInvalidAddressError(error))
    return badRequest(`Invalid address: ${(error as Error).message} (an address is base58 of 32 bytes)`);
  return error;
}

/** A failed simulation or transaction as the one error vocabulary's fields. */
export interface ChainFailure {
  code: number;
  name: string;
  message: string;
  params: Record<string, string>;
}

/** A chain failure as the protocol's sentence for `code` (no params). */
const protocolFailure = (code: 5005 | 5006, name: string): ChainFailure => ({
  code,
  name,
  message: PROTOCOL_MESSAGES[code],
  params: {},
});

/**
 * A failed simulation or transaction, decoded with the program that raised its custom code (@cistern/protocol
 * decodeProgramFailure: the first program the logs show failing, else the failing instruction's program,
 * `instructionProgramIds[index]`): SPL Account Compression's stale proof (its 6001, the lending program's own
 * NotEnoughAccounts by number) is TRANSACTION_SEND_STALE_PROOF (5005), Token Auth Rules refusing (a pNFT's rule set)
 * TRANSACTION_SEND_RULE_SET_REFUSED (5006), a lending program error keeps its code (6000-6999) and name; another
 * program's custom code (a CPI's error reaches the transaction as the lending instruction's Custom code) is
 * TRANSACTION_SEND_FAILED (5004) with one sentence naming that program by name, its id and code in `params`.
 */
export function describeChainFailure(
  err: unknown,
  logs: readonly string[],
  programId: string,
  instructionProgramIds?: readonly string[],
): ChainFailure {
  const failed = decodeProgramFailure({ err, logs, lendingProgramId: programId, instructionProgramIds });
  if (failed && isStaleProof(failed))
    return protocolFailure(PROTOCOL_CODES.TRANSACTION_SEND_STALE_PROOF, "TRANSACTION_SEND_STALE_PROOF");
  // the pNFT's rule set refused: Token Auth Rules' Validate (asked by Token Metadata about the delegate, or by the
  // lending program about the transfers a liquidation makes) failed first, whatever its code
  const firstFailed = logs.find((l) => /^Program \w+ failed/.test(l));
  if (
    (failed && isRuleSetRefusal(failed)) ||
    firstFailed?.startsWith(`Program ${TOKEN_AUTH_RULES_PROGRAM_ADDRESS} failed`)
  )
    return protocolFailure(
      PROTOCOL_CODES.TRANSACTION_SEND_RULE_SET_REFUSED,
      "TRANSACTION_SEND_RULE_SET_REFUSED",
    );
  // the lending program's own code (a raiser unknown: no logs, no instruction ids: the code alone, as before)
  const entry = failed && failed.lending !== false ? getProgramErrorEntry(failed.code) : undefined;
  if (failed && entry) return { code: failed.code, name: entry.name, message: entry.message, params: {} };
  if (failed && failed.lending === false) {
    return {
      code: PROTOCOL_CODES.TRANSACTION_SEND_FAILED,
      name: "TRANSACTION_SEND_FAILED",
      message: describeOtherProgramFailure(failed),
      params: {
        programId: failed.programId,
        programName: failed.programName,
        programCode: String(failed.code),
      },
    };
  }
  const line = logs.find((l) => / failed: /.test(l));
  const message = line
    ? line.replace(/^Program \w+ /, "Program ")
    : `Transaction failed: ${typeof err === "string" ? err : JSON.stringify(err)}`;
  return {
    code: PROTOCOL_CODES.TRANSACTION_SEND_FAILED,
    name: "TRANSACTION_SEND_FAILED",
    message,
    params: {},
  };
}

/**
 * A 422 for a delegation move marginfi refuses now, told before anything is signed: the lending program's own
 * code and name for it (packages/protocol marginfiBankRefusal; VenueDepositLimit past marginfi's deposit limit),
 * as the program would answer the transaction.
 */
export function marginfiRefused(
  name: MarginfiBankRefusal | "VenueDepositLimit",
  detail: string,
): ApiError & { refusal: OfferRefusal } {
  const code = PROGRAM_ERROR_CODE[name];
  const error = unprocessable(`${getProgramErrorEntry(code)?.message ?? name}: ${detail}`);
  return Object.assign(error, { refusal: { code, name, params: {} } });
}
