import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ceilDiv,
  floorDiv,
  formatUnits,
  parseUnits,
  parseUnitsFloor,
  toBaseUnits,
  toPlainDecimalString,
} from "../amounts.ts";
import { ERROR_CODES } from "../errors.ts";

const code = (c: number) => expect.objectContaining({ code: c });

describe("parseUnits", () => {
  it("parses whole and fractional amounts exactly", () => {
    expect(parseUnits("1", 9)).toBe(1_000_000_000n);
    expect(parseUnits("1.5", 9)).toBe(1_500_000_000n);
    expect(parseUnits("0.000000001", 9)).toBe(1n);
    expect(parseUnits("0.1", 6)).toBe(100_000n);
    expect(parseUnits("0", 6)).toBe(0n);
    expect(parseUnits("007", 0)).toBe(7n);
    expect(parseUnits("18446744073709551615", 0)).toBe(18_446_744_073_709_551_615n);
  });

  it("rejects too many decimals, even trailing zeros", () => {
    expect(() => parseUnits("0.0000000001", 9)).toThrowError(code(ERROR_CODES.AMOUNT_TOO_MANY_DECIMALS));
    expect(() => parseUnits("1.0000000", 6)).toThrowError('Amount "1.0000000" has more than 6 decimals');
    expect(() => parseUnits("1.5", 0)).toThrowError(code(1001));
  });

  it("rejects signs, junk and empty text", () => {
    expect(() => parseUnits("-1", 9)).toThrowError(code(ERROR_CODES.AMOUNT_NEGATIVE));
    expect(() => parseUnits("-0.5", 9)).toThrowError(code(1002));
    for (const junk of [
      "+1",
      " 1",
      "1 ",
      "1,5",
      "1e9",
      "0x10",
      "1.",
      ".5",
      "1.2.3",
      "abc",
      "NaN",
      "Infinity",
      "１",
    ]) {
      expect(() => parseUnits(junk, 9), junk).toThrowError(code(ERROR_CODES.AMOUNT_INVALID_FORMAT));
    }
    expect(() => parseUnits("", 9)).toThrowError(code(ERROR_CODES.AMOUNT_EMPTY));
    expect(() => parseUnits(5 as unknown as string, 9)).toThrowError(code(ERROR_CODES.AMOUNT_INVALID_FORMAT));
  });

  it("rejects amounts above u64 and bad decimals", () => {
    expect(() => parseUnits("18446744073709551616", 0)).toThrowError(code(ERROR_CODES.AMOUNT_TOO_LARGE));
    expect(() => parseUnits("18446744074", 9)).toThrowError(code(1003));
    expect(() => parseUnits("9".repeat(100_000), 0)).toThrowError(code(1003));
    expect(parseUnits(`${"0".repeat(30)}1`, 0)).toBe(1n);
    expect(() => parseUnits("1", -1)).toThrowError(code(ERROR_CODES.INVALID_DECIMALS));
    expect(() => parseUnits("1", 1.5)).toThrowError(code(1004));
  });
});

describe("formatUnits", () => {
  it("formats exactly without trailing zeros", () => {
    expect(formatUnits(1_500_000_000n, 9)).toBe("1.5");
    expect(formatUnits(1n, 9)).toBe("0.000000001");
    expect(formatUnits(0n, 6)).toBe("0");
    expect(formatUnits(20_000_000n, 6)).toBe("20");
    expect(formatUnits(123n, 0)).toBe("123");
    expect(formatUnits(-1_500_000n, 6)).toBe("-1.5");
  });

  it("round-trips with parseUnits", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.integer({ min: 0, max: 18 }),
        (amount, decimals) => {
          expect(parseUnits(formatUnits(amount, decimals), decimals)).toBe(amount);
        },
      ),
    );
  });
});

describe("parseUnitsFloor", () => {
  it("floors extra digits with string maths", () => {
    expect(parseUnitsFloor(1.23456789, 6)).toBe(1_234_567n);
    expect(parseUnitsFloor("0.9999999", 6)).toBe(999_999n);
    // 0.1 + 0.2 as a float is 0.30000000000000004: floored to 6 decimals it is exactly 0.3
    expect(parseUnitsFloor(0.1 + 0.2, 6)).toBe(300_000n);
    // 1.005 * 100 is 100.49999999999999 in floats; string maths keeps 1.005 -> 100.5 cents
    expect(parseUnitsFloor(1.005, 3)).toBe(1005n);
    expect(parseUnitsFloor(1e-7, 9)).toBe(100n);
    expect(parseUnitsFloor(1e18, 0)).toBe(10n ** 18n);
    expect(() => parseUnitsFloor(1e21, 0)).toThrowError(code(ERROR_CODES.AMOUNT_TOO_LARGE));
    expect(parseUnitsFloor(" 12 ", 2)).toBe(1200n);
    expect(parseUnitsFloor(7.9, 0)).toBe(7n);
  });

  it("rejects junk and negatives", () => {
    expect(() => parseUnitsFloor(-1, 6)).toThrowError(code(ERROR_CODES.AMOUNT_NEGATIVE));
    expect(() => parseUnitsFloor(Number.NaN, 6)).toThrowError(code(ERROR_CODES.AMOUNT_INVALID_FORMAT));
    expect(() => parseUnitsFloor("12abc", 6)).toThrowError(code(1000));
    expect(() => parseUnitsFloor("", 6)).toThrowError(code(1000));
  });

  it("never exceeds the exact value and is within one base unit of it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 9 }), (n, decimals) => {
        const value = n / 1000;
        const floored = parseUnitsFloor(value, decimals);
        // exact value * 10^decimals as a rational: n * 10^decimals / 1000
        const scaledNumerator = BigInt(n) * 10n ** BigInt(decimals);
        expect(floored * 1000n <= scaledNumerator).toBe(true);
        expect((floored + 1n) * 1000n > scaledNumerator).toBe(true);
      }),
    );
  });
});

describe("helpers", () => {
  it("toPlainDecimalString expands exponents", () => {
    expect(toPlainDecimalString(1.5e-8)).toBe("0.000000015");
    expect(toPlainDecimalString("2.5e3")).toBe("2500");
    expect(toPlainDecimalString("000.100")).toBe("0.1");
    expect(toPlainDecimalString(0)).toBe("0");
    expect(toPlainDecimalString("1e400")).toBe(`1${"0".repeat(400)}`);
    expect(() => toPlainDecimalString("1e999999999")).toThrowError(code(ERROR_CODES.AMOUNT_INVALID_FORMAT));
    expect(() => toPlainDecimalString("5e-401")).toThrowError(code(ERROR_CODES.AMOUNT_INVALID_FORMAT));
  });

  it("toBaseUnits brands u64 values only", () => {
    expect(toBaseUnits(5n)).toBe(5n);
    expect(() => toBaseUnits(-1n)).toThrowError(code(1002));
    expect(() => toBaseUnits(2n ** 64n)).toThrowError(code(1003));
  });

  it("ceilDiv and floorDiv round as named", () => {
    expect(ceilDiv(7n, 2n)).toBe(4n);
    expect(ceilDiv(6n, 2n)).toBe(3n);
    expect(ceilDiv(0n, 5n)).toBe(0n);
    expect(floorDiv(7n, 2n)).toBe(3n);
    expect(() => ceilDiv(1n, 0n)).toThrowError(code(2001));
  });
});
