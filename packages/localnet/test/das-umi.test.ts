/**
 * The localnet's DAS as the official Metaplex client calls it: the umi `dasApi()` plugin
 * (@metaplex-foundation/digital-asset-standard-api), every method it has, against a seeded localnet; and the demo
 * NFTs' off-chain JSON documents, which their on-chain uri names and DAS's content is read from.
 */
import {
  type DasApiAsset,
  type DasApiInterface,
  dasApi,
} from "@metaplex-foundation/digital-asset-standard-api";
import { publicKey } from "@metaplex-foundation/umi";
import { createUmi } from "@metaplex-foundation/umi-bundle-defaults";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTreeConfigAddress } from "../src/bubblegum.ts";
import { getDemoMetadataUri } from "../src/das/offchain-metadata.ts";
import {
  DEMO_COLLECTIONS,
  DEMO_WORLD,
  type FaucetResult,
  generateLocalKeypair,
  USDC_MINT_ADDRESS,
} from "../src/index.ts";
import { rpc, startTestLocalnet } from "./helpers.ts";

describe("DAS through the official umi dasApi() plugin", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  let umi: ReturnType<typeof createUmi>;
  const wallet = generateLocalKeypair();
  let given: FaucetResult;
  const das = () => umi.rpc as unknown as DasApiInterface;
  beforeAll(async () => {
    net = await startTestLocalnet();
    given = (await rpc(net.rpcUrl, "localnet_faucet", [wallet.address])).result as FaucetResult;
    umi = createUmi(net.rpcUrl).use(dasApi());
  }, 120_000);
  afterAll(async () => {
    await net.cleanup();
  });

  it("getAsset of each standard: interface, owner, and content from the asset's JSON document (description, attributes, token_standard, files, links.image)", async () => {
    const cases: { id: string; iface: string; standard?: string; collection: string }[] = [
      {
        id: given.nfts[0]!.mint,
        iface: "V1_NFT",
        standard: "NonFungible",
        collection: given.nfts[0]!.collectionId,
      },
      {
        id: given.programmableNfts[0]!.mint,
        iface: "ProgrammableNFT",
        standard: "ProgrammableNonFungible",
        collection: given.programmableNfts[0]!.collectionId,
      },
      {
        id: given.coreAssets[0]!.asset,
        iface: "MplCoreAsset",
        collection: given.coreAssets[0]!.collectionId,
      },
      {
        id: given.compressedNfts[0]!.assetId,
        iface: "V1_NFT",
        standard: "NonFungible",
        collection: given.compressedNfts[0]!.collectionId,
      },
    ];
    for (const c of cases) {
      const a = await das().getAsset(publicKey(c.id));
      expect(a.interface).toBe(c.iface);
      expect(a.ownership.owner).toBe(wallet.address);
      expect(a.burnt).toBe(false);
      expect(a.grouping).toContainEqual(
        expect.objectContaining({ group_key: "collection", group_value: c.collection }),
      );
      // the uri is a JSON document, not the image
      expect(a.content.json_uri).toBe(getDemoMetadataUri(c.id));
      const metadata = a.content.metadata as Record<string, unknown>;
      expect(metadata.description).toMatch(/Cistern localnet/);
      expect(metadata.attributes).toContainEqual({ trait_type: "Collection", value: expect.any(String) });
      expect(metadata.token_standard).toBe(c.standard);
      // an object, as the reference server and hosted DAS answer (umi's type says an array)
      const image = (a.content.links as unknown as { image: string }).image;
      expect(image).toMatch(/^data:image\/svg\+xml,/);
      expect(a.content.files).toEqual([{ uri: image, mime: "image/svg+xml" }]);
      expect(a.supply).toEqual({ print_max_supply: 0, print_current_supply: 0, edition_nonce: null });
      // what the uri serves is the same document a wallet would fetch
      const doc = (await (await fetch(`${net.rpcUrl}/metadata/${c.id}.json`)).json()) as Record<
        string,
        unknown
      >;
      expect(doc).toMatchObject({
        name: metadata.name,
        description: metadata.description,
        image,
        attributes: metadata.attributes,
        properties: { files: [{ uri: image, type: "image/svg+xml" }], category: "image" },
      });
      expect(typeof doc.symbol).toBe("string");
    }
  });

  it("Core assets show their plugins, mpl_core_info and supply; compressed ones their tree's authority; SPL tokens read FungibleToken", async () => {
    const core = await das().getAsset(publicKey(given.coreAssets[0]!.asset));
    expect(core.mpl_core_info).toEqual({ plugins_json_version: 1 });
    expect(core.plugins).toEqual(expect.any(Object));
    const compressed = await das().getAsset(publicKey(given.compressedNfts[0]!.assetId));
    expect(compressed.authorities).toEqual([
      { address: getTreeConfigAddress(given.compressedNfts[0]!.tree), scopes: ["full"] },
    ]);
    const usdc = await das().getAsset(publicKey(USDC_MINT_ADDRESS));
    expect(usdc.interface).toBe("FungibleToken");
  });

  it("getAssets (and its alias getAssetBatch) answer each id in order, null for an unknown one", async () => {
    const unknown = generateLocalKeypair().address;
    const ids = [given.nfts[0]!.mint, unknown, given.coreAssets[0]!.asset];
    const assets = await das().getAssets(ids.map((id) => publicKey(id)));
    expect(assets.map((a) => (a as DasApiAsset | null)?.id ?? null)).toEqual([ids[0], null, ids[2]]);
    const alias = (await rpc(net.rpcUrl, "getAssetBatch", [{ ids }])).result as ({ id: string } | null)[];
    expect(alias.map((a) => a?.id ?? null)).toEqual([ids[0], null, ids[2]]);
  });

  it("getAssetProof and getAssetProofs (alias getAssetProofBatch) prove a compressed leaf against its tree", async () => {
    const leaf = given.compressedNfts[0]!;
    const proof = await das().getAssetProof(publicKey(leaf.assetId));
    expect(proof.tree_id).toBe(leaf.tree);
    expect(proof.node_index).toBeGreaterThan(0);
    const proofs = await das().getAssetProofs([publicKey(leaf.assetId)]);
    expect((proofs as Record<string, unknown>)[leaf.assetId]).toEqual(proof);
    const alias = (await rpc(net.rpcUrl, "getAssetProofBatch", [{ ids: [leaf.assetId] }])).result;
    expect(alias).toEqual({ [leaf.assetId]: proof });
  });

  it("getAssetsByOwner, getAssetsByGroup, getAssetsByCreator, getAssetsByAuthority and searchAssets list the same assets", async () => {
    const owned = await das().getAssetsByOwner({ owner: publicKey(wallet.address), limit: 1000, page: 1 });
    const ids = owned.items.map((a) => a.id);
    for (const id of [given.nfts[0]!.mint, given.coreAssets[0]!.asset, given.compressedNfts[0]!.assetId])
      expect(ids).toContain(id);
    const nft = given.nfts[0]!;
    const group = await das().getAssetsByGroup({
      groupKey: "collection",
      groupValue: nft.collectionId,
      limit: 1000,
    });
    expect(group.items.map((a) => a.id)).toContain(nft.mint);
    for (const a of group.items) expect(a.grouping[0]!.group_value).toBe(nft.collectionId);
    const coreGroup = await das().getAssetsByGroup({
      groupKey: "collection",
      groupValue: given.coreAssets[0]!.collectionId,
    });
    expect(coreGroup.items.map((a) => a.id)).toContain(given.coreAssets[0]!.asset);
    const classic = await das().getAsset(publicKey(nft.mint));
    const creator = classic.creators[0]!.address;
    const byCreator = await das().getAssetsByCreator({
      creator: publicKey(creator),
      onlyVerified: false,
      limit: 1000,
    });
    expect(byCreator.items.map((a) => a.id)).toContain(nft.mint);
    const authority = classic.authorities[0]!.address;
    const byAuthority = await das().getAssetsByAuthority({ authority: publicKey(authority), limit: 1000 });
    expect(byAuthority.items.map((a) => a.id)).toContain(nft.mint);
    const leaf = given.compressedNfts[0]!;
    const byTree = await das().getAssetsByAuthority({
      authority: publicKey(getTreeConfigAddress(leaf.tree)),
    });
    expect(byTree.items.map((a) => a.id)).toContain(leaf.assetId);
    const search = await das().searchAssets({
      owner: publicKey(wallet.address),
      grouping: ["collection", nft.collectionId],
    });
    expect(search.items.map((a) => a.id)).toEqual([nft.mint]);
    const compressedOnly = await das().searchAssets({ owner: publicKey(wallet.address), compressed: true });
    expect(compressedOnly.items.map((a) => a.id).sort()).toEqual(
      given.compressedNfts.map((n) => n.assetId).sort(),
    );
  });

  it("getGrouping names a collection and counts it; getAssetSignatures lists a leaf's Bubblegum transactions", async () => {
    const c = DEMO_COLLECTIONS[0]!;
    const grouping = await das().getGrouping({ groupKey: "collection", groupValue: c.collectionId });
    expect(grouping).toMatchObject({ group_key: "collection", group_name: c.name });
    const listed = await das().getAssetsByGroup({
      groupKey: "collection",
      groupValue: c.collectionId,
      limit: 1000,
    });
    expect(grouping.group_size).toBe(listed.items.length);
    const leaf = given.compressedNfts[0]!;
    const signatures = await das().getAssetSignatures({ assetId: publicKey(leaf.assetId) });
    // as the reference server and hosted DAS answer: [signature, instruction] pairs
    expect(signatures.items).toEqual([[expect.any(String), "MintToCollectionV1"]]);
    expect(signatures.total).toBe(1);
    const byLeaf = await das().getAssetSignatures({ tree: publicKey(leaf.tree), leaf_index: leaf.leafIndex });
    expect(byLeaf.items).toEqual(signatures.items);
  });

  it("getTokenAccounts by owner and by mint; getNftEditions of a collection's master edition", async () => {
    const accounts = await das().getTokenAccounts({ ownerAddress: publicKey(wallet.address) });
    const usdc = accounts.token_accounts.find((t) => t.mint === USDC_MINT_ADDRESS);
    expect(usdc).toMatchObject({
      owner: wallet.address,
      amount: Number(given.tokens.find((t) => t.mint === USDC_MINT_ADDRESS)!.amount),
      frozen: false,
    });
    const byMint = await das().getTokenAccounts({ mintAddress: publicKey(given.nfts[0]!.mint) });
    expect(byMint.token_accounts.map((t) => t.owner)).toEqual([wallet.address]);
    const editions = await das().getNftEditions({
      mintAddress: publicKey(DEMO_WORLD.collections[0]!.collectionId),
    });
    expect(editions).toMatchObject({ total: 0, supply: 0, editions: [] });
    expect(editions.master_edition_address).toEqual(expect.any(String));
  });

  it("refuses bad input with a plain error: unknown asset, a filter it does not apply, an id that is no address", async () => {
    await expect(das().getAsset(publicKey(generateLocalKeypair().address))).rejects.toThrow(/not found/i);
    // umi answers any RPC error with its own "not found" message; the server's own says what is wrong
    await expect(
      das().searchAssets({ owner: publicKey(wallet.address), supplyMint: publicKey(USDC_MINT_ADDRESS) }),
    ).rejects.toThrow();
    const unsupported = await rpc(net.rpcUrl, "searchAssets", [
      { ownerAddress: wallet.address, supplyMint: USDC_MINT_ADDRESS },
    ]);
    expect(unsupported.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/supplyMint is not supported/),
    });
    const bad = await rpc(net.rpcUrl, "getAssets", [{ ids: ["not-an-address"] }]);
    expect(bad.error?.code).toBe(-32602);
    const res = await fetch(`${net.rpcUrl}/metadata/${generateLocalKeypair().address}.json`);
    expect(res.status).toBe(404);
  });
});
