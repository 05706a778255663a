import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Tests drive a real localnet over JSON-RPC (program deploy, demo seeding): seconds, not milliseconds.
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
