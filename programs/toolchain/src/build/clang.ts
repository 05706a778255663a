// Runs Debian's clang-19 to turn C sources into relocatable eBPF objects.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { TOOLCHAIN_ERROR_CODES, ToolchainError } from "../errors.ts";
import { getClangHints } from "./clang-hints.ts";

const run = promisify(execFile);

/** The compiler the toolchain is pinned to (its output is what the committed .so files hold). */
export const CLANG = "clang-19";

/** Code-generation flags for SBPF v0 (stable contract; see README.md). */
export const SBPF_CFLAGS: readonly string[] = [
  "-target",
  "bpfel",
  "-mcpu=v2",
  "-O2",
  "-fno-builtin",
  "-ffreestanding",
  "-nostdlib",
  "-fno-stack-protector",
  "-mllvm",
  "-bpf-stack-size=4096",
  "-ffunction-sections",
  "-std=c17",
  "-Wall",
  "-Werror=implicit-function-declaration",
  "-Werror=return-type",
];

export interface CompileOptions {
  /** Directory the compiler runs in; source paths are given relative to it so __FILE__ is portable. */
  cwd: string;
  /** Include directories (relative to cwd or absolute). */
  includeDirs: string[];
  /** Preprocessor definitions, e.g. { STACK_BYTES: "3000" }. */
  defines?: Record<string, string>;
  /** Compiler executable; default clang-19. */
  clang?: string;
}

/** One compiled object. */
export interface CompiledObject {
  source: string;
  bytes: Buffer;
}

/**
 * Checks that clang-19 can be run.
 * @throws ToolchainError CLANG_MISSING with the install command
 */
export async function assertClangAvailable(clang: string = CLANG): Promise<void> {
  try {
    await run(clang, ["--version"]);
  } catch {
    throw new ToolchainError(
      TOOLCHAIN_ERROR_CODES.CLANG_MISSING,
      `${clang} not found on PATH: install it with 'apt-get install -y clang-19' (Debian)`,
    );
  }
}

/** First line of `clang --version`, e.g. "Debian clang version 19.1.7 (3~deb12u1)". */
export async function getClangVersion(clang: string = CLANG): Promise<string> {
  await assertClangAvailable(clang);
  const { stdout } = await run(clang, ["--version"]);
  return stdout.split("\n")[0]?.trim() ?? "";
}

/** The full clang argument list for one source (exposed for README/tests). */
export function clangArgs(source: string, output: string, options: CompileOptions): string[] {
  const defines = Object.entries(options.defines ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `-D${k}=${v}`);
  return [
    ...SBPF_CFLAGS,
    `-ffile-prefix-map=${options.cwd}/=`,
    ...options.includeDirs.map((d) => `-I${d}`),
    ...defines,
    "-c",
    source,
    "-o",
    output,
  ];
}

/**
 * Compiles each source (paths relative to options.cwd) into an eBPF object, in the given order.
 * @throws ToolchainError COMPILE_FAILED carrying clang's diagnostics
 */
export async function compileSources(sources: string[], options: CompileOptions): Promise<CompiledObject[]> {
  const clang = options.clang ?? CLANG;
  await assertClangAvailable(clang);
  const dir = await mkdtemp(join(tmpdir(), "cistern-cc-"));
  try {
    const out: CompiledObject[] = [];
    for (const [i, source] of sources.entries()) {
      const objPath = join(dir, `${i}-${basename(source, ".c")}.o`);
      try {
        const res = await run(clang, clangArgs(source, objPath, options), { cwd: options.cwd });
        if (res.stderr.trim()) process.stderr.write(res.stderr);
      } catch (e) {
        const err = e as { stderr?: string; message: string };
        const diagnostics = err.stderr?.trim() || err.message;
        const hints = getClangHints(diagnostics);
        throw new ToolchainError(
          TOOLCHAIN_ERROR_CODES.COMPILE_FAILED,
          `${clang} failed on ${source}:\n${diagnostics}${hints.length > 0 ? `\n${hints.join("\n")}` : ""}`,
        );
      }
      out.push({ source, bytes: await readFile(objPath) });
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
