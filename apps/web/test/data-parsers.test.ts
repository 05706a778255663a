import { isChainSlow } from "@cistern/protocol";
import { PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { getChainSlowness, isChainDegraded, parseChainPerformance } from "../src/data/chain-status.ts";
import { decodeMetadataName, getMetadataAddress } from "../src/data/nft-names.ts";
import { parsePrices } from "../src/data/prices.ts";
import { parseCurrencyNames, parseDemoWorldNames } from "../src/data/token-names.ts";
import { parseWalletNfts, parseWalletTokens } from "../src/features/borrow/borrow-data.ts";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

describe("data parsers", () => {
  it("reads the price feed's {prices: {mint: {price}}} as decimal strings", () => {
    expect(parsePrices({ prices: { [USDC]: { price: 1 }, X: { price: "0.25" }, Y: {} } })).toEqual({
      [USDC]: "1",
      X: "0.25",
    });
    expect(parsePrices(null)).toEqual({});
  });

  it("reads currency symbols from the API catalogue keyed by mint, or as a list", () => {
    const entry = {
      currencyId: USDC,
      mint: USDC,
      metadata: { symbol: "USDC", name: "USD Coin", decimals: 6 },
    };
    expect(parseCurrencyNames({ [USDC]: entry })).toEqual({ [USDC]: "USDC" });
    expect(parseCurrencyNames([entry, { bogus: true }, null])).toEqual({ [USDC]: "USDC" });
  });

  it("reads token symbols and NFT names from the localnet demo world", () => {
    const world = {
      tokens: [{ mint: "T1", symbol: "BONK" }],
      collections: [{ nfts: [{ mint: "N1", name: "Otter #1" }] }],
    };
    expect(parseDemoWorldNames(world)).toEqual({ T1: "BONK", N1: "Otter #1" });
    expect(parseDemoWorldNames(undefined)).toEqual({});
  });
});

describe("chain performance", () => {
  it("reads the API's {tps, source, slotMs} and falls back to 2000, unmeasured", () => {
    expect(parseChainPerformance({ tps: 3150, source: "rpc", slotMs: 410, slow: false })).toEqual({
      tps: 3150,
      source: "rpc",
      slotMs: 410,
    });
    // an answer without a slot time measures no slowness
    expect(parseChainPerformance({ tps: 3150, source: "rpc" })).toEqual({
      tps: 3150,
      source: "rpc",
      slotMs: null,
    });
    const fallback = { tps: 2000, source: "fallback", slotMs: null };
    expect(parseChainPerformance({ tps: 2000, source: "fallback", slotMs: null })).toEqual(fallback);
    // a fallback carries no measurement, whatever else it says
    expect(parseChainPerformance({ tps: 2000, source: "fallback", slotMs: 5000 })).toEqual(fallback);
    expect(parseChainPerformance({ tps: "fast" })).toEqual(fallback);
    expect(parseChainPerformance(null)).toEqual(fallback);
  });

  it("is degraded by the protocol's slot-time rule only, never by transactions a second", () => {
    const rpc = (tps: number, slotMs: number | null) => ({ tps, source: "rpc" as const, slotMs });
    // the old false alarm: an idle chain (0 a second) at the 400 ms target
    expect(isChainDegraded(rpc(0, 400))).toBe(false);
    expect(getChainSlowness(rpc(0, 400))).toBeNull();
    expect(isChainDegraded(rpc(5000, 799))).toBe(false);
    expect(isChainDegraded(rpc(5000, 800))).toBe(true);
    expect(getChainSlowness(rpc(0, 1667))).toBe("blocks take 1.7 s instead of 0.4 s");
    expect(isChainDegraded(rpc(0, null))).toBe(false);
    expect(isChainDegraded({ tps: 2000, source: "fallback", slotMs: null })).toBe(false);
    expect(isChainDegraded(undefined)).toBe(false);
    // the web and the API read the same rule
    for (const slotMs of [400, 799, 800, 1600, 60_000])
      expect(isChainDegraded(rpc(0, slotMs))).toBe(isChainSlow(slotMs));
  });
});

describe("NFT metadata names", () => {
  function metadata(name: string): Uint8Array {
    const data = new Uint8Array(679);
    data[0] = 4;
    new DataView(data.buffer).setUint32(65, 32, true);
    data.set(new TextEncoder().encode(name), 69);
    return data;
  }

  it("reads the NUL-padded Borsh name of a Metadata V1 account", () => {
    expect(decodeMetadataName(metadata("Otter #3"))).toBe("Otter #3");
    expect(decodeMetadataName(metadata(""))).toBeNull();
    const wrongKey = metadata("X");
    wrongKey[0] = 7;
    expect(decodeMetadataName(wrongKey)).toBeNull();
    expect(decodeMetadataName(new Uint8Array(10))).toBeNull();
  });

  it("derives the canonical metadata PDA", () => {
    // Wrapped SOL's metadata account on mainnet.
    const mint = new PublicKey("So11111111111111111111111111111111111111112");
    expect(getMetadataAddress(mint).toBase58()).toBe("6dM4TqWyWJsbx7obrdLcviBkTafD5E8av61zfU6jq57X");
  });

  it("turns a degraded NFT list into the reason, not an empty wallet", () => {
    expect(() =>
      parseWalletNfts({ nfts: [], unavailable: "Your NFTs could not be loaded just now." }),
    ).toThrow("Your NFTs could not be loaded just now.");
    expect(parseWalletNfts({ nfts: [] })).toEqual([]);
  });

  it("turns a degraded token list into the reason, and drops empty balances", () => {
    expect(() =>
      parseWalletTokens({ tokens: [], unavailable: "Your token balances could not be loaded." }),
    ).toThrow("Your token balances could not be loaded.");
    expect(
      parseWalletTokens({
        tokens: [
          { mint: "A", amount: "5", decimals: 6 },
          { mint: "B", amount: "0", decimals: 9 },
        ],
      }),
    ).toEqual([{ mint: "A", amount: 5n, decimals: 6 }]);
  });
});
