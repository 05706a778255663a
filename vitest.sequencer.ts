import { readFileSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Longest files first, so both workers stay busy to the end: on a clean clone vitest has no timing cache and would
// otherwise order by project name, then file size, leaving the browser journeys (minutes each, in the last project)
// to run last, one at a time. test-durations.json holds the files that take 2 s or more (ms); every other file
// counts as 1 s and runs after them, largest first. Regenerate it from a full run:
// `npx vitest run --reporter=json --outputFile=/tmp/vt.json && npx tsx scripts/test-durations.ts /tmp/vt.json`.

const ROOT = import.meta.dirname;
const DURATIONS = JSON.parse(readFileSync(resolve(ROOT, "test-durations.json"), "utf8")) as Record<
  string,
  number
>;
/** What a file test-durations.json does not list is taken to cost (ms). */
const UNLISTED_MS = 1000;

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cost = (spec: TestSpecification) => DURATIONS[relative(ROOT, spec.moduleId)] ?? UNLISTED_MS;
    return [...files].sort((a, b) => cost(b) - cost(a) || sizeOf(b.moduleId) - sizeOf(a.moduleId));
  }
}
