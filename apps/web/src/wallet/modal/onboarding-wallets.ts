/** External links on the onboarding 'Popular wallets to get started' screen (spec section 2). */
export const ONBOARDING_WALLETS: readonly { name: string; url: string }[] = [
  { name: "Phantom", url: "https://phantom.app/" },
  { name: "Solflare", url: "https://solflare.com/" },
  { name: "Backpack", url: "https://www.backpack.app/" },
  { name: "Magic Eden", url: "https://wallet.magiceden.io/" },
  { name: "Coinbase Wallet", url: "https://www.coinbase.com/wallet" },
  { name: "OKX Wallet", url: "https://www.okx.com/web3" },
];

/** The onboarding 'More wallets' link: Solana's wallet directory. */
export const MORE_WALLETS_URL = "https://solana.com/solana-wallets";
