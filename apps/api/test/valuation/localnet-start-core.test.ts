// `npm start` as scripts/start.ts composes it (a seeded localnet, the bootstrap with its demo lenders, NFT market
// and market maker, the API valuing collections from the chain): a new wallet's Metaplex Core asset is valued from
// the market maker's Core listings and bids and gets an offer from the demo pool that lists the Core collection.
import { DEMO_WORLD } from "@cistern/localnet";
import { generateKeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmStartWorld, startNpmStartWorld } from "../helpers/npm-start-world.ts";

describe("npm start: a new wallet's Core asset", () => {
  let world: NpmStartWorld;

  beforeAll(async () => {
    world = await startNpmStartWorld("cistern-start-core-");
  }, 600_000);
  afterAll(async () => {
    await world?.close();
  });

  it("is valued from the market's Core book (8 SOL floor, 7.2 SOL best bid) and gets the Koi desk's offer", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const given = await world.localnet.faucet(wallet);
    const asset = given.coreAssets[0]!.asset;
    await expect
      .poll(async () => (await world.quote(asset, wallet)).status, { timeout: 60_000, interval: 500 })
      .toBe(200);
    const offer = await world.quote(asset, wallet);
    // min(floor 8 SOL, best bid 7.2 SOL x 125% = 9 SOL) = 8 SOL; the pool lends 45% of it
    expect(offer.body).toMatchObject({
      pool: world.poolListing(DEMO_WORLD.coreCollections[0]!.collectionId),
      collateralValue: "8000000000",
      maxBorrowAmount: "3600000000",
    });
  }, 120_000);
});
