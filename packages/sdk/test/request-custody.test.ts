// What each NFT standard adds to a loan request and to the move of a compressed NFT's loan (src/custody/nft-custody.ts,
// LAYOUT.md "Loan requests of a Core asset or a compressed NFT", "Extend and Refinance of a pNFT, Core or compressed NFT
// loan"), and the Request account's custody fields (bytes 6, 256-263).
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  BUBBLEGUM_PROGRAM_ADDRESS,
  type CompressedCustody,
  decodeRequestAccount,
  findAssociatedTokenPda,
  findTokenRecordPda,
  getMoveCustody,
  getRequestCustody,
  MPL_CORE_PROGRAM_ADDRESS,
  NFT_TYPE_PNFT_HELD,
  SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS,
  SPL_NOOP_PROGRAM_ADDRESS,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
  TOKEN_METADATA_PROGRAM_ADDRESS,
} from "../src/index.ts";

const key = async () => (await generateKeyPairSigner()).address;
const parties = { request: await key(), borrower: await key() };

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
    const r = await getRequestCustody(c, parties);
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
    const m = await getMoveCustody(c);
    expect([m.holder, m.mintWritable]).toEqual([c.tree, false]);
    expect(m.accounts.map((a) => a.address)).toEqual([c.treeConfig, ...programs, ...c.proof]);
    expect(Array.from(m.dataTail ?? [])).toEqual(hashes);
  });

  it("a Core asset: the request holds the asset (written), its collection and Core follow", async () => {
    const asset = await key();
    const collection = await key();
    const r = await getRequestCustody(
      { standard: "CoreNft", asset, collection, owner: await key() },
      parties,
    );
    expect([r.holder, r.collateral, r.mintWritable]).toEqual([asset, asset, true]);
    expect(Array.from(r.post.data)).toEqual([2, 0, 0]);
    expect(r.fill.accounts.map((a) => a.address)).toEqual([collection, MPL_CORE_PROGRAM_ADDRESS]);
    await expect(
      getRequestCustody({ standard: "CoreNft", asset, collection: null, owner: asset }, parties),
    ).rejects.toThrow("belongs to no collection");
  });

  it("a programmable NFT: the request PDA's associated token account holds it (nftType 4); post names the borrower's account and record, cancel the borrower's associated token account, fill the new loan's", async () => {
    const [mint, borrowerToken, borrowerRecord, metadata, edition, ruleSet, loan] = (await Promise.all(
      Array.from({ length: 7 }, key),
    )) as [Address, Address, Address, Address, Address, Address, Address];
    const nft = {
      standard: "ProgrammableNft" as const,
      mint,
      tokenAccount: borrowerToken,
      metadata,
      metadataBump: 251,
      masterEdition: edition,
      masterEditionBump: 250,
      tokenRecord: borrowerRecord,
      tokenRecordBump: 249,
      ruleSet,
    };
    const r = await getRequestCustody(nft, { ...parties, loan });
    const [requestAta, borrowerAta, loanAta] = await Promise.all([
      findAssociatedTokenPda(parties.request, mint),
      findAssociatedTokenPda(parties.borrower, mint),
      findAssociatedTokenPda(loan, mint),
    ]);
    const record = async (t: Address) => (await findTokenRecordPda(mint, t))[0];
    expect([r.holder, r.collateral, r.mintWritable]).toEqual([requestAta, mint, false]);
    expect(Array.from(r.post.data)).toEqual([NFT_TYPE_PNFT_HELD, 251, 250, 249]);
    expect(r.post.collateralAccount).toBe(borrowerToken);
    const block = (own: Address) => [
      mint,
      metadata,
      edition,
      own,
      SYSVAR_INSTRUCTIONS_ADDRESS,
      TOKEN_METADATA_PROGRAM_ADDRESS,
      TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
      ruleSet,
      "11111111111111111111111111111111",
    ];
    const requestRecord = await record(requestAta);
    expect(r.post.accounts.map((a) => a.address)).toEqual([
      ...block(requestRecord),
      ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      borrowerRecord,
    ]);
    expect(r.cancel.collateralAccount).toBe(borrowerAta);
    expect(r.cancel.accounts.map((a) => a.address)).toEqual([
      ...block(requestRecord),
      ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      await record(borrowerAta),
    ]);
    expect(r.fill.loanHolder).toBe(loanAta);
    expect(r.fill.accounts.map((a) => a.address)).toEqual([
      ...block(requestRecord),
      ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      await record(loanAta),
    ]);
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
    data[6] = 4; // a programmable NFT the request PDA holds: its standard still reads ProgrammableNft
    expect(decodeRequestAccount(data)).toMatchObject({ nftType: "ProgrammableNft", pnftHeld: true });
  });
});
