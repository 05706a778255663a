import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Database, localnet and load tests share a 2-core machine with the rest of the repo's suite.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // one migrated PGlite data directory per run, loaded by each test's own in-memory database
    globalSetup: ["test/global-setup.ts"],
  },
});
