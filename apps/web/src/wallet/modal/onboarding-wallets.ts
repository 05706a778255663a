/** External links on the onboarding 'Popular wallets to get started' screen (spec section 2). */
export const ONBOARDING_WALLETS: readonly { name: string; url: string; color: string }[] = [
  { name: "Phantom", url: "https://phantom.app/", color: "#ab9ff2" },
  { name: "Solflare", url: "https://solflare.com/", color: "#fc7227" },
  { name: "Backpack", url: "https://www.backpack.app/", color: "#e33e3f" },
  { name: "Magic Eden", url: "https://wallet.magiceden.io/", color: "#e42575" },
  { name: "Coinbase Wallet", url: "https://www.coinbase.com/wallet", color: "#0052ff" },
  { name: "OKX Wallet", url: "https://www.okx.com/web3", color: "#111111" },
];

/** The onboarding 'More wallets' link: Solana's wallet directory. */
export const MORE_WALLETS_URL = "https://solana.com/solana-wallets";
