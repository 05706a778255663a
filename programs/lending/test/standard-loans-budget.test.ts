// Every standard's loan endings as tests (#45 section 3): the whole take-loan, repay and liquidate transactions of a
// pNFT, a Core asset and a compressed NFT on the real Metaplex programs (LiteSVM, deterministic), each within its
// compute-unit budget and within a packet on the wire (bench/lending-cu.bench.ts prints the same table). Take-loan
// budgets are the issues' (#32, #33); the repay and liquidate budgets are the figures measured at 728c4a5 plus
// about 15% (more for a pNFT): each run's wallets and mints are new keys, whose PDA bump searches move the figures (raising a budget is a deliberate edit with its reason in the commit).
import { describe, expect, it } from "vitest";
import { getProtocolTableAddresses } from "../../../apps/api/src/tx/builder/protocol-lookup-table.ts";
import {
  type LoanStandard,
  type LoanTransaction,
  measureStandardLoans,
  PACKET_BYTES,
  STANDARD_TAKE_LOAN_CU_BUDGETS,
  sentBytes,
} from "./support/standard-loans-cu.ts";

/**
 * Compute units per whole transaction. Measured at 728c4a5 over three runs: pNFT 144,319 / 64,135-73,135 /
 * 323,139-344,210; Core 15,743 / 12,723 / 11,096; compressed 69,010 / 65,142 / 60,298 (take-loan / repay /
 * liquidate). A pNFT's repay moves in steps of 4,500 CU with its new keys' PDA bumps, hence its wider budget.
 */
const CU_BUDGETS: Record<LoanStandard, Record<LoanTransaction, bigint>> = {
  ProgrammableNft: {
    TakeLoan: STANDARD_TAKE_LOAN_CU_BUDGETS.ProgrammableNft,
    Repay: 82_000n,
    Liquidate: 390_000n,
  },
  CoreNft: { TakeLoan: STANDARD_TAKE_LOAN_CU_BUDGETS.CoreNft, Repay: 14_700n, Liquidate: 12_800n },
  CompressedNft: {
    TakeLoan: STANDARD_TAKE_LOAN_CU_BUDGETS.CompressedNft,
    Repay: 75_000n,
    Liquidate: 69_500n,
  },
};

describe("compute units and bytes of every standard's loan transactions", () => {
  it("keeps each take-loan, repay and liquidate within its compute-unit budget and a packet", async () => {
    const rows = await measureStandardLoans(getProtocolTableAddresses);
    expect(rows).toHaveLength(9);
    const broken: string[] = [];
    for (const r of rows) {
      const name = `${r.standard} ${r.transaction}`;
      const budget = CU_BUDGETS[r.standard][r.transaction];
      if (r.computeUnits > budget)
        broken.push(`${name}: ${r.computeUnits} CU > budget ${budget} (+${r.computeUnits - budget})`);
      const bytes = sentBytes(r);
      if (bytes > PACKET_BYTES)
        broken.push(`${name}: ${bytes} B > packet ${PACKET_BYTES} (+${bytes - PACKET_BYTES})`);
    }
    expect(broken, `budget broken: ${broken.join("; ")}`).toEqual([]);
  }, 180_000);
});
