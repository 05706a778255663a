import { type Attestation, address } from "@cistern/sdk";
import type { PoolOffer } from "../calculator/pool-selection.ts";
import type { TxValuation } from "../calculator/valuation.ts";
import type { TxContext } from "../tx-context.ts";
import { unprocessable } from "../tx-errors.ts";
import { type BorrowerFacts, getBorrowerFacts } from "./borrower-facts.ts";

/** The facts attested for a pool without conditions (the program reads them only when conditions are on). */
const NO_FACTS: BorrowerFacts = { walletAgeSeconds: 0n, pastLoans: 0n, volumeMicroUsd: 0n };

/**
 * The oracle's attestation for a new loan (LAYOUT.md "Oracle attestation"): the collateral value in the
 * loan currency (rounded down), the collection (nft: the NFT's verified collection; defi: the collateral
 * mint), the currency's USD price in micro-USD, the borrower's facts from the chain (only for a pool with
 * conditions, the one place the program reads them; zero otherwise, which no pool without conditions looks at),
 * and the current slot.
 * The program accepts it for 150 slots; the oracle signs it only as part of a transaction the builder issued.
 */
export async function createAttestation(
  tx: TxContext,
  input: { offer: PoolOffer; collection: string; borrower: string; valuation: TxValuation },
): Promise<Attestation> {
  const currency = input.offer.account.currencyMint;
  // no co-signature on a value or price the valuation service cannot vouch for right now (2010)
  const refused = input.valuation.refusal(input.collection) ?? input.valuation.refusal(currency);
  if (refused !== null) throw refused;
  const price = input.valuation.priceMicroUsd(currency);
  if (price === undefined || price === 0n)
    throw input.valuation.refusal(currency) ?? unprocessable("No USD price");
  const [facts, slot] = await Promise.all([
    input.offer.account.conditions.isEnabled
      ? getBorrowerFacts(tx, input.borrower, input.valuation)
      : Promise.resolve(NO_FACTS),
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
