// A compressed NFT's custody (src/custody/compressed-custody.ts) from DAS answers, and the TakeLoan / Repay / Liquidate
// accounts and data it gives, against programs/lending/LAYOUT.md "Custody", "Compressed NFTs". The leaf's MetadataArgs
// and hashes are checked against the localnet's own encoder and reader (a separate implementation: the one the demo
// seed mints with and the DAS index hashes with). The real-program sequence is programs/lending/test/cnft.test.ts
// and the API's apps/api/test/tx/compressed-nft-loans.test.ts.
import {
  encodeMetadataArgs,
  getCompressedAssetId,
  getTreeConfigAddress,
  type MetadataArgsInput,
  readMetadataArgs,
} from "@cistern/localnet";
import { AccountRole, type Address, generateKeyPairSigner, getAddressDecoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  BUBBLEGUM_PROGRAM_ADDRESS,
  compressedCustodyFromDas,
  type DasCompressedAsset,
  type DasProof,
  getLiquidateInstruction,
  getRepayInstruction,
  getTakeLoanInstruction,
  SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS,
  SPL_NOOP_PROGRAM_ADDRESS,
} from "../src/index.ts";

const b58 = (bytes: Uint8Array) => getAddressDecoder().decode(bytes) as string;
const SYSTEM = "11111111111111111111111111111111";
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const random32 = () => b58(crypto.getRandomValues(new Uint8Array(32)));

async function leafWorld(opts: { verified?: boolean; nonce?: bigint } = {}) {
  const tree = (await generateKeyPairSigner()).address;
  const owner = (await generateKeyPairSigner()).address;
  const collection = (await generateKeyPairSigner()).address;
  const creator = (await generateKeyPairSigner()).address;
  const nonce = opts.nonce ?? 7n;
  const m: MetadataArgsInput = {
    name: "Cistern Shell #7",
    symbol: "SHELL",
    uri: "https://cistern.local/shells/7.json",
    sellerFeeBasisPoints: 500,
    collection,
    creators: [{ address: creator, verified: false, share: 100 }],
  };
  const args = Uint8Array.from(encodeMetadataArgs(m));
  // a mint into the collection (MintToCollectionV1) sets `verified` before hashing
  const verified = opts.verified ?? true;
  const committedArgs = Uint8Array.from(args);
  // the collection Option's `verified` byte: after 3 length-prefixed strings, the fee, 5 bytes of flags and options
  const at = 12 + m.name.length + m.symbol.length + m.uri.length + 2 + 5;
  committedArgs[at + 1] = verified ? 1 : 0;
  const committed = readMetadataArgs(committedArgs)!;
  const proofNodes = Array.from({ length: 14 }, random32);
  const asset: DasCompressedAsset = {
    id: getCompressedAssetId(tree, nonce),
    content: { json_uri: m.uri, metadata: { name: m.name, symbol: m.symbol, token_standard: "NonFungible" } },
    grouping: verified ? [{ group_key: "collection", group_value: collection }] : [],
    royalty: { basis_points: 500, primary_sale_happened: false },
    creators: m.creators,
    ownership: { owner, delegate: null },
    supply: { edition_nonce: null },
    mutable: true,
    compression: {
      compressed: true,
      data_hash: b58(committed.dataHash),
      creator_hash: b58(committed.creatorHash),
      tree,
      leaf_id: Number(nonce),
    },
  };
  const proof: DasProof = { root: random32(), proof: proofNodes, tree_id: tree };
  return { tree, owner, collection, nonce, asset, proof, committed, committedArgs, proofNodes };
}

const ro = (address: string) => ({ address, role: AccountRole.READONLY });
const wr = (address: string) => ({ address, role: AccountRole.WRITABLE });

describe("a compressed NFT's custody from DAS (LAYOUT.md 'Compressed NFTs')", () => {
  it("refuses metadata the leaf does not commit to, a proof of another tree, an id that is not the leaf's", async () => {
    const w = await leafWorld();
    // another name than the leaf's: the data hash differs
    const renamed = {
      ...w.asset,
      content: { ...w.asset.content, metadata: { name: "Fake", symbol: "SHELL" } },
    };
    await expect(compressedCustodyFromDas(renamed, w.proof, 11)).rejects.toThrow(
      /not the metadata its leaf commits to/,
    );
    // a leaf minted unverified, claimed verified by an answer grouping it under the collection
    const unverified = await leafWorld({ verified: false });
    const claimed = {
      ...unverified.asset,
      grouping: [{ group_key: "collection", group_value: unverified.collection }],
    };
    await expect(compressedCustodyFromDas(claimed, unverified.proof, 11)).rejects.toThrow(/commits to/);
    // creators changed
    const creators = { ...w.asset, creators: [{ ...w.asset.creators![0]!, verified: true }] };
    await expect(compressedCustodyFromDas(creators, w.proof, 11)).rejects.toThrow(/creators/);
    await expect(compressedCustodyFromDas(w.asset, { ...w.proof, tree_id: random32() }, 11)).rejects.toThrow(
      /another tree/,
    );
    const wrongId = { ...w.asset, compression: { ...w.asset.compression, leaf_id: 8 } };
    await expect(compressedCustodyFromDas(wrongId, w.proof, 11)).rejects.toThrow(/not the asset id/);
    const classic = { ...w.asset, compression: { compressed: false } };
    await expect(compressedCustodyFromDas(classic, w.proof, 11)).rejects.toThrow(/not a compressed NFT/);
    // the unverified leaf as DAS serves it (no collection group): its metadata cannot be rebuilt, no loan
    await expect(compressedCustodyFromDas(unverified.asset, unverified.proof, 11)).rejects.toThrow(
      /commits to/,
    );
  });

  it("rebuilds the MetadataArgs byte for byte, and the three instructions' accounts and data", async () => {
    const w = await leafWorld();
    const c = await compressedCustodyFromDas(w.asset, w.proof, 11);
    expect(c.metadataArgs).toEqual(w.committedArgs);
    expect(c.dataHash).toEqual(w.committed.dataHash);
    expect(c.creatorHash).toEqual(w.committed.creatorHash);
    expect(c.collection).toBe(w.collection);
    expect(c.treeConfig).toBe(getTreeConfigAddress(w.tree));
    expect(c.assetId).toBe(w.asset.id);
    // depth 14, canopy 11: the 3 nodes below the canopy, leaf level first
    expect(c.proof).toEqual(w.proofNodes.slice(0, 3));

    const input = await takeInput(w.owner, w.collection);
    const take = await getTakeLoanInstruction({
      ...input,
      collateralMint: c.assetId,
      borrowerCollateralTokenAccount: c.tree,
      custody: c,
    });
    const a = take.accounts!;
    expect(a[7]).toEqual(wr(w.tree));
    expect(a[8]).toEqual(ro(c.assetId));
    expect(a[9]).toEqual(wr(w.tree));
    expect(a.slice(13, 17)).toEqual([
      ro(c.treeConfig),
      ro(BUBBLEGUM_PROGRAM_ADDRESS),
      ro(SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS),
      ro(SPL_NOOP_PROGRAM_ADDRESS),
    ]);
    expect(a.slice(17)).toEqual(c.proof.map(ro));
    const d = take.data!;
    expect([d[2], d[3], d[121], d[122], d[123]]).toEqual([0, 0, 3, c.assetBump, c.treeConfigBump]);
    expect(d.length).toBe(124 + 32 + 8 + 1 + w.committedArgs.length);
    expect(d.slice(124, 156)).toEqual(c.root);
    expect(new DataView(d.buffer, d.byteOffset).getBigUint64(156, true)).toBe(w.nonce);
    expect(d[164]).toBe(3);
    expect(d.slice(165)).toEqual(w.committedArgs);
    // a whitelist goes before the proof (account 17)
    const whitelist = random32() as Address;
    const listed = await getTakeLoanInstruction({
      ...input,
      borrowerCollateralTokenAccount: c.tree,
      custody: c,
      whitelist,
    });
    expect(listed.accounts![17]).toEqual(ro(whitelist));
    expect(listed.accounts!.slice(18)).toEqual(c.proof.map(ro));

    const ending = [
      ro(c.treeConfig),
      ro(BUBBLEGUM_PROGRAM_ADDRESS),
      ro(SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS),
    ];
    const repay = await getRepayInstruction({
      programAddress: input.programAddress,
      borrower: input.borrower,
      pool: input.pool,
      bank: input.bank,
      loan: take.loan,
      borrowerCollateralTokenAccount: c.tree,
      borrowerCurrencyTokenAccount: input.borrowerCurrencyTokenAccount,
      custody: c,
    });
    const r = repay.accounts!;
    expect(r[6]).toEqual(wr(w.tree));
    expect(r[7]).toEqual(wr(w.tree));
    expect(r[9]).toEqual(ro(TOKEN));
    expect(r.slice(10, 15)).toEqual([...ending, ro(SPL_NOOP_PROGRAM_ADDRESS), ro(SYSTEM)]);
    expect(r.slice(15)).toEqual(c.proof.map(ro));
    expect(repay.data).toEqual(Uint8Array.from([9, ...c.root, ...c.dataHash, ...c.creatorHash]));

    const poolOwner = random32() as Address;
    const liquidate = await getLiquidateInstruction({
      programAddress: input.programAddress,
      liquidator: input.borrower,
      pool: input.pool,
      bank: input.bank,
      loan: take.loan,
      poolOwnerCollateralTokenAccount: poolOwner,
      custody: { custody: c, borrower: w.owner as Address, poolOwner },
    });
    const l = liquidate.accounts!;
    expect(l[4]).toEqual(wr(w.tree));
    expect(l[5]!.address).toBe(poolOwner);
    expect(l[6]).toEqual(ro(TOKEN));
    expect(l.slice(7, 12)).toEqual([...ending, ro(SPL_NOOP_PROGRAM_ADDRESS), ro(SYSTEM)]);
    expect(l.slice(12)).toEqual(c.proof.map(ro));
    expect(liquidate.data!.length).toBe(97);
    expect(liquidate.data![0]).toBe(11);
  });
});

async function takeInput(borrower: string, collection: string) {
  const program = (await generateKeyPairSigner()).address;
  return {
    programAddress: program,
    borrower: borrower as Address,
    oracle: random32() as Address,
    pool: random32() as Address,
    poolType: "nft-pool" as const,
    bank: random32() as Address,
    collateralMint: random32() as Address,
    borrowerCollateralTokenAccount: random32() as Address,
    borrowerCurrencyTokenAccount: random32() as Address,
    nonce: 1n,
    principalBaseUnits: 1n,
    durationSeconds: 86_400n,
    collateralAmountBaseUnits: 1n,
    expectedAprBps: 0,
    attestation: {
      collateralValueBaseUnits: 1n,
      collection: collection as Address,
      currencyPriceMicroUsd: 1n,
      walletAgeSeconds: 0n,
      pastLoans: 0n,
      volumeMicroUsd: 0n,
      slot: 0n,
    },
  };
}
