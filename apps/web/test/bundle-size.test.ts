// @vitest-environment node
// The web app's first load, gzip, as a test (#45 section 3): the production build's JavaScript a browser loads for
// /borrow (the entry's static imports and the Borrow page's chunk with its static imports, from Vite's manifest),
// each file gzipped as bench/web-bundle.bench.ts counts what Chromium loaded. This closure counts every chunk Vite
// preloads for the page: 261.9 KB at 728c4a5, where the bench's Chromium count is 252.0 KB. The budget is that
// figure, so growth fails here with the excess; the issue's target (250 KB in the bench) is not met yet, and the
// budget comes down with each cut (a deliberate edit with its reason in the commit).
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../build-app.ts";

const KB = 1024;
/**
 * First-load JavaScript of /borrow, gzip: 261.9 KB measured at 728c4a5; 264.1 KB once the borrow quote shows its
 * measured costs (#44: fee, each account's rent, rent back). #45's target is 250 KB (the bench): not met yet.
 */
const FIRST_LOAD_GZIP_BUDGET_BYTES = 265 * KB;

interface ManifestChunk {
  file: string;
  imports?: string[];
}

/** The chunk files `roots` load before they run: themselves and their static imports, transitively. */
export function staticClosure(manifest: Record<string, ManifestChunk>, roots: string[]): Set<string> {
  const files = new Set<string>();
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (chunk === undefined) throw new Error(`${key} is not in the build manifest`);
    files.add(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const root of roots) visit(root);
  return files;
}

describe("web bundle size", () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("keeps the first load of /borrow within its gzip budget", async () => {
    dir = await mkdtemp(join(tmpdir(), "cistern-bundle-size-"));
    await buildWebApp(dir, "bundle-size", { manifest: true });
    const manifest = JSON.parse(readFileSync(join(dir, ".vite", "manifest.json"), "utf8")) as Record<
      string,
      ManifestChunk
    >;
    const files = staticClosure(manifest, ["index.html", "src/features/borrow/borrow-page.tsx"]);
    const sizes = [...files].map((file) => ({ file, gzip: gzipSync(readFileSync(join(dir!, file))).length }));
    const total = sizes.reduce((n, s) => n + s.gzip, 0);
    console.log(
      `first load of /borrow: ${(total / KB).toFixed(1)} KB gzip in ${files.size} files (budget ${FIRST_LOAD_GZIP_BUDGET_BYTES / KB} KB)`,
    );
    const over = total - FIRST_LOAD_GZIP_BUDGET_BYTES;
    expect(
      over,
      `bundle budget broken: first load of /borrow ${(total / KB).toFixed(1)} KB gzip > ${FIRST_LOAD_GZIP_BUDGET_BYTES / KB} KB (+${(over / KB).toFixed(1)} KB): ${sizes
        .sort((a, b) => b.gzip - a.gzip)
        .slice(0, 5)
        .map((s) => `${s.file} ${(s.gzip / KB).toFixed(1)} KB`)
        .join(", ")}`,
    ).toBeLessThanOrEqual(0);
  }, 300_000);
});
