#!/usr/bin/env node
// Registers tsx (TypeScript loader) and runs the localnet CLI.
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
