/**
 * When moving a loan to a cheaper pool (Refinance) is worth offering: only when what it saves is worth more than
 * what the move itself costs the wallet. The move costs two signatures' fees, the priority fee (counted at the
 * most the app lets a transaction pay, MAX_PRIORITY_FEE_LAMPORTS) and the rent of the new loan's record, which
 * stays on chain (the old escrow's rent comes back as the new escrow's is paid, so the escrow costs nothing).
 */
import { computeRentExemptLamports, LAMPORTS_PER_SIGNATURE, LOAN_ACCOUNT_BYTES } from "./network-costs.ts";
import { MAX_PRIORITY_FEE_LAMPORTS } from "./priority-fee.ts";

/** A Refinance is signed by the borrower and co-signed by the oracle. */
export const REFINANCE_SIGNATURES = 2n;

/** Lamports a Refinance costs the wallet at most: fees, the priority fee at its maximum, the new loan's rent. */
export function computeRefinanceCostLamports(
  priorityFeeLamports: bigint = MAX_PRIORITY_FEE_LAMPORTS,
): bigint {
  return (
    REFINANCE_SIGNATURES * LAMPORTS_PER_SIGNATURE +
    priorityFeeLamports +
    computeRentExemptLamports(LOAN_ACCOUNT_BYTES)
  );
}

/**
 * True when `savingBaseUnits` of the loan's currency are worth more than `costLamports` of SOL. A SOL loan compares
 * lamports; another currency needs both USD prices (micro-USD per whole token), and without them the saving
 * cannot be shown to be worth it (false).
 */
export function isRefinanceWorthwhile(input: {
  savingBaseUnits: bigint;
  isSol: boolean;
  currencyDecimals: number;
  currencyPriceMicroUsd: bigint | undefined;
  solPriceMicroUsd: bigint | undefined;
  costLamports?: bigint;
}): boolean {
  const cost = input.costLamports ?? computeRefinanceCostLamports();
  if (input.savingBaseUnits <= 0n) return false;
  if (input.isSol) return input.savingBaseUnits > cost;
  const { currencyPriceMicroUsd: currencyPrice, solPriceMicroUsd: solPrice } = input;
  if (currencyPrice === undefined || solPrice === undefined || currencyPrice <= 0n) return false;
  // saving * currencyPrice / 10^decimals  >  cost * solPrice / 10^9, cross-multiplied (exact)
  return (
    input.savingBaseUnits * currencyPrice * 10n ** 9n >
    cost * solPrice * 10n ** BigInt(input.currencyDecimals)
  );
}
