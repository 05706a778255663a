import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildImportGraph, findImportCycles, REPO_ROOT } from "./import-cycles.ts";

describe("import circles", () => {
  it("no TypeScript file of the repo imports itself back, type imports counted", () => {
    const graph = buildImportGraph();
    // the graph reaches the workspaces (a broken walk would find no circle by finding no file)
    expect(graph.size).toBeGreaterThan(400);
    expect(graph.get(join(REPO_ROOT, "apps/api/src/tx/tx-context.ts"))).toContain(
      join(REPO_ROOT, "apps/api/src/tx/builder/protocol-lookup-table.ts"),
    );
    expect(findImportCycles(graph)).toEqual([]);
  });

  it("names a circle by its files, shortest way round", () => {
    const at = (name: string) => join(REPO_ROOT, name);
    const graph = new Map([
      [at("a.ts"), [at("b.ts"), at("d.ts")]],
      [at("b.ts"), [at("c.ts")]],
      [at("c.ts"), [at("a.ts")]],
      [at("d.ts"), []],
      [at("e.ts"), [at("e.ts")]],
    ]);
    expect(findImportCycles(graph).sort()).toEqual(["a.ts -> b.ts -> c.ts -> a.ts", "e.ts -> e.ts"]);
  });
});
