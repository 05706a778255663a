import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // tests compile C with clang-19 and spawn the CLI: generous limits for a loaded 2-core CI machine
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
