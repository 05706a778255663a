// Build command for the monorepo's C programs:
//   npx tsx programs/toolchain/src/build-cli.ts [program...] [--check]
// Without names it builds every programs/<name>/ that has src/*.c into programs/<name>/build/<name>.so.
// --check rebuilds into a temp dir and exits non-zero naming each .so that differs from its sources.
import { relative } from "node:path";
import { buildProgram } from "./build/build-program.ts";
import { checkProgram } from "./build/check.ts";
import { assertClangAvailable, getClangVersion } from "./build/clang.ts";
import { getRepoRoot, resolveProgramNames } from "./build/programs.ts";
import { isToolchainError, TOOLCHAIN_ERROR_CODES, ToolchainError } from "./errors.ts";

const USAGE = "usage: build-cli.ts [program...] [--check]";

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  const unknownFlag = argv.find((a) => a.startsWith("-") && a !== "--check");
  if (unknownFlag)
    throw new ToolchainError(TOOLCHAIN_ERROR_CODES.BAD_ARGUMENTS, `unknown option ${unknownFlag}\n${USAGE}`);
  const check = argv.includes("--check");
  const repoRoot = getRepoRoot();
  const names = resolveProgramNames(
    repoRoot,
    argv.filter((a) => !a.startsWith("-")),
  );
  await assertClangAvailable();
  if (names.length === 0) {
    console.log("no programs with src/*.c found");
    return 0;
  }
  let failed = 0;
  for (const name of names) {
    if (check) {
      const r = await checkProgram(repoRoot, name);
      if (r.ok) console.log(`ok      ${r.soPath}`);
      else {
        failed++;
        console.error(`DIFFERS ${r.soPath}: ${r.reason}`);
      }
    } else {
      const r = await buildProgram({ name, repoRoot });
      console.log(
        `built   ${relative(repoRoot, r.outFile)} (${r.so.length} B; text ${r.textBytes} B, rodata ${r.rodataBytes} B; syscalls: ${r.syscalls.join(", ")})`,
      );
    }
  }
  if (failed > 0) {
    // the bytes are reproducible for one clang-19 build; a different patch release may emit other code
    console.error(
      `${failed} program(s) differ from their committed .so (compiler: ${await getClangVersion()})`,
    );
  }
  return failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (isToolchainError(e)) console.error(`build-programs: error ${e.code}: ${e.message}`);
    else console.error(e);
    process.exit(2);
  },
);
