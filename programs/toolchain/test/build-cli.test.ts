// The build command on a scratch monorepo: discovery, reproducibility across checkout paths, --check, errors.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildProgram, listPrograms } from "../src/index.ts";
import { TOOLCHAIN_DIR } from "./helpers/build-fixture.ts";
import { addProgram, createHarness, readU64s, send } from "./helpers/svm.ts";

const TSX_CLI = createRequire(import.meta.url).resolve("tsx/cli");
const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

const DEMO_MAIN = `#include "sol.h"
#include "helper.h"
u64 entrypoint(const u8 *input) {
  SolAccountInfo ka[1];
  SolParameters p = {.ka = ka};
  u64 r = sol_deserialize(input, &p, 1);
  if (r) return r;
  u64 v = demo_helper(p.data_len);
  sol_set_return_data((const u8 *)&v, 8);
  sol_assert(v != 0);
  return SUCCESS;
}
`;
const DEMO_HELPER_H = '#pragma once\n#include "sol.h"\nu64 demo_helper(u64 x);\n';
const DEMO_HELPER_C =
  '#include "helper.h"\n#include "u128.h"\nu64 demo_helper(u64 x) { return ceil_div_u64(x * 3, 2) + 1; }\n';

/** A minimal monorepo: programs/toolchain (our c/ and src/), programs/demo (two .c files), programs/empty. */
function createScratchRepo(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(root);
  for (const part of ["c", "src"])
    cpSync(join(TOOLCHAIN_DIR, part), join(root, "programs/toolchain", part), { recursive: true });
  mkdirSync(join(root, "programs/demo/src"), { recursive: true });
  writeFileSync(join(root, "programs/demo/src/main.c"), DEMO_MAIN);
  writeFileSync(join(root, "programs/demo/src/helper.c"), DEMO_HELPER_C);
  writeFileSync(join(root, "programs/demo/src/helper.h"), DEMO_HELPER_H);
  mkdirSync(join(root, "programs/empty"), { recursive: true });
  return root;
}

function runCli(root: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(
    process.execPath,
    [TSX_CLI, join(root, "programs/toolchain/src/build-cli.ts"), ...args],
    {
      cwd: root,
      env,
      encoding: "utf8",
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("build-cli", () => {
  it("builds every program with src/*.c, reproducibly across checkout paths and runs", async () => {
    const a = createScratchRepo("cistern-build-a-");
    const b = createScratchRepo("cistern-build-other-path-");
    expect(listPrograms(a)).toEqual(["demo"]);
    const first = runCli(a, []);
    expect(first.stderr).toBe("");
    expect(first.stdout).toMatch(/^built {3}programs\/demo\/build\/demo\.so \(\d+ B;/);
    expect(first.status).toBe(0);
    const soA = readFileSync(join(a, "programs/demo/build/demo.so"));
    expect(runCli(a, ["demo"]).status).toBe(0);
    expect(readFileSync(join(a, "programs/demo/build/demo.so")).equals(soA)).toBe(true);
    const fromB = await buildProgram({ name: "demo", repoRoot: b });
    expect(fromB.so.equals(soA)).toBe(true);
    expect(fromB.sources).toEqual([
      "programs/demo/src/helper.c",
      "programs/demo/src/main.c",
      "programs/toolchain/c/libsol.c",
    ]);
    // no absolute path leaks into the binary (sol_assert embeds __FILE__)
    expect(soA.includes(Buffer.from(a))).toBe(false);
    expect(soA.includes(Buffer.from("programs/demo/src/main.c"))).toBe(true);
    const h = await createHarness();
    const programId = await addProgram(h, soA);
    const res = await send(h, [{ programAddress: programId, accounts: [], data: new Uint8Array(4) }]);
    expect(readU64s(res.returnData().data())).toEqual([7n]); // ceil(4 * 3 / 2) + 1
  });

  it("--check passes on a fresh build and fails naming the file when bytes differ or it is missing", () => {
    const root = createScratchRepo("cistern-check-");
    expect(runCli(root, []).status).toBe(0);
    const ok = runCli(root, ["--check"]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("ok      programs/demo/build/demo.so");

    const soPath = join(root, "programs/demo/build/demo.so");
    const tampered = readFileSync(soPath);
    tampered[300] = (tampered[300]! ^ 0xff) & 0xff;
    writeFileSync(soPath, tampered);
    const bad = runCli(root, ["--check"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("DIFFERS programs/demo/build/demo.so");
    expect(bad.stderr).toContain("first difference at byte 300");
    expect(bad.stderr).toMatch(
      /1 program\(s\) differ from their committed \.so \(compiler: .*clang version 19\./,
    );
    expect(readFileSync(soPath).equals(tampered)).toBe(true); // --check never writes

    rmSync(soPath);
    const missing = runCli(root, ["--check", "demo"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("programs/demo/build/demo.so: not committed");
  });

  it("fails with a clear message when clang-19 is not installed", () => {
    const root = createScratchRepo("cistern-noclang-");
    const bin = mkdtempSync(join(tmpdir(), "cistern-bin-"));
    scratch.push(bin);
    symlinkSync(process.execPath, join(bin, "node"));
    const r = runCli(root, ["--check"], { ...process.env, PATH: bin });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("clang-19 not found on PATH: install it with 'apt-get install -y clang-19'");
  });

  it("buildProgram refuses a program without sources", async () => {
    const root = createScratchRepo("cistern-api-");
    await expect(buildProgram({ name: "empty", repoRoot: root })).rejects.toThrow(
      "programs/empty/src has no .c files",
    );
  });

  it("rejects unknown programs and options", () => {
    const root = createScratchRepo("cistern-args-");
    const unknown = runCli(root, ["nope"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("no folder programs/nope");
    const empty = runCli(root, ["empty"]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain("programs/empty/src has no .c files");
    const flag = runCli(root, ["--fast"]);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain("unknown option --fast");
  });

  it("reports compiler errors with file and line and writes nothing", () => {
    const root = createScratchRepo("cistern-cc-error-");
    writeFileSync(
      join(root, "programs/demo/src/main.c"),
      `${DEMO_MAIN}\nu64 broken(void) { return undeclared_thing; }\n`,
    );
    const r = runCli(root, ["demo"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /clang-19 failed on programs\/demo\/src\/main\.c:\n.*main\.c:\d+:\d+: error: use of undeclared identifier 'undeclared_thing'/,
    );
    expect(existsSync(join(root, "programs/demo/build"))).toBe(false);
  });

  it("reports link errors (mutable global) and writes nothing", () => {
    const root = createScratchRepo("cistern-link-error-");
    writeFileSync(join(root, "programs/demo/src/state.c"), '#include "sol.h"\nu64 total_loans;\n');
    const r = runCli(root, ["demo"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("programs/demo/src/state.c: mutable global data in section .bss");
    expect(r.stderr).toContain("total_loans");
    expect(existsSync(dirname(join(root, "programs/demo/build/demo.so")))).toBe(false);
  });
});
