import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeMetadata } from "@cistern/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDemoMetadataUri } from "../src/das/offchain-metadata.ts";
import {
  DEMO_COLLECTIONS,
  DEMO_TOKENS,
  getAssociatedTokenAddress,
  getMasterEditionAddress,
  getMetadataAddress,
  readCollectionSize,
  startLocalnet,
  TOKEN_METADATA_PROGRAM_ADDRESS,
} from "../src/index.ts";
import { rpc, startTestLocalnet } from "./helpers.ts";

type Account = {
  data: [string, string] | { parsed: { info: Record<string, unknown>; type: string } };
  owner: string;
  lamports: number;
};

async function account(url: string, address: string, encoding = "base64"): Promise<Account | null> {
  return ((await rpc(url, "getAccountInfo", [address, { encoding }])).result as { value: Account | null })
    .value;
}

function ledgerLines(dataDir: string): number {
  return readFileSync(join(dataDir, "ledger.log"), "utf8").split("\n").filter(Boolean).length;
}

describe("demo world seed, faucet and admin controls", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  beforeAll(async () => {
    net = await startTestLocalnet();
  });
  afterAll(async () => {
    await net.cleanup();
  });

  it("creates USDC, wrapped SOL and demo mints with the faucet as mint authority", async () => {
    for (const t of DEMO_TOKENS) {
      const a = await account(net.rpcUrl, t.mint, "jsonParsed");
      expect(a?.owner).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
      const info = (a!.data as { parsed: { info: Record<string, unknown> } }).parsed.info;
      expect(info.decimals).toBe(t.decimals);
      if (t.symbol !== "SOL") expect(info.mintAuthority).toBe(net.faucetAddress);
    }
  });

  it("mints every listed NFT through Token Metadata: sized collections, master editions, verified items", async () => {
    const kit = await import("@solana/kit");
    const keyOf = (a: string) => Buffer.from(kit.getAddressEncoder().encode(kit.address(a)));
    for (const c of DEMO_COLLECTIONS) {
      const collMeta = await account(net.rpcUrl, getMetadataAddress(c.collectionId));
      expect(collMeta?.owner).toBe(TOKEN_METADATA_PROGRAM_ADDRESS);
      const collData = Buffer.from((collMeta!.data as [string, string])[0], "base64");
      expect(decodeMetadata(collData)).toMatchObject({ name: c.name, symbol: c.symbol, collection: null });
      // A sized collection: CollectionDetails::V1 { size } counts the items the program verified into it.
      expect(readCollectionSize(collData)).toBe(BigInt(c.nfts.length));
      // The metadata account was written by transactions of the program (the collection's creation and one Verify
      // per item), not by an admin write.
      const history = (await rpc(net.rpcUrl, "getSignaturesForAddress", [getMetadataAddress(c.collectionId)]))
        .result as { err: unknown }[];
      expect(history).toHaveLength(1 + c.nfts.length);
      expect(history.every((h) => h.err === null)).toBe(true);
      for (const mintAddress of [c.collectionId, ...c.nfts.map((n) => n.mint)]) {
        // CreateMasterEditionV3 took the mint and freeze authority: no second token can ever be minted.
        const edition = getMasterEditionAddress(mintAddress);
        const editionAccount = await account(net.rpcUrl, edition);
        expect(editionAccount?.owner).toBe(TOKEN_METADATA_PROGRAM_ADDRESS);
        expect(Buffer.from((editionAccount!.data as [string, string])[0], "base64")[0]).toBe(6); // MasterEditionV2
        const mint = await account(net.rpcUrl, mintAddress, "jsonParsed");
        expect((mint!.data as { parsed: { info: Record<string, unknown> } }).parsed.info).toMatchObject({
          decimals: 0,
          supply: "1",
          mintAuthority: edition,
          freezeAuthority: edition,
        });
      }
      for (const nft of c.nfts) {
        const meta = await account(net.rpcUrl, getMetadataAddress(nft.mint));
        expect(meta?.owner).toBe(TOKEN_METADATA_PROGRAM_ADDRESS);
        const data = Buffer.from((meta!.data as [string, string])[0], "base64");
        const decoded = decodeMetadata(data);
        // the uri names the NFT's JSON document (the image is in it)
        expect(decoded).toMatchObject({
          name: nft.name,
          symbol: c.symbol,
          uri: getDemoMetadataUri(nft.mint),
        });
        expect(decoded.collection?.verified).toBe(true);
        expect(Buffer.from(decoded.collection!.key)).toEqual(keyOf(c.collectionId));
        expect(Buffer.from(decoded.updateAuthority)).toEqual(keyOf(net.faucetAddress));
      }
    }
  });

  it("localnet_demoWorld returns the demo world description", async () => {
    const world = (await rpc(net.rpcUrl, "localnet_demoWorld")).result as {
      tokens: { mint: string }[];
      collections: unknown[];
    };
    expect(world.tokens.map((t) => t.mint)).toEqual(DEMO_TOKENS.map((t) => t.mint));
    expect(world.collections).toHaveLength(DEMO_COLLECTIONS.length);
  });

  it("faucet gives SOL, USDC, demo tokens and a fresh NFT per collection", async () => {
    const wallet = "7YbN3yJkE8ixNbDZkQEJzjpZEpVoKmD1gYPK3ixQ1Pvf";
    const r = (await rpc(net.rpcUrl, "localnet_faucet", [wallet])).result as {
      nfts: { mint: string; collectionId: string; tokenAccount: string }[];
      tokens: { mint: string; amount: string }[];
    };
    expect(((await rpc(net.rpcUrl, "getBalance", [wallet])).result as { value: number }).value).toBe(
      100_000_000_000,
    );
    const parsed = (
      await rpc(net.rpcUrl, "getTokenAccountsByOwner", [
        wallet,
        { programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" },
        { encoding: "jsonParsed" },
      ])
    ).result as {
      value: { account: { data: { parsed: { info: { mint: string; tokenAmount: { amount: string } } } } } }[];
    };
    const byMint = new Map(
      parsed.value.map((v) => [
        v.account.data.parsed.info.mint,
        v.account.data.parsed.info.tokenAmount.amount,
      ]),
    );
    const usdc = DEMO_TOKENS.find((t) => t.symbol === "USDC")!;
    expect(byMint.get(usdc.mint)).toBe(usdc.faucetAmountBaseUnits);
    expect(r.nfts).toHaveLength(DEMO_COLLECTIONS.length);
    for (const n of r.nfts) {
      expect(byMint.get(n.mint)).toBe("1");
      expect(n.tokenAccount).toBe(getAssociatedTokenAddress(wallet, n.mint));
      const meta = await account(net.rpcUrl, getMetadataAddress(n.mint));
      expect(meta?.owner).toBe(TOKEN_METADATA_PROGRAM_ADDRESS);
      const decoded = decodeMetadata(Buffer.from((meta!.data as [string, string])[0], "base64"));
      expect(decoded.collection?.verified).toBe(true);
      expect((await account(net.rpcUrl, getMasterEditionAddress(n.mint)))?.owner).toBe(
        TOKEN_METADATA_PROGRAM_ADDRESS,
      );
      // Verified through the program, so the sized collection counts it.
      const coll = DEMO_COLLECTIONS.find((c) => c.collectionId === n.collectionId)!;
      const collMeta = await account(net.rpcUrl, getMetadataAddress(coll.collectionId));
      expect(readCollectionSize(Buffer.from((collMeta!.data as [string, string])[0], "base64"))).toBe(
        BigInt(coll.nfts.length + 1),
      );
    }
    const supply = (await rpc(net.rpcUrl, "getTokenSupply", [usdc.mint])).result as {
      value: { amount: string };
    };
    expect(BigInt(supply.value.amount)).toBeGreaterThanOrEqual(BigInt(usdc.faucetAmountBaseUnits));
    // A second faucet call gives different NFTs.
    const again = (await rpc(net.rpcUrl, "localnet_faucet", [wallet])).result as { nfts: { mint: string }[] };
    expect(again.nfts.map((n) => n.mint).some((m) => r.nfts.some((n) => n.mint === m))).toBe(false);
  });

  it("fundWallet credits lamports and any token in base units (wrapped SOL too)", async () => {
    const wallet = "5oNDL3swdJJF1g9DzJiZ4ynHXgszjAEpUkxVYejchzrY";
    const usdc = DEMO_TOKENS.find((t) => t.symbol === "USDC")!.mint;
    const wsol = DEMO_TOKENS.find((t) => t.symbol === "SOL")!.mint;
    const r = await rpc(net.rpcUrl, "localnet_fundWallet", [
      wallet,
      {
        lamports: "2500000000",
        tokens: [
          { mint: usdc, amount: "1234567" },
          { mint: wsol, amount: "3000000000" },
        ],
      },
    ]);
    expect(r.result).toBe(true);
    expect(((await rpc(net.rpcUrl, "getBalance", [wallet])).result as { value: number }).value).toBe(
      2_500_000_000,
    );
    const ata = getAssociatedTokenAddress(wallet, usdc);
    expect(
      (
        (await rpc(net.rpcUrl, "getTokenAccountBalance", [ata])).result as {
          value: { uiAmountString: string };
        }
      ).value.uiAmountString,
    ).toBe("1.234567");
    const wsolAta = getAssociatedTokenAddress(wallet, wsol);
    const w = await account(net.rpcUrl, wsolAta, "jsonParsed");
    expect((w!.data as { parsed: { info: Record<string, unknown> } }).parsed.info).toMatchObject({
      isNative: true,
      tokenAmount: { amount: "3000000000" },
    });
    expect(w?.lamports).toBe(3_000_000_000 + 2_039_280);
  });

  it("advanceClock moves getBlockTime and the Clock sysvar", async () => {
    const readClock = async () => {
      const a = await account(net.rpcUrl, "SysvarC1ock11111111111111111111111111111111");
      return Buffer.from((a!.data as [string, string])[0], "base64").readBigInt64LE(32);
    };
    const before = await readClock();
    const r = (await rpc(net.rpcUrl, "localnet_advanceClock", [86_400 * 3])).result as {
      unixTimestamp: number;
    };
    expect(r.unixTimestamp - Number(before)).toBeGreaterThanOrEqual(86_400 * 3);
    expect(Number(await readClock()) - Number(before)).toBeGreaterThanOrEqual(86_400 * 3);
    const slot = (await rpc(net.rpcUrl, "getSlot")).result as number;
    const t = (await rpc(net.rpcUrl, "getBlockTime", [slot])).result as number;
    expect(t - Date.now() / 1000).toBeGreaterThan(86_400 * 3 - 5);
  });

  it("setAccount writes an arbitrary account", async () => {
    const addr = "Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS";
    const r = await rpc(net.rpcUrl, "localnet_setAccount", [
      addr,
      {
        lamports: "4242",
        data: Buffer.from("hello").toString("base64"),
        owner: "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
      },
    ]);
    expect(r.result).toBe(true);
    const a = await account(net.rpcUrl, addr);
    expect(a).toMatchObject({
      lamports: 4242,
      owner: "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
      data: [Buffer.from("hello").toString("base64"), "base64"],
    });
  });

  it("seeding again is idempotent: nothing is rewritten on restart", async () => {
    // the oracle prices the localnet posts for marginfi are re-posted when 20 s old (an earlier test moved the
    // clock): post them now and stop, so the restart finds them recent
    await net.marginfiOracles.refresh();
    net.marginfiOracles.pause();
    const before = ledgerLines(net.dataDir);
    const usdcAta = getAssociatedTokenAddress(net.faucetAddress, DEMO_COLLECTIONS[0]!.nfts[0]!.mint);
    await net.close();
    const again = await startLocalnet({ rpcPort: 0, dataDir: net.dataDir, slotMs: 100 });
    try {
      expect(ledgerLines(net.dataDir)).toBe(before);
      expect(again.faucetAddress).toBe(net.faucetAddress);
      const holder = await account(again.rpcUrl, usdcAta, "jsonParsed");
      expect(
        (holder!.data as unknown as { parsed: { info: { tokenAmount: { amount: string } } } }).parsed.info
          .tokenAmount.amount,
      ).toBe("1");
    } finally {
      await again.close();
    }
  });
});
