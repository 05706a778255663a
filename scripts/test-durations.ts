// Writes test-durations.json (each test file's duration in ms, repo-relative) from a vitest JSON report:
// `npx vitest run --reporter=json --outputFile=/tmp/vt.json && npx tsx scripts/test-durations.ts /tmp/vt.json`.
// vitest.sequencer.ts runs the longest files first from it; files under 2 s are left out (it counts them as 1 s).
import { readFileSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { REPO_ROOT } from "./import-cycles.ts";

interface JsonReport {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const report = JSON.parse(readFileSync(process.argv[2] ?? "/tmp/vt.json", "utf8")) as JsonReport;
const durations = Object.fromEntries(
  report.testResults
    .map((r) => [relative(REPO_ROOT, r.name), Math.round(r.endTime - r.startTime)] as const)
    .filter(([, ms]) => ms >= 2000)
    .sort((a, b) => b[1] - a[1]),
);
writeFileSync(resolve(REPO_ROOT, "test-durations.json"), `${JSON.stringify(durations, null, 2)}\n`);
console.log(
  `${Object.keys(durations).length} files, ${Object.values(durations).reduce((a, b) => a + b, 0)} ms`,
);
