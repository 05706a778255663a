import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAddress, encodeBase58 } from "../src/base58.ts";
import {
  buildSignedTransaction,
  DEMO_CORE_COLLECTIONS,
  DEMO_PROGRAMMABLE_COLLECTIONS,
  type FaucetResult,
  generateLocalKeypair,
  getAssociatedTokenAddress,
  getDemoRuleSetAddress,
  getMetadataAddress,
  getTokenRecordAddress,
  MPL_CORE_PROGRAM,
  readCollectionSize,
  TOKEN_AUTH_RULES_PROGRAM,
  TOKEN_METADATA_PROGRAM_ADDRESS,
} from "../src/index.ts";
import { transferProgrammableNftV1 } from "../src/token-metadata.ts";
import { rpc, startTestLocalnet } from "./helpers.ts";

type Account = { data: [string, string]; owner: string };

async function accountData(url: string, address: string): Promise<{ owner: string; data: Buffer } | null> {
  const a = (
    (await rpc(url, "getAccountInfo", [address, { encoding: "base64" }])).result as { value: Account | null }
  ).value;
  return a && { owner: a.owner, data: Buffer.from(a.data[0], "base64") };
}

/** Token standard and programmable config (rule set) of a metadata account. */
function readProgrammable(d: Buffer): { tokenStandard: number | null; ruleSet: string | null } {
  let at = 1 + 32 + 32;
  for (let i = 0; i < 3; i++) at += 4 + d.readUInt32LE(at);
  at += 2;
  if (d[at++] === 1) at += 4 + 34 * d.readUInt32LE(at);
  at += 2;
  if (d[at++] === 1) at += 1; // edition nonce
  const tokenStandard = d[at++] === 1 ? d[at++]! : null;
  if (d[at++] === 1) at += 33; // collection
  if (d[at++] === 1) at += 17; // uses
  if (d[at++] === 1) at += 1 + (d[at] === 0 ? 8 : 8); // collection details (V1 size or V2 padding)
  if (d[at++] !== 1) return { tokenStandard, ruleSet: null };
  at += 1; // ProgrammableConfig::V1
  return { tokenStandard, ruleSet: d[at] === 1 ? encodeBase58(d.subarray(at + 1, at + 33)) : null };
}

describe("programmable NFTs and Core assets in the demo world, through the real programs", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  beforeAll(async () => {
    net = await startTestLocalnet();
  });
  afterAll(async () => {
    await net.cleanup();
  });

  const send = async (
    signer: ReturnType<typeof generateLocalKeypair>,
    ix: Parameters<typeof buildSignedTransaction>[1][number],
  ) => {
    const { blockhash } = (
      (await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } }
    ).value;
    const tx = buildSignedTransaction(signer, [ix], decodeAddress(blockhash));
    return rpc(net.rpcUrl, "sendTransaction", [Buffer.from(tx).toString("base64"), { encoding: "base64" }]);
  };

  it("governs the pNFT collection by a rule set created with Token Auth Rules", async () => {
    const ruleSet = getDemoRuleSetAddress(net.faucetAddress);
    expect((await accountData(net.rpcUrl, ruleSet))?.owner).toBe(TOKEN_AUTH_RULES_PROGRAM);
    for (const c of DEMO_PROGRAMMABLE_COLLECTIONS) {
      const coll = await accountData(net.rpcUrl, getMetadataAddress(c.collectionId));
      expect(coll?.owner).toBe(TOKEN_METADATA_PROGRAM_ADDRESS);
      expect(readProgrammable(coll!.data)).toEqual({ tokenStandard: 4, ruleSet }); // ProgrammableNonFungible
      expect(readCollectionSize(coll!.data)).toBe(BigInt(c.nfts.length));
      for (const n of c.nfts) {
        const meta = await accountData(net.rpcUrl, getMetadataAddress(n.mint));
        expect(readProgrammable(meta!.data)).toEqual({ tokenStandard: 4, ruleSet });
        // The token is frozen by its edition (only Token Metadata moves it) and has an unlocked token record.
        const token = getAssociatedTokenAddress(net.faucetAddress, n.mint);
        const tokenAccount = await accountData(net.rpcUrl, token);
        expect(tokenAccount!.data[108]).toBe(2); // AccountState::Frozen
        expect(tokenAccount!.data.readBigUInt64LE(64)).toBe(1n);
        const record = await accountData(net.rpcUrl, getTokenRecordAddress(n.mint, token));
        expect(record?.owner).toBe(TOKEN_METADATA_PROGRAM_ADDRESS);
        expect(record!.data[2]).toBe(0); // TokenState::Unlocked
      }
    }
  });

  it("creates the Core collection with its assets", async () => {
    for (const c of DEMO_CORE_COLLECTIONS) {
      expect((await accountData(net.rpcUrl, c.collectionId))?.owner).toBe(MPL_CORE_PROGRAM);
      for (const a of c.assets) {
        const asset = await accountData(net.rpcUrl, a.address);
        expect(asset?.owner).toBe(MPL_CORE_PROGRAM);
        expect(asset!.data[0]).toBe(1); // Key::AssetV1
        expect(encodeBase58(asset!.data.subarray(1, 33))).toBe(net.faucetAddress); // owner
        expect(asset!.data[33]).toBe(2); // UpdateAuthority::Collection(
        expect(encodeBase58(asset!.data.subarray(34, 66))).toBe(c.collectionId); // collection)
      }
    }
  });

  let given: FaucetResult;
  const wallet = generateLocalKeypair();

  it("the faucet gives a new wallet an NFT of each standard", async () => {
    given = (await rpc(net.rpcUrl, "localnet_faucet", [wallet.address])).result as FaucetResult;
    expect(given.nfts.length).toBeGreaterThan(0);
    expect(given.programmableNfts).toHaveLength(DEMO_PROGRAMMABLE_COLLECTIONS.length);
    expect(given.coreAssets).toHaveLength(DEMO_CORE_COLLECTIONS.length);
    for (const p of given.programmableNfts) {
      const token = await accountData(net.rpcUrl, p.tokenAccount);
      expect(encodeBase58(token!.data.subarray(32, 64))).toBe(wallet.address);
      expect(token!.data.readBigUInt64LE(64)).toBe(1n);
      const c = DEMO_PROGRAMMABLE_COLLECTIONS.find((x) => x.collectionId === p.collectionId)!;
      const coll = await accountData(net.rpcUrl, getMetadataAddress(c.collectionId));
      expect(readCollectionSize(coll!.data)).toBe(BigInt(c.nfts.length + 1)); // verified into it
      expect(p.name).toBe(`Storm Petrel #${c.nfts.length + 1}`);
    }
    for (const a of given.coreAssets) {
      const asset = await accountData(net.rpcUrl, a.asset);
      expect(asset?.owner).toBe(MPL_CORE_PROGRAM);
      expect(encodeBase58(asset!.data.subarray(1, 33))).toBe(wallet.address);
      expect(encodeBase58(asset!.data.subarray(34, 66))).toBe(a.collectionId);
    }
  });

  it("the rule set matters: a wallet-to-wallet transfer passes, a program not on the list is refused until allowed", async () => {
    await net.airdrop(wallet.address, 1_000_000_000n);
    const ruleSet = getDemoRuleSetAddress(net.faucetAddress);
    const pnft = given.programmableNfts[0]!;
    // A transfer to another wallet: Transfer:WalletToWallet passes.
    const friend = generateLocalKeypair();
    await net.airdrop(friend.address, 1_000_000_000n);
    const toFriend = await send(
      wallet,
      transferProgrammableNftV1({
        mint: pnft.mint,
        owner: wallet.address,
        destinationOwner: friend.address,
        ruleSet,
      }),
    );
    expect(toFriend.error).toBeUndefined();
    // To an account a program owns (the Core collection, owned by Core): Transfer:Owner, refused by the rule set.
    const programOwned = DEMO_CORE_COLLECTIONS[0]!.collectionId;
    const toProgram = () =>
      send(
        friend,
        transferProgrammableNftV1({
          mint: pnft.mint,
          owner: friend.address,
          destinationOwner: programOwned,
          ruleSet,
        }),
      );
    const refused = await toProgram();
    expect(refused.error?.code).toBe(-32002);
    const logs = JSON.stringify(refused.error?.data);
    expect(logs).toMatch(/Program auth9SigNpDKz4sJJ1DfCTuZrZNSAgh9sFD3rboVmgg failed/);
    expect(logs).toMatch(/Program Owned List check failed/); // the rule refused it, not a missing operation
    expect(logs).not.toMatch(/not in the selected RuleSet/);
    // Once the rule set allows Core (the admin method the bootstrap calls), the same transfer lands.
    expect((await rpc(net.rpcUrl, "localnet_setDemoRuleSetPrograms", [[MPL_CORE_PROGRAM]])).result).toBe(
      true,
    );
    const allowed = await toProgram();
    expect(allowed.error).toBeUndefined();
    const dest = await accountData(net.rpcUrl, getAssociatedTokenAddress(programOwned, pnft.mint));
    expect(dest!.data.readBigUInt64LE(64)).toBe(1n);
  });

  it("numbers the next faucet Core asset after those the collection has minted", async () => {
    const again = (await rpc(net.rpcUrl, "localnet_faucet", [generateLocalKeypair().address]))
      .result as FaucetResult;
    const c = DEMO_CORE_COLLECTIONS[0]!;
    expect(again.coreAssets[0]!.name).toBe(`Cistern Koi #${c.assets.length + 2}`);
  });
});
