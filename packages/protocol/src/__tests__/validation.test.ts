import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase58, encodeBase58 } from "../base58.ts";
import { ERROR_CODES } from "../errors.ts";
import {
  assertAssociationPort,
  assertPublicKey,
  assertReferralAddress,
  assertWalletBaseUrl,
  checkImageUrl,
  isImageContentType,
  isValidPublicKey,
  resolveReferral,
} from "../validation.ts";

const SOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

describe("base58", () => {
  it("decodes known addresses to 32 bytes", () => {
    expect(decodeBase58(USDC)?.length).toBe(32);
    expect(decodeBase58("11111111111111111111111111111111")).toEqual(new Uint8Array(32));
    expect(decodeBase58("2")).toEqual(Uint8Array.of(1));
    expect(decodeBase58("5Q")).toEqual(Uint8Array.of(255));
    expect(decodeBase58("0OIl")).toBeUndefined();
    expect(decodeBase58("")).toEqual(new Uint8Array(0));
  });

  it("round-trips any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(decodeBase58(encodeBase58(bytes))).toEqual(bytes);
      }),
    );
  });
});

describe("public keys", () => {
  it("accepts base58 text decoding to 32..44 bytes", () => {
    expect(isValidPublicKey(SOL)).toBe(true);
    expect(isValidPublicKey(USDC)).toBe(true);
    expect(isValidPublicKey(encodeBase58(new Uint8Array(44).fill(7)))).toBe(true);
    expect(isValidPublicKey(encodeBase58(new Uint8Array(31).fill(7)))).toBe(false);
    expect(isValidPublicKey(encodeBase58(new Uint8Array(45).fill(7)))).toBe(false);
    expect(isValidPublicKey("not-an-address!")).toBe(false);
    expect(isValidPublicKey(`${USDC.slice(0, -1)}0`)).toBe(false);
    expect(isValidPublicKey(undefined)).toBe(false);
    expect(isValidPublicKey(42)).toBe(false);
    expect(assertPublicKey(SOL)).toBe(SOL);
    expect(() => assertPublicKey("xyz")).toThrowError(
      expect.objectContaining({ code: ERROR_CODES.INVALID_PUBLIC_KEY, message: "Invalid public key: xyz" }),
    );
  });

  it("resolves referrals: aliases map to addresses, invalid values are ignored", () => {
    expect(resolveReferral(USDC)).toBe(USDC);
    expect(resolveReferral("alice", { alice: SOL })).toBe(SOL);
    expect(resolveReferral("bob", { alice: SOL })).toBeUndefined();
    expect(resolveReferral("alice", { alice: "broken" })).toBeUndefined();
    expect(resolveReferral(null)).toBeUndefined();
    expect(resolveReferral("")).toBeUndefined();
    expect(() => assertReferralAddress("nope")).toThrowError(expect.objectContaining({ code: 7001 }));
  });
});

describe("image URLs", () => {
  it("accepts empty, rejects twimg, asks for a content-type check otherwise", () => {
    expect(checkImageUrl("")).toEqual({ ok: true, needsContentTypeCheck: false });
    expect(checkImageUrl(undefined)).toEqual({ ok: true, needsContentTypeCheck: false });
    const rejected = checkImageUrl("https://pbs.twimg.com/media/abc.jpg");
    expect(rejected.ok).toBe(false);
    if (!rejected.ok) expect(rejected.error.code).toBe(ERROR_CODES.IMAGE_URL_REJECTED);
    expect(checkImageUrl(" https://cdn.example.com/a.png ")).toEqual({
      ok: true,
      needsContentTypeCheck: true,
      url: "https://cdn.example.com/a.png",
    });
  });

  it("recognises image content types", () => {
    expect(isImageContentType("image/png")).toBe(true);
    expect(isImageContentType("image/svg+xml; charset=utf-8")).toBe(true);
    expect(isImageContentType("text/html")).toBe(false);
    expect(isImageContentType(null)).toBe(false);
  });
});

describe("mobile wallet association", () => {
  it("accepts ports 49152..65535 only", () => {
    expect(assertAssociationPort(49_152)).toBe(49_152);
    expect(assertAssociationPort(65_535)).toBe(65_535);
    expect(() => assertAssociationPort(49_151)).toThrowError(
      "Association port number must be between 49152 and 65535. 49151 given.",
    );
    expect(() => assertAssociationPort(65_536)).toThrowError(expect.objectContaining({ code: 14100 }));
  });

  it("accepts https wallet base URLs only", () => {
    expect(assertWalletBaseUrl("https://wallet.example").hostname).toBe("wallet.example");
    expect(() => assertWalletBaseUrl("http://wallet.example")).toThrowError(
      "Base URLs supplied by wallets must be valid `https` URLs",
    );
    expect(() => assertWalletBaseUrl("not a url")).toThrowError(expect.objectContaining({ code: 14101 }));
  });
});
