import { getAddressDecoder, getProgramDerivedAddress, isOffCurveAddress } from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deriveProgramAddress, findProgramDerivedAddress, isOnCurve } from "../src/index.ts";

const P = 2n ** 255n - 19n;
/** 32 little-endian bytes of `value` (below 2^256), the sign bit as given. */
const littleEndian = (value: bigint, signBit = false) => {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  if (signBit) bytes[31]! |= 0x80;
  return bytes;
};
/** kit's own curve check, through the address it would make of the bytes. */
const kitOnCurve = (bytes: Uint8Array) => !isOffCurveAddress(getAddressDecoder().decode(bytes));

describe("our PDA derivation agrees with kit's", () => {
  it("on whether 32 bytes are a curve point: random bytes, and the edge values of y", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        expect(isOnCurve(bytes)).toBe(kitOnCurve(bytes));
      }),
      { numRuns: 3_000 },
    );
    // y = 1 and y = p - 1 (x = 0: a point only without the sign bit), y = 0, y = p and above (not reduced),
    // the largest y the 255 bits hold
    for (const y of [0n, 1n, 2n, P - 1n, P, P + 1n, P + 18n, 2n ** 255n - 1n])
      for (const sign of [false, true]) {
        const bytes = littleEndian(y, sign);
        expect([y, sign, isOnCurve(bytes)]).toEqual([y, sign, kitOnCurve(bytes)]);
      }
  }, 60_000);

  it("on the address and bump for any seeds", async () => {
    const seed = fc.oneof(
      fc.uint8Array({ maxLength: 32 }),
      fc.string({ maxLength: 32 }).filter((s) => new TextEncoder().encode(s).length <= 32),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.array(seed, { maxLength: 15 }),
        async (program, seeds) => {
          const programAddress = getAddressDecoder().decode(program);
          const expected = await getProgramDerivedAddress({ programAddress, seeds });
          expect(deriveProgramAddress({ programAddress, seeds })).toEqual(expected);
          expect(await findProgramDerivedAddress({ programAddress, seeds })).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  }, 60_000);

  it("refuses seeds the runtime refuses", () => {
    const programAddress = getAddressDecoder().decode(new Uint8Array(32).fill(7));
    expect(() => deriveProgramAddress({ programAddress, seeds: [new Uint8Array(33)] })).toThrow(
      /at most 32 bytes/,
    );
    expect(() =>
      deriveProgramAddress({ programAddress, seeds: Array.from({ length: 16 }, () => "a") }),
    ).toThrow(/at most 15 seeds/);
  });
});
