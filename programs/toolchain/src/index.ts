// @cistern/toolchain: C -> SBPF v0 build (clang-19 + our linker).
export {
  type BuildProgramOptions,
  type BuildProgramResult,
  type BuildSourcesOptions,
  buildProgram,
  buildSources,
} from "./build/build-program.ts";
export { type CheckResult, checkProgram } from "./build/check.ts";
export {
  assertClangAvailable,
  CLANG,
  clangArgs,
  compileSources,
  getClangVersion,
  SBPF_CFLAGS,
} from "./build/clang.ts";
export {
  getRepoRoot,
  LIBSOL_SOURCE,
  listProgramSources,
  listPrograms,
  programSoPath,
  resolveProgramNames,
  SDK_INCLUDE_DIR,
} from "./build/programs.ts";
export {
  isToolchainError,
  TOOLCHAIN_ERROR_CODES,
  ToolchainError,
  type ToolchainErrorCode,
} from "./errors.ts";
export { type LinkInput, type LinkOptions, type LinkResult, linkObjects } from "./linker/link.ts";
export { KNOWN_SYSCALLS } from "./linker/syscalls.ts";
