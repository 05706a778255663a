import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { build } from "vite";

export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const TEST_OUTPUT_DIR = join(WEB_ROOT, "test-output");

/** Chromium flags for headless runs on Debian's /usr/bin/chromium (never a downloaded browser). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches headless Debian Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** A fresh temp directory under os.tmpdir(). */
export function makeTempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** Production build of apps/web into `outDir` with a fixed build id. */
export async function buildWebApp(outDir: string, buildId: string): Promise<void> {
  const previous = process.env.CISTERN_BUILD_ID;
  const previousNodeEnv = process.env.NODE_ENV;
  process.env.CISTERN_BUILD_ID = buildId;
  // Vitest sets NODE_ENV=test, which would make vite bundle React's development build.
  process.env.NODE_ENV = "production";
  try {
    await build({
      root: WEB_ROOT,
      mode: "production",
      configFile: join(WEB_ROOT, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = previousNodeEnv;
    if (previous === undefined) delete process.env.CISTERN_BUILD_ID;
    else process.env.CISTERN_BUILD_ID = previous;
  }
}
