import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAddress } from "@solana/kit";
import { BOOTSTRAP_ERROR, BootstrapError } from "./bootstrap-error.ts";

/** Clusters Cistern runs on. */
export const CLUSTERS = ["localnet", "devnet", "mainnet"] as const;
/** One of {@link CLUSTERS}. */
export type Cluster = (typeof CLUSTERS)[number];

/** True for a known cluster name. */
export function isCluster(value: unknown): value is Cluster {
  return typeof value === "string" && (CLUSTERS as readonly string[]).includes(value);
}

/** `<dataDir>/cluster.json`: the ids the API and web read. */
export interface ClusterInfo {
  lendingProgramId: string;
  admin: string;
  oracle: string;
  treasury: string;
  rpcUrl: string;
  wsUrl: string;
  cluster: Cluster;
}

/** Path of cluster.json in a data dir. */
export function getClusterInfoPath(dataDir: string): string {
  return join(dataDir, "cluster.json");
}

/** Writes `<dataDir>/cluster.json` atomically (temp file + rename). */
export function writeClusterInfo(dataDir: string, info: ClusterInfo): void {
  const path = getClusterInfoPath(dataDir);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o644 });
  renameSync(temp, path);
}

/**
 * Reads and validates `<dataDir>/cluster.json` written by the bootstrap.
 * Throws CLUSTER_INFO_MISSING when absent and CLUSTER_INFO_INVALID when malformed.
 */
export function readClusterInfo(dataDir: string): ClusterInfo {
  const path = getClusterInfoPath(dataDir);
  if (!existsSync(path)) {
    throw new BootstrapError(
      BOOTSTRAP_ERROR.CLUSTER_INFO_MISSING,
      `${path} not found: run the bootstrap (npx tsx packages/bootstrap/src/cli.ts) first`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (cause) {
    throw new BootstrapError(BOOTSTRAP_ERROR.CLUSTER_INFO_INVALID, `${path} is not valid JSON`, { cause });
  }
  const record = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const bad = (field: string): never => {
    throw new BootstrapError(BOOTSTRAP_ERROR.CLUSTER_INFO_INVALID, `${path}: ${field} is missing or invalid`);
  };
  for (const field of ["lendingProgramId", "admin", "oracle", "treasury"] as const) {
    const value = record[field];
    if (typeof value !== "string" || !isAddress(value)) bad(field);
  }
  for (const field of ["rpcUrl", "wsUrl"] as const) {
    const value = record[field];
    if (typeof value !== "string" || !URL.canParse(value)) bad(field);
  }
  if (!isCluster(record.cluster)) bad("cluster");
  return {
    lendingProgramId: record.lendingProgramId as string,
    admin: record.admin as string,
    oracle: record.oracle as string,
    treasury: record.treasury as string,
    rpcUrl: record.rpcUrl as string,
    wsUrl: record.wsUrl as string,
    cluster: record.cluster as Cluster,
  };
}
