/**
 * Lamports a wallet pays to open a loan besides the loan itself: the network fee and the rent of the
 * accounts the transaction creates. Solana's rent-exempt minimum is `(128 + dataBytes) * 3480 * 2`
 * lamports; the fee is 5000 lamports per signature plus the priority fee.
 */

/** Bytes of account metadata that rent also charges for. */
export const ACCOUNT_STORAGE_OVERHEAD_BYTES = 128n;
/** Rent-exempt lamports per byte: 3480 lamports per byte-year for 2 years. */
export const RENT_EXEMPT_LAMPORTS_PER_BYTE = 3480n * 2n;
/** Network fee per signature, lamports. */
export const LAMPORTS_PER_SIGNATURE = 5000n;
/** The lending program's Loan account since program 1.8 (layout v2, programs/lending/LAYOUT.md), bytes. */
export const LOAN_ACCOUNT_BYTES = 424n;
/** An SPL token account (the collateral escrow, a currency account). */
export const TOKEN_ACCOUNT_BYTES = 165n;
/** A take-loan transaction is signed by the borrower and co-signed by the oracle. */
export const TAKE_LOAN_SIGNATURES = 2n;

/** Rent-exempt minimum of an account holding `dataBytes`, lamports. */
export function computeRentExemptLamports(dataBytes: bigint): bigint {
  return (ACCOUNT_STORAGE_OVERHEAD_BYTES + dataBytes) * RENT_EXEMPT_LAMPORTS_PER_BYTE;
}

/** What opening a loan costs the wallet in lamports, and what of it comes back on repay. */
export interface LoanNetworkCosts {
  /** Signatures x 5000 plus the priority fee: gone. */
  feeLamports: bigint;
  /** Rent of the Loan account, which stays as the loan's on-chain record: not refunded. */
  loanAccountRentLamports: bigint;
  /** Rent of the collateral escrow: returned to the wallet when the loan is repaid. */
  escrowRentLamports: bigint;
  /** Rent of a currency token account created for the wallet (stays in that account, the wallet's own). */
  currencyAccountRentLamports: bigint;
  /** Everything the wallet pays. */
  totalLamports: bigint;
  /** The part that comes back on repay (the escrow's rent). */
  refundableOnRepayLamports: bigint;
}

/** Network costs of a take-loan transaction. */
export function computeLoanNetworkCosts(input: {
  priorityFeeLamports?: bigint;
  createsCurrencyAccount?: boolean;
}): LoanNetworkCosts {
  const feeLamports = TAKE_LOAN_SIGNATURES * LAMPORTS_PER_SIGNATURE + (input.priorityFeeLamports ?? 0n);
  const loanAccountRentLamports = computeRentExemptLamports(LOAN_ACCOUNT_BYTES);
  const escrowRentLamports = computeRentExemptLamports(TOKEN_ACCOUNT_BYTES);
  const currencyAccountRentLamports = input.createsCurrencyAccount
    ? computeRentExemptLamports(TOKEN_ACCOUNT_BYTES)
    : 0n;
  return {
    feeLamports,
    loanAccountRentLamports,
    escrowRentLamports,
    currencyAccountRentLamports,
    totalLamports: feeLamports + loanAccountRentLamports + escrowRentLamports + currencyAccountRentLamports,
    refundableOnRepayLamports: escrowRentLamports,
  };
}
