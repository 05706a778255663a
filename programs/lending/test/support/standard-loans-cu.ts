/**
 * Compute units and wire sizes of the whole loan transactions of the other NFT standards (a pNFT through Token
 * Metadata and Token Auth Rules, a Core asset through Core, a compressed NFT with its proof through Bubblegum), on
 * the real programs in LiteSVM (deterministic). Each transaction is what a borrower or liquidator signs: a compute
 * unit limit and price, then the lending instruction (TakeLoan co-signed by the oracle); the borrower pays for take
 * and repay, the liquidator for liquidate. Used by bench/lending-cu.bench.ts.
 */
import { type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from "@solana/kit";
import {
  type CnftWorld,
  cnftWorld,
  type Leaf,
  liquidateCnftIx,
  mintLeaf,
  moved,
  repayCnftIx,
  takeCnftIx,
} from "./cnft-world.ts";
import {
  type CoreWorld,
  coreWorld,
  liquidateCoreIx,
  mintAsset,
  repayCoreIx,
  takeCoreIx,
} from "./core-world.ts";
import { computeLimit, computePrice, expectOk, wireSize } from "./kit.ts";
import {
  liquidatePnftIx,
  mintPnft,
  type Pnft,
  type PnftWorld,
  pnftWorld,
  repayPnftIx,
  takePnftIx,
} from "./pnft-world.ts";
import { DAY, type World } from "./world.ts";

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

/** One standard's world and loan builders, as its program tests build them. */
interface StandardCase<W extends World, A> {
  standard: LoanStandard;
  world(): Promise<W>;
  mint(w: W): Promise<A>;
  take(w: W, asset: A): Promise<Instruction & { loan: Address }>;
  repay(w: W, loan: Address, asset: A): Promise<Instruction>;
  liquidate(w: W, liquidator: KeyPairSigner, loan: Address, asset: A): Promise<Instruction>;
  /** After `asset` moved to `owner` (a compressed NFT's tree copy follows the leaf; the others need nothing). */
  moved?(asset: A, owner: Address): void;
}

const CASES = [
  {
    standard: "ProgrammableNft",
    world: () => pnftWorld(),
    mint: mintPnft,
    take: takePnftIx,
    repay: repayPnftIx,
    liquidate: liquidatePnftIx,
  } satisfies StandardCase<PnftWorld, Pnft>,
  {
    standard: "CoreNft",
    world: coreWorld,
    mint: (w) => mintAsset(w),
    take: (w, asset) => takeCoreIx(w, asset),
    repay: (w, loan, asset) => repayCoreIx(w, loan, asset),
    liquidate: (w, liquidator, loan, asset) => liquidateCoreIx(w, liquidator, loan, asset),
  } satisfies StandardCase<CoreWorld, Address>,
  {
    // the demo tree's shape (depth 14, canopy 11): a proof of 3 nodes, taken fresh after the tree changed
    standard: "CompressedNft",
    world: cnftWorld,
    mint: (w) => mintLeaf(w),
    take: (w, leaf) => takeCnftIx(w, leaf),
    repay: (w, loan, leaf) => repayCnftIx(w, loan, leaf),
    liquidate: liquidateCnftIx,
    moved,
  } satisfies StandardCase<CnftWorld, Leaf>,
];

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
  for (const c of CASES as StandardCase<World, unknown>[]) {
    const w = await c.world();
    const run = async (transaction: LoanTransaction, ix: Instruction, payer: KeyPairSigner) => {
      const ixs = [computeLimit(LIMIT), computePrice(PRICE_MICRO_LAMPORTS), ix];
      const bytes = await wireSize(w.h, ixs, payer);
      const bytesWithTable = await wireSize(w.h, ixs, payer, {
        [table]: await tableAddresses(w.h.programId),
      });
      const out = expectOk(await w.h.trySend(ixs, payer));
      rows.push({
        standard: c.standard,
        transaction,
        computeUnits: out.computeUnits,
        bytes,
        bytesWithTable,
        budget: transaction === "TakeLoan" ? STANDARD_TAKE_LOAN_CU_BUDGETS[c.standard] : null,
      });
    };
    const [repaid, defaulted] = [await c.mint(w), await c.mint(w)];
    const take = await c.take(w, repaid);
    await run("TakeLoan", take, w.borrower);
    c.moved?.(repaid, take.loan);
    const take2 = await c.take(w, defaulted);
    expectOk(await w.h.trySend([computeLimit(LIMIT), take2], w.borrower));
    c.moved?.(defaulted, take2.loan);
    w.h.advance(DAY);
    await run("Repay", await c.repay(w, take.loan, repaid), w.borrower);
    c.moved?.(repaid, w.borrower.address);
    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    await run("Liquidate", await c.liquidate(w, liquidator, take2.loan, defaulted), liquidator);
  }
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
