/**
 * Stable numeric error codes of @cistern/toolchain (reserved range 9000-9099).
 * Never reuse or reorder a code; add new ones at the end.
 */
export const TOOLCHAIN_ERROR_CODES = {
  NOT_ELF: 9000,
  NOT_RELOCATABLE_BPF: 9001,
  MUTABLE_GLOBAL: 9002,
  DUPLICATE_SYMBOL: 9003,
  UNDEFINED_SYMBOL: 9004,
  UNSUPPORTED_RELOCATION: 9005,
  UNSUPPORTED_INSTRUCTION: 9006,
  NO_ENTRYPOINT: 9007,
  NO_CODE: 9008,
  MALFORMED_OBJECT: 9009,
  CLANG_MISSING: 9020,
  COMPILE_FAILED: 9021,
  NO_SOURCES: 9022,
  UNKNOWN_PROGRAM: 9023,
  CHECK_MISMATCH: 9024,
  BAD_ARGUMENTS: 9025,
} as const;

export type ToolchainErrorCode = (typeof TOOLCHAIN_ERROR_CODES)[keyof typeof TOOLCHAIN_ERROR_CODES];

/** The one error class of the toolchain: a stable numeric `code` plus a human message. */
export class ToolchainError extends Error {
  readonly code: ToolchainErrorCode;
  constructor(code: ToolchainErrorCode, message: string) {
    super(message);
    this.name = "ToolchainError";
    this.code = code;
  }
}

/** Type guard for {@link ToolchainError}, optionally of one specific code. */
export function isToolchainError(e: unknown, code?: ToolchainErrorCode): e is ToolchainError {
  return e instanceof ToolchainError && (code === undefined || e.code === code);
}
