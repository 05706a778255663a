/**
 * Web bundle benchmark: JavaScript loaded by the first page (gzip) for the production build of
 * apps/web and for a bare React + wallet-adapter starter (bench/fixtures/wallet-starter) built in the
 * same run with the same Vite; plus largest contentful paint of the app's Borrow page on localhost, measured in
 * headless Chromium with PerformanceObserver. Targets: <= 250 KB gzip, <= 1.5x the starter, LCP < 1.0 s.
 */
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import type { Browser } from "playwright-core";
import { build } from "vite";
import { buildWebApp, launchChromium, makeTempDir, removeDir } from "../apps/web/e2e/harness.ts";
import { startWebServer } from "../apps/web/server.ts";
import { parseRuntimeConfig } from "../apps/web/src/config/runtime-config.ts";

const benchDir = dirname(fileURLToPath(import.meta.url));
const KB = 1024;
const BUDGET_GZIP_BYTES = 250 * KB;
const MAX_RATIO = 1.5;
const LCP_BUDGET_MS = 1000;
const LCP_RUNS = 7;

async function buildStarter(outDir: string): Promise<void> {
  process.env.NODE_ENV = "production";
  await build({
    root: join(benchDir, "fixtures", "wallet-starter"),
    configFile: false,
    mode: "production",
    plugins: [react()],
    logLevel: "warn",
    build: { outDir, emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 900 },
  });
  await writeFile(join(outDir, "build-id.json"), JSON.stringify({ buildId: "starter" }));
}

interface PageLoad {
  /** Gzip bytes of every script the page loaded (same origin) up to its load event, by file. */
  scripts: Map<string, number>;
  /** Scripts fetched after the load event: other pages' code prefetched for links on screen. */
  prefetched: Map<string, number>;
  lcpMs: number;
}

/** Opens `url` in a fresh context; collects loaded scripts (gzip size) and the LCP. */
async function loadPage(browser: Browser, url: string): Promise<PageLoad> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const scripts = new Map<string, number>();
  const prefetched = new Map<string, number>();
  const pending: Promise<void>[] = [];
  // scripts asked for after the load event are link prefetches of other pages (idle time), counted apart
  let loaded = false;
  const afterLoad = new Set<unknown>();
  page.once("load", () => {
    loaded = true;
  });
  page.on("request", (request) => {
    if (loaded) afterLoad.add(request);
  });
  page.on("response", (response) => {
    if (
      response.request().resourceType() !== "script" ||
      new URL(response.url()).origin !== new URL(url).origin
    )
      return;
    const into = afterLoad.has(response.request()) ? prefetched : scripts;
    pending.push(
      response.body().then((body) => {
        into.set(new URL(response.url()).pathname, gzipSync(body).length);
      }),
    );
  });
  await page.goto(url, { waitUntil: "networkidle" });
  await Promise.all(pending);
  const lcpMs = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new PerformanceObserver((list) => {
          const entries = list.getEntries();
          resolve(entries[entries.length - 1]!.startTime);
        }).observe({ type: "largest-contentful-paint", buffered: true });
      }),
  );
  await context.close();
  return { scripts, prefetched, lcpMs };
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const kb = (bytes: number) => `${(bytes / KB).toFixed(1)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const appDir = await makeTempDir("cistern-bench-web-");
const starterDir = await makeTempDir("cistern-bench-starter-");
let browser: Browser | undefined;
const servers: { close(): Promise<void> }[] = [];
let failed = false;
try {
  await buildWebApp(appDir, "bench");
  await buildStarter(starterDir);
  const config = parseRuntimeConfig({
    apiUrl: "http://127.0.0.1:9",
    rpcUrl: "http://127.0.0.1:9",
    cluster: "localnet",
  });
  const app = await startWebServer({ port: 0, distDir: appDir, config });
  const starter = await startWebServer({ port: 0, distDir: starterDir, config });
  servers.push(app, starter);
  browser = await launchChromium();

  const starterLoad = await loadPage(browser, starter.url);
  const appLoads: PageLoad[] = [];
  // the Borrow page, the page for LCP (its first screen: heading, lead, tabs, connect prompt)
  for (let i = 0; i < LCP_RUNS; i++) appLoads.push(await loadPage(browser, `${app.url}/borrow`));
  const appJs = sum(appLoads[0]!.scripts);
  const starterJs = sum(starterLoad.scripts);
  const ratio = appJs / starterJs;
  const lcp = median(appLoads.map((l) => l.lcpMs));

  console.log("first-page JavaScript (gzip, as loaded by Chromium):");
  for (const [file, bytes] of appLoads[0]!.scripts) console.log(`  app      ${file}  ${kb(bytes)}`);
  for (const [file, bytes] of starterLoad.scripts) console.log(`  starter  ${file}  ${kb(bytes)}`);
  console.log(`app total:      ${kb(appJs)}  (budget ${kb(BUDGET_GZIP_BYTES)})`);
  console.log(`prefetched after load (other pages, idle time): ${kb(sum(appLoads[0]!.prefetched))}`);
  console.log(`starter total:  ${kb(starterJs)}`);
  console.log(`ratio:          ${ratio.toFixed(2)}x  (budget ${MAX_RATIO}x)`);
  console.log(
    `LCP of /borrow (localhost, median of ${LCP_RUNS}): ${lcp.toFixed(0)} ms  [${appLoads.map((l) => l.lcpMs.toFixed(0)).join(", ")}]  (budget ${LCP_BUDGET_MS} ms)`,
  );
  failed = appJs > BUDGET_GZIP_BYTES || ratio > MAX_RATIO || lcp >= LCP_BUDGET_MS;
  console.log(failed ? "RESULT: over budget" : "RESULT: within budget");
} finally {
  await browser?.close();
  for (const server of servers) await server.close();
  await removeDir(appDir);
  await removeDir(starterDir);
}
process.exit(failed ? 1 : 0);
