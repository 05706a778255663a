// Bootstrap benchmark: wall time of bootstrapCluster on a fresh localnet (deploy + config + demo lenders,
// banks and pools) and of the idempotent re-run that `npm start` pays on every start (target: < 1 s).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapCluster } from "@cistern/bootstrap";
import { startLocalnet } from "@cistern/localnet";

const RERUNS = 5;
const soPath = join(import.meta.dirname, "../programs/lending/build/lending.so");
const netDir = mkdtempSync(join(tmpdir(), "cistern-bench-bootstrap-net-"));
const dataDir = mkdtempSync(join(tmpdir(), "cistern-bench-bootstrap-data-"));
const net = await startLocalnet({ rpcPort: 0, dataDir: netDir, slotMs: 400 });
const options = {
  rpcUrl: net.rpcUrl,
  wsUrl: net.wsUrl,
  dataDir,
  cluster: "localnet" as const,
  lendingSoPath: soPath,
  demo: true,
};
try {
  let started = performance.now();
  const first = await bootstrapCluster(options);
  const firstMs = performance.now() - started;
  const pools = first.demo?.lenders.flatMap((l) => l.pools).length ?? 0;
  const reruns: number[] = [];
  for (let i = 0; i < RERUNS; i++) {
    started = performance.now();
    const again = await bootstrapCluster(options);
    reruns.push(performance.now() - started);
    if (again.programAction !== "unchanged") throw new Error("re-run changed the program");
  }
  reruns.sort((a, b) => a - b);
  console.log(
    `first run (deploy ${Math.round(statSync(soPath).size / 1024)} KiB program, config, 3 lenders, 6 banks, ${pools} pools, slot 400 ms): ${firstMs.toFixed(0)} ms`,
  );
  console.log(
    `idempotent re-run: median ${reruns[Math.floor(RERUNS / 2)]!.toFixed(0)} ms, max ${reruns.at(-1)!.toFixed(0)} ms (${RERUNS} runs)`,
  );
} finally {
  await net.close();
  rmSync(netDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
