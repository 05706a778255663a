// Compiles test/fixtures/*.c with clang-19 at test time (into memory) and links them with our linker.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSources, type LinkResult } from "../../src/index.ts";

/** programs/toolchain */
export const TOOLCHAIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Builds fixtures (names without .c) plus c/libsol.c into .so bytes. */
export async function buildFixture(
  names: string[],
  defines: Record<string, string> = {},
): Promise<LinkResult> {
  return buildSources({
    cwd: TOOLCHAIN_DIR,
    sources: [...names.map((n) => `test/fixtures/${n}.c`), "c/libsol.c"],
    includeDirs: ["c"],
    defines,
  });
}
