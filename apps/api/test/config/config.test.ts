import { describe, expect, it } from "vitest";
import { getDefaultWsUrl, loadConfig } from "../../src/config/config.ts";

describe("config", () => {
  it("has the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 3001,
      solanaRpcUrl: "http://127.0.0.1:8899",
      solanaWsUrl: "ws://127.0.0.1:8900",
      databaseUrl: undefined,
      lendingProgramId: undefined,
    });
    // localnet: tokens from the local swap pools, collections from the local NFT market, guarded
    expect(config.valuation).toMatchObject({
      tokenSource: "swap-pools",
      collectionSource: "nft-market",
      maxAgeSeconds: 60,
      maxConfidenceBps: 1000,
      twapWindowSlots: 150,
    });
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it("reads the environment", () => {
    const config = loadConfig({
      API_PORT: "4000",
      SOLANA_RPC_URL: "https://rpc.example.com",
      DATABASE_URL: "postgres://u@h:5432/db",
      LENDING_PROGRAM_ID: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
      PRICE_API_URL: "https://hermes.example.com/",
      SOLANA_CLUSTER: "devnet",
      MAGIC_EDEN_API_KEY: "me-key",
      DATA_DIR: "/tmp/x",
    });
    expect(config).toMatchObject({
      port: 4000,
      solanaWsUrl: "wss://rpc.example.com",
      databaseUrl: "postgres://u@h:5432/db",
      dataDir: "/tmp/x",
    });
    // off the localnet: Pyth for tokens, the marketplaces' stats for collections, keys from the environment
    expect(config.valuation).toMatchObject({
      tokenSource: "pyth",
      collectionSource: "marketplaces",
      hermesUrl: "https://hermes.example.com",
      magicEdenApiKey: "me-key",
      tokenRefreshMs: 30_000,
    });
    expect(() => loadConfig({ PRICE_SOURCE: "http" })).toThrow(/PRICE_SOURCE must be local or pyth/);
    expect(getDefaultWsUrl("http://127.0.0.1:18899")).toBe("ws://127.0.0.1:18900");
  });

  it("reads marginfi's group and banks (production delegation reads), and names a bad entry", () => {
    expect(loadConfig({}).marginfi).toBeUndefined();
    const mint = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
    const bank = "DeyH7QxWvnbbaVB4zFrf4hoq7Q8z1ZT14co42BGwGtfM";
    const group = "4qp6Fx6tnZkY5Wropq9wUYgtFxXKwE6viZxFHg3rdAG8";
    expect(loadConfig({ MARGINFI_GROUP: group, MARGINFI_BANKS: `${mint}:${bank}` }).marginfi).toEqual({
      programId: "MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA",
      group,
      bankByMint: { [mint]: bank },
    });
    expect(() => loadConfig({ MARGINFI_GROUP: group, MARGINFI_BANKS: `${mint}=${bank}` })).toThrow(
      /MARGINFI_BANKS entries are mint:bank/,
    );
    expect(() => loadConfig({ MARGINFI_BANKS: `${mint}:${bank}` })).toThrow(/needs MARGINFI_GROUP/);
    expect(() => loadConfig({ MARGINFI_GROUP: "0xabc" })).toThrow(/MARGINFI_GROUP is not a base58/);
  });

  it("names the bad variable", () => {
    expect(() => loadConfig({ API_PORT: "abc" })).toThrow(/API_PORT/);
    expect(() => loadConfig({ API_PORT: "70000" })).toThrow(/API_PORT/);
    expect(() => loadConfig({ SOLANA_RPC_URL: "ftp://x" })).toThrow(/SOLANA_RPC_URL/);
    expect(() => loadConfig({ LENDING_PROGRAM_ID: "0OIl" })).toThrow(/LENDING_PROGRAM_ID/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ PRICE_API_URL: "ftp://x" })).toThrow(/PRICE_API_URL/);
    expect(() => loadConfig({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ BODY_LIMIT_BYTES: "0" })).toThrow(/BODY_LIMIT_BYTES must be at least 1/);
    expect(loadConfig({ BODY_LIMIT_BYTES: "4096" }).bodyLimitBytes).toBe(4096);
    expect(loadConfig({}).bodyLimitBytes).toBe(256 * 1024);
  });
});
