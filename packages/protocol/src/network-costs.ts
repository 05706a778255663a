/**
 * Lamports a transaction costs its wallet besides the amounts of its terms: the network fee (5000 lamports per
 * signature plus the priority fee), a tip, the rent of the accounts it opens, less the rent of those it closes to the
 * wallet. The API measures each from the transaction it builds (apps/api/src/tx/builder/transaction-costs.ts) and
 * sums them here, one rule for the API and the web. Solana's rent-exempt minimum is `(128 + dataBytes) * 3480 * 2`.
 */

import { computePriorityFeeLamports } from "./priority-fee.ts";

/** Bytes of account metadata that rent also charges for. */
export const ACCOUNT_STORAGE_OVERHEAD_BYTES = 128n;
/** Rent-exempt lamports per byte: 3480 lamports per byte-year for 2 years. */
export const RENT_EXEMPT_LAMPORTS_PER_BYTE = 3480n * 2n;
/** Network fee per signature, lamports. */
export const LAMPORTS_PER_SIGNATURE = 5000n;
/** The lending program's Loan account since program 1.8 (layout v2, programs/lending/LAYOUT.md), bytes. */
export const LOAN_ACCOUNT_BYTES = 424n;

/** Rent-exempt minimum of an account holding `dataBytes`, lamports. */
export function computeRentExemptLamports(dataBytes: bigint): bigint {
  return (ACCOUNT_STORAGE_OVERHEAD_BYTES + dataBytes) * RENT_EXEMPT_LAMPORTS_PER_BYTE;
}

/**
 * The network fee of one transaction as the runtime charges it: 5000 lamports per signature plus the priority fee,
 * compute-unit price (micro-lamports) x compute-unit limit, rounded up to a lamport.
 */
export function computeTransactionFee(input: {
  signatures: number;
  computeUnitLimit: number;
  microLamportsPerComputeUnit: bigint;
}): { baseFeeLamports: bigint; priorityFeeLamports: bigint } {
  return {
    baseFeeLamports: BigInt(input.signatures) * LAMPORTS_PER_SIGNATURE,
    priorityFeeLamports: computePriorityFeeLamports(
      input.microLamportsPerComputeUnit,
      input.computeUnitLimit,
    ),
  };
}

/** An account a transaction opens or closes, with the lamports that move with it. */
export interface AccountRentLine {
  account: string;
  /** What it is, in a few words ("the loan", "the bidder's NFT account"). */
  label: string;
  /** Its data size, bytes. */
  bytes: number;
  lamports: bigint;
}

/** What one transaction costs the wallet that pays for it, besides the amounts of its terms. */
export interface TransactionCosts {
  /** 5000 lamports per signature. */
  baseFeeLamports: bigint;
  /** Compute-unit price x limit, rounded up. */
  priorityFeeLamports: bigint;
  /** A Jito tip, when the transaction carries one. */
  tipLamports: bigint;
  /** Accounts the transaction opens, their rent paid by the wallet. */
  rent: AccountRentLine[];
  /** Accounts the transaction closes whose rent comes back to the wallet. */
  rentBack: AccountRentLine[];
  /** fee + tip + rent - rent back: what the wallet's SOL balance loses besides the terms' amounts. */
  totalLamports: bigint;
}

/** Sums what a transaction costs from its fee, tip and the accounts it opens and closes. */
export function computeTransactionCosts(input: {
  baseFeeLamports: bigint;
  priorityFeeLamports: bigint;
  tipLamports?: bigint;
  rent: AccountRentLine[];
  rentBack: AccountRentLine[];
}): TransactionCosts {
  const tipLamports = input.tipLamports ?? 0n;
  const sum = (lines: AccountRentLine[]) => lines.reduce((s, l) => s + l.lamports, 0n);
  return {
    baseFeeLamports: input.baseFeeLamports,
    priorityFeeLamports: input.priorityFeeLamports,
    tipLamports,
    rent: input.rent,
    rentBack: input.rentBack,
    totalLamports:
      input.baseFeeLamports + input.priorityFeeLamports + tipLamports + sum(input.rent) - sum(input.rentBack),
  };
}

/** TransactionCosts as the API answers it (lamports as decimal strings). */
export interface TransactionCostsJson {
  baseFeeLamports: string;
  priorityFeeLamports: string;
  tipLamports: string;
  rent: { account: string; label: string; bytes: number; lamports: string }[];
  rentBack: { account: string; label: string; bytes: number; lamports: string }[];
  totalLamports: string;
}

export function transactionCostsToJson(costs: TransactionCosts): TransactionCostsJson {
  const line = (l: AccountRentLine) => ({ ...l, lamports: l.lamports.toString() });
  return {
    baseFeeLamports: costs.baseFeeLamports.toString(),
    priorityFeeLamports: costs.priorityFeeLamports.toString(),
    tipLamports: costs.tipLamports.toString(),
    rent: costs.rent.map(line),
    rentBack: costs.rentBack.map(line),
    totalLamports: costs.totalLamports.toString(),
  };
}

/** Reads the API's TransactionCostsJson; null for anything else. The total is summed again, never trusted. */
export function parseTransactionCosts(body: unknown): TransactionCosts | null {
  if (body === null || typeof body !== "object") return null;
  const raw = body as Record<string, unknown>;
  const big = (v: unknown) => (typeof v === "string" && /^\d+$/.test(v) ? BigInt(v) : null);
  const lines = (v: unknown): AccountRentLine[] | null => {
    if (!Array.isArray(v)) return null;
    const out: AccountRentLine[] = [];
    for (const l of v as Record<string, unknown>[]) {
      const lamports = big(l?.lamports);
      if (lamports === null || typeof l.account !== "string" || typeof l.label !== "string") return null;
      out.push({ account: l.account, label: l.label, bytes: Number(l.bytes ?? 0), lamports });
    }
    return out;
  };
  const base = big(raw.baseFeeLamports);
  const priority = big(raw.priorityFeeLamports);
  const tip = big(raw.tipLamports ?? "0");
  const rent = lines(raw.rent);
  const rentBack = lines(raw.rentBack);
  if (base === null || priority === null || tip === null || rent === null || rentBack === null) return null;
  return computeTransactionCosts({
    baseFeeLamports: base,
    priorityFeeLamports: priority,
    tipLamports: tip,
    rent,
    rentBack,
  });
}
