// Finds the on-chain programs of the monorepo: every programs/<name>/ with src/*.c (except the toolchain).
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { TOOLCHAIN_ERROR_CODES, ToolchainError } from "../errors.ts";

/** Absolute path of the monorepo root (this file lives in programs/toolchain/src/build/). */
export function getRepoRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
}

/** Include directory holding sol.h / u128.h, relative to the repo root. */
export const SDK_INCLUDE_DIR = "programs/toolchain/c";
/** libc shims linked into every program, relative to the repo root. */
export const LIBSOL_SOURCE = "programs/toolchain/c/libsol.c";

/** Sorted C sources of one program, relative to the repo root. */
export function listProgramSources(repoRoot: string, name: string): string[] {
  const dir = join(repoRoot, "programs", name, "src");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".c") && statSync(join(dir, f)).isFile())
    .sort()
    .map((f) => `programs/${name}/src/${f}`);
}

/** Names of all programs with C sources, sorted. */
export function listPrograms(repoRoot: string): string[] {
  const dir = join(repoRoot, "programs");
  return readdirSync(dir)
    .filter((n) => n !== "toolchain" && statSync(join(dir, n)).isDirectory())
    .filter((n) => listProgramSources(repoRoot, n).length > 0)
    .sort();
}

/**
 * Validates requested program names against the repo.
 * @throws ToolchainError UNKNOWN_PROGRAM / NO_SOURCES
 */
export function resolveProgramNames(repoRoot: string, requested: string[]): string[] {
  if (requested.length === 0) return listPrograms(repoRoot);
  for (const name of requested) {
    if (name === "toolchain" || !/^[a-z0-9][a-z0-9-]*$/.test(name)) {
      throw new ToolchainError(TOOLCHAIN_ERROR_CODES.UNKNOWN_PROGRAM, `'${name}' is not a program name`);
    }
    if (!existsSync(join(repoRoot, "programs", name))) {
      throw new ToolchainError(TOOLCHAIN_ERROR_CODES.UNKNOWN_PROGRAM, `no folder programs/${name}`);
    }
    if (listProgramSources(repoRoot, name).length === 0) {
      throw new ToolchainError(TOOLCHAIN_ERROR_CODES.NO_SOURCES, `programs/${name}/src has no .c files`);
    }
  }
  return [...new Set(requested)];
}

/** Path of a program's committed shared object, relative to the repo root. */
export function programSoPath(name: string): string {
  return `programs/${name}/build/${name}.so`;
}
