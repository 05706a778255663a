import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { SlowestFirstSequencer } from "./vitest.sequencer.ts";

// One runner for the whole repo: every workspace with a vitest.config.ts is a project, and scripts/ (repo checks).
export default defineConfig({
  test: {
    projects: ["packages/*", "programs/*", "apps/*", "scripts"],
    // one test file per core: vitest's default for `run` is cores - 1, one worker on the 2-core CI machine, while
    // most of a localnet or browser file's time is spent waiting on slots, servers and Chromium
    maxWorkers: availableParallelism(),
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
