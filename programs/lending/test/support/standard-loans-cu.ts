/**
 * Compute units and wire sizes of the whole loan transactions of the other NFT standards (a pNFT through Token
 * Metadata and Token Auth Rules, a Core asset through Core, a compressed NFT with its proof through Bubblegum), on
 * the real programs in LiteSVM (deterministic). Each transaction is what a borrower or liquidator signs: a compute
 * unit limit and price, then the lending instruction (TakeLoan co-signed by the oracle); the borrower pays for take
 * and repay, the liquidator for liquidate. Used by bench/lending-cu.bench.ts.
 */
import { type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from "@solana/kit";
import { cnftWorld, liquidateCnftIx, mintLeaf, moved, repayCnftIx, takeCnftIx } from "./cnft-world.ts";
import { coreWorld, liquidateCoreIx, mintAsset, repayCoreIx, takeCoreIx } from "./core-world.ts";
import type { Harness } from "./harness.ts";
import { computeLimit, computePrice, expectOk, wireSize } from "./kit.ts";
import { liquidatePnftIx, mintPnft, pnftWorld, repayPnftIx, takePnftIx } from "./pnft-world.ts";
import { DAY } from "./world.ts";

export type LoanStandard = "ProgrammableNft" | "CoreNft" | "CompressedNft";
export type LoanTransaction = "TakeLoan" | "Repay" | "Liquidate";

/** The issues' compute-unit budgets of a whole take-loan transaction (#32: pNFT, Core; #33: compressed). */
export const STANDARD_TAKE_LOAN_CU_BUDGETS: Record<LoanStandard, bigint> = {
  ProgrammableNft: 250_000n,
  CoreNft: 60_000n,
  CompressedNft: 200_000n,
};

/** A Solana packet: the most bytes a transaction may take on the wire. */
export const PACKET_BYTES = 1232;

export interface StandardLoanRow {
  standard: LoanStandard;
  transaction: LoanTransaction;
  computeUnits: bigint;
  /** The signed v0 transaction's bytes, every account inline. */
  bytes: number;
  /** The same with the protocol lookup table's addresses loaded from it (what the API sends when `bytes` is over). */
  bytesWithTable: number;
  /** Compute units allowed (take-loan only; the others are reported). */
  budget: bigint | null;
}

/** The compute-unit limit each transaction asks for (well above what any uses) and a priority price. */
const LIMIT = 400_000;
const PRICE_MICRO_LAMPORTS = 10_000n;

/**
 * Measures take-loan, repay and liquidate of each standard: a loan taken and repaid a day on, a second loan taken and
 * liquidated after its grace. `tableAddresses` answers the protocol lookup table's addresses for a program id (the
 * API's list), used for `bytesWithTable`.
 */
export async function measureStandardLoans(
  tableAddresses: (programId: Address) => Promise<Address[]>,
): Promise<StandardLoanRow[]> {
  const rows: StandardLoanRow[] = [];
  const table = (await generateKeyPairSigner()).address;
  async function run(
    h: Harness,
    standard: LoanStandard,
    transaction: LoanTransaction,
    ix: Instruction,
    payer: KeyPairSigner,
  ): Promise<void> {
    const ixs = [computeLimit(LIMIT), computePrice(PRICE_MICRO_LAMPORTS), ix];
    const bytes = await wireSize(h, ixs, payer);
    const bytesWithTable = await wireSize(h, ixs, payer, { [table]: await tableAddresses(h.programId) });
    const out = expectOk(await h.trySend(ixs, payer));
    rows.push({
      standard,
      transaction,
      computeUnits: out.computeUnits,
      bytes,
      bytesWithTable,
      budget: transaction === "TakeLoan" ? STANDARD_TAKE_LOAN_CU_BUDGETS[standard] : null,
    });
  }

  const p = await pnftWorld();
  const [pRepaid, pDefaulted] = [await mintPnft(p), await mintPnft(p)];
  const pTake = await takePnftIx(p, pRepaid);
  await run(p.h, "ProgrammableNft", "TakeLoan", pTake, p.borrower);
  const pTake2 = await takePnftIx(p, pDefaulted);
  expectOk(await p.h.trySend([computeLimit(LIMIT), pTake2], p.borrower));
  p.h.advance(DAY);
  await run(p.h, "ProgrammableNft", "Repay", await repayPnftIx(p, pTake.loan, pRepaid), p.borrower);
  p.h.advance(30n * DAY);
  const pLiquidator = await p.h.wallet();
  await run(
    p.h,
    "ProgrammableNft",
    "Liquidate",
    await liquidatePnftIx(p, pLiquidator, pTake2.loan, pDefaulted),
    pLiquidator,
  );

  const c = await coreWorld();
  const [cRepaid, cDefaulted] = [await mintAsset(c), await mintAsset(c)];
  const cTake = await takeCoreIx(c, cRepaid);
  await run(c.h, "CoreNft", "TakeLoan", cTake, c.borrower);
  const cTake2 = await takeCoreIx(c, cDefaulted);
  expectOk(await c.h.trySend([cTake2], c.borrower));
  c.h.advance(DAY);
  await run(c.h, "CoreNft", "Repay", await repayCoreIx(c, cTake.loan, cRepaid), c.borrower);
  c.h.advance(30n * DAY);
  const cLiquidator = await c.h.wallet();
  await run(
    c.h,
    "CoreNft",
    "Liquidate",
    await liquidateCoreIx(c, cLiquidator, cTake2.loan, cDefaulted),
    cLiquidator,
  );

  // the demo tree's shape (depth 14, canopy 11): a proof of 3 nodes; each ending's proof taken after the tree changed
  const t = await cnftWorld();
  const [tRepaid, tDefaulted] = [await mintLeaf(t), await mintLeaf(t)];
  const tTake = await takeCnftIx(t, tRepaid);
  await run(t.h, "CompressedNft", "TakeLoan", tTake, t.borrower);
  moved(tRepaid, tTake.loan);
  const tTake2 = await takeCnftIx(t, tDefaulted);
  expectOk(await t.h.trySend([tTake2], t.borrower));
  moved(tDefaulted, tTake2.loan);
  t.h.advance(DAY);
  await run(t.h, "CompressedNft", "Repay", await repayCnftIx(t, tTake.loan, tRepaid), t.borrower);
  moved(tRepaid, t.borrower.address);
  t.h.advance(30n * DAY);
  const tLiquidator = await t.h.wallet();
  await run(
    t.h,
    "CompressedNft",
    "Liquidate",
    await liquidateCnftIx(t, tLiquidator, tTake2.loan, tDefaulted),
    tLiquidator,
  );
  return rows;
}

/** The bytes the transaction is sent with: inline when it fits a packet, else through the protocol lookup table. */
export function sentBytes(r: StandardLoanRow): number {
  return r.bytes <= PACKET_BYTES ? r.bytes : r.bytesWithTable;
}

/** The rows as a Markdown table. */
export function formatStandardLoans(rows: StandardLoanRow[]): string {
  const n = (v: bigint | number) => v.toLocaleString("en-US");
  const lines = [
    "| standard | transaction | CU | CU budget | bytes | with the protocol table | packet |",
    "|---|---|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows)
    lines.push(
      `| ${r.standard} | ${r.transaction} | ${n(r.computeUnits)} | ${r.budget === null ? "—" : n(r.budget)} | ${n(r.bytes)} | ${n(r.bytesWithTable)} | ${n(PACKET_BYTES)} |`,
    );
  return lines.join("\n");
}
