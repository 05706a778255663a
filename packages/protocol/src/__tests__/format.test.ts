import { describe, expect, it } from "vitest";
import {
  formatLargeNumber,
  formatNumber,
  formatNumber2,
  formatTimeAgo,
  getAprPercent,
  getDurationDays,
  shortenAddress,
} from "../format.ts";

describe("display units", () => {
  it("APR from the API / 100, durations seconds / 86400", () => {
    expect(getAprPercent(2550)).toBe(25.5);
    expect(getDurationDays(604_800)).toBe(7);
    expect(getDurationDays(43_200)).toBe(0.5);
  });
});

describe("formatNumber", () => {
  it("abbreviates with k, M, G, T, P, E", () => {
    expect(formatNumber(999)).toBe("999");
    expect(formatNumber(1234)).toBe("1.2k");
    expect(formatNumber(2_500_000)).toBe("2.5M");
    expect(formatNumber(3e9)).toBe("3G");
    expect(formatNumber(4.56e12, 2)).toBe("4.56T");
    expect(formatNumber(7e15)).toBe("7P");
    expect(formatNumber(8e18)).toBe("8E");
    expect(formatNumber(0)).toBe("0");
    expect(formatNumber(-1500)).toBe("-1.5k");
  });

  it("uses B and M for large values", () => {
    expect(formatLargeNumber(1_500_000_000)).toBe("1.5B");
    expect(formatLargeNumber(2_345_678)).toBe("2.35M");
    expect(formatLargeNumber(12_345.678)).toBe("12,345.68");
  });
});

describe("formatNumber2", () => {
  it("0 decimals at 10000 and above, up to 8 at 0.1 and below, else 2", () => {
    expect(formatNumber2(12_345.678)).toBe("12,346");
    expect(formatNumber2(10_000)).toBe("10,000");
    expect(formatNumber2(9999.999)).toBe("10,000");
    expect(formatNumber2(1234.5678)).toBe("1,234.57");
    expect(formatNumber2(0.5)).toBe("0.5");
    expect(formatNumber2(0.1)).toBe("0.1");
    expect(formatNumber2(0.123456789)).toBe("0.12");
    expect(formatNumber2(0.0123456789)).toBe("0.01234568");
    expect(formatNumber2(0)).toBe("0");
  });
});

describe("formatTimeAgo", () => {
  const now = 1_700_000_000;
  it("counts minutes, hours, days, 30-day months and years", () => {
    expect(formatTimeAgo(now - 59, now)).toBe("less than a minute ago");
    expect(formatTimeAgo(now + 10, now)).toBe("less than a minute ago");
    expect(formatTimeAgo(now - 60, now)).toBe("1 minute ago");
    expect(formatTimeAgo(now - 5 * 60, now)).toBe("5 minutes ago");
    expect(formatTimeAgo(now - 3600, now)).toBe("1 hour ago");
    expect(formatTimeAgo(now - 86_399, now)).toBe("23 hours ago");
    expect(formatTimeAgo(now - 86_400, now)).toBe("1 day ago");
    expect(formatTimeAgo(now - 29 * 86_400, now)).toBe("29 days ago");
    expect(formatTimeAgo(now - 30 * 86_400, now)).toBe("1 month ago");
    expect(formatTimeAgo(now - 364 * 86_400, now)).toBe("12 months ago");
    expect(formatTimeAgo(now - 365 * 86_400, now)).toBe("1 year ago");
    expect(formatTimeAgo(now - 3 * 365 * 86_400, now)).toBe("3 years ago");
  });
});

describe("shortenAddress", () => {
  it("keeps 4 characters each side", () => {
    expect(shortenAddress("So11111111111111111111111111111111111111112")).toBe("So11...1112");
    expect(shortenAddress("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")).toBe("EPjF...Dt1v");
    expect(shortenAddress("short")).toBe("short");
  });
});
