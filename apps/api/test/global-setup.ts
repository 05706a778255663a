import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { writePgliteSnapshots } from "./helpers/pglite-snapshot.ts";

/** Makes this run's PGlite snapshots (see helpers/pglite-snapshot.ts) and removes them when the run ends. */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), "cistern-api-pglite-"));
  project.provide("pgliteSnapshots", await writePgliteSnapshots(dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
