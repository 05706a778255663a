import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import {
  getAddressDecoder,
  getAddressEncoder,
  getProgramDerivedAddress,
  isOffCurveAddress,
} from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isOnCurve } from "../src/ed25519-curve.ts";

// Generous timeouts: the BigInt and kit references are slow, the more so on a loaded machine.

/**
 * The fixed-limb curve check against two references: the BigInt check it replaced (kept here verbatim) and
 * kit's own (through the address it would make of the bytes).
 */

const P = 2n ** 255n - 19n;
const LOW_255 = 2n ** 255n - 1n;
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

function fold(t: bigint): bigint {
  const once = (t & LOW_255) + (t >> 255n) * 19n;
  return (once & LOW_255) + (once >> 255n) * 19n;
}
function modP(a: bigint): bigint {
  const r = a % P;
  return r >= 0n ? r : r + P;
}
function squareTimes(x: bigint, times: number): bigint {
  let r = x;
  for (let i = 0; i < times; i++) r = fold(r * r);
  return r;
}
function pow2523(x: bigint): bigint {
  const x2 = fold(x * x);
  const b2 = fold(x2 * x);
  const b4 = fold(squareTimes(b2, 2) * b2);
  const b5 = fold(squareTimes(b4, 1) * x);
  const b10 = fold(squareTimes(b5, 5) * b5);
  const b20 = fold(squareTimes(b10, 10) * b10);
  const b40 = fold(squareTimes(b20, 20) * b20);
  const b80 = fold(squareTimes(b40, 40) * b40);
  const b160 = fold(squareTimes(b80, 80) * b80);
  const b240 = fold(squareTimes(b160, 80) * b80);
  const b250 = fold(squareTimes(b240, 10) * b10);
  return fold(squareTimes(b250, 2) * x);
}
/** The former BigInt check (find-pda.ts before the fixed limbs). */
function bigIntOnCurve(bytes: Uint8Array): boolean {
  const signBit = (bytes[31]! & 0x80) !== 0;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i]! & 0x7f : bytes[i]!);
  const y2 = modP(y * y);
  const u = modP(y2 - 1n);
  const v = modP(D * y2 + 1n);
  const v3 = fold(fold(v * v) * v);
  const v7 = fold(fold(v3 * v3) * v);
  const x = fold(fold(u * v3) * pow2523(fold(u * v7)));
  const vx2 = modP(fold(x * x) * v);
  const hasRoot = vx2 === u || vx2 === modP(-u);
  return hasRoot && !(u === 0n && signBit);
}

const kitOnCurve = (bytes: Uint8Array) => !isOffCurveAddress(getAddressDecoder().decode(bytes));

/** 32 little-endian bytes of `value` (below 2^256), the sign bit as given. */
const littleEndian = (value: bigint, signBit = false) => {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  if (signBit) bytes[31]! |= 0x80;
  return bytes;
};
const fromHex = (hex: string) => new Uint8Array(Buffer.from(hex, "hex"));
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());

describe("the fixed-limb ed25519 curve check", () => {
  it("agrees with the BigInt check on 20,000 SHA-256 hashes (what a PDA search tests)", () => {
    let onCurve = 0;
    let seed = new Uint8Array(32);
    for (let i = 0; i < 20_000; i++) {
      seed = sha256(seed);
      const expected = bigIntOnCurve(seed);
      if (isOnCurve(seed) !== expected) expect([i, isOnCurve(seed)]).toEqual([i, expected]);
      if (expected) onCurve++;
    }
    // about half of all 32-byte strings decompress to a point
    expect(onCurve).toBeGreaterThan(9_500);
    expect(onCurve).toBeLessThan(10_500);
  }, 120_000);

  it("agrees with the BigInt check and kit's on random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const expected = bigIntOnCurve(bytes);
        expect(isOnCurve(bytes)).toBe(expected);
        expect(kitOnCurve(bytes)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  }, 120_000);

  it("agrees on random y near 0, near p and above p (not reduced), both sign bits", () => {
    const near = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 20n }),
      fc.bigInt({ min: P - 2n ** 20n, max: 2n ** 255n - 1n }),
      fc.bigInt({ min: 0n, max: 2n ** 255n - 1n }),
    );
    fc.assert(
      fc.property(near, fc.boolean(), (y, sign) => {
        const bytes = littleEndian(y, sign);
        expect(isOnCurve(bytes)).toBe(bigIntOnCurve(bytes));
      }),
      { numRuns: 3_000 },
    );
  }, 120_000);

  it("answers the known vectors as kit does", () => {
    const vectors: [string, Uint8Array, boolean][] = [
      // the base point (y = 4/5) and its negation (sign bit set)
      ["base point", fromHex("5866666666666666666666666666666666666666666666666666666666666666"), true],
      ["-base point", fromHex("58666666666666666666666666666666666666666666666666666666666666e6"), true],
      // RFC 8032 test 1 public key
      ["rfc8032 key", fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"), true],
      // y = 1 (the identity, x = 0): a point only without the sign bit; y = -1 likewise (x = 0)
      ["y = 1", littleEndian(1n), true],
      ["y = 1, sign", littleEndian(1n, true), false],
      ["y = p - 1", littleEndian(P - 1n), true],
      ["y = p - 1, sign", littleEndian(P - 1n, true), false],
      // y = p is y = 0 unreduced: the order-4 points (x^2 = -1)
      ["y = 0", littleEndian(0n), true],
      ["y = p", littleEndian(P), true],
      ["y = p + 1 (= 1)", littleEndian(P + 1n), true],
      ["y = p + 1 (= 1), sign", littleEndian(P + 1n, true), false],
      // y = 2: u / v has no root
      ["y = 2", littleEndian(2n), false],
      ["y = 2^255 - 1", littleEndian(2n ** 255n - 1n), bigIntOnCurve(littleEndian(2n ** 255n - 1n))],
      // the system program's address (all zero bytes: y = 0) is a point
      ["system program", new Uint8Array(32), true],
    ];
    for (const [name, bytes, expected] of vectors) {
      expect([name, isOnCurve(bytes)]).toEqual([name, expected]);
      expect([name, kitOnCurve(bytes)]).toEqual([name, expected]);
      expect([name, bigIntOnCurve(bytes)]).toEqual([name, expected]);
    }
  }, 120_000);

  it("is true for ed25519 public keys, false for the PDAs kit finds and true for the bumps kit passed over", async () => {
    for (let i = 0; i < 100; i++) {
      const { publicKey } = generateKeyPairSync("ed25519");
      const raw = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
      expect(isOnCurve(new Uint8Array(raw))).toBe(true);
    }
    const encoder = getAddressEncoder();
    const marker = new TextEncoder().encode("ProgramDerivedAddress");
    for (let i = 0; i < 100; i++) {
      const programBytes = new Uint8Array(randomBytes(32));
      const programAddress = getAddressDecoder().decode(programBytes);
      const seed = new Uint8Array(randomBytes(32));
      const [pda, bump] = await getProgramDerivedAddress({ programAddress, seeds: [seed] });
      expect(isOnCurve(new Uint8Array(encoder.encode(pda)))).toBe(false);
      for (let passed = 255; passed > bump; passed--) {
        const hash = sha256(new Uint8Array([...seed, passed, ...programBytes, ...marker]));
        expect(isOnCurve(hash)).toBe(true);
      }
    }
  }, 120_000);

  it("is false for anything but 32 bytes", () => {
    expect(isOnCurve(new Uint8Array(31))).toBe(false);
    expect(isOnCurve(new Uint8Array(33))).toBe(false);
  });
});
