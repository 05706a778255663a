// u128.h checked against BigInt on random and edge-case inputs, evaluated on-chain in batches via return data.
import type { Address } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import { buildFixture } from "./helpers/build-fixture.ts";
import { addProgram, createHarness, type Harness, readU64s, send } from "./helpers/svm.ts";

const M64 = (1n << 64n) - 1n;
const M128 = (1n << 128n) - 1n;

/** Deterministic xorshift64* PRNG so failures reproduce. */
function createRng(seed: bigint): (bits: number) => bigint {
  let s = seed & M64 || 1n;
  const next64 = (): bigint => {
    s ^= s >> 12n;
    s ^= (s << 25n) & M64;
    s ^= s >> 27n;
    return (s * 0x2545f4914f6cdd1dn) & M64;
  };
  return (bits) => {
    if (bits <= 0) return 0n;
    const v = (next64() << 64n) | next64();
    return v >> BigInt(128 - bits);
  };
}

const EDGES64 = [0n, 1n, 2n, 3n, 0xffffffffn, 0x100000000n, 0x100000001n, 1n << 63n, M64 - 1n, M64];
const EDGES128 = [
  ...EDGES64,
  1n << 64n,
  (1n << 64n) + 1n,
  M128,
  M128 - 1n,
  1n << 127n,
  (M64 << 64n) | 1n,
  M64 << 64n,
];

/** A value of a random bit length (so small, mid and full-width numbers all appear), or an edge case. */
function createValueSource(seed: bigint, maxBits: 64 | 128): (nonZero?: boolean) => bigint {
  const rng = createRng(seed);
  const edges = maxBits === 64 ? EDGES64 : EDGES128;
  return (nonZero = false) => {
    for (;;) {
      const pick = Number(rng(8));
      const v =
        pick < 40
          ? edges[pick % edges.length]!
          : rng(1 + (Number(rng(16)) % maxBits)) ^ (pick & 1 ? 0n : rng(3));
      if (!nonZero || v !== 0n) return v;
    }
  };
}

const le = (v: bigint, bytes: number): Buffer => {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) b[i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return b;
};
const words = (data: Uint8Array): bigint[] => readU64s(data);
const u128Of = (lo: bigint, hi: bigint): bigint => (hi << 64n) | lo;

let h: Harness;
let programId: Address;
beforeAll(async () => {
  const { so } = await buildFixture(["u128-ops"]);
  h = await createHarness();
  programId = await addProgram(h, so);
});

/** Runs `op` on every record (batched to fit a transaction and 1024 bytes of return data). */
async function evaluate(op: number, records: Buffer[], outBytes: number): Promise<Buffer[]> {
  const inBytes = records[0]!.length;
  const perTx = Math.min(Math.floor(900 / inBytes), Math.floor(1024 / outBytes), 255);
  const results: Buffer[] = [];
  for (let i = 0; i < records.length; i += perTx) {
    const batch = records.slice(i, i + perTx);
    const data = Buffer.concat([Buffer.from([op, batch.length]), ...batch]);
    const res = await send(h, [{ programAddress: programId, accounts: [], data }]);
    const out = Buffer.from(res.returnData().data());
    expect(out.length).toBe(batch.length * outBytes);
    for (let j = 0; j < batch.length; j++) results.push(out.subarray(j * outBytes, (j + 1) * outBytes));
  }
  return results;
}

const CASES = 400;

describe("u128.h against BigInt", () => {
  it("u128_mul64: 64x64 -> 128", async () => {
    const v = createValueSource(1n, 64);
    const inputs = Array.from({ length: CASES }, () => [v(), v()] as const);
    const out = await evaluate(
      0,
      inputs.map(([a, b]) => Buffer.concat([le(a, 8), le(b, 8)])),
      16,
    );
    inputs.forEach(([a, b], i) => {
      const [lo, hi] = words(out[i]!);
      expect(u128Of(lo!, hi!), `${a} * ${b}`).toBe(a * b);
    });
  });

  it("u128_add / u128_sub with carry and borrow flags, u128_cmp", async () => {
    const v = createValueSource(2n, 128);
    const inputs = Array.from({ length: CASES }, () => [v(), v()] as const);
    const recs = inputs.map(([a, b]) => Buffer.concat([le(a, 16), le(b, 16)]));
    const [adds, subs, cmps] = [
      await evaluate(1, recs, 24),
      await evaluate(2, recs, 24),
      await evaluate(3, recs, 8),
    ];
    inputs.forEach(([a, b], i) => {
      const [alo, ahi, aof] = words(adds[i]!);
      expect([u128Of(alo!, ahi!), aof], `${a} + ${b}`).toEqual([(a + b) & M128, a + b > M128 ? 1n : 0n]);
      const [slo, shi, suf] = words(subs[i]!);
      expect([u128Of(slo!, shi!), suf], `${a} - ${b}`).toEqual([(a - b) & M128, a < b ? 1n : 0n]);
      expect(BigInt.asIntN(64, words(cmps[i]!)[0]!), `cmp ${a} ${b}`).toBe(a < b ? -1n : a > b ? 1n : 0n);
    });
  });

  it("u128_mul_u64: 128x64 with overflow flag", async () => {
    const a128 = createValueSource(3n, 128);
    const b64 = createValueSource(4n, 64);
    const inputs = Array.from({ length: CASES }, () => [a128(), b64()] as const);
    const out = await evaluate(
      8,
      inputs.map(([a, b]) => Buffer.concat([le(a, 16), le(b, 8)])),
      24,
    );
    inputs.forEach(([a, b], i) => {
      const [lo, hi, of] = words(out[i]!);
      expect([u128Of(lo!, hi!), of], `${a} * ${b}`).toEqual([(a * b) & M128, a * b > M128 ? 1n : 0n]);
    });
  });

  it("u128_div64: 128/64 with a 64-bit quotient (false on overflow and division by zero)", async () => {
    const n128 = createValueSource(5n, 128);
    const d64 = createValueSource(6n, 64);
    const inputs = Array.from({ length: CASES }, (_, i) => {
      const d = d64();
      // half the cases keep n < d * 2^64 so the quotient fits and the divide really runs
      const n = i % 2 === 0 && d > 0n ? n128() % (d << 64n) : n128();
      return [n, d] as const;
    });
    const out = await evaluate(
      4,
      inputs.map(([n, d]) => Buffer.concat([le(n, 16), le(d, 8)])),
      24,
    );
    let divided = 0;
    inputs.forEach(([n, d], i) => {
      const [ok, q, r] = words(out[i]!);
      if (d === 0n || n >> 64n >= d) {
        expect(ok, `${n} / ${d} must refuse`).toBe(0n);
      } else {
        divided++;
        expect([ok, q, r], `${n} / ${d}`).toEqual([1n, n / d, n % d]);
      }
    });
    expect(divided).toBeGreaterThan(CASES / 2);
  });

  it("u128_divmod64: any 128-bit numerator over a 64-bit divisor", async () => {
    const n128 = createValueSource(7n, 128);
    const d64 = createValueSource(8n, 64);
    const inputs = Array.from({ length: CASES }, () => [n128(), d64()] as const);
    const out = await evaluate(
      5,
      inputs.map(([n, d]) => Buffer.concat([le(n, 16), le(d, 8)])),
      32,
    );
    inputs.forEach(([n, d], i) => {
      const [ok, qlo, qhi, r] = words(out[i]!);
      if (d === 0n) expect(ok).toBe(0n);
      else expect([ok, u128Of(qlo!, qhi!), r], `${n} / ${d}`).toEqual([1n, n / d, n % d]);
    });
  });

  it("u128_divmod: full 128/128 (incl. divisors >= 2^64 and quotient-correction cases)", async () => {
    const v = createValueSource(9n, 128);
    const rng = createRng(10n);
    const inputs = Array.from({ length: CASES * 2 }, (_, i) => {
      const d = v();
      if (i % 3 === 0 && d > 0n) {
        // n just around a multiple of d: exercises the estimate's +-1 correction
        const k = rng(1 + (Number(rng(7)) % 64)) + 1n;
        const n = (d * k + (rng(2) - 1n)) & M128;
        return [n, d] as const;
      }
      return [v(), d] as const;
    });
    const out = await evaluate(
      6,
      inputs.map(([n, d]) => Buffer.concat([le(n, 16), le(d, 16)])),
      40,
    );
    let wide = 0;
    inputs.forEach(([n, d], i) => {
      const [ok, qlo, qhi, rlo, rhi] = words(out[i]!);
      if (d === 0n) {
        expect(ok).toBe(0n);
        return;
      }
      if (d >> 64n) wide++;
      expect([ok, u128Of(qlo!, qhi!), u128Of(rlo!, rhi!)], `${n} / ${d}`).toEqual([1n, n / d, n % d]);
    });
    expect(wide).toBeGreaterThan(CASES / 4);
  });

  it("u128_ceil_div rounds up exactly when there is a remainder", async () => {
    const v = createValueSource(11n, 128);
    const inputs = Array.from({ length: CASES }, () => [v(), v(true)] as const);
    const out = await evaluate(
      7,
      inputs.map(([n, d]) => Buffer.concat([le(n, 16), le(d, 16)])),
      24,
    );
    inputs.forEach(([n, d], i) => {
      const [ok, lo, hi] = words(out[i]!);
      expect([ok, u128Of(lo!, hi!)], `ceil(${n} / ${d})`).toEqual([1n, (n + d - 1n) / d]);
    });
  });

  it("mul_div_u64 (floor) and mul_div_ceil_u64 (ceil), false when the result exceeds u64", async () => {
    const v = createValueSource(12n, 64);
    const inputs = Array.from({ length: CASES }, () => [v(), v(), v()] as const);
    const out = await evaluate(
      9,
      inputs.map(([a, b, d]) => Buffer.concat([le(a, 8), le(b, 8), le(d, 8)])),
      32,
    );
    inputs.forEach(([a, b, d], i) => {
      const [okf, f, okc, c] = words(out[i]!);
      if (d === 0n) {
        expect([okf, okc]).toEqual([0n, 0n]);
        return;
      }
      const floor = (a * b) / d;
      const ceil = (a * b + d - 1n) / d;
      expect(okf === 1n ? f : null, `floor(${a}*${b}/${d})`).toBe(floor <= M64 ? floor : null);
      expect(okc === 1n ? c : null, `ceil(${a}*${b}/${d})`).toBe(ceil <= M64 ? ceil : null);
    });
  });

  it("sdiv64 truncates toward zero; u64_nlz; ceil_div_u64", async () => {
    const v = createValueSource(13n, 64);
    const pairs = Array.from({ length: CASES }, () => [v(), v(true)] as const).filter(
      ([a, b]) => !(a === 1n << 63n && b === M64), // i64::MIN / -1 overflows, as in C
    );
    const sd = await evaluate(
      10,
      pairs.map(([a, b]) => Buffer.concat([le(a, 8), le(b, 8)])),
      8,
    );
    pairs.forEach(([a, b], i) => {
      const q = BigInt.asIntN(64, a) / BigInt.asIntN(64, b); // BigInt division truncates toward zero
      expect(BigInt.asIntN(64, words(sd[i]!)[0]!), `${BigInt.asIntN(64, a)} / ${BigInt.asIntN(64, b)}`).toBe(
        q,
      );
    });
    const xs = pairs.map(([a]) => a);
    const nlz = await evaluate(
      11,
      xs.map((x) => le(x, 8)),
      8,
    );
    xs.forEach((x, i) => {
      expect(words(nlz[i]!)[0], `nlz ${x}`).toBe(x === 0n ? 64n : BigInt(64 - x.toString(2).length));
    });
    const cd = await evaluate(
      12,
      pairs.map(([a, b]) => Buffer.concat([le(a, 8), le(b, 8)])),
      8,
    );
    pairs.forEach(([a, b], i) => {
      expect(words(cd[i]!)[0], `ceil(${a}/${b})`).toBe((a + b - 1n) / b);
    });
  });

  it("costs few compute units per divide (measured by K repetitions)", async () => {
    const run = async (op: number, k: bigint, n: bigint, d: bigint): Promise<bigint> => {
      const data = Buffer.concat([Buffer.from([op]), le(k, 8), le(n, 16), le(d, 16)]);
      return (await send(h, [{ programAddress: programId, accounts: [], data }])).computeUnitsConsumed();
    };
    const n = 0x1234_5678_9abc_def0_0fed_cba9_8765_4321n;
    const perDivide = async (op: number, d: bigint): Promise<number> =>
      Number((await run(op, 101n, n, d)) - (await run(op, 1n, n, d))) / 100;
    const cu128 = await perDivide(100, 0x0000_0001_2345_6789_abcd_ef01_2345_6789n);
    const cu128by64 = await perDivide(100, 0xfedc_ba98_7654_3210n);
    const cu64 = await perDivide(101, 0xfedc_ba98_7654_3210n);
    console.log(`u128 divide CU: 128/128 ${cu128}, 128/64 via u128_divmod ${cu128by64}, u128_div64 ${cu64}`);
    // the prototype's bit-serial loop cost about 1,500 CU per divide
    expect(cu128).toBeLessThan(400);
    expect(cu64).toBeLessThan(300);
  });
});
