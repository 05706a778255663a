import { getAddressDecoder, getAddressEncoder, isAddress } from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { address, addressBytes, addressFromBytes, getFastAddressCodec, isAddressText } from "../src/index.ts";

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

describe("our address codec agrees with kit's", () => {
  it("both ways for any 32 bytes, leading zero bytes included", () => {
    const withZeros = fc
      .tuple(fc.integer({ min: 0, max: 32 }), fc.uint8Array({ minLength: 32, maxLength: 32 }))
      .map(([zeros, bytes]) => bytes.fill(0, 0, zeros));
    fc.assert(
      fc.property(withZeros, (bytes) => {
        const text = getAddressDecoder().decode(bytes);
        expect(addressFromBytes(bytes)).toBe(text);
        expect([...addressBytes(text)]).toEqual([...getAddressEncoder().encode(text)]);
        expect(getFastAddressCodec().decode(bytes)).toBe(text);
        expect([...getFastAddressCodec().encode(text)]).toEqual([...bytes]);
      }),
      { numRuns: 3_000 },
    );
    expect(addressFromBytes(new Uint8Array(32))).toBe("11111111111111111111111111111111");
    expect(addressFromBytes(new Uint8Array(32).fill(255))).toBe(
      getAddressDecoder().decode(new Uint8Array(32).fill(255)),
    );
  });

  it("on which texts are addresses: base58 of other lengths, other characters, too long or short", () => {
    const base58Text = fc
      .array(fc.constantFrom(...BASE58), { minLength: 28, maxLength: 48 })
      .map((chars) => chars.join(""));
    const anyText = fc.string({ minLength: 30, maxLength: 46 });
    fc.assert(
      fc.property(fc.oneof(base58Text, anyText), (text) => {
        expect(isAddressText(text)).toBe(isAddress(text));
        if (isAddress(text)) expect(address(text)).toBe(text);
        else expect(() => address(text)).toThrow(/not a base58 address of 32 bytes/);
      }),
      { numRuns: 5_000 },
    );
    for (const text of ["0OIl" + "1".repeat(40), "1".repeat(33), "z".repeat(44), "1".repeat(31) + "2", ""])
      expect([text, isAddressText(text)]).toEqual([text, isAddress(text)]);
  });

  it("refuses to read an address past the end of the bytes", () => {
    expect(() => getFastAddressCodec().decode(new Uint8Array(31))).toThrow();
  });
});
