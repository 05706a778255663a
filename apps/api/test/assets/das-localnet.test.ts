import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildSignedTransaction,
  DEMO_WORLD,
  type FaucetResult,
  generateLocalKeypair,
  type LocalnetHandle,
  startLocalnet,
  transferLeaf,
} from "@cistern/localnet";
import { getBase58Encoder } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDasAssetSource, type DasAsset } from "../../src/assets/das-asset-source.ts";
import { randomAddress } from "../helpers/fixtures.ts";

/**
 * The production DAS adapter against the localnet's own DAS (served on its RPC port, indexed from its chain): the
 * same answers the adapter's shape tests expect from a DAS provider, for every standard the localnet mints.
 */
describe("the DAS asset source against the localnet's DAS", () => {
  let net: LocalnetHandle;
  let dataDir: string;
  const wallet = randomAddress();
  let given: FaucetResult;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cistern-api-das-"));
    net = await startLocalnet({ rpcPort: 0, dataDir, slotMs: 100 });
    given = await net.faucet(wallet);
  }, 120_000);
  afterAll(async () => {
    await net?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  const das = () => createDasAssetSource(net.rpcUrl, { backoffMs: 5 });

  it("answers getAssetsByOwner items in the DAS shape the adapter reads", async () => {
    const res = await fetch(net.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getAssetsByOwner",
        params: { ownerAddress: wallet, page: 1, limit: 1000, displayOptions: { showFungible: true } },
      }),
    });
    const { result } = (await res.json()) as { result: { items: DasAsset[]; total: number; page: number } };
    expect(result.page).toBe(1);
    expect(result.total).toBe(result.items.length);
    for (const a of result.items) {
      expect(typeof a.id).toBe("string");
      expect(["V1_NFT", "ProgrammableNFT", "MplCoreAsset", "FungibleToken", "FungibleAsset"]).toContain(
        a.interface,
      );
      expect(typeof a.content?.metadata?.name).toBe("string");
      expect(typeof a.compression?.compressed).toBe("boolean");
      expect(a.ownership?.owner).toBe(wallet);
      expect(Array.isArray(a.grouping)).toBe(true);
      if (a.interface.startsWith("Fungible")) expect(typeof a.token_info?.decimals).toBe("number");
    }
  });

  it("reads the wallet's NFTs of each standard (compressed included) with their verified collections, and its token balances", async () => {
    const nfts = await das().fetchNfts(wallet);
    const expected = [
      ...given.nfts.map((n) => ({ mint: n.mint, nftType: "Nft", collection: n.collectionId, name: n.name })),
      ...given.programmableNfts.map((n) => ({
        mint: n.mint,
        nftType: "ProgrammableNft",
        collection: n.collectionId,
        name: n.name,
      })),
      ...given.coreAssets.map((n) => ({
        mint: n.asset,
        nftType: "CoreNft",
        collection: n.collectionId,
        name: n.name,
      })),
      ...given.compressedNfts.map((n) => ({
        mint: n.assetId,
        nftType: "CompressedNft",
        collection: n.collectionId,
        name: n.name,
      })),
    ];
    expect(
      nfts
        .map((n) => ({ mint: n.mint, nftType: n.nftType, collection: n.collection, name: n.name }))
        .sort((a, b) => a.mint.localeCompare(b.mint)),
    ).toEqual(expected.sort((a, b) => a.mint.localeCompare(b.mint)));
    for (const n of nfts) {
      expect(n.owner).toBe(wallet);
      expect(n.image).not.toBe("");
    }
    const tokens = await das().fetchTokenBalances(wallet);
    for (const t of given.tokens.filter((x) => BigInt(x.amount) > 0n)) {
      const decimals = DEMO_WORLD.tokens.find((d) => d.mint === t.mint)?.decimals;
      expect(tokens).toContainEqual({ mint: t.mint, amount: BigInt(t.amount), decimals });
    }
    expect(tokens.some((t) => nfts.some((n) => n.mint === t.mint))).toBe(false);
  });

  it("looks up one asset and many at once; an unknown one is null", async () => {
    const core = given.coreAssets[0]!;
    expect(await das().fetchAsset(core.asset)).toMatchObject({
      mint: core.asset,
      nftType: "CoreNft",
      owner: wallet,
    });
    expect(await das().fetchAsset(randomAddress())).toBeNull();
    const many = await das().fetchAssets([given.nfts[0]!.mint, randomAddress(), core.asset]);
    expect(many.map((a) => a?.mint ?? null)).toEqual([given.nfts[0]!.mint, null, core.asset]);
  });

  it("reads a compressed leaf with its proof, from which a Bubblegum Transfer lands; anything else is null", async () => {
    const owner = generateLocalKeypair();
    const leaf = (await net.faucet(owner.address)).compressedNfts[0]!;
    const read = await das().fetchCompressedLeaf(leaf.assetId);
    expect(read).toMatchObject({
      assetId: leaf.assetId,
      tree: leaf.tree,
      leafIndex: leaf.leafIndex,
      nonce: BigInt(leaf.leafIndex),
      owner: owner.address,
      delegate: owner.address,
    });
    const shape = DEMO_WORLD.compressedCollections.find((c) => c.tree === leaf.tree)!;
    expect(read!.proof).toHaveLength(shape.maxDepth);
    const to = randomAddress();
    const blockhash = await fetch(net.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getLatestBlockhash", params: [] }),
    }).then(
      async (r) => ((await r.json()) as { result: { value: { blockhash: string } } }).result.value.blockhash,
    );
    const tx = buildSignedTransaction(
      owner,
      [
        transferLeaf({
          ...read!,
          newOwner: to,
          index: read!.leafIndex,
          proof: read!.proof.slice(0, shape.maxDepth - shape.canopyDepth),
        }),
      ],
      Uint8Array.from(getBase58Encoder().encode(blockhash)),
    );
    const sent = (await fetch(net.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "sendTransaction",
        params: [Buffer.from(tx).toString("base64"), { encoding: "base64" }],
      }),
    }).then((r) => r.json())) as { error?: unknown };
    expect(sent.error).toBeUndefined();
    expect((await das().fetchAsset(leaf.assetId))?.owner).toBe(to);
    expect(await das().fetchCompressedLeaf(given.nfts[0]!.mint)).toBeNull();
    expect(await das().fetchCompressedLeaf(randomAddress())).toBeNull();
  });
});
