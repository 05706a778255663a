// Finds import circles among the repo's TypeScript files. Counts every import, `import type` and `export ... from`
// included (a type-only circle still ties two modules' designs together), and follows relative paths and the
// workspace packages (`@cistern/<name>` -> that package's "." export). Run: `npx tsx scripts/import-cycles.ts`.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const SKIP_DIRS = new Set(["node_modules", "dist", "build", "test-output", ".data", ".git"]);

/** Every .ts / .tsx file under `dir` (generated and installed folders left out). */
function listSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listSources(path, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** `@cistern/<name>` -> the file its package.json exports as ".". */
function workspaceEntries(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const group of ["packages", "programs", "apps"]) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir)) {
      const manifest = join(groupDir, name, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as {
        name?: string;
        exports?: string | Record<string, string>;
      };
      const main = typeof pkg.exports === "string" ? pkg.exports : pkg.exports?.["."];
      if (pkg.name && main) entries.set(pkg.name, resolve(groupDir, name, main));
    }
  }
  return entries;
}

function resolveImport(from: string, specifier: string, packages: Map<string, string>): string | undefined {
  const base = specifier.startsWith(".") ? resolve(dirname(from), specifier) : packages.get(specifier);
  if (base === undefined) return undefined;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The import graph: each file -> the repo files it imports. */
export function buildImportGraph(root: string = REPO_ROOT): Map<string, string[]> {
  const packages = workspaceEntries(root);
  const dirs = ["packages", "programs", "apps", "bench", "scripts"]
    .map((d) => join(root, d))
    .filter(existsSync);
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => listSources(d))) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = info.importedFiles
      .map((f) => resolveImport(file, f.fileName, packages))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The import circles: each strongly connected component of two or more files (or a file importing itself), as one
 * circle through it, repo-relative paths, `a -> b -> ... -> a`.
 */
export function findImportCycles(graph: Map<string, string[]>, root: string = REPO_ROOT): string[] {
  // Tarjan's strongly connected components, iterative (deep import chains must not overflow the stack)
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfImport) components.push(component);
      }
    }
  }
  return components.map((component) => describeCycle(graph, component, root));
}

/** One circle inside a component: a shortest path from its first file back to itself. */
function describeCycle(graph: Map<string, string[]>, component: string[], root: string): string {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  let end: string | undefined;
  while (queue.length > 0 && end === undefined) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        end = node;
        break;
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  const path = [start];
  for (let at = end; at !== undefined && at !== start; at = cameFrom.get(at)) path.splice(1, 0, at);
  path.push(start);
  return path.map((p) => relative(root, p)).join(" -> ");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cycles = findImportCycles(buildImportGraph());
  for (const cycle of cycles) console.log(cycle);
  console.log(cycles.length === 0 ? "no import circle" : `${cycles.length} import circle(s)`);
  process.exit(cycles.length === 0 ? 0 : 1);
}
