import { defineConfig } from "vitest/config";

// One runner for the whole repo: every workspace with a vitest.config.ts is a project, and scripts/ (repo checks).
export default defineConfig({
  test: {
    projects: ["packages/*", "programs/*", "apps/*", "scripts"],
  },
});
