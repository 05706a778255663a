import { defineProject } from "vitest/config";

// Repo-wide checks (import circles) over the workspaces' sources.
export default defineProject({
  test: {
    name: "scripts",
    include: ["*.test.ts"],
  },
});
