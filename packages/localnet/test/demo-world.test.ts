import { describe, expect, it } from "vitest";
import { getDemoAddress, getDemoKeypair } from "../src/demo-address.ts";
import {
  DEMO_COLLECTIONS,
  DEMO_COMPRESSED_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  DEMO_TOKENS,
  DEMO_WORLD,
  USDC_MINT_ADDRESS,
  WRAPPED_SOL_MINT_ADDRESS,
} from "../src/demo-world.ts";

describe("demo world data", () => {
  it("derives every demo mint address from its seed", () => {
    for (const t of DEMO_TOKENS) if (t.seed) expect(t.mint).toBe(getDemoAddress(t.seed));
    for (const c of DEMO_COLLECTIONS) {
      expect(c.collectionId).toBe(getDemoAddress(c.seed));
      for (const n of c.nfts) expect(n.mint).toBe(getDemoAddress(n.seed));
    }
  });

  it("derives the pNFT mints and Core accounts from their seeds' keypairs (they sign their creation)", () => {
    for (const c of DEMO_PROGRAMMABLE_COLLECTIONS) {
      expect(c.collectionId).toBe(getDemoKeypair(c.seed).address);
      for (const n of c.nfts) expect(n.mint).toBe(getDemoKeypair(n.seed).address);
    }
    for (const c of DEMO_CORE_COLLECTIONS) {
      expect(c.collectionId).toBe(getDemoKeypair(c.seed).address);
      for (const a of c.assets) expect(a.address).toBe(getDemoKeypair(a.seed).address);
    }
  });

  it("derives the compressed collections' collection mint and tree from their seeds; leaf images fit a uri", () => {
    for (const c of DEMO_COMPRESSED_COLLECTIONS) {
      expect(c.collectionId).toBe(getDemoAddress(c.seed));
      expect(c.tree).toBe(getDemoKeypair(c.treeSeed).address);
      expect(Buffer.byteLength(c.image)).toBeLessThanOrEqual(200);
    }
  });

  it("has USDC and wrapped SOL at their mainnet mints, and >= 3 collections", () => {
    expect(DEMO_TOKENS.find((t) => t.symbol === "USDC")).toMatchObject({
      mint: USDC_MINT_ADDRESS,
      decimals: 6,
    });
    expect(DEMO_TOKENS.find((t) => t.symbol === "SOL")).toMatchObject({
      mint: WRAPPED_SOL_MINT_ADDRESS,
      decimals: 9,
    });
    expect(DEMO_WORLD.collections.length).toBeGreaterThanOrEqual(3);
    for (const c of DEMO_COLLECTIONS) expect(c.nfts.length).toBeGreaterThan(0);
  });

  it("keeps every image within Metaplex's 200-byte uri and prices as decimal strings", () => {
    for (const c of DEMO_COLLECTIONS) {
      expect(Buffer.byteLength(c.image)).toBeLessThanOrEqual(200);
      for (const n of c.nfts) expect(Buffer.byteLength(n.image)).toBeLessThanOrEqual(200);
      expect(c.floorPriceLamports).toMatch(/^\d+$/);
      expect(c.priceUsd).toMatch(/^\d+(\.\d+)?$/);
    }
    for (const t of DEMO_TOKENS) expect(t.priceUsd).toMatch(/^\d+(\.\d+)?$/);
  });
});
