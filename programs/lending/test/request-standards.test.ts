// Loan requests (20 PostRequest, 21 CancelRequest, 22 FillRequest) of a Metaplex Core asset and of a compressed NFT,
// through the real Core, Bubblegum, SPL Account Compression and SPL Noop programs: the request PDA owns the asset or
// the leaf while the request is open; a lender's fill transfers it to the new loan PDA (a compressed leaf with a proof
// taken at fill time), a cancel back to the borrower. What the chain holds (the asset's owner, the tree's root) is
// read after every step. A programmable NFT's request (nftType 4, custody by ownership) is in pnft-request.test.ts;
// nftType 1 (the delegated custody) cannot be requested (LAYOUT.md "Custody").
import { MPL_CORE_PROGRAM, readVendoredProgram, transferLeaf, VENDORED_PROGRAMS } from "@cistern/localnet";
import {
  type CoreCustody,
  decodeRequestAccount,
  getCancelRequestInstruction,
  getFillRequestInstruction,
  getPostRequestInstruction,
  getRepayInstruction,
  LENDING_ERROR_CODE,
  type NftCustody,
} from "@cistern/sdk";
import {
  type Address,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  type CnftWorld,
  changeOtherLeaves,
  cnftWorld,
  custodyOf,
  expectLeafRefused,
  expectRoot,
  type Leaf,
  mintLeaf,
  moved,
} from "./support/cnft-world.ts";
import { CORE, createAsset, createCollection, readAsset, transfer } from "./support/core.ts";
import { expectOk, kit, wireSize } from "./support/kit.ts";
import { tokenBalance } from "./support/tokens.ts";
import { bankOf, DAY, loanOf, poolOf } from "./support/world.ts";

const E = LENDING_ERROR_CODE;
const dec = getAddressDecoder();

const PRINCIPAL = 50_000_000n;

interface RequestWorld extends CnftWorld {
  heron: Address; // a Core collection
}

let nonce = 1n;

async function requestWorld(): Promise<RequestWorld> {
  const w = await cnftWorld();
  const core = VENDORED_PROGRAMS.find((p) => p.programId === MPL_CORE_PROGRAM);
  if (!core) throw new Error("Core is not vendored");
  w.h.svm.addProgram(CORE, readVendoredProgram(core));
  const heron = await generateKeyPairSigner();
  expectOk(await w.h.trySend([createCollection(heron, w.authority)], w.authority));
  return { ...w, heron: heron.address };
}

async function mintAsset(
  w: RequestWorld,
  owner = w.borrower.address,
  collection = w.heron,
): Promise<Address> {
  const asset = await generateKeyPairSigner();
  expectOk(await w.h.trySend([createAsset(asset, collection, w.authority, owner)], w.authority));
  return asset.address;
}
const ownerOf = (w: RequestWorld, asset: Address) => readAsset(w.h.data(asset)).owner;
const coreCustody = (w: RequestWorld, asset: Address, collection = w.heron): CoreCustody => ({
  standard: "CoreNft",
  asset,
  collection,
  owner: ownerOf(w, asset),
});
const requestOf = (w: RequestWorld, request: Address) => decodeRequestAccount(w.h.data(request));

async function postIx(w: RequestWorld, collateral: Address, custody: NftCustody, who = w.borrower) {
  return getPostRequestInstruction({
    programAddress: w.program,
    borrower: who,
    collateralMint: collateral,
    borrowerCollateralTokenAccount: collateral,
    currencyMint: w.currency,
    isDefi: false,
    nonce: nonce++,
    principalBaseUnits: PRINCIPAL,
    durationSeconds: 7n * DAY,
    collateralAmountBaseUnits: 1n,
    maxAprBps: 3000,
    custody,
  });
}

async function cancelIx(
  w: RequestWorld,
  request: Address,
  custody: NftCustody,
  who: KeyPairSigner = w.borrower,
) {
  return getCancelRequestInstruction({
    programAddress: w.program,
    borrower: who,
    request,
    borrowerCollateralTokenAccount: w.borrowerAta,
    custody,
  });
}

async function fillIx(w: RequestWorld, request: Address, custody: NftCustody, lender = w.lender) {
  const rq = requestOf(w, request);
  return getFillRequestInstruction({
    programAddress: w.program,
    lender,
    pool: w.cnftPool,
    bank: w.bank,
    request,
    borrower: rq.borrower,
    collateralMint: rq.collateralMint,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    nonce: nonce++,
    principalBaseUnits: rq.principal,
    durationSeconds: rq.durationSeconds,
    aprBps: 2500,
    custody,
  });
}

async function repayIx(w: RequestWorld, loan: Address, custody: NftCustody) {
  return getRepayInstruction({
    programAddress: w.program,
    borrower: w.borrower,
    pool: w.cnftPool,
    bank: w.bank,
    loan,
    // a Core asset or a leaf: the account that holds it (the asset, the tree) stands for the collateral account
    borrowerCollateralTokenAccount: custody.standard === "CoreNft" ? custody.asset : w.tree.address,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    custody,
  });
}

/** Sends `ix` expecting it to fail with `code`; nothing is written (the request, when it is new, is absent). */
async function expectRefused(
  w: RequestWorld,
  ix: Instruction,
  code: number,
  payer: KeyPairSigner = w.borrower,
): Promise<void> {
  const out = await w.h.trySend([ix], payer);
  expect(out.ok).toBe(false);
  expect(out.customCode).toBe(code);
}

describe("loan requests of Core assets (the real Core program)", { timeout: 120_000 }, () => {
  it("refuses a look-alike collection owned by another program, an asset someone else owns, the same asset in two requests and a cancel by someone else", async () => {
    const w = await requestWorld();
    // a look-alike: a Core collection's bytes under another program's ownership, and an asset (Core's) naming it
    const lookAlike = (await generateKeyPairSigner()).address;
    w.h.svm.setAccount({
      ...w.h.svm.getAccount(w.heron),
      address: lookAlike,
      programAddress: w.authority.address,
    } as never);
    const forged = await mintAsset(w);
    const bytes = new Uint8Array(w.h.data(forged));
    bytes.set(getAddressEncoder().encode(lookAlike), 34); // update authority Collection(lookAlike)
    w.h.svm.setAccount({ ...w.h.svm.getAccount(forged), address: forged, data: bytes } as never);
    const forgedPost = await postIx(w, forged, coreCustody(w, forged, lookAlike));
    await expectRefused(w, forgedPost, E.InvalidMetadata);
    expect(w.h.exists(forgedPost.request)).toBe(false);
    expect(ownerOf(w, forged)).toBe(w.borrower.address);

    // an asset the borrower does not own
    const stranger = await w.h.wallet();
    const theirs = await mintAsset(w, stranger.address);
    await expectRefused(w, await postIx(w, theirs, coreCustody(w, theirs)), E.InvalidCollateral);
    expect(ownerOf(w, theirs)).toBe(stranger.address);

    // the same asset in two requests: the first request's PDA owns it
    const asset = await mintAsset(w);
    const first = await postIx(w, asset, coreCustody(w, asset));
    expectOk(await w.h.trySend([first], w.borrower));
    expect(ownerOf(w, asset)).toBe(first.request);
    const second = await postIx(w, asset, { ...coreCustody(w, asset), owner: w.borrower.address });
    await expectRefused(w, second, E.InvalidCollateral);
    expect(w.h.exists(second.request)).toBe(false);

    // while it is requested the borrower cannot move it (Core: they no longer own it); a fill then still finds it
    const away = await w.h.trySend([transfer(asset, w.heron, w.borrower, stranger.address)], w.borrower);
    expect(away.ok).toBe(false);
    expect(ownerOf(w, asset)).toBe(first.request);

    // a cancel by someone else: refused, the asset stays the request's
    await expectRefused(
      w,
      await cancelIx(w, first.request, coreCustody(w, asset), stranger),
      E.Unauthorized,
      stranger,
    );
    expect(ownerOf(w, asset)).toBe(first.request);
    // another program named as Core at the fill: refused before anything moves
    const fill = await fillIx(w, first.request, coreCustody(w, asset));
    const accounts = [...(fill.accounts ?? [])];
    accounts[14] = { ...accounts[14]!, address: w.program };
    await expectRefused(w, { ...fill, accounts }, E.InvalidProgramAccount, w.lender);
    expect([requestOf(w, first.request).status, ownerOf(w, asset)]).toEqual(["Open", first.request]);

    // the borrower cancels: the asset is theirs again, and they can move it
    expectOk(await w.h.trySend([await cancelIx(w, first.request, coreCustody(w, asset))], w.borrower));
    expect(requestOf(w, first.request).status).toBe("Cancelled");
    expect(ownerOf(w, asset)).toBe(w.borrower.address);
    await expectRefused(w, await fillIx(w, first.request, coreCustody(w, asset)), E.RequestNotOpen, w.lender);
  });

  it("post, fill by a lender, repay: the asset goes request PDA -> loan PDA -> borrower", async () => {
    const w = await requestWorld();
    const asset = await mintAsset(w);
    const post = await postIx(w, asset, coreCustody(w, asset));
    const postSize = await wireSize(w.h, [post], w.borrower);
    const posted = expectOk(await w.h.trySend([post], w.borrower));
    console.log(`Core PostRequest: ${posted.computeUnits} CU, ${postSize} B`);
    const rq = requestOf(w, post.request);
    expect([rq.status, rq.nftType, rq.escrow, rq.collateralMint, rq.collection]).toEqual([
      "Open",
      "CoreNft",
      asset,
      asset,
      w.heron,
    ]);
    expect(readAsset(w.h.data(asset))).toEqual({ key: 1, owner: post.request, updateAuthority: w.heron });

    const borrowerBefore = tokenBalance(w.h, w.borrowerAta);
    const bankBefore = bankOf(w);
    const fill = await fillIx(w, post.request, coreCustody(w, asset));
    const fillSize = await wireSize(w.h, [fill], w.lender);
    const filled = expectOk(await w.h.trySend([fill], w.lender));
    console.log(`Core FillRequest: ${filled.computeUnits} CU, ${fillSize} B`);
    expect(ownerOf(w, asset)).toBe(fill.loan);
    const loan = loanOf(w, fill.loan);
    expect([loan.kind, loan.status, loan.nftType, loan.escrow, loan.collateralMint, loan.collection]).toEqual(
      ["RequestLoan", "Ongoing", "CoreNft", asset, asset, w.heron],
    );
    expect([requestOf(w, post.request).status, requestOf(w, post.request).loan]).toEqual([
      "Filled",
      fill.loan,
    ]);
    expect(tokenBalance(w.h, w.borrowerAta) - borrowerBefore).toBe(PRINCIPAL);
    expect(bankOf(w).availableLiquidity).toBe(bankBefore.availableLiquidity - PRINCIPAL);
    // the pool does not list the Core collection: the lender filled by choice, no entry counts it
    expect(poolOf(w, w.cnftPool).currentLoans).toBe(1n);
    expect(poolOf(w, w.cnftPool).collections[0]!.ongoingLoans).toBe(0n);

    w.h.advance(DAY);
    const repay = await repayIx(w, fill.loan, coreCustody(w, asset));
    const repaid = expectOk(await w.h.trySend([repay], w.borrower));
    console.log(`Core repay of a filled request: ${repaid.computeUnits} CU`);
    expect(ownerOf(w, asset)).toBe(w.borrower.address);
    expect(loanOf(w, fill.loan).status).toBe("Repaid");
  });
});

describe("loan requests of compressed NFTs (Bubblegum V1)", { timeout: 120_000 }, () => {
  it("refuses metadata claiming a collection the leaf does not commit to, a wrong proof, a leaf of someone else and the same leaf twice: nothing is written", async () => {
    const w = await requestWorld();
    // minted naming the collection unverified: claiming it verified hashes to another leaf
    const unverified = await mintLeaf(w, { verified: false });
    const claimed = Uint8Array.from(unverified.args);
    const at = claimed.length - 4 - 34 - 2 - 34; // collection Some { verified, key }
    claimed[at + 1] = 1;
    const lie = await postIx(w, unverified.asset, {
      ...(await custodyOf(unverified)),
      metadataArgs: claimed,
      collection: w.glass,
    });
    await expectLeafRefused(w, lie, w.borrower);
    expect(w.h.exists(lie.request)).toBe(false);
    expectRoot(w, w.tree);

    // a wrong proof node
    const leaf = await mintLeaf(w);
    const junk = (await generateKeyPairSigner()).address;
    const custody = await custodyOf(leaf);
    const wrong = await postIx(w, leaf.asset, { ...custody, proof: [junk, ...custody.proof.slice(1)] });
    await expectLeafRefused(w, wrong, w.borrower);
    expect(w.h.exists(wrong.request)).toBe(false);

    // a leaf someone else owns
    const stranger = await w.h.wallet();
    const theirs = await mintLeaf(w, { owner: stranger.address });
    const notOwned = await postIx(w, theirs.asset, await custodyOf(theirs));
    await expectLeafRefused(w, notOwned, w.borrower);
    expectRoot(w, w.tree);

    // the same leaf in two requests: the first request's PDA owns it
    const first = await postIx(w, leaf.asset, await custodyOf(leaf));
    expectOk(await w.h.trySend([first], w.borrower));
    moved(leaf, first.request);
    expectRoot(w, w.tree);
    const second = await postIx(w, leaf.asset, { ...(await custodyOf(leaf)), owner: w.borrower.address });
    await expectLeafRefused(w, second, w.borrower);
    expect(w.h.exists(second.request)).toBe(false);
    // the borrower cannot move it away: Bubblegum refuses a transfer signed by a key that no longer owns it
    const away = transferLeaf({
      tree: w.tree.address,
      owner: w.borrower.address,
      delegate: w.borrower.address,
      newOwner: stranger.address,
      root: dec.decode(w.tree.root),
      dataHash: dec.decode(leaf.dataHash),
      creatorHash: dec.decode(leaf.creatorHash),
      nonce: BigInt(leaf.nonce),
      index: leaf.nonce,
      proof: w.tree.proof(leaf.nonce),
    });
    expect((await w.h.trySend([kit(away, [w.borrower])], w.borrower)).ok).toBe(false);
    expectRoot(w, w.tree);
    // a cancel by someone else
    await expectRefused(
      w,
      await cancelIx(w, first.request, await custodyOf(leaf), stranger),
      E.Unauthorized,
      stranger,
    );
    expect(requestOf(w, first.request).status).toBe("Open");
  });

  it("a fill with a stale or wrong proof is refused with nothing written; with a fresh proof after other leaves changed it fills; the loan repays", async () => {
    const w = await requestWorld();
    const leaf = await mintLeaf(w);
    const post = await postIx(w, leaf.asset, await custodyOf(leaf));
    const postSize = await wireSize(w.h, [post], w.borrower);
    const posted = expectOk(await w.h.trySend([post], w.borrower));
    console.log(`cNFT PostRequest: ${posted.computeUnits} CU, ${postSize} B`);
    moved(leaf, post.request);
    expectRoot(w, w.tree);
    const rq = requestOf(w, post.request);
    expect([rq.status, rq.nftType, rq.escrow, rq.collateralMint, rq.collection, rq.leafNonce]).toEqual([
      "Open",
      "CompressedNft",
      w.tree.address,
      leaf.asset,
      w.glass,
      leaf.nonce,
    ]);
    expect(rq.custodyBumps).toEqual([leaf.assetBump, (await custodyOf(leaf)).treeConfigBump]);

    // the lender's proof is taken, then other leaves of the tree change before it lands
    const stale = await fillIx(w, post.request, await custodyOf(leaf));
    await changeOtherLeaves(w);
    const staleData = Uint8Array.from(stale.data ?? []);
    staleData.set(w.tree.root, 32); // the current root with the old proof
    await expectLeafRefused(w, { ...stale, data: staleData }, w.lender);
    expect(w.h.exists(stale.loan)).toBe(false);
    expect(requestOf(w, post.request).status).toBe("Open");
    expectRoot(w, w.tree);
    // a wrong proof node
    const custody = await custodyOf(leaf);
    const junk = (await generateKeyPairSigner()).address;
    const wrong = await fillIx(w, post.request, { ...custody, proof: [junk, ...custody.proof.slice(1)] });
    await expectLeafRefused(w, wrong, w.lender);
    expect(w.h.exists(wrong.loan)).toBe(false);
    // the terms alone: a compressed NFT's fill needs the leaf's root and hashes
    const fresh = await fillIx(w, post.request, await custodyOf(leaf));
    await expectRefused(
      w,
      { ...fresh, data: (fresh.data ?? new Uint8Array()).slice(0, 32) },
      E.InvalidInstruction,
      w.lender,
    );

    const bankBefore = bankOf(w);
    const fillSize = await wireSize(w.h, [fresh], w.lender);
    const filled = expectOk(await w.h.trySend([fresh], w.lender));
    console.log(`cNFT FillRequest: ${filled.computeUnits} CU, ${fillSize} B`);
    moved(leaf, fresh.loan);
    expectRoot(w, w.tree); // the leaf's owner and delegate: the loan PDA
    const loan = loanOf(w, fresh.loan);
    expect([loan.kind, loan.nftType, loan.escrow, loan.collateralMint, loan.collection]).toEqual([
      "RequestLoan",
      "CompressedNft",
      w.tree.address,
      leaf.asset,
      w.glass,
    ]);
    // the loan records the leaf's nonce and bumps as TakeLoan does (Loan bytes 385, 386, 388)
    const data = w.h.data(fresh.loan);
    expect([data[385], data[386], new DataView(data.buffer, data.byteOffset).getUint32(388, true)]).toEqual([
      rq.custodyBumps[0],
      rq.custodyBumps[1],
      leaf.nonce,
    ]);
    expect(requestOf(w, post.request).status).toBe("Filled");
    expect(bankOf(w).availableLiquidity).toBe(bankBefore.availableLiquidity - PRINCIPAL);

    await changeOtherLeaves(w);
    w.h.advance(DAY);
    const repay = await repayIx(w, fresh.loan, await custodyOf(leaf));
    expectOk(await w.h.trySend([repay], w.borrower));
    moved(leaf, w.borrower.address);
    expectRoot(w, w.tree);
    expect(loanOf(w, fresh.loan).status).toBe("Repaid");
  });

  it("the borrower cancels with a fresh proof and the leaf is theirs again", async () => {
    const w = await requestWorld();
    const leaf: Leaf = await mintLeaf(w);
    const post = await postIx(w, leaf.asset, await custodyOf(leaf));
    expectOk(await w.h.trySend([post], w.borrower));
    moved(leaf, post.request);
    await changeOtherLeaves(w);
    const cancel = await cancelIx(w, post.request, await custodyOf(leaf));
    const out = expectOk(await w.h.trySend([cancel], w.borrower));
    console.log(`cNFT CancelRequest: ${out.computeUnits} CU, ${await wireSize(w.h, [cancel], w.borrower)} B`);
    moved(leaf, w.borrower.address);
    expectRoot(w, w.tree);
    expect(requestOf(w, post.request).status).toBe("Cancelled");
  });

  it("refuses a request naming another standard (a programmable NFT's byte) or a classic one with the standard bytes, before anything moves", async () => {
    const w = await requestWorld();
    const asset = await mintAsset(w);
    const post = await postIx(w, asset, coreCustody(w, asset));
    const data = Uint8Array.from(post.data ?? []);
    data[41] = 1; // ProgrammableNft
    await expectRefused(w, { ...post, data }, E.InvalidCollateral);
    data[41] = 0; // the classic escrow names no standard: its data is 41 bytes
    await expectRefused(w, { ...post, data }, E.InvalidInstruction);
    expect(w.h.exists(post.request)).toBe(false);
    expect(ownerOf(w, asset)).toBe(w.borrower.address);
  });
});
