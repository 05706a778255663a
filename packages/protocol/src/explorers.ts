/**
 * Block explorer links (spec section 2 "Explorer choice"): Solana Explorer (default), Solscan,
 * SolanaFM, Solana Beach; the choice is stored under 'preferred-explorer'.
 */

export const EXPLORERS = ["solana-explorer", "solscan", "solanafm", "solana-beach"] as const;
/** One of {@link EXPLORERS}. */
export type Explorer = (typeof EXPLORERS)[number];
export const DEFAULT_EXPLORER: Explorer = "solana-explorer";

/** Display names. */
export const EXPLORER_NAMES: Readonly<Record<Explorer, string>> = Object.freeze({
  "solana-explorer": "Solana Explorer",
  solscan: "Solscan",
  solanafm: "SolanaFM",
  "solana-beach": "Solana Beach",
});

/** Clusters Cistern runs on. */
export type Cluster = "mainnet" | "devnet" | "localnet";

/** The stored explorer, or the default for anything unknown. */
export function parseExplorer(value: unknown): Explorer {
  return typeof value === "string" && (EXPLORERS as readonly string[]).includes(value)
    ? (value as Explorer)
    : DEFAULT_EXPLORER;
}

interface ExplorerLinkOptions {
  cluster?: Cluster;
  /** RPC URL of a local cluster (localnet), for explorers that support custom clusters. */
  customRpcUrl?: string;
}

const BASE: Readonly<Record<Explorer, { origin: string; tx: string; address: string }>> = {
  "solana-explorer": { origin: "https://explorer.solana.com", tx: "tx", address: "address" },
  solscan: { origin: "https://solscan.io", tx: "tx", address: "account" },
  solanafm: { origin: "https://solana.fm", tx: "tx", address: "address" },
  "solana-beach": { origin: "https://solanabeach.io", tx: "transaction", address: "address" },
};

function clusterQuery(
  explorer: Explorer,
  { cluster = "mainnet", customRpcUrl }: ExplorerLinkOptions,
): string {
  if (cluster === "mainnet") return "";
  if (cluster === "devnet") return explorer === "solanafm" ? "?cluster=devnet-alpha" : "?cluster=devnet";
  const url = encodeURIComponent(customRpcUrl ?? "http://127.0.0.1:8899");
  if (explorer === "solanafm") return `?cluster=localnet-solana&customUrl=${url}`;
  return `?cluster=custom&customUrl=${url}`;
}

/** Link to a transaction on the chosen explorer. */
export function getExplorerTransactionUrl(
  explorer: Explorer,
  signature: string,
  options: ExplorerLinkOptions = {},
): string {
  const base = BASE[explorer];
  return `${base.origin}/${base.tx}/${encodeURIComponent(signature)}${clusterQuery(explorer, options)}`;
}

/** Link to an account (wallet, pool, mint...) on the chosen explorer. */
export function getExplorerAddressUrl(
  explorer: Explorer,
  address: string,
  options: ExplorerLinkOptions = {},
): string {
  const base = BASE[explorer];
  return `${base.origin}/${base.address}/${encodeURIComponent(address)}${clusterQuery(explorer, options)}`;
}
