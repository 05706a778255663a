import { type Attestation, address } from "@cistern/sdk";
import type { PoolOffer } from "../calculator/pool-selection.ts";
import type { TxValuation } from "../calculator/valuation.ts";
import type { TxContext } from "../tx-context.ts";
import { unprocessable } from "../tx-errors.ts";
import { getBorrowerFacts } from "./borrower-facts.ts";

/**
 * The oracle's attestation for a new loan (LAYOUT.md "Oracle attestation"): the collateral value in the
 * loan currency (rounded down), the collection (nft: the NFT's verified collection; defi: the collateral
 * mint), the currency's USD price in micro-USD, the borrower's facts from the chain, and the current slot.
 * The program accepts it for 150 slots; the oracle signs it only as part of a transaction the builder issued.
 */
export async function createAttestation(
  tx: TxContext,
  input: { offer: PoolOffer; collection: string; borrower: string; valuation: TxValuation },
): Promise<Attestation> {
  const currency = input.offer.account.currencyMint;
  const price = input.valuation.priceMicroUsd(currency);
  if (price === undefined || price === 0n)
    throw unprocessable(`No USD price for the loan currency ${currency}`);
  const [facts, slot] = await Promise.all([
    getBorrowerFacts(tx, input.borrower, input.valuation),
    tx.clock.recentSlot(),
  ]);
  return {
    collateralValueBaseUnits: input.offer.collateralValue,
    collection: address(input.collection),
    currencyPriceMicroUsd: price,
    walletAgeSeconds: facts.walletAgeSeconds,
    pastLoans: facts.pastLoans,
    volumeMicroUsd: facts.volumeMicroUsd,
    slot: BigInt(slot),
  };
}
