// Cost budgets (#45): how many database statements and JSON-RPC calls one request (or one unit of work) costs,
// counted, not timed, so the figures do not move with the machine's load. The counters are the process's own:
// every PGlite statement (getPgliteStats) and every JSON POST to the Solana node (getPostJsonCount).
import { expect } from "vitest";
import { getPgliteStats } from "../../src/db/pglite-database.ts";
import { getPostJsonCount } from "../../src/http/post-json.ts";

export interface Cost {
  /** Database statements. */
  statements: number;
  /** JSON-RPC calls to the Solana node. */
  rpcCalls: number;
}

/** What `work` cost, counted around it (nothing else may run meanwhile: no indexer, no keeper timer). */
export async function countCost<T>(work: () => Promise<T>): Promise<{ cost: Cost; value: T }> {
  const statements = getPgliteStats().statements;
  const rpcCalls = getPostJsonCount();
  const value = await work();
  return {
    cost: { statements: getPgliteStats().statements - statements, rpcCalls: getPostJsonCount() - rpcCalls },
    value,
  };
}

/**
 * Asserts `cost` is within `budget`, per kind; the failure names the path, the kind, the budget and the excess.
 * Raising a budget is a deliberate edit with its reason in the commit.
 */
export function expectWithinBudget(path: string, cost: Cost, budget: Cost): void {
  const broken = (["statements", "rpcCalls"] as const)
    .filter((kind) => cost[kind] > budget[kind])
    .map(
      (kind) =>
        `${path}: ${cost[kind]} ${kind === "statements" ? "DB statements" : "RPC calls"} > budget ${budget[kind]} (+${cost[kind] - budget[kind]})`,
    );
  expect(broken, `cost budget broken: ${broken.join("; ")}`).toEqual([]);
}
