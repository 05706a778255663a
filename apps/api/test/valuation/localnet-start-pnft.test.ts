// `npm start` as scripts/start.ts composes it (a seeded localnet, the bootstrap with its demo lenders, NFT market
// and market maker, the API valuing collections from the chain): a new wallet's programmable NFT is valued from the
// market maker's pNFT listings and bids (each listed pNFT held by its listing through Token Metadata, under the demo
// rule set the bootstrap has allow the lending program and the market) and gets an offer from the demo pool that
// lists the pNFT collection.
import { DEMO_WORLD } from "@cistern/localnet";
import { generateKeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmStartWorld, startNpmStartWorld } from "../helpers/npm-start-world.ts";

describe("npm start: a new wallet's programmable NFT", () => {
  let world: NpmStartWorld;

  beforeAll(async () => {
    world = await startNpmStartWorld("cistern-start-pnft-");
  }, 600_000);
  afterAll(async () => {
    await world?.close();
  });

  it("is valued from the market's pNFT book (5 SOL floor, 4.5 SOL best bid) and gets the Petrel desk's offer", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const given = await world.localnet.faucet(wallet);
    const mint = given.programmableNfts[0]!.mint;
    await expect
      .poll(async () => (await world.quote(mint, wallet)).status, { timeout: 60_000, interval: 500 })
      .toBe(200);
    const offer = await world.quote(mint, wallet);
    // min(floor 5 SOL, best bid 4.5 SOL x 125% = 5.625 SOL) = 5 SOL; the pool lends 40% of it
    expect(offer.body).toMatchObject({
      pool: world.poolListing(DEMO_WORLD.programmableCollections[0]!.collectionId),
      collateralValue: "5000000000",
      maxBorrowAmount: "2000000000",
    });
  }, 120_000);
});
