import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOL, USDC } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog, type TestApp } from "../helpers/test-app.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const COLLECTION = "Gz1cuWmuaQymLXD5XVqKey3DwDFsJqVT9yVRPwmKxU7Q";
const USDC_IMAGE = "https://assets.example/usdc.png";

// The catalogue file names what a deployment lends against; an entry it gives no image takes its image from the
// asset API (DAS getAsset of the token's mint, of the collection's NFT): never an invented one.
describe("catalogue images from the asset API", () => {
  let t: TestDatabase;
  let built: TestApp;
  beforeAll(async () => {
    t = await createTestDatabase("pglite");
    const catalog = makeCatalog(COLLECTION);
    catalog.collections[0]!.image = "";
    built = await createTestApp(t.db, {
      catalog,
      images: { [USDC]: USDC_IMAGE, [COLLECTION]: "https://assets.example/otters.png" },
    });
  }, 60_000);
  afterAll(async () => {
    await built?.app.close();
    await t?.drop();
  });

  it("a token and a collection without an image in the file show the asset API's; one it does not know stays without", async () => {
    const currencies = (
      await built.app.inject({ method: "GET", url: "/currency/currencies" })
    ).json() as Record<string, { image: string }>;
    expect(currencies[USDC]!.image).toContain(USDC_IMAGE);
    expect(currencies[SOL]!.image).toBe("");
    const collections = (
      await built.app.inject({ method: "GET", url: "/collection/collections" })
    ).json() as {
      collectionId: string;
      metadata: { thumbnail: string };
    }[];
    expect(collections.find((c) => c.collectionId === COLLECTION)!.metadata.thumbnail).toContain(
      "https://assets.example/otters.png",
    );
  });
});
