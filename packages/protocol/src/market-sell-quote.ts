/** The API's answer to `POST /defi/market-sell-quote` (base units as decimal strings), shared with the web app. */
/** A market sell's terms before signing: what is sold, what it should bring, what repays and what is kept. */
export interface MarketSellQuote {
  loan: string;
  venue: "local" | "jupiter";
  currency: string;
  collateralMint: string;
  /** Decimals and symbol of the collateral token, to show the amounts sold and returned. */
  collateralDecimals: number;
  collateralSymbol: string;
  collateralSold: string;
  collateralReturned: string;
  expectedProceeds: string;
  minimumProceeds: string;
  slippageBps: number;
  priceImpactPct: string;
  /** Principal + interest owed now. */
  owedNow: string;
  /** What the borrower keeps if the sale brings the expected amount / only the minimum (owed now deducted). */
  borrowerKeeps: string;
  borrowerKeepsAtLeast: string;
}
