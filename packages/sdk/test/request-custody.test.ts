// What each NFT standard adds to a loan request and to the move of a compressed NFT's loan (src/custody/nft-custody.ts,
// LAYOUT.md "Loan requests of a Core asset or a compressed NFT", "Extend and Refinance of a pNFT, Core or compressed NFT
// loan"), and the Request account's custody fields (bytes 6, 256-263).
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  BUBBLEGUM_PROGRAM_ADDRESS,
  type CompressedCustody,
  decodeRequestAccount,
  getMoveCustody,
  getRequestCustody,
  MPL_CORE_PROGRAM_ADDRESS,
  SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS,
  SPL_NOOP_PROGRAM_ADDRESS,
} from "../src/index.ts";

const key = async () => (await generateKeyPairSigner()).address;

async function leaf(): Promise<CompressedCustody> {
  return {
    standard: "CompressedNft",
    tree: await key(),
    treeConfig: await key(),
    treeConfigBump: 254,
    assetId: await key(),
    assetBump: 253,
    nonce: 7n,
    root: new Uint8Array(32).fill(1),
    proof: [await key(), await key(), await key()],
    dataHash: new Uint8Array(32).fill(2),
    creatorHash: new Uint8Array(32).fill(3),
    metadataArgs: Uint8Array.of(9, 9, 9),
    collection: await key(),
    owner: await key(),
    delegate: await key(),
  };
}

describe("request and move custody per standard", () => {
  it("a compressed NFT: the request holds the tree; post carries the bumps and the leaf, cancel and fill the root and hashes", async () => {
    const c = await leaf();
    const r = getRequestCustody(c);
    expect([r.holder, r.collateral, r.mintWritable]).toEqual([c.tree, c.assetId, false]);
    expect(Array.from(r.post.data.subarray(0, 44))).toEqual([
      3,
      253,
      254,
      ...c.root,
      7,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      3,
    ]);
    expect(Array.from(r.post.data.subarray(44))).toEqual([9, 9, 9]);
    const programs = [
      BUBBLEGUM_PROGRAM_ADDRESS,
      SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS,
      SPL_NOOP_PROGRAM_ADDRESS,
    ];
    expect(r.post.accounts.map((a) => a.address)).toEqual([c.treeConfig, ...programs, ...c.proof]);
    const hashes = [...c.root, ...c.dataHash, ...c.creatorHash];
    expect(Array.from(r.cancel.dataTail)).toEqual(hashes);
    expect(r.cancel.accounts.map((a) => a.address)).toEqual([
      c.treeConfig,
      ...programs,
      "11111111111111111111111111111111",
      ...c.proof,
    ]);
    expect(Array.from(r.fill.dataTail)).toEqual(hashes);
    expect(r.fill.accounts.map((a) => a.address)).toEqual([c.treeConfig, ...programs, ...c.proof]);
    // Extend / Refinance: the tree holds it, the move block, the root and hashes after the terms
    const m = getMoveCustody(c);
    expect([m.holder, m.mintWritable]).toEqual([c.tree, false]);
    expect(m.accounts.map((a) => a.address)).toEqual([c.treeConfig, ...programs, ...c.proof]);
    expect(Array.from(m.dataTail ?? [])).toEqual(hashes);
  });

  it("a Core asset: the request holds the asset (written), its collection and Core follow; a pNFT is refused with a sentence", async () => {
    const asset = await key();
    const collection = await key();
    const r = getRequestCustody({ standard: "CoreNft", asset, collection, owner: await key() });
    expect([r.holder, r.collateral, r.mintWritable]).toEqual([asset, asset, true]);
    expect(Array.from(r.post.data)).toEqual([2, 0, 0]);
    expect(r.fill.accounts.map((a) => a.address)).toEqual([collection, MPL_CORE_PROGRAM_ADDRESS]);
    expect(() => getRequestCustody({ standard: "CoreNft", asset, collection: null, owner: asset })).toThrow(
      "belongs to no collection",
    );
    const mint = (await key()) as Address;
    expect(() =>
      getRequestCustody({
        standard: "ProgrammableNft",
        mint,
        tokenAccount: mint,
        metadata: mint,
        metadataBump: 0,
        masterEdition: mint,
        masterEditionBump: 0,
        tokenRecord: mint,
        tokenRecordBump: 0,
        ruleSet: null,
      }),
    ).toThrow("a programmable NFT cannot be posted in a loan request");
  });

  it("the Request account reads its standard, the leaf's bumps and nonce (an old request reads classic)", () => {
    const data = new Uint8Array(288);
    data.set([6, 1, 255, 254, 0, 0, 3], 0); // tag, version, bump, escrow bump, Open, not defi, CompressedNft
    data.set([253, 252], 256);
    new DataView(data.buffer).setUint32(260, 42, true);
    const rq = decodeRequestAccount(data);
    expect([rq.nftType, rq.custodyBumps, rq.leafNonce]).toEqual(["CompressedNft", [253, 252], 42]);
    data[6] = 0;
    data.fill(0, 256);
    expect(decodeRequestAccount(data)).toMatchObject({ nftType: "Nft", custodyBumps: [0, 0], leafNonce: 0 });
  });
});
