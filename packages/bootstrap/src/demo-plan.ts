/**
 * The demo lenders seeded on localnet: each has a USDC and a SOL bank and publishes pools described as Pool
 * form values (percent, days, whole USD, whole currency units), exactly what a lender types in the web form.
 * A bank's deposit is the sum of its pools' `poolAmount`.
 */
import {
  DEMO_COLLECTIONS,
  DEMO_COMPRESSED_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  DEMO_TOKENS,
  USDC_MINT_ADDRESS,
  WRAPPED_SOL_MINT_ADDRESS,
} from "@cistern/localnet";
import type { PoolForm } from "@cistern/protocol";

/** A pool of a demo lender, as Pool form values (owner and bank are filled in at seeding time). */
export type DemoPoolForm = Omit<PoolForm, "owner" | "bank"> & {
  type: "nft-pool" | "defi-pool";
  poolName: string;
  poolCurrency: string;
  poolAmount: string;
};

/** A demo lender: its key file name in `<dataDir>/keys/demo-lenders/` and its pools. */
export interface DemoLenderPlan {
  name: string;
  keyFile: string;
  pools: DemoPoolForm[];
}

function collectionId(symbol: string): string {
  const found = [
    ...DEMO_COLLECTIONS,
    ...DEMO_CORE_COLLECTIONS,
    ...DEMO_PROGRAMMABLE_COLLECTIONS,
    ...DEMO_COMPRESSED_COLLECTIONS,
  ].find((c) => c.symbol === symbol);
  if (!found) throw new Error(`demo collection ${symbol} is not in the demo world`);
  return found.collectionId;
}

function tokenMint(symbol: string): string {
  const found = DEMO_TOKENS.find((t) => t.symbol === symbol);
  if (!found) throw new Error(`demo token ${symbol} is not in the demo world`);
  return found.mint;
}

const USDC = USDC_MINT_ADDRESS;
const SOL = WRAPPED_SOL_MINT_ADDRESS;

/** The demo lenders and their pools (USD prices of the demo world: OTTR 1875, RFROG 600, AQUA 4500, DRIP 180, KOI 1200,
 * PETL 750). */
export const DEMO_LENDERS: DemoLenderPlan[] = [
  {
    name: "Otter Capital",
    keyFile: "lender-1.json",
    pools: [
      {
        type: "nft-pool",
        poolName: "Blue-chip NFT desk",
        poolCurrency: USDC,
        poolAmount: "60000",
        apy: 24,
        loanDuration: 30,
        maxAmountUsd: 5000,
        minAmountUsd: 50,
        collections: [
          { id: collectionId("OTTR"), ltv: 60, exposure: 40 },
          { id: collectionId("AQUA"), ltv: 55, exposure: 35 },
        ],
      },
      {
        type: "defi-pool",
        poolName: "Governance token credit",
        poolCurrency: USDC,
        poolAmount: "25000",
        apy: 18.5,
        loanDuration: 14,
        maxAmountUsd: 10000,
        tokens: [
          { id: tokenMint("JUP"), ltv: 50, exposure: 50 },
          { id: tokenMint("JTO"), ltv: 45, exposure: 40 },
        ],
      },
      {
        type: "nft-pool",
        poolName: "Frogs and dragons (SOL)",
        poolCurrency: SOL,
        poolAmount: "300",
        apy: 35,
        isMortgageEnabled: true,
        mortgageApy: 30,
        loanDuration: 7,
        maxAmountUsd: 1000,
        collections: [
          { id: collectionId("RFROG"), ltv: 50, exposure: 30 },
          { id: collectionId("DRIP"), ltv: 40, exposure: 20 },
        ],
      },
    ],
  },
  {
    name: "Rainwater Lending",
    keyFile: "lender-2.json",
    pools: [
      {
        type: "nft-pool",
        poolName: "Dragon quick loans",
        poolCurrency: USDC,
        poolAmount: "12000",
        apy: 60,
        loanDuration: 3,
        maxAmountUsd: 500,
        minAmountUsd: 20,
        collections: [{ id: collectionId("DRIP"), ltv: 45, exposure: 60 }],
      },
      {
        type: "defi-pool",
        poolName: "Meme collateral",
        poolCurrency: USDC,
        poolAmount: "8000",
        apy: 45,
        loanDuration: 7,
        maxAmountUsd: 2000,
        tokens: [{ id: tokenMint("BONK"), ltv: 30, exposure: 25 }],
      },
      {
        type: "nft-pool",
        poolName: "Apes long term (SOL)",
        poolCurrency: SOL,
        poolAmount: "500",
        apy: 28,
        isMortgageEnabled: true,
        mortgageApy: 24,
        isAutoSellEnabled: true,
        loanDuration: 60,
        maxAmountUsd: 10000,
        minAmountUsd: 100,
        collections: [{ id: collectionId("AQUA"), ltv: 65, exposure: 50 }],
      },
      {
        type: "defi-pool",
        poolName: "Token basket (SOL)",
        poolCurrency: SOL,
        poolAmount: "150",
        apy: 22,
        loanDuration: 30,
        maxAmountUsd: 3000,
        tokens: [
          { id: tokenMint("JUP"), ltv: 55, exposure: 40 },
          { id: tokenMint("JTO"), ltv: 55, exposure: 40 },
          { id: tokenMint("BONK"), ltv: 25, exposure: 10 },
        ],
      },
    ],
  },
  {
    name: "Aqueduct Fund",
    keyFile: "lender-3.json",
    pools: [
      {
        type: "nft-pool",
        poolName: "All Cistern collections",
        poolCurrency: USDC,
        poolAmount: "150000",
        apy: 40,
        loanDuration: 14,
        maxAmountUsd: 3000,
        collections: [
          { id: collectionId("OTTR"), ltv: 50, exposure: 30 },
          { id: collectionId("RFROG"), ltv: 45, exposure: 25 },
          { id: collectionId("AQUA"), ltv: 50, exposure: 30 },
          { id: collectionId("DRIP"), ltv: 35, exposure: 15 },
        ],
      },
      {
        type: "defi-pool",
        poolName: "Jito staking credit",
        poolCurrency: USDC,
        poolAmount: "40000",
        apy: 12.75,
        loanDuration: 90,
        maxAmountUsd: 20000,
        minAmountUsd: 25,
        tokens: [{ id: tokenMint("JTO"), ltv: 60, exposure: 70 }],
      },
      {
        type: "nft-pool",
        poolName: "Frog overnight (SOL)",
        poolCurrency: SOL,
        poolAmount: "80",
        apy: 80,
        loanDuration: 2,
        maxAmountUsd: 400,
        collections: [{ id: collectionId("RFROG"), ltv: 35, exposure: 50 }],
      },
      {
        type: "nft-pool",
        poolName: "Koi desk (SOL, Core)",
        poolCurrency: SOL,
        poolAmount: "120",
        apy: 30,
        loanDuration: 14,
        maxAmountUsd: 2000,
        collections: [{ id: collectionId("KOI"), ltv: 45, exposure: 50 }],
      },
      {
        type: "nft-pool",
        poolName: "Petrel desk (SOL, pNFT)",
        poolCurrency: SOL,
        poolAmount: "100",
        apy: 26,
        loanDuration: 14,
        maxAmountUsd: 1500,
        collections: [{ id: collectionId("PETL"), ltv: 40, exposure: 50 }],
      },
      {
        type: "nft-pool",
        poolName: "Shell desk (SOL, compressed)",
        poolCurrency: SOL,
        poolAmount: "40",
        apy: 32,
        loanDuration: 14,
        maxAmountUsd: 600,
        collections: [{ id: collectionId("SHELL"), ltv: 40, exposure: 50 }],
      },
    ],
  },
];
