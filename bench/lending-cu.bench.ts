// Compute units of every lending program instruction (in-process LiteSVM, deterministic), with budgets; then the
// whole loan transactions of a pNFT, a Core asset and a compressed NFT on the real Metaplex programs, with their
// compute units and wire sizes (issues #32 and #33: take-loan budgets, every transaction within a packet).
import { getProtocolTableAddresses } from "../apps/api/src/tx/builder/protocol-lookup-table.ts";
import { CU_GOALS, formatCuTable, measureCuTable } from "../programs/lending/test/support/cu-table.ts";
import {
  formatStandardLoans,
  measureStandardLoans,
  PACKET_BYTES,
  sentBytes,
} from "../programs/lending/test/support/standard-loans-cu.ts";

const rows = await measureCuTable();
console.log(formatCuTable(rows));
for (const [instruction, goal] of Object.entries(CU_GOALS)) {
  const cu = rows.find((r) => r.instruction === instruction)?.computeUnits;
  console.log(
    cu !== undefined && cu <= goal
      ? `target met: ${instruction} ${cu} CU <= ${goal}`
      : `TARGET MISSED: ${instruction} ${cu ?? "not measured"} CU > ${goal}`,
  );
}
const over = rows.filter((r) => r.budget !== null && r.computeUnits > r.budget);

const standards = await measureStandardLoans(getProtocolTableAddresses);
console.log(`\n${formatStandardLoans(standards)}`);
for (const r of standards) {
  const name = `${r.standard} ${r.transaction}`;
  const bytes = sentBytes(r);
  const via = bytes === r.bytes ? "inline" : "with the protocol lookup table";
  console.log(
    `${bytes <= PACKET_BYTES ? "fits" : "DOES NOT FIT"}: ${name} ${bytes} B ${via} (packet ${PACKET_BYTES})` +
      (r.budget === null
        ? `, ${r.computeUnits} CU (reported)`
        : `; ${r.computeUnits <= r.budget ? "target met" : "TARGET MISSED"}: ${r.computeUnits} CU vs ${r.budget}`),
  );
}
const standardsOver = standards.filter(
  (r) => sentBytes(r) > PACKET_BYTES || (r.budget !== null && r.computeUnits > r.budget),
);
if (over.length + standardsOver.length > 0) {
  console.error(
    `over budget: ${[...over.map((r) => r.instruction), ...standardsOver.map((r) => `${r.standard} ${r.transaction}`)].join(", ")}`,
  );
  process.exit(1);
}
