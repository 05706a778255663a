import { customErrorOfResult, decodeProgramFailure } from "@cistern/protocol";
import { type Address, isSolanaError, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM } from "@solana/kit";
import { getLendingErrorEntry, type LendingErrorName } from "./lending-errors.ts";

/** A program error of the lending program, decoded from logs or an error object. */
export interface DecodedLendingError {
  code: number;
  name: LendingErrorName;
  message: string;
  /** The log line the code was read from, when it came from logs. */
  logLine?: string;
}

const ANY_CUSTOM = /custom program error: (0x[0-9a-fA-F]+)/;

function fromCode(code: number, logLine?: string): DecodedLendingError | null {
  const entry = getLendingErrorEntry(code);
  if (!entry) return null;
  return logLine === undefined ? { code, ...entry } : { code, ...entry, logLine };
}

/**
 * Finds the lending program's custom error in transaction logs: the program that raised the code is the first one
 * the logs show failing (@cistern/protocol decodeProgramFailure, the one decoder of whose code it is). When
 * `programAddress` is given only that program's own failure counts: a code a program it called (CPI) raised first
 * is not the lending program's (the token program's "insufficient funds", SPL Account Compression's 6001).
 */
function fromLogs(logs: readonly string[], programAddress?: Address): DecodedLendingError | null {
  const failed = decodeProgramFailure({ logs, lendingProgramId: programAddress });
  if (failed === null) {
    if (programAddress !== undefined) return null;
    for (const line of logs) {
      const match = ANY_CUSTOM.exec(line);
      if (match) return fromCode(Number.parseInt(match[1]!, 16), line);
    }
    return null;
  }
  if (failed.lending === false) return null;
  const line = logs.find((l) => l.startsWith(`Program ${failed.programId} failed: custom program error`));
  return fromCode(failed.code, line);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** Reads a custom code out of the RPC's JSON TransactionError: {InstructionError: [index, {Custom: n}]}. */
function customCodeFromTransactionError(err: unknown): number | null {
  if (!isRecord(err) || !("InstructionError" in err)) return null;
  return customErrorOfResult(err)?.code ?? null;
}

const MAX_DEPTH = 6;

function decode(
  input: unknown,
  programAddress: Address | undefined,
  depth: number,
): DecodedLendingError | null {
  if (depth > MAX_DEPTH || input === null || input === undefined) return null;
  if (Array.isArray(input)) {
    if (input.every((line) => typeof line === "string")) return fromLogs(input as string[], programAddress);
    return null;
  }
  if (typeof input === "string") return fromLogs(input.split("\n"), programAddress);
  if (!isRecord(input)) return null;

  // Logs name the program that failed: with `programAddress` given, a failure they show of another program (a CPI's
  // code reaches the result as the lending instruction's Custom code) is no lending error, whatever the code says.
  let sawLogs = false;
  // LiteSVM FailedTransactionMetadata: meta().logs() and err().
  if (typeof input.meta === "function") {
    try {
      const meta = (input.meta as () => unknown).call(input);
      if (isRecord(meta) && typeof meta.logs === "function") {
        const logs = (meta.logs as () => unknown).call(meta);
        const found = decode(logs, programAddress, depth + 1);
        if (found) return found;
        sawLogs = Array.isArray(logs) && logs.length > 0;
      }
    } catch {
      // not a LiteSVM result
    }
  }
  // kit SolanaError context (preflight failure carries logs; instruction error carries code), web3.js logs.
  const context = isRecord(input.context) ? input.context : undefined;
  for (const logs of [context?.logs, input.logs]) {
    if (Array.isArray(logs)) {
      const found = fromLogs(logs as string[], programAddress);
      if (found) return found;
      if (logs.length > 0) sawLogs = true;
    }
  }
  if (sawLogs && programAddress !== undefined) return null;
  for (const err of [input.err, context?.err, input]) {
    const code = customCodeFromTransactionError(err);
    if (code !== null) return fromCode(code);
  }
  // kit SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM: context.code (logs not available: program unknown).
  if (isSolanaError(input, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)) {
    const found = fromCode(Number(input.context.code));
    if (found) return found;
  }
  if (input.cause !== undefined) {
    const found = decode(input.cause, programAddress, depth + 1);
    if (found) return found;
  }
  if (typeof input.message === "string" && programAddress === undefined) {
    return fromLogs(input.message.split("\n"), programAddress);
  }
  return null;
}

/**
 * Decodes the lending program's error from transaction logs (`string[]`), a kit `SolanaError` (preflight
 * failure with logs, or an instruction custom error), a LiteSVM failed-transaction result, or an error
 * object carrying `logs`. Returns null when no lending program error is found.
 *
 * @param input - logs or an error value
 * @param options.programAddress - the lending program id; when given only that program's failures count
 */
export function decodeLendingError(
  input: unknown,
  options: { programAddress?: Address } = {},
): DecodedLendingError | null {
  return decode(input, options.programAddress, 0);
}
