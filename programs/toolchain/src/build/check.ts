// `--check`: rebuild into a temp dir and compare with the committed .so byte for byte.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildProgram } from "./build-program.ts";
import { programSoPath } from "./programs.ts";

export interface CheckResult {
  name: string;
  /** Committed .so, relative to the repo root. */
  soPath: string;
  ok: boolean;
  /** Why it failed (missing file, size or first differing byte). */
  reason?: string;
}

/** Rebuilds one program into a temp dir and compares with the committed .so. Writes nothing in the repo. */
export async function checkProgram(repoRoot: string, name: string): Promise<CheckResult> {
  const soPath = programSoPath(name);
  const dir = await mkdtemp(join(tmpdir(), "cistern-check-"));
  try {
    const built = await buildProgram({ name, repoRoot, outFile: join(dir, `${name}.so`) });
    const committedPath = join(repoRoot, soPath);
    if (!existsSync(committedPath))
      return { name, soPath, ok: false, reason: "not committed (missing file)" };
    const committed = await readFile(committedPath);
    if (committed.equals(built.so)) return { name, soPath, ok: true };
    let i = 0;
    while (i < committed.length && i < built.so.length && committed[i] === built.so[i]) i++;
    return {
      name,
      soPath,
      ok: false,
      reason: `differs from a fresh build (committed ${committed.length} B, fresh ${built.so.length} B, first difference at byte ${i}); run npm run build:programs and commit it`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
