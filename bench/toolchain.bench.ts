// C toolchain figures: compile/link time of every program, and compute units of the u128.h divides
// (measured in-process with litesvm: K divides minus 1 divide, over 100).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { buildProgram, buildSources, getClangVersion, getRepoRoot, listPrograms } from "@cistern/toolchain";
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";

const root = getRepoRoot();
console.log(`compiler: ${await getClangVersion()}`);
const out = mkdtempSync(join(tmpdir(), "cistern-bench-"));
try {
  for (const name of listPrograms(root)) {
    const t0 = performance.now();
    const r = await buildProgram({ name, repoRoot: root, outFile: join(out, `${name}.so`) });
    const ms = performance.now() - t0;
    console.log(
      `build ${name.padEnd(12)} ${ms.toFixed(0).padStart(6)} ms  ${r.so.length} B (${r.textBytes / 8} instructions)`,
    );
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

const { so } = await buildSources({
  cwd: join(root, "programs/toolchain"),
  sources: ["test/fixtures/u128-ops.c", "c/libsol.c"],
  includeDirs: ["c"],
});
const svm = new LiteSVM();
const payer = await generateKeyPairSigner();
svm.airdrop(payer.address, lamports(10_000_000_000n));
const programId = (await generateKeyPairSigner()).address;
svm.addProgram(programId, so);

const le = (v: bigint, n: number): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return b;
};
async function cu(op: number, k: bigint, n: bigint, d: bigint): Promise<bigint> {
  const data = Buffer.concat([Buffer.from([op]), le(k, 8), le(n, 16), le(d, 16)]);
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
    (m) => appendTransactionMessageInstructions([{ programAddress: programId, accounts: [], data }], m),
    (m) => signTransactionMessageWithSigners(m),
  );
  const res = svm.sendTransaction(tx);
  svm.expireBlockhash();
  if (res instanceof FailedTransactionMetadata) throw new Error(String(res.err()));
  return res.computeUnitsConsumed();
}
const n = 0x1234_5678_9abc_def0_0fed_cba9_8765_4321n;
const cases: [string, number, bigint][] = [
  ["u128_divmod 128/128", 100, 0x0000_0001_2345_6789_abcd_ef01_2345_6789n],
  ["u128_divmod 128/64", 100, 0xfedc_ba98_7654_3210n],
  ["u128_div64", 101, 0xfedc_ba98_7654_3210n],
];
for (const [label, op, d] of cases) {
  const per = Number((await cu(op, 101n, n, d)) - (await cu(op, 1n, n, d))) / 100;
  console.log(`${label.padEnd(22)} ${per.toFixed(1).padStart(7)} CU per divide`);
}
