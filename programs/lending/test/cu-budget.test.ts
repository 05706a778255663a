import { describe, expect, it } from "vitest";
import { CU_BUDGETS, formatCuTable, measureCuTable } from "./support/cu-table.ts";

describe("compute unit budgets", () => {
  it("keeps every instruction within its budget", async () => {
    const rows = await measureCuTable();
    console.log(formatCuTable(rows));
    for (const name of Object.keys(CU_BUDGETS)) expect(rows.some((r) => r.instruction === name)).toBe(true);
    expect(rows).toHaveLength(Object.keys(CU_BUDGETS).length);
    for (const r of rows) {
      expect(r.budget, `${r.instruction} has a budget`).not.toBeNull();
      expect(r.computeUnits, r.instruction).toBeLessThanOrEqual(r.budget!);
    }
  }, 60_000);

  it("is deterministic", async () => {
    const a = await measureCuTable();
    const b = await measureCuTable();
    expect(b.map((r) => r.computeUnits)).toEqual(a.map((r) => r.computeUnits));
  }, 60_000);
});
