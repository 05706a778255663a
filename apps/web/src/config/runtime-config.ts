/** The clusters the app can run against; chosen once at boot from the runtime config. */
export type Cluster = "localnet" | "devnet" | "mainnet";

/**
 * Runtime configuration served by the app server as GET /config.json (and inlined into index.html),
 * so one production build runs against any API, RPC node and cluster.
 */
export interface RuntimeConfig {
  /** Base URL of the Cistern API (main API, builder, sender, prices). */
  apiUrl: string;
  /** Default Solana JSON-RPC URL (the user may override it in settings). */
  rpcUrl: string;
  cluster: Cluster;
  /** Where page views and actions are POSTed; null disables analytics. */
  analyticsUrl: string | null;
  /** Swap plugin script, loaded before the page is interactive; null when not configured. */
  swapPluginScriptUrl: string | null;
  /** Session-recording script, injected 5 s after load; null when not configured. */
  sessionRecordingScriptUrl: string | null;
  /** Referral names mapped to fixed wallet addresses. */
  referralNames: Record<string, string>;
  /** Optional "Can't find your wallet?" explanation link for the connect modal. */
  walletExplanationUrl: string | null;
  /**
   * Where users get help (the operator's Discord invite): linked from the failed-transaction toast's "reach out to
   * us on Discord" and the footer; null (not configured) shows the sentence without a link and no footer link.
   */
  supportUrl: string | null;
  /** Connect-modal theme: light, dark or jupiter; null follows the app theme. */
  walletModalTheme: "light" | "dark" | "jupiter" | null;
}

const CLUSTERS: readonly Cluster[] = ["localnet", "devnet", "mainnet"];

/** Default config for development (vite dev server) when no server provides one. */
export const DEFAULT_RUNTIME_CONFIG: RuntimeConfig = {
  apiUrl: "http://127.0.0.1:3001",
  rpcUrl: "http://127.0.0.1:8899",
  cluster: "localnet",
  analyticsUrl: null,
  swapPluginScriptUrl: null,
  sessionRecordingScriptUrl: null,
  referralNames: {},
  walletExplanationUrl: null,
  supportUrl: null,
  walletModalTheme: null,
};

function optionalUrl(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === "") return null;
  return requireUrl(value, field);
}

function requireUrl(value: unknown, field: string): string {
  if (typeof value !== "string") throw new Error(`config.${field} must be a URL string`);
  try {
    new URL(value);
  } catch {
    throw new Error(`config.${field} is not a valid URL: ${value}`);
  }
  return value.replace(/\/+$/, "");
}

/**
 * Validates an untrusted config object (from JSON or the environment) and fills defaults.
 * Throws an Error naming the first bad field.
 */
export function parseRuntimeConfig(input: unknown): RuntimeConfig {
  if (typeof input !== "object" || input === null) throw new Error("config must be an object");
  const raw = input as Record<string, unknown>;
  const cluster = raw.cluster ?? DEFAULT_RUNTIME_CONFIG.cluster;
  if (typeof cluster !== "string" || !CLUSTERS.includes(cluster as Cluster)) {
    throw new Error(`config.cluster must be one of ${CLUSTERS.join(", ")}`);
  }
  const referralNames: Record<string, string> = {};
  const names = raw.referralNames ?? {};
  if (typeof names !== "object" || names === null || Array.isArray(names)) {
    throw new Error("config.referralNames must be an object of name -> address");
  }
  for (const [name, address] of Object.entries(names)) {
    if (typeof address !== "string") throw new Error(`config.referralNames.${name} must be a string`);
    referralNames[name] = address;
  }
  const modalTheme = raw.walletModalTheme ?? null;
  if (
    modalTheme !== null &&
    modalTheme !== "" &&
    !["light", "dark", "jupiter"].includes(modalTheme as string)
  ) {
    throw new Error("config.walletModalTheme must be light, dark or jupiter");
  }
  return {
    apiUrl: requireUrl(raw.apiUrl ?? DEFAULT_RUNTIME_CONFIG.apiUrl, "apiUrl"),
    rpcUrl: requireUrl(raw.rpcUrl ?? DEFAULT_RUNTIME_CONFIG.rpcUrl, "rpcUrl"),
    cluster: cluster as Cluster,
    analyticsUrl: optionalUrl(raw.analyticsUrl, "analyticsUrl"),
    swapPluginScriptUrl: optionalUrl(raw.swapPluginScriptUrl, "swapPluginScriptUrl"),
    sessionRecordingScriptUrl: optionalUrl(raw.sessionRecordingScriptUrl, "sessionRecordingScriptUrl"),
    referralNames,
    walletExplanationUrl: optionalUrl(raw.walletExplanationUrl, "walletExplanationUrl"),
    supportUrl: optionalUrl(raw.supportUrl, "supportUrl"),
    walletModalTheme: modalTheme === "" ? null : (modalTheme as RuntimeConfig["walletModalTheme"]),
  };
}

/**
 * Reads the runtime config from the environment of the app server (CISTERN_WEB_* variables, and SUPPORT_URL,
 * which `npm start` reads too). REFERRAL_NAMES is "name=address,name2=address2".
 */
export function getRuntimeConfigFromEnv(env: Record<string, string | undefined>): RuntimeConfig {
  const referralNames: Record<string, string> = {};
  for (const pair of (env.CISTERN_WEB_REFERRAL_NAMES ?? "").split(",")) {
    const [name, address] = pair.split("=").map((s) => s.trim());
    if (name && address) referralNames[name] = address;
  }
  return parseRuntimeConfig({
    apiUrl: env.CISTERN_WEB_API_URL,
    rpcUrl: env.CISTERN_WEB_RPC_URL,
    cluster: env.CISTERN_WEB_CLUSTER,
    analyticsUrl: env.CISTERN_WEB_ANALYTICS_URL,
    swapPluginScriptUrl: env.CISTERN_WEB_SWAP_PLUGIN_SCRIPT_URL,
    sessionRecordingScriptUrl: env.CISTERN_WEB_SESSION_RECORDING_SCRIPT_URL,
    referralNames,
    walletExplanationUrl: env.CISTERN_WEB_WALLET_EXPLANATION_URL,
    supportUrl: env.SUPPORT_URL,
    walletModalTheme: env.CISTERN_WEB_WALLET_MODAL_THEME,
  });
}

/** Element id of the inlined JSON config in index.html. */
export const CONFIG_ELEMENT_ID = "cistern-config";
