/**
 * Stable numeric error codes of @cistern/toolchain (reserved range 13000-13099; protocol owns 9xxx).
 * Never reuse or reorder a code; add new ones at the end.
 */
export const TOOLCHAIN_ERROR_CODES = {
  NOT_ELF: 13000,
  NOT_RELOCATABLE_BPF: 13001,
  MUTABLE_GLOBAL: 13002,
  DUPLICATE_SYMBOL: 13003,
  UNDEFINED_SYMBOL: 13004,
  UNSUPPORTED_RELOCATION: 13005,
  UNSUPPORTED_INSTRUCTION: 13006,
  NO_ENTRYPOINT: 13007,
  NO_CODE: 13008,
  MALFORMED_OBJECT: 13009,
  CLANG_MISSING: 13020,
  COMPILE_FAILED: 13021,
  NO_SOURCES: 13022,
  UNKNOWN_PROGRAM: 13023,
  CHECK_MISMATCH: 13024,
  BAD_ARGUMENTS: 13025,
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
