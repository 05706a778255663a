// Compute units of every lending program instruction (in-process LiteSVM, deterministic), with budgets.
import { CU_GOALS, formatCuTable, measureCuTable } from "../programs/lending/test/support/cu-table.ts";

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
if (over.length > 0) {
  console.error(`over budget: ${over.map((r) => r.instruction).join(", ")}`);
  process.exit(1);
}
