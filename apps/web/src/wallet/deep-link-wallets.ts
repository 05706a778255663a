import {
  BaseWalletAdapter,
  type WalletName,
  WalletNotConnectedError,
  WalletReadyState,
} from "@solana/wallet-adapter-base";
import type { PublicKey, TransactionVersion } from "@solana/web3.js";

/** A wallet that can open this page in its in-app browser through a universal link. */
export interface DeepLinkWallet {
  name: string;
  url: string;
  color: string;
  /** Universal link that opens `pageUrl` inside the wallet's browser. */
  getDeepLink(pageUrl: string, ref: string): string;
}

export const DEEP_LINK_WALLETS: readonly DeepLinkWallet[] = [
  {
    name: "Phantom",
    url: "https://phantom.app/",
    color: "#ab9ff2",
    getDeepLink: (pageUrl, ref) =>
      `https://phantom.app/ul/browse/${encodeURIComponent(pageUrl)}?ref=${encodeURIComponent(ref)}`,
  },
  {
    name: "Solflare",
    url: "https://solflare.com/",
    color: "#fc7227",
    getDeepLink: (pageUrl, ref) =>
      `https://solflare.com/ul/v1/browse/${encodeURIComponent(pageUrl)}?ref=${encodeURIComponent(ref)}`,
  },
];

/** True for Safari on iPhone / iPad / iPod (not Chrome, Firefox or Edge for iOS, not a wallet's browser). */
export function isIosSafari(userAgent: string): boolean {
  return (
    /iphone|ipad|ipod/i.test(userAgent) &&
    /safari/i.test(userAgent) &&
    !/crios|fxios|edgios|phantom|solflare/i.test(userAgent)
  );
}

/** A wallet's placeholder icon: its initial on its brand colour (no remote images). */
export function letterIcon(letter: string, color: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="${color}"/><text x="16" y="22" font-family="sans-serif" font-size="17" font-weight="700" text-anchor="middle" fill="#fff">${letter}</text></svg>`;
  return `data:image/svg+xml;base64,${btoa(svg)}`;
}

/**
 * On iOS Safari, wallet extensions do not exist: a wallet with a deep link is Loadable, and
 * connecting redirects to the wallet app, which reopens this page in its own browser (where the
 * wallet registers itself through wallet-standard and replaces this adapter).
 */
export class DeepLinkWalletAdapter extends BaseWalletAdapter {
  readonly name: WalletName;
  readonly url: string;
  readonly icon: string;
  readonly readyState = WalletReadyState.Loadable;
  readonly publicKey: PublicKey | null = null;
  readonly connecting = false;
  readonly supportedTransactionVersions: ReadonlySet<TransactionVersion> = new Set<TransactionVersion>([
    "legacy",
    0,
  ]);
  private readonly wallet: DeepLinkWallet;
  private readonly navigate: (url: string) => void;

  constructor(
    wallet: DeepLinkWallet,
    navigate: (url: string) => void = (url) => window.location.assign(url),
  ) {
    super();
    this.wallet = wallet;
    this.name = wallet.name as WalletName;
    this.url = wallet.url;
    this.icon = letterIcon(wallet.name[0]!, wallet.color);
    this.navigate = navigate;
  }

  /** Never redirects on its own: only an explicit choice in the modal leaves the page. */
  override async autoConnect(): Promise<void> {}

  async connect(): Promise<void> {
    this.navigate(this.wallet.getDeepLink(window.location.href, window.location.origin));
  }

  async disconnect(): Promise<void> {}

  async sendTransaction(): Promise<string> {
    throw new WalletNotConnectedError();
  }
}

/** The deep-link adapters to offer for a user agent (none outside iOS Safari). */
export function getDeepLinkAdapters(userAgent: string): DeepLinkWalletAdapter[] {
  return isIosSafari(userAgent) ? DEEP_LINK_WALLETS.map((wallet) => new DeepLinkWalletAdapter(wallet)) : [];
}
