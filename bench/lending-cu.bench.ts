// Compute units of every lending program instruction (in-process LiteSVM, deterministic), with budgets.
import { formatCuTable, measureCuTable } from "../programs/lending/test/support/cu-table.ts";

const rows = await measureCuTable();
console.log(formatCuTable(rows));
const over = rows.filter((r) => r.budget !== null && r.computeUnits > r.budget);
if (over.length > 0) {
  console.error(`over budget: ${over.map((r) => r.instruction).join(", ")}`);
  process.exit(1);
}
