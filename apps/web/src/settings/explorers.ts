import type { Cluster } from "../config/runtime-config.ts";

export type ExplorerId = "solana-explorer" | "solscan" | "solanafm" | "solana-beach";

export interface Explorer {
  id: ExplorerId;
  name: string;
}

/** Explorer choices; Solana Explorer is the default (spec section 2). */
export const EXPLORERS: readonly Explorer[] = [
  { id: "solana-explorer", name: "Solana Explorer" },
  { id: "solscan", name: "Solscan" },
  { id: "solanafm", name: "SolanaFM" },
  { id: "solana-beach", name: "Solana Beach" },
];

export const DEFAULT_EXPLORER: ExplorerId = "solana-explorer";

export function isExplorerId(value: unknown): value is ExplorerId {
  return EXPLORERS.some((e) => e.id === value);
}

export interface ExplorerTarget {
  cluster: Cluster;
  /** The RPC URL in use (localnet links point the explorer's custom-cluster form at it). */
  rpcUrl: string;
}

function clusterQuery(explorer: ExplorerId, target: ExplorerTarget): string {
  const custom = encodeURIComponent(target.rpcUrl);
  if (explorer === "solanafm") {
    if (target.cluster === "mainnet") return "";
    if (target.cluster === "devnet") return "?cluster=devnet-solana";
    return `?cluster=localnet-solana&customUrl=${custom}`;
  }
  if (target.cluster === "mainnet") return "";
  if (target.cluster === "devnet") return "?cluster=devnet";
  return `?cluster=custom&customUrl=${custom}`;
}

/**
 * Link to a transaction on the chosen explorer. Solana Beach has no custom-cluster form, so on
 * localnet its links go to Solana Explorer's custom-cluster form instead.
 */
export function getExplorerTransactionUrl(
  explorer: ExplorerId,
  signature: string,
  target: ExplorerTarget,
): string {
  const effective =
    explorer === "solana-beach" && target.cluster === "localnet" ? "solana-explorer" : explorer;
  const query = clusterQuery(effective, target);
  switch (effective) {
    case "solscan":
      return `https://solscan.io/tx/${signature}${query}`;
    case "solanafm":
      return `https://solana.fm/tx/${signature}${query}`;
    case "solana-beach":
      return `https://solanabeach.io/transaction/${signature}${query}`;
    default:
      return `https://explorer.solana.com/tx/${signature}${query}`;
  }
}

/** Link to an account on the chosen explorer (same cluster rules as transactions). */
export function getExplorerAddressUrl(explorer: ExplorerId, address: string, target: ExplorerTarget): string {
  const effective =
    explorer === "solana-beach" && target.cluster === "localnet" ? "solana-explorer" : explorer;
  const query = clusterQuery(effective, target);
  switch (effective) {
    case "solscan":
      return `https://solscan.io/account/${address}${query}`;
    case "solanafm":
      return `https://solana.fm/address/${address}${query}`;
    case "solana-beach":
      return `https://solanabeach.io/address/${address}${query}`;
    default:
      return `https://explorer.solana.com/address/${address}${query}`;
  }
}
