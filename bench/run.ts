// Runs every bench/*.bench.ts in its own process, one after another, and prints their figures.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const benchDir = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const run = spawnSync("npx", ["tsx", join(benchDir, file)], { stdio: "inherit" });
  if (run.status !== 0) failed++;
}
if (files.length === 0) console.log("no benchmarks found");
process.exit(failed === 0 ? 0 : 1);
