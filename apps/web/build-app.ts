/**
 * Programmatic production build of the web app (used by the e2e tests, the bundle benchmark and the
 * root start script). `npx tsx apps/web/build-app.ts [outDir]` builds into apps/web/dist by default.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

export const WEB_ROOT = dirname(fileURLToPath(import.meta.url));

/**
 * Builds apps/web into `outDir` (vite build, production mode). `buildId` is compiled into the bundle
 * and written to build-id.json (the app server answers it on GET /api/build-id); default: a fresh id.
 */
export async function buildWebApp(
  outDir: string,
  buildId?: string,
  options: { manifest?: boolean } = {},
): Promise<void> {
  const previousBuildId = process.env.CISTERN_BUILD_ID;
  const previousNodeEnv = process.env.NODE_ENV;
  if (buildId !== undefined) process.env.CISTERN_BUILD_ID = buildId;
  // A test runner may have set NODE_ENV=test, which would bundle React's development build.
  process.env.NODE_ENV = "production";
  try {
    await build({
      root: WEB_ROOT,
      configFile: join(WEB_ROOT, "vite.config.ts"),
      mode: "production",
      logLevel: "warn",
      // the manifest (.vite/manifest.json) maps each source module to its chunk and imports (bundle-size test)
      build: { outDir: resolve(outDir), emptyOutDir: true, manifest: options.manifest === true },
    });
  } finally {
    if (previousNodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previousNodeEnv;
    if (previousBuildId === undefined) delete process.env.CISTERN_BUILD_ID;
    else process.env.CISTERN_BUILD_ID = previousBuildId;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ?? join(WEB_ROOT, "dist");
  await buildWebApp(outDir);
  console.log(`web app built into ${outDir}`);
}
