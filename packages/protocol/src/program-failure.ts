/**
 * Whose custom error is it? A transaction that fails with `InstructionError: [index, {Custom: n}]` carries a code
 * that any program in the call chain may have raised: a CPI's error reaches the transaction as the top-level
 * instruction's Custom code. Codes collide (SPL Account Compression's 6001 is the lending program's 6001
 * NotEnoughAccounts; marginfi's 6017 StaleOracle is the lending program's 6017 InvalidPoolParams), so every
 * decoder (packages/sdk, apps/api, packages/bootstrap, apps/web through the API's coded errors) reads the code with
 * the program that raised it, here, and only the lending program's codes map to its table (program-errors.ts).
 *
 * The raiser: the first "Program X failed: custom program error: 0x.." log line (the innermost failing program logs
 * first, then each caller fails with the same code); without such a line (no logs, or logs truncated before it),
 * the program of the instruction the error's index names (a CPI's raiser then reads as that instruction's program:
 * the best the result alone says).
 */
import { getProgramErrorEntry } from "./program-errors.ts";

/** A program this project names, with the custom errors it names of it. */
interface KnownProgram {
  name: string;
  errors?: Readonly<Record<number, string>>;
}

/** marginfi v2's error codes this project names (6000 + the MarginfiError variant's index). */
export const MARGINFI_ERRORS: Readonly<Record<number, string>> = {
  6003: "BankAssetCapacityExceeded",
  6007: "InvalidOracleAccount",
  6010: "RiskEngineInitRejected",
  6017: "StaleOracle",
  6018: "BankPaused",
  6019: "BankReduceOnly",
  6028: "IllegalUtilizationRatio",
};

/** SPL Token's TokenError (codes 0-19). */
const TOKEN_ERRORS: Readonly<Record<number, string>> = {
  0: "NotRentExempt",
  1: "InsufficientFunds",
  2: "InvalidMint",
  3: "MintMismatch",
  4: "OwnerMismatch",
  5: "FixedSupply",
  6: "AlreadyInUse",
  7: "InvalidNumberOfProvidedSigners",
  8: "InvalidNumberOfRequiredSigners",
  9: "UninitializedState",
  10: "NativeNotSupported",
  11: "NonNativeHasBalance",
  12: "InvalidInstruction",
  13: "InvalidState",
  14: "Overflow",
  15: "AuthorityTypeNotSupported",
  16: "MintCannotFreeze",
  17: "AccountFrozen",
  18: "MintDecimalsMismatch",
  19: "NonNativeNotSupported",
};

/** Program ids (mainnet ids, as vendored on the localnet) of the programs the lending program calls or sits next to. */
export const PROGRAM_IDS = {
  splToken: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  token2022: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
  associatedToken: "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
  system: "11111111111111111111111111111111",
  splAccountCompression: "cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK",
  bubblegum: "BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY",
  tokenMetadata: "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s",
  tokenAuthRules: "auth9SigNpDKz4sJJ1DfCTuZrZNSAgh9sFD3rboVmgg",
  mplCore: "CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d",
  marginfi: "MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA",
} as const;

const KNOWN_PROGRAMS: Readonly<Record<string, KnownProgram>> = {
  [PROGRAM_IDS.splToken]: { name: "the SPL Token program", errors: TOKEN_ERRORS },
  [PROGRAM_IDS.token2022]: { name: "the Token-2022 program", errors: TOKEN_ERRORS },
  [PROGRAM_IDS.associatedToken]: { name: "the Associated Token Account program" },
  [PROGRAM_IDS.system]: { name: "the System program" },
  [PROGRAM_IDS.splAccountCompression]: {
    name: "SPL Account Compression",
    errors: { 6001: "ConcurrentMerkleTreeError" },
  },
  [PROGRAM_IDS.bubblegum]: { name: "Bubblegum" },
  [PROGRAM_IDS.tokenMetadata]: { name: "Token Metadata" },
  [PROGRAM_IDS.tokenAuthRules]: { name: "Token Auth Rules" },
  [PROGRAM_IDS.mplCore]: { name: "Metaplex Core" },
  [PROGRAM_IDS.marginfi]: { name: "marginfi", errors: MARGINFI_ERRORS },
};

/** A custom program error with the program that raised it. */
export interface ProgramFailure {
  /** the program that raised the code ("" when neither the logs nor the instructions say) */
  programId: string;
  /** that program by name ("the lending program", "SPL Account Compression", "another program") */
  programName: string;
  code: number;
  /** the code's name in that program's table, when this project names it */
  name: string | null;
  /** whether the lending program raised it (its table applies); null when the raiser is unknown */
  lending: boolean | null;
  /** the index of the failing top-level instruction, when the result says */
  instructionIndex: number | null;
}

/** What a failed transaction says about itself; every field is optional. */
export interface FailedTransactionFacts {
  /** the result's error: agave's JSON TransactionError, LiteSVM's text ("InstructionError(1, Custom(6049))"), or a
   * kit SolanaError's context ({index, code}) */
  err?: unknown;
  logs?: readonly string[];
  /** the program id of each top-level instruction, in order */
  instructionProgramIds?: readonly string[];
  /** the lending program's id in this deployment */
  lendingProgramId?: string;
}

const FAILED_LINE = /^Program (\w+) failed: custom program error: (0x[0-9a-fA-F]+)/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** The failing instruction's index and custom code of a result, in any of its shapes; null when not a custom error. */
export function customErrorOfResult(err: unknown): { index: number | null; code: number } | null {
  if (typeof err === "string") {
    const m = /InstructionError\(\s*(\d+)\s*,\s*Custom\(\s*(\d+)\s*\)/.exec(err);
    return m ? { index: Number(m[1]), code: Number(m[2]) } : null;
  }
  if (!isRecord(err)) return null;
  const ie = err.InstructionError;
  if (Array.isArray(ie) && isRecord(ie[1]) && ie[1].Custom !== undefined) {
    const code = Number(ie[1].Custom);
    return Number.isInteger(code) ? { index: Number.isInteger(ie[0]) ? Number(ie[0]) : null, code } : null;
  }
  // kit's SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM context: {index, code}
  if (typeof err.code === "number" && Number.isInteger(err.code) && typeof err.index === "number")
    return { index: err.index, code: err.code };
  return null;
}

/** The program `programId` by name, the lending program's when it is `lendingProgramId`. */
export function programNameOf(programId: string, lendingProgramId?: string): string {
  if (programId === "") return "another program";
  if (lendingProgramId !== undefined && programId === lendingProgramId) return "the lending program";
  return KNOWN_PROGRAMS[programId]?.name ?? "another program";
}

function failure(
  programId: string,
  code: number,
  index: number | null,
  lendingProgramId: string | undefined,
): ProgramFailure {
  const known = lendingProgramId !== undefined && programId !== "";
  const lending = known ? programId === lendingProgramId : null;
  const name = lending
    ? (getProgramErrorEntry(code)?.name ?? null)
    : (KNOWN_PROGRAMS[programId]?.errors?.[code] ?? null);
  return {
    programId,
    programName: programNameOf(programId, lendingProgramId),
    code,
    name,
    lending,
    instructionIndex: index,
  };
}

/**
 * The custom error of a failed transaction with the program that raised it (the logs' first failing program, else
 * the failing instruction's program); null when it failed without a custom code.
 */
export function decodeProgramFailure(facts: FailedTransactionFacts): ProgramFailure | null {
  const result = customErrorOfResult(facts.err);
  for (const line of facts.logs ?? []) {
    const m = FAILED_LINE.exec(line);
    if (m) return failure(m[1]!, Number.parseInt(m[2]!, 16), result?.index ?? null, facts.lendingProgramId);
  }
  if (result === null) return null;
  const programId =
    result.index !== null && facts.instructionProgramIds
      ? (facts.instructionProgramIds[result.index] ?? "")
      : "";
  return failure(programId, result.code, result.index, facts.lendingProgramId);
}

/** Whether the failure is SPL Account Compression's stale proof (a compressed NFT's tree changed since the proof). */
export function isStaleProof(f: ProgramFailure): boolean {
  return f.programId === PROGRAM_IDS.splAccountCompression && f.code === 6001;
}

/** Whether a pNFT's rule set refused (Token Auth Rules failed, whatever its code). */
export function isRuleSetRefusal(f: ProgramFailure): boolean {
  return f.programId === PROGRAM_IDS.tokenAuthRules;
}

/**
 * One plain sentence for another program's error (not the lending program's: its codes have their own sentences in
 * error-sentences.ts), naming the program by name, never by address.
 */
export function describeOtherProgramFailure(f: ProgramFailure): string {
  if (isStaleProof(f))
    return "The compressed NFT changed on chain since this transaction was built. Please try again.";
  if (isRuleSetRefusal(f)) return "This NFT's rule set does not allow this transfer.";
  const name = f.programName.charAt(0).toUpperCase() + f.programName.slice(1);
  return `${name} refused this transaction (error ${f.code}${f.name ? `, ${f.name}` : ""}).`;
}
