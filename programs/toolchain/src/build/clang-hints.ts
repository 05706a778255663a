// Turns the BPF backend's terse diagnostics into advice about the SBPF C dialect (see README.md).

const HINTS: [RegExp, string][] = [
  [
    /stack arguments are not supported|too many arguments/,
    "SBPF functions take at most 5 arguments: pass a pointer to a struct instead",
  ],
  [
    /built-in function '__(multi3|udivti3|umodti3|divti3|modti3|lshrti3|ashlti3|ashrti3)'/,
    "__int128 multiply/divide/shift is not available on BPF: use the U128 helpers in u128.h",
  ],
  [/unsupported signed division/, "signed 64-bit division is not in SBPF v0: use sdiv64() from u128.h"],
  [
    /aggregate returns are not supported|only small returns supported/,
    "functions cannot return structs larger than 8 bytes unless inlined: write the result through a pointer argument",
  ],
  [
    /call to undeclared function|implicit declaration of function/,
    "declare every function; syscalls are declared in sol.h",
  ],
];

/** Advice lines for a clang error output (empty when nothing is recognised). */
export function getClangHints(stderr: string): string[] {
  return HINTS.filter(([re]) => re.test(stderr)).map(([, hint]) => `hint: ${hint}`);
}
