// Where an ending's rent went: the lamports of the accounts a transaction may open or close, before and after, next
// to the one who pays for them (issue #43: no ending leaves an account the program opened behind without its rent
// going back to whoever paid it).
import type { Address } from "@solana/kit";
import type { Harness } from "./harness.ts";

/** LiteSVM's fee per signature (lamports). */
export const SIGNATURE_FEE = 5000n;

export interface RentLedger {
  /** the payer's lamports change (after - before) */
  payerDelta(): bigint;
  /** what the watched accounts held before minus what they hold after: rent released (+) or paid into them (-) */
  released(): bigint;
  /** the watched accounts that exist after */
  open(): Address[];
}

/** Snapshot the payer and the watched accounts now; read the changes after the transaction. */
export function rentLedger(h: Harness, payer: Address, watched: Address[]): RentLedger {
  const before = watched.map((a) => h.lamports(a));
  const payerBefore = h.lamports(payer);
  return {
    payerDelta: () => h.lamports(payer) - payerBefore,
    released: () => watched.reduce((sum, a, i) => sum + (before[i] ?? 0n) - h.lamports(a), 0n),
    open: () => watched.filter((a) => h.svm.getAccount(a).exists),
  };
}
