import type { ReadonlyUint8Array } from "@solana/kit";

/**
 * Whether 32 bytes are a compressed ed25519 point, the check a PDA search makes for every bump it tries: the
 * same answers as kit's compressedPointBytesAreOnCurve (a property test holds them equal, with the former BigInt
 * version of this check as reference) without BigInt. Field elements mod p = 2^255 - 19 are 16 limbs of 16 bits
 * held in doubles (TweetNaCl's representation): a product's partial sums stay below 2^53, so each operation is
 * exact float arithmetic on preallocated arrays, with no garbage. Three field operations and a Legendre symbol by
 * the binary Jacobi algorithm replace the former 265 BigInt field operations of a square root.
 */

/** A field element: value = sum of limb[i] * 2^(16 i), limbs not necessarily reduced (may be negative). */
type Fe = Float64Array;

const fe = (): Fe => new Float64Array(16);

function feFromBigInt(value: bigint): Fe {
  const o = fe();
  for (let i = 0; i < 16; i++) o[i] = Number((value >> BigInt(16 * i)) & 0xffffn);
  return o;
}

const P = 2n ** 255n - 19n;
const ONE = feFromBigInt(1n);
const D = feFromBigInt(37095705934669439343138083508754565189542113879843219016388785533085940283555n);
const P_LIMBS = feFromBigInt(P);

/** Carries each limb into the next (2^256 = 38 mod p): limbs end in [0, 2^16) but limb 0 (TweetNaCl's car25519). */
function carry(o: Fe): void {
  let c = 1;
  for (let i = 0; i < 16; i++) {
    const v = o[i]! + c + 65535;
    c = Math.floor(v / 65536);
    o[i] = v - c * 65536;
  }
  o[0] = o[0]! + 38 * (c - 1);
}

const LIMB = 65536;
const INV_LIMB = 1 / 65536; // exact: the carries below are a multiplication and a floor, no division

// The products below, written out: t_k is the sum of a_i * b_j over i + j = k (a square counts each cross
// product once, doubled); then 2^256 = 38 mod p folds t_16..t_30 onto t_0..t_14 and one carry pass leaves every
// limb in [0, 2^16) but limb 1 (below 2^17). With inputs so bounded (or a sum or difference of two such), each
// t_k is below 16 * 2^34 = 2^38 in size and each folded limb below 2^44: exact in a double.

/** o = a * b mod p (o may be a or b). */
function mul(o: Fe, a: Fe, b: Fe): void {
  const a0 = a[0]!,
    a1 = a[1]!,
    a2 = a[2]!,
    a3 = a[3]!,
    a4 = a[4]!,
    a5 = a[5]!,
    a6 = a[6]!,
    a7 = a[7]!,
    a8 = a[8]!,
    a9 = a[9]!,
    a10 = a[10]!,
    a11 = a[11]!,
    a12 = a[12]!,
    a13 = a[13]!,
    a14 = a[14]!,
    a15 = a[15]!;
  const b0 = b[0]!,
    b1 = b[1]!,
    b2 = b[2]!,
    b3 = b[3]!,
    b4 = b[4]!,
    b5 = b[5]!,
    b6 = b[6]!,
    b7 = b[7]!,
    b8 = b[8]!,
    b9 = b[9]!,
    b10 = b[10]!,
    b11 = b[11]!,
    b12 = b[12]!,
    b13 = b[13]!,
    b14 = b[14]!,
    b15 = b[15]!;
  const t0 = a0 * b0;
  const t1 = a0 * b1 + a1 * b0;
  const t2 = a0 * b2 + a1 * b1 + a2 * b0;
  const t3 = a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0;
  const t4 = a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0;
  const t5 = a0 * b5 + a1 * b4 + a2 * b3 + a3 * b2 + a4 * b1 + a5 * b0;
  const t6 = a0 * b6 + a1 * b5 + a2 * b4 + a3 * b3 + a4 * b2 + a5 * b1 + a6 * b0;
  const t7 = a0 * b7 + a1 * b6 + a2 * b5 + a3 * b4 + a4 * b3 + a5 * b2 + a6 * b1 + a7 * b0;
  const t8 = a0 * b8 + a1 * b7 + a2 * b6 + a3 * b5 + a4 * b4 + a5 * b3 + a6 * b2 + a7 * b1 + a8 * b0;
  const t9 =
    a0 * b9 + a1 * b8 + a2 * b7 + a3 * b6 + a4 * b5 + a5 * b4 + a6 * b3 + a7 * b2 + a8 * b1 + a9 * b0;
  const t10 =
    a0 * b10 +
    a1 * b9 +
    a2 * b8 +
    a3 * b7 +
    a4 * b6 +
    a5 * b5 +
    a6 * b4 +
    a7 * b3 +
    a8 * b2 +
    a9 * b1 +
    a10 * b0;
  const t11 =
    a0 * b11 +
    a1 * b10 +
    a2 * b9 +
    a3 * b8 +
    a4 * b7 +
    a5 * b6 +
    a6 * b5 +
    a7 * b4 +
    a8 * b3 +
    a9 * b2 +
    a10 * b1 +
    a11 * b0;
  const t12 =
    a0 * b12 +
    a1 * b11 +
    a2 * b10 +
    a3 * b9 +
    a4 * b8 +
    a5 * b7 +
    a6 * b6 +
    a7 * b5 +
    a8 * b4 +
    a9 * b3 +
    a10 * b2 +
    a11 * b1 +
    a12 * b0;
  const t13 =
    a0 * b13 +
    a1 * b12 +
    a2 * b11 +
    a3 * b10 +
    a4 * b9 +
    a5 * b8 +
    a6 * b7 +
    a7 * b6 +
    a8 * b5 +
    a9 * b4 +
    a10 * b3 +
    a11 * b2 +
    a12 * b1 +
    a13 * b0;
  const t14 =
    a0 * b14 +
    a1 * b13 +
    a2 * b12 +
    a3 * b11 +
    a4 * b10 +
    a5 * b9 +
    a6 * b8 +
    a7 * b7 +
    a8 * b6 +
    a9 * b5 +
    a10 * b4 +
    a11 * b3 +
    a12 * b2 +
    a13 * b1 +
    a14 * b0;
  const t15 =
    a0 * b15 +
    a1 * b14 +
    a2 * b13 +
    a3 * b12 +
    a4 * b11 +
    a5 * b10 +
    a6 * b9 +
    a7 * b8 +
    a8 * b7 +
    a9 * b6 +
    a10 * b5 +
    a11 * b4 +
    a12 * b3 +
    a13 * b2 +
    a14 * b1 +
    a15 * b0;
  const t16 =
    a1 * b15 +
    a2 * b14 +
    a3 * b13 +
    a4 * b12 +
    a5 * b11 +
    a6 * b10 +
    a7 * b9 +
    a8 * b8 +
    a9 * b7 +
    a10 * b6 +
    a11 * b5 +
    a12 * b4 +
    a13 * b3 +
    a14 * b2 +
    a15 * b1;
  const t17 =
    a2 * b15 +
    a3 * b14 +
    a4 * b13 +
    a5 * b12 +
    a6 * b11 +
    a7 * b10 +
    a8 * b9 +
    a9 * b8 +
    a10 * b7 +
    a11 * b6 +
    a12 * b5 +
    a13 * b4 +
    a14 * b3 +
    a15 * b2;
  const t18 =
    a3 * b15 +
    a4 * b14 +
    a5 * b13 +
    a6 * b12 +
    a7 * b11 +
    a8 * b10 +
    a9 * b9 +
    a10 * b8 +
    a11 * b7 +
    a12 * b6 +
    a13 * b5 +
    a14 * b4 +
    a15 * b3;
  const t19 =
    a4 * b15 +
    a5 * b14 +
    a6 * b13 +
    a7 * b12 +
    a8 * b11 +
    a9 * b10 +
    a10 * b9 +
    a11 * b8 +
    a12 * b7 +
    a13 * b6 +
    a14 * b5 +
    a15 * b4;
  const t20 =
    a5 * b15 +
    a6 * b14 +
    a7 * b13 +
    a8 * b12 +
    a9 * b11 +
    a10 * b10 +
    a11 * b9 +
    a12 * b8 +
    a13 * b7 +
    a14 * b6 +
    a15 * b5;
  const t21 =
    a6 * b15 +
    a7 * b14 +
    a8 * b13 +
    a9 * b12 +
    a10 * b11 +
    a11 * b10 +
    a12 * b9 +
    a13 * b8 +
    a14 * b7 +
    a15 * b6;
  const t22 =
    a7 * b15 + a8 * b14 + a9 * b13 + a10 * b12 + a11 * b11 + a12 * b10 + a13 * b9 + a14 * b8 + a15 * b7;
  const t23 = a8 * b15 + a9 * b14 + a10 * b13 + a11 * b12 + a12 * b11 + a13 * b10 + a14 * b9 + a15 * b8;
  const t24 = a9 * b15 + a10 * b14 + a11 * b13 + a12 * b12 + a13 * b11 + a14 * b10 + a15 * b9;
  const t25 = a10 * b15 + a11 * b14 + a12 * b13 + a13 * b12 + a14 * b11 + a15 * b10;
  const t26 = a11 * b15 + a12 * b14 + a13 * b13 + a14 * b12 + a15 * b11;
  const t27 = a12 * b15 + a13 * b14 + a14 * b13 + a15 * b12;
  const t28 = a13 * b15 + a14 * b14 + a15 * b13;
  const t29 = a14 * b15 + a15 * b14;
  const t30 = a15 * b15;
  let c = 0;
  const r0 = t0 + 38 * t16 + c;
  c = Math.floor(r0 * INV_LIMB);
  o[0] = r0 - c * LIMB;
  const r1 = t1 + 38 * t17 + c;
  c = Math.floor(r1 * INV_LIMB);
  o[1] = r1 - c * LIMB;
  const r2 = t2 + 38 * t18 + c;
  c = Math.floor(r2 * INV_LIMB);
  o[2] = r2 - c * LIMB;
  const r3 = t3 + 38 * t19 + c;
  c = Math.floor(r3 * INV_LIMB);
  o[3] = r3 - c * LIMB;
  const r4 = t4 + 38 * t20 + c;
  c = Math.floor(r4 * INV_LIMB);
  o[4] = r4 - c * LIMB;
  const r5 = t5 + 38 * t21 + c;
  c = Math.floor(r5 * INV_LIMB);
  o[5] = r5 - c * LIMB;
  const r6 = t6 + 38 * t22 + c;
  c = Math.floor(r6 * INV_LIMB);
  o[6] = r6 - c * LIMB;
  const r7 = t7 + 38 * t23 + c;
  c = Math.floor(r7 * INV_LIMB);
  o[7] = r7 - c * LIMB;
  const r8 = t8 + 38 * t24 + c;
  c = Math.floor(r8 * INV_LIMB);
  o[8] = r8 - c * LIMB;
  const r9 = t9 + 38 * t25 + c;
  c = Math.floor(r9 * INV_LIMB);
  o[9] = r9 - c * LIMB;
  const r10 = t10 + 38 * t26 + c;
  c = Math.floor(r10 * INV_LIMB);
  o[10] = r10 - c * LIMB;
  const r11 = t11 + 38 * t27 + c;
  c = Math.floor(r11 * INV_LIMB);
  o[11] = r11 - c * LIMB;
  const r12 = t12 + 38 * t28 + c;
  c = Math.floor(r12 * INV_LIMB);
  o[12] = r12 - c * LIMB;
  const r13 = t13 + 38 * t29 + c;
  c = Math.floor(r13 * INV_LIMB);
  o[13] = r13 - c * LIMB;
  const r14 = t14 + 38 * t30 + c;
  c = Math.floor(r14 * INV_LIMB);
  o[14] = r14 - c * LIMB;
  const r15 = t15 + c;
  c = Math.floor(r15 * INV_LIMB);
  o[15] = r15 - c * LIMB;
  // 2^256 = 38 mod p: the carry out of the top limb comes back into limb 0, once more carried into limb 1
  const r = o[0]! + 38 * c;
  c = Math.floor(r * INV_LIMB);
  o[0] = r - c * LIMB;
  o[1] = o[1]! + c;
}

/** o = a^2 mod p (o may be a): each cross product once, doubled. */
function square(o: Fe, a: Fe): void {
  const a0 = a[0]!,
    a1 = a[1]!,
    a2 = a[2]!,
    a3 = a[3]!,
    a4 = a[4]!,
    a5 = a[5]!,
    a6 = a[6]!,
    a7 = a[7]!,
    a8 = a[8]!,
    a9 = a[9]!,
    a10 = a[10]!,
    a11 = a[11]!,
    a12 = a[12]!,
    a13 = a[13]!,
    a14 = a[14]!,
    a15 = a[15]!;
  const t0 = a0 * a0;
  const t1 = 2 * a0 * a1;
  const t2 = 2 * a0 * a2 + a1 * a1;
  const t3 = 2 * (a0 * a3 + a1 * a2);
  const t4 = 2 * (a0 * a4 + a1 * a3) + a2 * a2;
  const t5 = 2 * (a0 * a5 + a1 * a4 + a2 * a3);
  const t6 = 2 * (a0 * a6 + a1 * a5 + a2 * a4) + a3 * a3;
  const t7 = 2 * (a0 * a7 + a1 * a6 + a2 * a5 + a3 * a4);
  const t8 = 2 * (a0 * a8 + a1 * a7 + a2 * a6 + a3 * a5) + a4 * a4;
  const t9 = 2 * (a0 * a9 + a1 * a8 + a2 * a7 + a3 * a6 + a4 * a5);
  const t10 = 2 * (a0 * a10 + a1 * a9 + a2 * a8 + a3 * a7 + a4 * a6) + a5 * a5;
  const t11 = 2 * (a0 * a11 + a1 * a10 + a2 * a9 + a3 * a8 + a4 * a7 + a5 * a6);
  const t12 = 2 * (a0 * a12 + a1 * a11 + a2 * a10 + a3 * a9 + a4 * a8 + a5 * a7) + a6 * a6;
  const t13 = 2 * (a0 * a13 + a1 * a12 + a2 * a11 + a3 * a10 + a4 * a9 + a5 * a8 + a6 * a7);
  const t14 = 2 * (a0 * a14 + a1 * a13 + a2 * a12 + a3 * a11 + a4 * a10 + a5 * a9 + a6 * a8) + a7 * a7;
  const t15 = 2 * (a0 * a15 + a1 * a14 + a2 * a13 + a3 * a12 + a4 * a11 + a5 * a10 + a6 * a9 + a7 * a8);
  const t16 = 2 * (a1 * a15 + a2 * a14 + a3 * a13 + a4 * a12 + a5 * a11 + a6 * a10 + a7 * a9) + a8 * a8;
  const t17 = 2 * (a2 * a15 + a3 * a14 + a4 * a13 + a5 * a12 + a6 * a11 + a7 * a10 + a8 * a9);
  const t18 = 2 * (a3 * a15 + a4 * a14 + a5 * a13 + a6 * a12 + a7 * a11 + a8 * a10) + a9 * a9;
  const t19 = 2 * (a4 * a15 + a5 * a14 + a6 * a13 + a7 * a12 + a8 * a11 + a9 * a10);
  const t20 = 2 * (a5 * a15 + a6 * a14 + a7 * a13 + a8 * a12 + a9 * a11) + a10 * a10;
  const t21 = 2 * (a6 * a15 + a7 * a14 + a8 * a13 + a9 * a12 + a10 * a11);
  const t22 = 2 * (a7 * a15 + a8 * a14 + a9 * a13 + a10 * a12) + a11 * a11;
  const t23 = 2 * (a8 * a15 + a9 * a14 + a10 * a13 + a11 * a12);
  const t24 = 2 * (a9 * a15 + a10 * a14 + a11 * a13) + a12 * a12;
  const t25 = 2 * (a10 * a15 + a11 * a14 + a12 * a13);
  const t26 = 2 * (a11 * a15 + a12 * a14) + a13 * a13;
  const t27 = 2 * (a12 * a15 + a13 * a14);
  const t28 = 2 * a13 * a15 + a14 * a14;
  const t29 = 2 * a14 * a15;
  const t30 = a15 * a15;
  let c = 0;
  const r0 = t0 + 38 * t16 + c;
  c = Math.floor(r0 * INV_LIMB);
  o[0] = r0 - c * LIMB;
  const r1 = t1 + 38 * t17 + c;
  c = Math.floor(r1 * INV_LIMB);
  o[1] = r1 - c * LIMB;
  const r2 = t2 + 38 * t18 + c;
  c = Math.floor(r2 * INV_LIMB);
  o[2] = r2 - c * LIMB;
  const r3 = t3 + 38 * t19 + c;
  c = Math.floor(r3 * INV_LIMB);
  o[3] = r3 - c * LIMB;
  const r4 = t4 + 38 * t20 + c;
  c = Math.floor(r4 * INV_LIMB);
  o[4] = r4 - c * LIMB;
  const r5 = t5 + 38 * t21 + c;
  c = Math.floor(r5 * INV_LIMB);
  o[5] = r5 - c * LIMB;
  const r6 = t6 + 38 * t22 + c;
  c = Math.floor(r6 * INV_LIMB);
  o[6] = r6 - c * LIMB;
  const r7 = t7 + 38 * t23 + c;
  c = Math.floor(r7 * INV_LIMB);
  o[7] = r7 - c * LIMB;
  const r8 = t8 + 38 * t24 + c;
  c = Math.floor(r8 * INV_LIMB);
  o[8] = r8 - c * LIMB;
  const r9 = t9 + 38 * t25 + c;
  c = Math.floor(r9 * INV_LIMB);
  o[9] = r9 - c * LIMB;
  const r10 = t10 + 38 * t26 + c;
  c = Math.floor(r10 * INV_LIMB);
  o[10] = r10 - c * LIMB;
  const r11 = t11 + 38 * t27 + c;
  c = Math.floor(r11 * INV_LIMB);
  o[11] = r11 - c * LIMB;
  const r12 = t12 + 38 * t28 + c;
  c = Math.floor(r12 * INV_LIMB);
  o[12] = r12 - c * LIMB;
  const r13 = t13 + 38 * t29 + c;
  c = Math.floor(r13 * INV_LIMB);
  o[13] = r13 - c * LIMB;
  const r14 = t14 + 38 * t30 + c;
  c = Math.floor(r14 * INV_LIMB);
  o[14] = r14 - c * LIMB;
  const r15 = t15 + c;
  c = Math.floor(r15 * INV_LIMB);
  o[15] = r15 - c * LIMB;
  // 2^256 = 38 mod p: the carry out of the top limb comes back into limb 0, once more carried into limb 1
  const r = o[0]! + 38 * c;
  c = Math.floor(r * INV_LIMB);
  o[0] = r - c * LIMB;
  o[1] = o[1]! + c;
}

function add(o: Fe, a: Fe, b: Fe): void {
  for (let i = 0; i < 16; i++) o[i] = a[i]! + b[i]!;
}

function sub(o: Fe, a: Fe, b: Fe): void {
  for (let i = 0; i < 16; i++) o[i] = a[i]! - b[i]!;
}

/** o = the value of a in [0, p), limbs in [0, 2^16). */
function canonical(o: Fe, a: Fe): void {
  o.set(a);
  carry(o);
  carry(o);
  carry(o);
  // now 0 <= value < 2^256 with limbs in [0, 2^16): subtract p while it fits (at most twice)
  for (let round = 0; round < 2; round++) {
    let borrow = 0;
    const m = scratchM;
    for (let i = 0; i < 16; i++) {
      const v = o[i]! - P_LIMBS[i]! - borrow;
      borrow = v < 0 ? 1 : 0;
      m[i] = v + borrow * 65536;
    }
    if (borrow === 0) o.set(m);
  }
}

function equal(a: Fe, b: Fe): boolean {
  canonical(ca, a);
  canonical(cb, b);
  for (let i = 0; i < 16; i++) if (ca[i] !== cb[i]) return false;
  return true;
}

const scratchM = fe();
const ca = fe();
const cb = fe();

// The Jacobi symbol (a | p) by the binary algorithm, on 8 words of 32 bits (values below 2^256).
const P_WORDS = new Uint32Array(8);
for (let i = 0; i < 8; i++) P_WORDS[i] = Number((P >> BigInt(32 * i)) & 0xffffffffn);
const wordsA = new Uint32Array(8);
const wordsN = new Uint32Array(8);

// The words at and above `len` are zero in both numbers (they shrink as the algorithm runs).

/** -1, 0 or 1 as x < y, x = y, x > y. */
function compareWords(x: Uint32Array, y: Uint32Array, len: number): number {
  for (let i = len - 1; i >= 0; i--) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

/** x -= y (x >= y). */
function subtractWords(x: Uint32Array, y: Uint32Array, len: number): void {
  let borrow = 0;
  for (let i = 0; i < len; i++) {
    const d = x[i]! - y[i]! - borrow;
    borrow = d < 0 ? 1 : 0;
    x[i] = d; // stored mod 2^32
  }
}

/** Shifts the non-zero x right past its trailing zero bits; returns how many there were. */
function stripTwos(x: Uint32Array, len: number): number {
  let words = 0;
  while (x[words] === 0) words++;
  const low = x[words]!;
  const bits = 31 - Math.clz32(low & -low);
  const last = len - 1;
  for (let i = 0; i < len; i++) {
    const lo = i + words <= last ? x[i + words]! : 0;
    const hi = i + words < last ? x[i + words + 1]! : 0;
    x[i] = bits === 0 ? lo : (lo >>> bits) | (hi << (32 - bits));
  }
  return 32 * words + bits;
}

/** (2 | n) to the power `twos`: -1 exactly when `twos` is odd and n = 3 or 5 mod 8. */
const twosSign = (twos: number, n: Uint32Array) =>
  twos & 1 && ((n[0]! & 7) === 3 || (n[0]! & 7) === 5) ? -1 : 1;

/**
 * The Legendre symbol of a canonical non-zero field element: 1 when it is a square mod p, -1 when not. The
 * binary Jacobi algorithm (subtract the smaller odd number from the larger, strip factors of 2, flip the sign
 * by the rules for (2 | n) and reciprocity): some 180 rounds of word operations where Euler's criterion takes
 * 255 field squarings.
 */
function legendre(a: Fe): number {
  for (let i = 0; i < 8; i++) wordsA[i] = a[2 * i]! + LIMB * a[2 * i + 1]!;
  wordsN.set(P_WORDS);
  let x = wordsA;
  let n = wordsN;
  let len = 8;
  let sign = twosSign(stripTwos(x, len), n);
  for (;;) {
    // x and n odd
    while (len > 1 && x[len - 1] === 0 && n[len - 1] === 0) len--;
    const order = compareWords(x, n, len);
    if (order === 0) break; // x = n = gcd = 1 (p is prime and a is not 0 mod p)
    if (order < 0) {
      const t = x;
      x = n;
      n = t;
      // quadratic reciprocity: (x | n) = -(n | x) exactly when both are 3 mod 4
      if ((x[0]! & 3) === 3 && (n[0]! & 3) === 3) sign = -sign;
    }
    subtractWords(x, n, len); // (x - n | n) = (x | n), and x - n is even and non-zero
    sign *= twosSign(stripTwos(x, len), n);
  }
  return sign;
}

const y = fe();
const y2 = fe();
const u = fe();
const v = fe();
const uv = fe();
const ZERO = fe();

/**
 * Whether 32 bytes are a compressed ed25519 point (kit's compressedPointBytesAreOnCurve): y is the low 255 bits
 * (not reduced), and the point exists when u / v = (y^2 - 1) / (d y^2 + 1) has a square root, its root 0 (u = 0)
 * only with the sign bit clear. kit tests for the root by computing the candidate (u v^3 (u v^7)^((p - 5) / 8))
 * and squaring it back; u / v is a square exactly when u v is (v is never 0: -1 / d is not a square), so this
 * asks the Legendre symbol of u v instead, the same answer (the property tests hold them equal).
 */
export function isOnCurve(bytes: ReadonlyUint8Array): boolean {
  if (bytes.length !== 32) return false;
  const signBit = (bytes[31]! & 0x80) !== 0;
  for (let i = 0; i < 16; i++) y[i] = bytes[2 * i]! + 256 * bytes[2 * i + 1]!;
  y[15] = y[15]! & 0x7fff;
  square(y2, y);
  sub(u, y2, ONE); // u = y^2 - 1
  mul(v, D, y2);
  add(v, v, ONE); // v = d y^2 + 1
  if (equal(u, ZERO)) return !signBit; // the root is 0: a point only without the sign bit
  mul(uv, u, v);
  canonical(ca, uv);
  return legendre(ca) === 1;
}
