// Compile + link one program (or an arbitrary list of sources, for tests).
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { TOOLCHAIN_ERROR_CODES, ToolchainError } from "../errors.ts";
import { type LinkResult, linkObjects } from "../linker/link.ts";
import { compileSources } from "./clang.ts";
import {
  getRepoRoot,
  LIBSOL_SOURCE,
  listProgramSources,
  programSoPath,
  SDK_INCLUDE_DIR,
} from "./programs.ts";

export interface BuildSourcesOptions {
  /** Directory clang runs in; sources and include dirs are relative to it. */
  cwd: string;
  /** C sources (relative to cwd), linked in this order. */
  sources: string[];
  includeDirs: string[];
  defines?: Record<string, string>;
  entry?: string;
  clang?: string;
}

/** Compiles and links sources into SBPF v0 .so bytes (nothing is written to disk). */
export async function buildSources(options: BuildSourcesOptions): Promise<LinkResult> {
  const objects = await compileSources(options.sources, options);
  return linkObjects(
    objects.map((o) => ({ name: o.source, bytes: o.bytes })),
    options.entry === undefined ? {} : { entry: options.entry },
  );
}

export interface BuildProgramOptions {
  /** Program folder name under programs/. */
  name: string;
  /** Monorepo root; default: the checkout this file is in. */
  repoRoot?: string;
  /** Write the .so here instead of programs/<name>/build/<name>.so (absolute path). */
  outFile?: string;
}

export interface BuildProgramResult extends LinkResult {
  name: string;
  /** Absolute path the .so was written to. */
  outFile: string;
  sources: string[];
}

/**
 * Builds programs/<name>/src/*.c (sorted) plus the SDK's libsol.c into programs/<name>/build/<name>.so.
 * Reproducible: the bytes depend only on the sources and clang-19, not on the checkout path or time.
 * The file is written only after compile and link both succeeded.
 */
export async function buildProgram(options: BuildProgramOptions): Promise<BuildProgramResult> {
  const repoRoot = options.repoRoot ?? getRepoRoot();
  const programSources = listProgramSources(repoRoot, options.name);
  if (programSources.length === 0) {
    throw new ToolchainError(
      TOOLCHAIN_ERROR_CODES.NO_SOURCES,
      `programs/${options.name}/src has no .c files`,
    );
  }
  const sources = [...programSources, LIBSOL_SOURCE];
  const linked = await buildSources({ cwd: repoRoot, sources, includeDirs: [SDK_INCLUDE_DIR] });
  const outFile = options.outFile ?? join(repoRoot, programSoPath(options.name));
  await mkdir(dirname(outFile), { recursive: true });
  const tmp = `${outFile}.tmp-${process.pid}`;
  await writeFile(tmp, linked.so);
  await rename(tmp, outFile);
  return { ...linked, name: options.name, outFile, sources };
}
