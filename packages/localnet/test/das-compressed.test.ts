import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAddress, encodeBase58 } from "../src/base58.ts";
import {
  BUBBLEGUM_PROGRAM,
  buildSignedTransaction,
  DEMO_COMPRESSED_COLLECTIONS,
  type FaucetResult,
  generateLocalKeypair,
  getCompressedAssetId,
  getMetadataAddress,
  getRootFromProof,
  getTreeConfigAddress,
  type LocalKeypair,
  loadOrCreateKeypair,
  mintV1,
  readCollectionSize,
  readMerkleTree,
  readTreeConfig,
  SPL_ACCOUNT_COMPRESSION_PROGRAM,
  SPL_NOOP_PROGRAM,
  startLocalnet,
  transferLeaf,
  verifyCollectionLeaf,
} from "../src/index.ts";
import { das, rpc, startTestLocalnet, tempDataDir } from "./helpers.ts";

interface Asset {
  interface: string;
  id: string;
  content: { json_uri: string; metadata: { name: string; symbol: string } };
  grouping: { group_key: string; group_value: string; verified: boolean }[];
  compression: {
    compressed: boolean;
    tree: string;
    leaf_id: number;
    data_hash: string;
    creator_hash: string;
    asset_hash: string;
  };
  ownership: { owner: string; delegate: string | null };
  burnt: boolean;
}
interface Proof {
  root: string;
  proof: string[];
  node_index: number;
  leaf: string;
  tree_id: string;
}

const SHELLS = DEMO_COMPRESSED_COLLECTIONS[0]!;

/** The root a served proof hashes up to. */
const rootOf = (proof: Proof) =>
  getRootFromProof({ leaf: proof.leaf, proof: proof.proof, nodeIndex: proof.node_index });

describe("compressed NFTs (Bubblegum V1) in the demo world, served by the localnet's DAS from its own chain", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  const dataDir = tempDataDir();
  const wallet = generateLocalKeypair();
  const friend = generateLocalKeypair();
  let given: FaucetResult;
  beforeAll(async () => {
    net = await startTestLocalnet({ dataDir });
    given = (await rpc(net.rpcUrl, "localnet_faucet", [wallet.address])).result as FaucetResult;
  }, 180_000);
  afterAll(async () => {
    await net.cleanup();
  });

  const account = async (address: string) => {
    const v = (
      (await rpc(net.rpcUrl, "getAccountInfo", [address, { encoding: "base64" }])).result as {
        value: { owner: string; data: [string, string] } | null;
      }
    ).value;
    return v && { owner: v.owner, data: Buffer.from(v.data[0], "base64") };
  };
  const onChainRoot = async () => readMerkleTree((await account(SHELLS.tree))!.data)!.root;
  let lastSize = 0;
  const send = async (signer: LocalKeypair, ixs: Parameters<typeof buildSignedTransaction>[1]) => {
    const { blockhash } = (
      (await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } }
    ).value;
    const tx = buildSignedTransaction(signer, ixs, decodeAddress(blockhash));
    expect(tx.length).toBeLessThanOrEqual(1232);
    lastSize = tx.length;
    return rpc(net.rpcUrl, "sendTransaction", [Buffer.from(tx).toString("base64"), { encoding: "base64" }]);
  };
  /** A Bubblegum Transfer of `assetId` by its owner, with the served proof cut at the tree's canopy. */
  const transferIx = async (assetId: string, owner: string, to: string, proof?: Proof) => {
    const asset = await das<Asset>(net.rpcUrl, "getAsset", { id: assetId });
    const p = proof ?? (await das<Proof>(net.rpcUrl, "getAssetProof", { id: assetId }));
    return transferLeaf({
      tree: asset.compression.tree,
      owner,
      delegate: asset.ownership.delegate ?? owner,
      newOwner: to,
      root: p.root,
      dataHash: asset.compression.data_hash,
      creatorHash: asset.compression.creator_hash,
      nonce: BigInt(asset.compression.leaf_id),
      index: asset.compression.leaf_id,
      proof: p.proof.slice(0, SHELLS.maxDepth - SHELLS.canopyDepth),
    });
  };

  it("seeds a tree of the chosen shape and a sized collection whose leaves were minted with MintToCollectionV1", async () => {
    const tree = await account(SHELLS.tree);
    expect(tree?.owner).toBe(SPL_ACCOUNT_COMPRESSION_PROGRAM);
    expect(readMerkleTree(tree!.data)).toMatchObject({ maxDepth: 14, maxBufferSize: 64, canopyDepth: 13 });
    const config = readTreeConfig((await account(getTreeConfigAddress(SHELLS.tree)))!.data)!;
    expect(config.numMinted).toBe(BigInt(SHELLS.listedLeaves + 1)); // the listed leaves and the faucet's
    const collection = await account(getMetadataAddress(SHELLS.collectionId));
    // a sized Token Metadata collection NFT (the vendored Bubblegum leaves its size as it is)
    expect(readCollectionSize(collection!.data)).not.toBeNull();
  });

  it("lists the faucet's and a new wallet's compressed NFTs, verified into the collection, with their metadata", async () => {
    const faucetItems = (
      await das<{ items: Asset[] }>(net.rpcUrl, "getAssetsByOwner", { ownerAddress: net.faucetAddress })
    ).items.filter((a) => a.compression.compressed);
    expect(faucetItems.map((a) => a.content.metadata.name).sort()).toEqual(
      Array.from({ length: SHELLS.listedLeaves }, (_, i) => `Cistern Shell #${i + 1}`).sort(),
    );
    expect(given.compressedNfts).toHaveLength(1);
    const mine = given.compressedNfts[0]!;
    expect(mine).toMatchObject({
      collectionId: SHELLS.collectionId,
      tree: SHELLS.tree,
      leafIndex: SHELLS.listedLeaves,
    });
    const asset = await das<Asset>(net.rpcUrl, "getAsset", { id: mine.assetId });
    expect(asset).toMatchObject({
      interface: "V1_NFT",
      id: mine.assetId,
      content: { metadata: { name: `Cistern Shell #${SHELLS.listedLeaves + 1}`, symbol: "SHELL" } },
      grouping: [{ group_key: "collection", group_value: SHELLS.collectionId, verified: true }],
      compression: { compressed: true, tree: SHELLS.tree, leaf_id: SHELLS.listedLeaves },
      ownership: { owner: wallet.address, delegate: null },
      burnt: false,
    });
    const listed = (
      await das<{ items: Asset[] }>(net.rpcUrl, "getAssetsByOwner", { ownerAddress: wallet.address })
    ).items;
    expect(listed.filter((a) => a.compression.compressed).map((a) => a.id)).toEqual([mine.assetId]);
  });

  it("serves a proof that hashes to the tree's current on-chain root", async () => {
    const proof = await das<Proof>(net.rpcUrl, "getAssetProof", { id: given.compressedNfts[0]!.assetId });
    expect(proof.tree_id).toBe(SHELLS.tree);
    expect(proof.proof).toHaveLength(SHELLS.maxDepth);
    expect(proof.root).toBe(await onChainRoot());
    expect(rootOf(proof)).toBe(proof.root);
    const batch = await das<Record<string, Proof | null>>(net.rpcUrl, "getAssetProofBatch", {
      ids: [given.compressedNfts[0]!.assetId, generateLocalKeypair().address],
    });
    expect(Object.values(batch).map((p) => p?.root ?? null)).toEqual([proof.root, null]);
  });

  it("ignores a Noop event that Account Compression did not emit (anyone can call Noop with any bytes)", async () => {
    const before = await das<Proof>(net.rpcUrl, "getAssetProof", { id: given.compressedNfts[0]!.assetId });
    // a forged change log for the demo tree: AccountCompressionEvent::ChangeLog V1, id, a path of 15 nodes, seq, index
    const forged = Buffer.concat([
      Uint8Array.of(0, 0),
      decodeAddress(SHELLS.tree),
      Uint8Array.of(15, 0, 0, 0),
      ...Array.from({ length: 15 }, (_, i) =>
        Buffer.concat([Buffer.alloc(32, 7), Uint8Array.of(i === 14 ? 1 : 0, 0, 0, 0)]),
      ),
      Buffer.alloc(12),
    ]);
    const sent = await send(wallet, [{ programId: decodeAddress(SPL_NOOP_PROGRAM), keys: [], data: forged }]);
    expect(sent.error).toBeUndefined();
    const after = await das<Proof>(net.rpcUrl, "getAssetProof", { id: given.compressedNfts[0]!.assetId });
    expect(after).toEqual(before);
    expect(after.root).toBe(await onChainRoot());
  });

  let staleProof: Proof;
  it("a Bubblegum Transfer with the served proof lands, and DAS follows the leaf to its new owner", async () => {
    const assetId = given.compressedNfts[0]!.assetId;
    staleProof = await das<Proof>(net.rpcUrl, "getAssetProof", { id: assetId });
    // another wallet's leaf changes in between: the proof served now is against the new root
    const other = generateLocalKeypair();
    await rpc(net.rpcUrl, "localnet_faucet", [other.address]);
    const fresh = await das<Proof>(net.rpcUrl, "getAssetProof", { id: assetId });
    expect(fresh.root).not.toBe(staleProof.root);
    expect(fresh.root).toBe(await onChainRoot());
    const sent = await send(wallet, [await transferIx(assetId, wallet.address, friend.address, fresh)]);
    expect(sent.error).toBeUndefined();
    // one signature, 9 account keys (1 of them the proof below the canopy), the leaf's hashes as data
    expect(lastSize).toBe(518);
    const asset = await das<Asset>(net.rpcUrl, "getAsset", { id: assetId });
    expect(asset.ownership.owner).toBe(friend.address);
    const friendItems = (
      await das<{ items: Asset[] }>(net.rpcUrl, "getAssetsByOwner", { ownerAddress: friend.address })
    ).items;
    expect(friendItems.map((a) => a.id)).toEqual([assetId]);
    const walletItems = (
      await das<{ items: Asset[] }>(net.rpcUrl, "getAssetsByOwner", { ownerAddress: wallet.address })
    ).items;
    expect(walletItems.some((a) => a.id === assetId)).toBe(false);
    const proof = await das<Proof>(net.rpcUrl, "getAssetProof", { id: assetId });
    expect(proof.root).toBe(await onChainRoot());
    expect(rootOf(proof)).toBe(proof.root);
  });

  it("refuses on chain a stale proof (taken before the leaf moved) and a tampered one", async () => {
    const assetId = given.compressedNfts[0]!.assetId;
    const friendBalance = await net.airdrop(friend.address, 1_000_000_000n);
    expect(friendBalance).toBeTruthy();
    // the wallet no longer owns it: its leaf (owner = wallet) is not in the tree, whatever the proof
    const stale = await send(wallet, [await transferIx(assetId, wallet.address, wallet.address, staleProof)]);
    expect(stale.error?.code).toBe(-32002);
    // the owner with a proof whose first node is wrong
    const proof = await das<Proof>(net.rpcUrl, "getAssetProof", { id: assetId });
    const tampered = { ...proof, proof: [encodeBase58(Buffer.alloc(32, 9)), ...proof.proof.slice(1)] };
    const refused = await send(friend, [await transferIx(assetId, friend.address, wallet.address, tampered)]);
    expect(refused.error?.code).toBe(-32002);
    expect(JSON.stringify(refused.error?.data)).toContain(BUBBLEGUM_PROGRAM);
    // nothing moved
    expect((await das<Asset>(net.rpcUrl, "getAsset", { id: assetId })).ownership.owner).toBe(friend.address);
  });

  it("follows a collection verification: a leaf minted unverified (MintV1) shows its collection once VerifyCollection lands", async () => {
    const faucet = loadOrCreateKeypair(join(dataDir, "faucet-keypair.json"));
    const owner = generateLocalKeypair();
    const tree = SHELLS.tree;
    const nonce = readTreeConfig((await account(getTreeConfigAddress(tree)))!.data)!.numMinted;
    const metadata = {
      name: "Loose Shell",
      symbol: "SHELL",
      uri: "https://example.invalid/loose.json",
      sellerFeeBasisPoints: 500,
      collection: SHELLS.collectionId,
      creators: [{ address: faucet.address, verified: false, share: 100 }],
    };
    const minted = await send(faucet, [
      mintV1({ tree, owner: owner.address, authority: faucet.address, metadata }),
    ]);
    expect(minted.error).toBeUndefined();
    const id = getCompressedAssetId(tree, nonce);
    const before = await das<Asset>(net.rpcUrl, "getAsset", { id });
    expect(before.content.metadata.name).toBe("Loose Shell");
    expect(before.grouping).toEqual([]); // an unverified collection is not a group
    const shown = await das<Asset>(net.rpcUrl, "getAsset", {
      id,
      displayOptions: { showUnverifiedCollections: true },
    });
    expect(shown.grouping).toEqual([
      { group_key: "collection", group_value: SHELLS.collectionId, verified: false },
    ]);
    const proof = await das<Proof>(net.rpcUrl, "getAssetProof", { id });
    const verified = await send(faucet, [
      verifyCollectionLeaf({
        tree,
        owner: owner.address,
        delegate: owner.address,
        authority: faucet.address,
        treeDelegate: faucet.address,
        root: proof.root,
        dataHash: before.compression.data_hash,
        creatorHash: before.compression.creator_hash,
        nonce,
        index: Number(nonce),
        metadata,
        proof: proof.proof.slice(0, SHELLS.maxDepth - SHELLS.canopyDepth),
      }),
    ]);
    expect(verified.error).toBeUndefined();
    const after = await das<Asset>(net.rpcUrl, "getAsset", { id });
    expect(after.grouping).toEqual([
      { group_key: "collection", group_value: SHELLS.collectionId, verified: true },
    ]);
    expect(after.content.metadata.name).toBe("Loose Shell");
    expect(after.compression.data_hash).not.toBe(before.compression.data_hash);
    expect((await das<Proof>(net.rpcUrl, "getAssetProof", { id })).root).toBe(await onChainRoot());
  });

  it("a Bubblegum Burn by its owner: DAS keeps the asset burnt with its last owner, lists its Burn, and proves it no more", async () => {
    const burner = generateLocalKeypair();
    const mine = ((await rpc(net.rpcUrl, "localnet_faucet", [burner.address])).result as FaucetResult)
      .compressedNfts[0]!;
    // Burn has Transfer's accounts less the new owner, and its arguments (root, hashes, nonce, index)
    const transfer = await transferIx(mine.assetId, burner.address, burner.address);
    const burn = {
      ...transfer,
      keys: transfer.keys.filter((_, i) => i !== 3),
      data: Buffer.concat([Buffer.from("746e1d386bdb2a5d", "hex"), Buffer.from(transfer.data).subarray(8)]),
    };
    expect((await send(burner, [burn])).error).toBeUndefined();
    let asset = await das<Asset>(net.rpcUrl, "getAsset", { id: mine.assetId });
    while (!asset.burnt) asset = await das<Asset>(net.rpcUrl, "getAsset", { id: mine.assetId });
    expect(asset).toMatchObject({ id: mine.assetId, burnt: true, ownership: { owner: burner.address } });
    const signatures = await das<{ items: [string, string][] }>(net.rpcUrl, "getAssetSignatures", {
      id: mine.assetId,
    });
    expect(signatures.items.map(([, name]) => name)).toEqual(["Burn", "MintToCollectionV1"]);
    await expect(das(net.rpcUrl, "getAssetProof", { id: mine.assetId })).rejects.toMatchObject({
      code: -32000,
    });
    const listed = await das<{ items: Asset[] }>(net.rpcUrl, "getAssetsByOwner", {
      ownerAddress: burner.address,
    });
    expect(listed.items.some((a) => a.id === mine.assetId)).toBe(false);
  });

  it("survives a restart: the index is rebuilt from the persisted ledger and still matches the on-chain root", async () => {
    const assetId = given.compressedNfts[0]!.assetId;
    const before = await das<Proof>(net.rpcUrl, "getAssetProof", { id: assetId });
    await net.close();
    const again = await startLocalnet({ rpcPort: 0, slotMs: 100, dataDir });
    try {
      const asset = await das<Asset>(again.rpcUrl, "getAsset", { id: assetId });
      expect(asset.ownership.owner).toBe(friend.address);
      expect(asset.content.metadata.name).toBe(`Cistern Shell #${SHELLS.listedLeaves + 1}`);
      const proof = await das<Proof>(again.rpcUrl, "getAssetProof", { id: assetId });
      expect(proof).toEqual(before);
      const tree = (
        (await rpc(again.rpcUrl, "getAccountInfo", [SHELLS.tree, { encoding: "base64" }])).result as {
          value: { data: [string, string] };
        }
      ).value;
      expect(proof.root).toBe(readMerkleTree(Buffer.from(tree.data[0], "base64"))!.root);
    } finally {
      await again.close();
    }
    net = await startTestLocalnet({ dataDir });
  });
});

describe("the compressed index after ledger compaction", () => {
  it("rebuilds the trees from the transactions compaction keeps, though the history forgot them", async () => {
    const dataDir = tempDataDir();
    const options = { rpcPort: 0, slotMs: 100, dataDir, historyTransactions: 100, compactAfterEntries: 10 };
    let net = await startLocalnet(options);
    try {
      const wallet = generateLocalKeypair();
      const given = (await rpc(net.rpcUrl, "localnet_faucet", [wallet.address])).result as FaucetResult;
      const assetId = given.compressedNfts[0]!.assetId;
      // more transactions than the history keeps, then two snapshots: the second compacts the ledger
      for (let i = 0; i < 110; i++) await net.airdrop(generateLocalKeypair().address, 1_000_000n);
      await net.snapshot();
      await net.snapshot();
      const { readFileSync } = await import("node:fs");
      const lines = readFileSync(`${dataDir}/ledger.log`, "utf8").trim().split("\n");
      expect(JSON.parse(lines[0]!).k).toBe("base");
      // the leaf's mint is no longer in the history, yet its line stays in the ledger
      const mintSignature = lines
        .map((l) => JSON.parse(l) as { k: string; r?: { signature: string; logs: string[] } })
        .find((e) => e.k === "tx" && e.r!.logs.some((log) => log.includes("MintToCollectionV1")))
        ?.r?.signature;
      expect(mintSignature).toBeDefined();
      expect(
        (await rpc(net.rpcUrl, "getTransaction", [mintSignature, { encoding: "base64" }])).result,
      ).toBeNull();
      const before = await das<Proof>(net.rpcUrl, "getAssetProof", { id: assetId });
      await net.close();
      net = await startLocalnet(options);
      const after = await das<Proof>(net.rpcUrl, "getAssetProof", { id: assetId });
      expect(after).toEqual(before);
      const tree = (
        (await rpc(net.rpcUrl, "getAccountInfo", [SHELLS.tree, { encoding: "base64" }])).result as {
          value: { data: [string, string] };
        }
      ).value;
      expect(after.root).toBe(readMerkleTree(Buffer.from(tree.data[0], "base64"))!.root);
      expect((await das<Asset>(net.rpcUrl, "getAsset", { id: assetId })).ownership.owner).toBe(
        wallet.address,
      );
    } finally {
      await net.close();
      const { rmSync } = await import("node:fs");
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
