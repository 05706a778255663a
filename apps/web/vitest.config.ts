import react from "@vitejs/plugin-react";
import { defineProject } from "vitest/config";

// Component and unit tests run in jsdom; e2e/*.test.ts declare `@vitest-environment node` and drive
// headless Chromium against a production build, localnet and the app server.
export default defineProject({
  plugins: [react()],
  define: { __CISTERN_BUILD_ID__: JSON.stringify("test-build") },
  test: {
    name: "web",
    environment: "jsdom",
    setupFiles: ["./test/setup.ts"],
    include: ["test/**/*.test.{ts,tsx}", "e2e/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 180_000,
  },
});
