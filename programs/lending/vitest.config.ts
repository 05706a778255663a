import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // LiteSVM tests load programs (marginfi's included) and run seconds of compute each: vitest's 5 s / 10 s
    // defaults timed out 5 tests at load 23 on the 2-core machine (pool, marginfi-delegation)
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
