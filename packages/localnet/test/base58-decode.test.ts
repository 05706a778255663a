import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { decodeBase58 } from "../src/base58.ts";

describe("base58 decoding (limbs, five digits at a time)", () => {
  it("gives kit's bytes for random inputs of 0 to 700 bytes, leading zeros included", () => {
    const kitText = getBase58Decoder();
    const kitBytes = getBase58Encoder();
    for (let n = 0; n < 3000; n++) {
      const bytes = new Uint8Array(Math.floor(Math.random() * 700));
      for (let i = 0; i < bytes.length; i++)
        bytes[i] = Math.random() < 0.1 ? 0 : Math.floor(Math.random() * 256);
      const text = kitText.decode(bytes);
      expect(Buffer.from(decodeBase58(text)).toString("hex")).toBe(
        Buffer.from(kitBytes.encode(text)).toString("hex"),
      );
    }
    for (const text of ["", "1", "11", "z", "1z", "2", "5Q", "LUw", "1111111111111111111111111111111111"])
      expect(Array.from(decodeBase58(text))).toEqual(Array.from(kitBytes.encode(text)));
  }, 60_000);

  it("refuses characters outside the alphabet", () => {
    for (const text of ["0", "O", "I", "l", "abc+"])
      expect(() => decodeBase58(text)).toThrow(/invalid base58/);
  });
});
