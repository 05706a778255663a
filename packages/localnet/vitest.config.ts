import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Tests start real servers (and one child process) on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
