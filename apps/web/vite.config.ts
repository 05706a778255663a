import { randomBytes } from "node:crypto";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/**
 * Every build gets an id (CISTERN_BUILD_ID or a fresh random one). It is compiled into the bundle
 * and written to build-id.json, which the app server answers on GET /api/build-id; the client
 * compares the two to show the website-update banner.
 */
function buildIdPlugin(buildId: string): Plugin {
  return {
    name: "cistern-build-id",
    apply: "build",
    generateBundle() {
      this.emitFile({ type: "asset", fileName: "build-id.json", source: JSON.stringify({ buildId }) });
    },
  };
}

export default defineConfig(({ command }) => {
  const buildId =
    process.env.CISTERN_BUILD_ID ??
    (command === "build" ? `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}` : "dev");
  return {
    plugins: [react(), buildIdPlugin(buildId)],
    define: { __CISTERN_BUILD_ID__: JSON.stringify(buildId) },
    build: { target: "es2022", sourcemap: false, chunkSizeWarningLimit: 900 },
  };
});
