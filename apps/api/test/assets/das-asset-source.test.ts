import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDasAssetSource, type DasAsset } from "../../src/assets/das-asset-source.ts";
import { startHttpServer } from "../helpers/http-server.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase } from "../helpers/test-database.ts";

const OWNER = "86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY";
const COLLECTION = "J1S9H3QjnRtBbbuD4HjPV6RpRhwuk4zKbxsnCHuTgh9w";
const NFT = "F9Lw3ki3hJKHLsQ4X1q4YAkZfZCmX8q9y9X2C9MtVH6w";
const PNFT = "5pDSM3CZtUvCw9nMW8f2kmpnBt4Fvd9aSwDcAsBwYxTJ";
const CNFT = "JEH7cJxAKdprFG5AvdsY2c4ZqojxLBjFmw19zADV6oK5";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/** Assets in the DAS API's documented shape (Metaplex Digital Asset Standard). */
const ASSETS: DasAsset[] = [
  {
    interface: "V1_NFT",
    id: NFT,
    content: {
      json_uri: "https://x/1.json",
      metadata: { name: "Rain Frog #1", symbol: "RFROG" },
      links: { image: "https://x/1.png" },
    },
    grouping: [{ group_key: "collection", group_value: COLLECTION }],
    compression: { compressed: false },
    ownership: { owner: OWNER },
  },
  {
    interface: "ProgrammableNFT",
    id: PNFT,
    content: { metadata: { name: "No collection", symbol: "NC" }, links: { image: "https://x/2.png" } },
    grouping: [],
    compression: { compressed: false },
    ownership: { owner: OWNER },
  },
  {
    interface: "V1_NFT",
    id: CNFT,
    content: { metadata: { name: "Compressed", symbol: "C" }, links: {} },
    grouping: [{ group_key: "collection", group_value: COLLECTION }],
    compression: { compressed: true },
    ownership: { owner: OWNER },
  },
  {
    interface: "FungibleToken",
    id: USDC,
    content: { metadata: { name: "USD Coin", symbol: "USDC" } },
    token_info: { balance: 1250000, decimals: 6 },
    ownership: { owner: OWNER },
  },
];

/** Where an image can be in a DAS answer: links.image, files (cdn_uri first), an inline image uri; a JSON uri is none. */
const IMAGE_CASES: { asset: DasAsset; image: string | null }[] = [
  [
    "links",
    { json_uri: "http://127.0.0.1:8899/metadata/a.json", links: { image: "https://x/a.png" } },
    "https://x/a.png",
  ],
  [
    "files",
    { json_uri: "https://x/b.json", links: {}, files: [{ uri: "https://x/b.svg", mime: "image/svg+xml" }] },
    "https://x/b.svg",
  ],
  [
    "cdn",
    {
      json_uri: "https://x/c.json",
      files: [{ uri: "https://x/c.png", cdn_uri: "https://cdn/c.png", mime: "image/png" }],
    },
    "https://cdn/c.png",
  ],
  ["inline", { json_uri: "data:image/svg+xml,<svg/>", links: {} }, "data:image/svg+xml,<svg/>"],
  ["json only", { json_uri: "http://127.0.0.1:8899/metadata/e.json", links: {}, files: [] }, null],
].map(([name, content, image], i) => ({
  asset: {
    interface: "V1_NFT",
    id: `Img${i}${"1".repeat(40)}`,
    content: { metadata: { name: String(name), symbol: "I" }, ...(content as object) },
    ownership: { owner: OWNER },
  },
  image: image as string | null,
}));

describe("the DAS asset source, against a server answering the DAS API's shapes", () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  /** What the next answers are: "ok", or failures to send before answering. */
  const script: ("429" | "503" | "hang")[] = [];
  const methods: string[] = [];
  beforeAll(async () => {
    server = await startHttpServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        const { id, method, params } = JSON.parse(body) as {
          id: number;
          method: string;
          params: Record<string, unknown>;
        };
        methods.push(method);
        const failure = script.shift();
        if (failure === "hang") return; // never answers: the client's timeout
        if (failure === "429" || failure === "503") {
          res.statusCode = Number(failure);
          if (failure === "429") res.setHeader("retry-after", "1");
          res.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32429, message: "rate limited" } }));
          return;
        }
        res.setHeader("content-type", "application/json");
        let result: unknown;
        if (method === "getAssetsByOwner")
          result = {
            total: ASSETS.length,
            limit: 1000,
            page: params.page,
            items: params.page === 1 ? ASSETS : [],
          };
        else if (method === "getAsset") {
          const asset = [...ASSETS, ...IMAGE_CASES.map((c) => c.asset)].find((a) => a.id === params.id);
          if (!asset) {
            res.end(
              JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32000, message: "Asset Not Found" } }),
            );
            return;
          }
          result = asset;
        } else if (method === "getAssetBatch")
          result = (params.ids as string[]).map((i) => ASSETS.find((a) => a.id === i) ?? null);
        res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
      });
    });
  });
  afterAll(() => server.close());
  const das = (options = {}) => createDasAssetSource(server.url, { backoffMs: 5, ...options });

  it("reads a wallet's NFTs (standard, programmable, compressed; verified collection from grouping) and tokens", async () => {
    expect(await das().fetchNfts(OWNER)).toEqual([
      {
        mint: NFT,
        name: "Rain Frog #1",
        symbol: "RFROG",
        image: "https://x/1.png",
        collection: COLLECTION,
        nftType: "Nft",
        owner: OWNER,
      },
      {
        mint: PNFT,
        name: "No collection",
        symbol: "NC",
        image: "https://x/2.png",
        collection: null,
        nftType: "ProgrammableNft",
        owner: OWNER,
      },
      {
        mint: CNFT,
        name: "Compressed",
        symbol: "C",
        image: "",
        collection: COLLECTION,
        nftType: "CompressedNft",
        owner: OWNER,
      },
    ]);
    expect(await das().fetchTokenBalances(OWNER)).toEqual([{ mint: USDC, amount: 1_250_000n, decimals: 6 }]);
  });

  it("reads an asset's image as a hosted DAS gives it (links, files, an inline image), never its JSON document's address", async () => {
    for (const c of IMAGE_CASES) expect(await das().fetchImage(c.asset.id)).toBe(c.image);
  });

  it("looks up one asset and many at once (getAssetBatch); an unknown one is null", async () => {
    expect((await das().fetchAsset(NFT))?.collection).toBe(COLLECTION);
    expect(await das().fetchAsset("11111111111111111111111111111111")).toBeNull();
    const many = await das().fetchAssets([CNFT, "11111111111111111111111111111111", NFT]);
    expect(many.map((a) => a?.mint ?? null)).toEqual([CNFT, null, NFT]);
    expect(methods.at(-1)).toBe("getAssetBatch");
  });

  it("retries a rate limit and a server error with backoff, then answers", async () => {
    script.push("429", "503");
    const started = Date.now();
    expect((await das().fetchAsset(NFT))?.mint).toBe(NFT);
    // Retry-After: 1 was honoured
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it("gives up after its retries with the API's upstream error (a timeout included), never a crash", async () => {
    script.push("503", "503", "503");
    await expect(das({ retries: 2 }).fetchNfts(OWNER)).rejects.toMatchObject({
      code: 11000,
      message: "DAS getAssetsByOwner answered 503 after 3 attempts",
    });
    script.push("hang", "hang");
    await expect(das({ retries: 1, timeoutMs: 200 }).fetchAsset(NFT)).rejects.toMatchObject({
      message: "DAS getAsset timed out after 2 attempts",
    });
    script.length = 0;
  });

  it("the wallet's NFTs and tokens answer a degraded state, not a 5xx, when the asset service fails", async () => {
    const t = await createTestDatabase("pglite");
    const { app } = await createTestApp(t.db, {
      catalog: makeCatalog(COLLECTION),
      das: createDasAssetSource(server.url, { retries: 1, backoffMs: 5 }),
    });
    // the catalogue loads first (it asks the asset API for the images its file leaves out)
    await app.inject({ url: "/currency/currencies" });
    script.push("503", "503");
    const r = await app.inject({ url: `/asset/assets?pubkey=${OWNER}` });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      nfts: [],
      unavailable: "Your NFTs could not be loaded just now; try again in a moment.",
    });
    script.push("503", "503");
    const tokens = await app.inject({ url: `/asset/tokens?pubkey=${OWNER}` });
    expect(tokens.statusCode).toBe(200);
    expect(tokens.json()).toEqual({
      tokens: [],
      unavailable: "Your token balances could not be loaded just now; try again in a moment.",
    });
    // and with the service back, the NFTs
    const ok = await app.inject({ url: `/asset/assets?pubkey=${OWNER}` });
    expect((ok.json() as { nfts: { mint: string }[] }).nfts.map((n) => n.mint).sort()).toEqual(
      [CNFT, NFT, PNFT].sort(),
    );
    await app.close();
    await t.drop();
  });
});
