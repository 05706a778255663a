// `npm start` as scripts/start.ts composes it (a seeded localnet, the bootstrap with its demo lenders, NFT market
// and market maker, the API valuing collections from the chain): a new wallet's compressed NFT (a Bubblegum V1 leaf
// of Cistern Shells) is valued from the market maker's compressed listings and bids (listings owned by the market's
// listing PDAs, their collection recorded from the leaf's verified metadata) and gets an offer from the demo pool
// that lists the compressed collection. The twin of localnet-start-core.test.ts.
import { DEMO_WORLD } from "@cistern/localnet";
import { generateKeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmStartWorld, startNpmStartWorld } from "../helpers/npm-start-world.ts";

describe("npm start: a new wallet's compressed NFT", () => {
  let world: NpmStartWorld;

  beforeAll(async () => {
    world = await startNpmStartWorld("cistern-start-cnft-");
  }, 600_000);
  afterAll(async () => {
    await world?.close();
  });

  it("is valued from the market's compressed book (2 SOL floor, 1.8 SOL best bid) and gets the Shell desk's offer", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const given = await world.localnet.faucet(wallet);
    const asset = given.compressedNfts[0]!.assetId;
    await expect
      .poll(async () => (await world.quote(asset, wallet)).status, { timeout: 60_000, interval: 500 })
      .toBe(200);
    const offer = await world.quote(asset, wallet);
    // min(floor 2 SOL, best bid 1.8 SOL x 125% = 2.25 SOL) = 2 SOL; the pool lends 40% of it
    expect(offer.body).toMatchObject({
      pool: world.poolListing(DEMO_WORLD.compressedCollections[0]!.collectionId),
      collateralValue: "2000000000",
      maxBorrowAmount: "800000000",
    });
  }, 120_000);
});
