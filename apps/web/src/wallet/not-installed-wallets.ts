import { PREFERRED_WALLETS } from "@cistern/protocol";
import {
  BaseWalletAdapter,
  type WalletName,
  WalletNotConnectedError,
  WalletNotReadyError,
  WalletReadyState,
} from "@solana/wallet-adapter-base";
import type { PublicKey, TransactionVersion } from "@solana/web3.js";
import { letterIcon } from "./deep-link-wallets.ts";
import { ONBOARDING_WALLETS } from "./modal/onboarding-wallets.ts";

/**
 * A preferred wallet that is not installed: listed so the modal can recommend it, and choosing it opens the
 * "Have you installed {wallet}?" screen. When the wallet is installed it registers itself through
 * wallet-standard, and the provider shows the real wallet instead of this one (same name).
 */
export class NotInstalledWalletAdapter extends BaseWalletAdapter {
  readonly name: WalletName;
  readonly url: string;
  readonly icon: string;
  readonly readyState = WalletReadyState.NotDetected;
  readonly publicKey: PublicKey | null = null;
  readonly connecting = false;
  readonly supportedTransactionVersions: ReadonlySet<TransactionVersion> = new Set<TransactionVersion>([
    "legacy",
    0,
  ]);

  constructor(name: string, url: string, color: string) {
    super();
    this.name = name as WalletName;
    this.url = url;
    this.icon = letterIcon(name[0]!, color);
  }

  async connect(): Promise<void> {
    throw new WalletNotReadyError(`${this.name} is not installed`);
  }

  async disconnect(): Promise<void> {}

  async sendTransaction(): Promise<string> {
    throw new WalletNotConnectedError();
  }
}

/** Placeholders for the spec's top three preferred wallets (Phantom, Solflare, Backpack) not among `present`. */
export function getNotInstalledAdapters(present: readonly string[]): NotInstalledWalletAdapter[] {
  return PREFERRED_WALLETS.slice(0, 3)
    .filter((name) => !present.includes(name))
    .map((name) => {
      const known = ONBOARDING_WALLETS.find((w) => w.name === name);
      return new NotInstalledWalletAdapter(name, known?.url ?? "", known?.color ?? "#64748b");
    });
}
