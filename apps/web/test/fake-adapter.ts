import { BaseWalletAdapter, type WalletName, WalletReadyState } from "@solana/wallet-adapter-base";
import type { PublicKey, TransactionVersion } from "@solana/web3.js";

/** A wallet adapter with a fixed name and ready state, for modal and grouping tests. */
export class FakeAdapter extends BaseWalletAdapter {
  name: WalletName;
  url: string;
  icon = "";
  readyState: WalletReadyState;
  publicKey: PublicKey | null = null;
  connecting = false;
  supportedTransactionVersions: ReadonlySet<TransactionVersion> = new Set<TransactionVersion>(["legacy", 0]);

  constructor(name: string, readyState: WalletReadyState = WalletReadyState.Installed) {
    super();
    this.name = name as WalletName;
    this.url = `https://${name.toLowerCase().replace(/\s+/g, "")}.example/`;
    this.readyState = readyState;
  }

  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}
  async sendTransaction(): Promise<string> {
    throw new Error("not used in tests");
  }
}

export const { Installed, NotDetected, Loadable, Unsupported } = WalletReadyState;
