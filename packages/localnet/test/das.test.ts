import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAddress } from "../src/base58.ts";
import {
  buildSignedTransaction,
  DEMO_COMPRESSED_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  type FaucetResult,
  generateLocalKeypair,
  getDemoRuleSetAddress,
  MPL_CORE_PROGRAM,
  USDC_MINT_ADDRESS,
} from "../src/index.ts";
import { transferProgrammableNftV1 } from "../src/token-metadata.ts";
import { das, rpc, startTestLocalnet } from "./helpers.ts";

interface Asset {
  interface: string;
  id: string;
  content: { json_uri: string; metadata: { name: string; symbol: string } };
  grouping: { group_key: string; group_value: string; verified: boolean }[];
  compression: { compressed: boolean };
  ownership: { owner: string; frozen: boolean; delegated: boolean; delegate: string | null };
  token_info?: { balance: number; decimals: number };
  burnt: boolean;
}

describe("DAS on the localnet, indexed from its own chain: Token Metadata NFTs, pNFTs, Core assets, compressed NFTs", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  const wallet = generateLocalKeypair();
  let given: FaucetResult;
  beforeAll(async () => {
    net = await startTestLocalnet();
    given = (await rpc(net.rpcUrl, "localnet_faucet", [wallet.address])).result as FaucetResult;
  }, 120_000);
  afterAll(async () => {
    await net.cleanup();
  });
  const byOwner = (owner: string, extra: Record<string, unknown> = {}) =>
    das<{ total: number; limit: number; page: number; items: Asset[] }>(net.rpcUrl, "getAssetsByOwner", {
      ownerAddress: owner,
      page: 1,
      limit: 1000,
      ...extra,
    });

  it("refuses bad input with clear errors: an invalid address, an unknown asset, a proof of an uncompressed one", async () => {
    await expect(das(net.rpcUrl, "getAsset", { id: "not-an-address" })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(das(net.rpcUrl, "getAssetsByOwner", { ownerAddress: 7 })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(
      das(net.rpcUrl, "getAssetsByOwner", { ownerAddress: wallet.address, limit: 1001 }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(das(net.rpcUrl, "getAsset", { id: generateLocalKeypair().address })).rejects.toMatchObject({
      code: -32000,
      message: "Asset Not Found",
    });
    await expect(das(net.rpcUrl, "getAssetProof", { id: given.nfts[0]!.mint })).rejects.toMatchObject({
      code: -32000,
    });
    expect(await das(net.rpcUrl, "getAssetBatch", { ids: [generateLocalKeypair().address] })).toEqual([null]);
  });

  it("lists a wallet's classic NFTs, pNFTs, Core assets and compressed NFTs with interface, owner, verified collection and content", async () => {
    const { items, page, limit } = await byOwner(wallet.address);
    expect({ page, limit }).toEqual({ page: 1, limit: 1000 });
    const expected = [
      ...given.nfts.map((n) => ({
        id: n.mint,
        interface: "V1_NFT",
        collection: n.collectionId,
        name: n.name,
      })),
      ...given.programmableNfts.map((n) => ({
        id: n.mint,
        interface: "ProgrammableNFT",
        collection: n.collectionId,
        name: n.name,
      })),
      ...given.coreAssets.map((n) => ({
        id: n.asset,
        interface: "MplCoreAsset",
        collection: n.collectionId,
        name: n.name,
      })),
      ...given.compressedNfts.map((n) => ({
        id: n.assetId,
        interface: "V1_NFT",
        collection: n.collectionId,
        name: n.name,
      })),
    ];
    expect(expected.length).toBe(
      given.nfts.length +
        DEMO_PROGRAMMABLE_COLLECTIONS.length +
        DEMO_CORE_COLLECTIONS.length +
        DEMO_COMPRESSED_COLLECTIONS.length,
    );
    expect(
      items
        .map((a) => ({
          id: a.id,
          interface: a.interface,
          collection: a.grouping.find((g) => g.group_key === "collection" && g.verified)?.group_value,
          name: a.content.metadata.name,
        }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    ).toEqual(expected.sort((a, b) => a.id.localeCompare(b.id)));
    for (const a of items) {
      expect(a.ownership.owner).toBe(wallet.address);
      expect(a.compression.compressed).toBe(given.compressedNfts.some((n) => n.assetId === a.id));
      expect(a.burnt).toBe(false);
    }
    // a pNFT's token account is frozen by its edition, as DAS shows it
    expect(items.find((a) => a.interface === "ProgrammableNFT")!.ownership.frozen).toBe(true);
    expect(items.find((a) => a.interface === "V1_NFT")!.ownership.frozen).toBe(false);
    // no fungibles unless asked
    expect(items.some((a) => a.id === USDC_MINT_ADDRESS)).toBe(false);
  });

  it("shows fungible balances with showFungible, in base units", async () => {
    const { items } = await byOwner(wallet.address, { displayOptions: { showFungible: true } });
    const usdc = items.find((a) => a.id === USDC_MINT_ADDRESS);
    const given_ = given.tokens.find((t) => t.mint === USDC_MINT_ADDRESS)!;
    expect(usdc?.interface).toMatch(/^Fungible(Token|Asset)$/);
    expect(String(usdc?.token_info?.balance)).toBe(given_.amount);
    expect(usdc?.token_info?.decimals).toBe(6);
  });

  it("getAsset and getAssetBatch answer the same assets as the owner listing", async () => {
    const core = given.coreAssets[0]!;
    const asset = await das<Asset>(net.rpcUrl, "getAsset", { id: core.asset });
    expect(asset).toMatchObject({
      interface: "MplCoreAsset",
      id: core.asset,
      content: { metadata: { name: core.name } },
      ownership: { owner: wallet.address, frozen: false, delegated: false, delegate: null },
    });
    const batch = await das<(Asset | null)[]>(net.rpcUrl, "getAssetBatch", {
      ids: [given.nfts[0]!.mint, generateLocalKeypair().address, core.asset],
    });
    expect(batch.map((a) => a?.id ?? null)).toEqual([given.nfts[0]!.mint, null, core.asset]);
    // a fungible mint by itself: its decimals and supply, no balance and no single owner
    const usdc = await das<Asset>(net.rpcUrl, "getAsset", { id: USDC_MINT_ADDRESS });
    expect(usdc.interface).toMatch(/^Fungible(Token|Asset)$/);
    expect(usdc.token_info).toMatchObject({ decimals: 6 });
    expect(usdc.token_info).not.toHaveProperty("balance");
  });

  it("follows the chain: a pNFT transferred with Token Metadata's own instruction moves to the new owner's listing", async () => {
    await net.airdrop(wallet.address, 1_000_000_000n);
    const friend = generateLocalKeypair();
    const pnft = given.programmableNfts[0]!;
    const { blockhash } = (
      (await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } }
    ).value;
    const tx = buildSignedTransaction(
      wallet,
      [
        transferProgrammableNftV1({
          mint: pnft.mint,
          owner: wallet.address,
          destinationOwner: friend.address,
          ruleSet: getDemoRuleSetAddress(net.faucetAddress),
        }),
      ],
      decodeAddress(blockhash),
    );
    const sent = await rpc(net.rpcUrl, "sendTransaction", [
      Buffer.from(tx).toString("base64"),
      { encoding: "base64" },
    ]);
    expect(sent.error).toBeUndefined();
    expect((await byOwner(friend.address)).items.map((a) => a.id)).toEqual([pnft.mint]);
    expect((await byOwner(wallet.address)).items.map((a) => a.id)).not.toContain(pnft.mint);
    expect((await das<Asset>(net.rpcUrl, "getAsset", { id: pnft.mint })).ownership.owner).toBe(
      friend.address,
    );
  });

  it("shows delegates and freezes as the chain holds them: an SPL Approve, Core's Freeze and Transfer Delegate plugins", async () => {
    const delegate = generateLocalKeypair();
    const nft = given.nfts[0]!;
    const core = given.coreAssets[0]!;
    const { blockhash } = (
      (await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } }
    ).value;
    const key = (a: string, isSigner: boolean, isWritable: boolean) => ({
      pubkey: decodeAddress(a),
      isSigner,
      isWritable,
    });
    // SPL Token Approve (4) of the NFT's token account to `delegate`
    const approve = {
      programId: decodeAddress("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
      keys: [
        key(nft.tokenAccount, false, true),
        key(delegate.address, false, false),
        key(wallet.address, true, false),
      ],
      data: Uint8Array.of(4, 1, 0, 0, 0, 0, 0, 0, 0),
    };
    // Core AddPluginV1 (2): Plugin::FreezeDelegate { frozen: true } / Plugin::TransferDelegate, authority Address
    const addPlugin = (plugin: number[]) => ({
      programId: decodeAddress(MPL_CORE_PROGRAM),
      keys: [
        key(core.asset, false, true),
        key(core.collectionId, false, true),
        key(wallet.address, true, true),
        key(MPL_CORE_PROGRAM, false, false),
        key("11111111111111111111111111111111", false, false),
        key(MPL_CORE_PROGRAM, false, false),
      ],
      data: Uint8Array.from([2, ...plugin, 1, 3, ...decodeAddress(delegate.address)]),
    });
    const tx = buildSignedTransaction(
      wallet,
      [approve, addPlugin([1, 1]), addPlugin([3])],
      decodeAddress(blockhash),
    );
    const sent = await rpc(net.rpcUrl, "sendTransaction", [
      Buffer.from(tx).toString("base64"),
      { encoding: "base64" },
    ]);
    expect(sent.error).toBeUndefined();
    expect((await das<Asset>(net.rpcUrl, "getAsset", { id: nft.mint })).ownership).toMatchObject({
      owner: wallet.address,
      delegated: true,
      delegate: delegate.address,
      frozen: false,
    });
    expect((await das<Asset>(net.rpcUrl, "getAsset", { id: core.asset })).ownership).toMatchObject({
      owner: wallet.address,
      delegated: true,
      delegate: delegate.address,
      frozen: true,
    });
  });

  it("pages with page and limit", async () => {
    const all = (await byOwner(wallet.address, { sortBy: { sortBy: "id", sortDirection: "asc" } })).items;
    const first = await byOwner(wallet.address, { limit: 2, sortBy: { sortBy: "id", sortDirection: "asc" } });
    const second = await byOwner(wallet.address, {
      limit: 2,
      page: 2,
      sortBy: { sortBy: "id", sortDirection: "asc" },
    });
    expect([...first.items, ...second.items].map((a) => a.id)).toEqual(all.slice(0, 4).map((a) => a.id));
    expect(first.total).toBe(2);
  });
});
