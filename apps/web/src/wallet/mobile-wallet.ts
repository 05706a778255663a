import {
  createDefaultAddressSelector,
  createDefaultAuthorizationResultCache,
  createDefaultWalletNotFoundHandler,
  SolanaMobileWalletAdapter,
} from "@solana-mobile/wallet-adapter-mobile";
import type { Cluster } from "../config/runtime-config.ts";

/** True for Android browsers, where the mobile wallet adapter protocol is available. */
export function isAndroid(userAgent: string): boolean {
  return /android/i.test(userAgent);
}

/**
 * The mobile wallet adapter with our app identity and the configured cluster (instead of
 * wallet-adapter-react's default, which guesses the cluster from the RPC URL). Mobile wallets know
 * no localnet, so non-mainnet clusters ask for devnet. Its protocol enforces the association port
 * range 49152-65535 and https wallet base URLs; its errors map to Cistern codes in wallet-errors.ts.
 */
export function createMobileWalletAdapter(cluster: Cluster, origin: string): SolanaMobileWalletAdapter {
  return new SolanaMobileWalletAdapter({
    addressSelector: createDefaultAddressSelector(),
    appIdentity: { name: "Cistern", uri: origin, icon: "favicon-32.png" },
    authorizationResultCache: createDefaultAuthorizationResultCache(),
    chain: cluster === "mainnet" ? "solana:mainnet" : "solana:devnet",
    onWalletNotFound: createDefaultWalletNotFoundHandler(),
  });
}
