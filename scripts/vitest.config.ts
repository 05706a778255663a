import { defineProject } from "vitest/config";

// Repo-wide checks (import circles) over the workspaces' sources.
export default defineProject({
  test: {
    name: "scripts",
    include: ["*.test.ts"],
    // reads and parses every TypeScript file of the repo (~1,000): seconds on a loaded 2-core machine
    testTimeout: 60_000,
  },
});
