// Throughput of @cistern/protocol's money maths: interest, owed interest, fee split, parseUnits.
import {
  computeOwedInterest,
  computeProtocolFee,
  computeRepayment,
  computeTotalInterest,
  formatUnits,
  parseUnits,
} from "@cistern/protocol";

function bench(name: string, iterations: number, fn: (i: number) => unknown): void {
  for (let i = 0; i < 1000; i++) fn(i); // warm-up
  const start = process.hrtime.bigint();
  let sink: unknown;
  for (let i = 0; i < iterations; i++) sink = fn(i);
  const ns = Number(process.hrtime.bigint() - start);
  const perOp = ns / iterations;
  console.log(
    `${name.padEnd(28)} ${(1e9 / perOp).toFixed(0).padStart(10)} ops/s  ${perOp.toFixed(0).padStart(6)} ns/op`,
  );
  if (sink === Symbol.for("never")) console.log(sink);
}

const N = 200_000;
const principal = 123_456_789_000n;
bench("computeTotalInterest", N, (i) =>
  computeTotalInterest({ aprBps: 1000 + (i % 5000), principal, durationSeconds: 86_400 * (1 + (i % 30)) }),
);
bench("computeOwedInterest", N, (i) =>
  computeOwedInterest({
    aprBps: 2500,
    principal,
    durationSeconds: 7 * 86_400,
    createdAt: 1_700_000_000,
    now: 1_700_000_000 + ((i * 977) % (10 * 86_400)),
  }),
);
bench("computeProtocolFee", N, (i) => computeProtocolFee(BigInt(i) * 1_000_003n));
bench("computeRepayment", N, (i) =>
  computeRepayment({ aprBps: 2500, principal, durationSeconds: 7 * 86_400, createdAt: 0, now: i }),
);
bench("parseUnits", N, (i) => parseUnits(`${i}.123456789`, 9));
bench("formatUnits", N, (i) => formatUnits(BigInt(i) * 1_000_000_007n, 9));
