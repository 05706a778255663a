import { PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { parseChainPerformance } from "../src/data/chain-status.ts";
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
  it("reads the API's {tps, source} and falls back to 2000", () => {
    expect(parseChainPerformance({ tps: 3150, source: "rpc" })).toEqual({ tps: 3150, source: "rpc" });
    expect(parseChainPerformance({ tps: 2000, source: "fallback" })).toEqual({
      tps: 2000,
      source: "fallback",
    });
    expect(parseChainPerformance({ tps: "fast" })).toEqual({ tps: 2000, source: "fallback" });
    expect(parseChainPerformance(null)).toEqual({ tps: 2000, source: "fallback" });
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
