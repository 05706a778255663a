// Compressed NFTs (Bubblegum V1 leaves) on the local NFT market, through the real Token Metadata, Bubblegum, SPL
// Account Compression and SPL Noop binaries: a listing PDA owns the listed leaf (Bubblegum Transfer), the buyer or the
// seller gets it from it, and a collection bid takes a leaf whose metadata names the bid's collection verified,
// Bubblegum's own leaf check proving the leaf commits to that metadata. The test keeps a copy of each tree
// (lending/test/support/cnft.ts) and checks it against the root the chain holds. Adversarial cases first.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  decodeMarketBid,
  decodeMarketListing,
  getBuyCompressedNftInstruction,
  getBuyNftInstruction,
  getDelistCompressedNftInstruction,
  getListCompressedNftInstruction,
  getPlaceBidInstruction,
  getSellCompressedNftToBidInstruction,
  type MarketLeaf,
  NFT_MARKET_ERRORS,
} from "@cistern/sdk";
import {
  createFundedSigner,
  createMint,
  createTestSvm,
  createTokenAccount,
  getAccountData,
  getTokenBalance,
  LiteSvmTransactionError,
  mintTo,
  sendWithLiteSvm,
} from "@cistern/sdk/testing";
import { buildSources } from "@cistern/toolchain";
import {
  AccountRole,
  type Address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getProgramDerivedAddress,
  getTransactionEncoder,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { beforeEach, describe, expect, it } from "vitest";
import {
  addCompressionPrograms,
  chainRoot,
  configBump,
  copyRoot,
  type Leaf,
  leafRefusedIn,
  mintLeaf,
  moved,
  newCollection,
  newTree,
  type Send,
  type TreeCopy,
  verifiedFlagAt,
} from "../../lending/test/support/cnft.ts";

const SO = fileURLToPath(new URL("../build/nft-market.so", import.meta.url));
const USDC = 1_000_000n;
const E = NFT_MARKET_ERRORS;

interface Market {
  svm: LiteSVM;
  programAddress: Address;
  authority: KeyPairSigner;
  currency: Address;
  /** the compressed collection (a sized Token Metadata collection NFT) */
  shells: Address;
  otherCollection: Address;
  tree: TreeCopy;
  otherTree: TreeCopy;
  send: Send;
}

async function createMarket(): Promise<Market> {
  const svm = createTestSvm();
  const programAddress = (await generateKeyPairSigner()).address;
  svm.addProgram(programAddress, new Uint8Array(readFileSync(SO)));
  addCompressionPrograms(svm);
  const authority = await createFundedSigner(svm, 1000n);
  const send: Send = (ixs, payer) => sendWithLiteSvm(svm, ixs, payer);
  const currency = await createMint(svm, authority, 6);
  return {
    svm,
    programAddress,
    authority,
    currency,
    shells: await newCollection(send, authority),
    otherCollection: await newCollection(send, authority),
    tree: await newTree(send, authority),
    otherTree: await newTree(send, authority),
    send,
  };
}

async function wallet(m: Market, usdc = 0n) {
  const signer = await createFundedSigner(m.svm);
  const currencyAccount = await createTokenAccount(m.svm, m.authority, m.currency, signer.address);
  if (usdc > 0n) await mintTo(m.svm, m.authority, m.currency, currencyAccount, usdc * USDC);
  return { signer, currencyAccount };
}

/** A leaf of the collection (or `opts.collection`; verified unless said) minted to `owner`. */
function leafOf(
  m: Market,
  owner: Address,
  opts: { tree?: TreeCopy; collection?: Address | null; verified?: boolean } = {},
): Promise<Leaf> {
  return mintLeaf(m.send, m.authority, {
    owner,
    tree: opts.tree ?? m.tree,
    collection: opts.collection === undefined ? m.shells : opts.collection,
    ...(opts.verified === undefined ? {} : { verified: opts.verified }),
  });
}

/** The leaf as the SDK's builders take it (what DAS serves): a fresh proof against the copy's root now. */
async function marketLeaf(leaf: Leaf, o: { proof?: Address[]; tree?: TreeCopy } = {}): Promise<MarketLeaf> {
  const tree = o.tree ?? leaf.tree;
  return {
    tree: tree.address,
    treeConfig: tree.config,
    treeConfigBump: await configBump(tree.address),
    assetId: leaf.asset,
    assetBump: leaf.assetBump,
    nonce: BigInt(leaf.nonce),
    root: leaf.tree.root,
    proof: o.proof ?? leaf.tree.proof(leaf.nonce),
    dataHash: leaf.dataHash,
    creatorHash: leaf.creatorHash,
    metadataArgs: leaf.args,
  };
}

async function failure(run: Promise<unknown>): Promise<number | string> {
  try {
    await run;
    return "success";
  } catch (error) {
    if (!(error instanceof LiteSvmTransactionError)) throw error;
    if (leafRefusedIn(error.logs)) return "leaf refused";
    const line = error.logs.find((l) => /custom program error: 0x/.test(l));
    return line ? Number.parseInt(line.split("0x")[1]!, 16) : error.message;
  }
}

const send = (m: Market, ixs: Instruction[], payer: KeyPairSigner) => sendWithLiteSvm(m.svm, ixs, payer);

/** The chain's root of `tree` is the copy's: every leaf belongs to whom the test says. */
function expectRoot(m: Market, tree: TreeCopy = m.tree): void {
  expect(chainRoot(getAccountData(m.svm, tree.address)!)).toBe(copyRoot(tree));
}

/** The wire size of one transaction of `ixs` paid by `payer` (no lookup table). */
async function wireSize(m: Market, ixs: Instruction[], payer: KeyPairSigner): Promise<number> {
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (t) => setTransactionMessageFeePayerSigner(payer, t),
    (t) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: m.svm.latestBlockhash(), lastValidBlockHeight: 0n },
        t,
      ),
    (t) => appendTransactionMessageInstructions(ixs, t),
    (t) => signTransactionMessageWithSigners(t),
  );
  return getTransactionEncoder().encode(tx).length;
}

/** Sends, logs the CU and the size, and checks the size fits one transaction. */
async function measured(m: Market, name: string, ix: Instruction, payer: KeyPairSigner) {
  const size = await wireSize(m, [ix], payer);
  const out = await send(m, [ix], payer);
  console.log(`${name}: ${out.computeUnits} CU, ${size} B (limit 1,232)`);
  expect(size).toBeLessThanOrEqual(1232);
  return out;
}

async function list(m: Market, seller: KeyPairSigner, leaf: Leaf | MarketLeaf, price: bigint) {
  return getListCompressedNftInstruction({
    programAddress: m.programAddress,
    seller,
    leaf: "assetId" in leaf ? leaf : await marketLeaf(leaf),
    currencyMint: m.currency,
    price,
  });
}

async function bidOn(m: Market, price: bigint, collection = m.shells, nonce = 1n) {
  const bidder = await wallet(m, 1000n);
  const ix = await getPlaceBidInstruction({
    programAddress: m.programAddress,
    bidder: bidder.signer,
    nonce,
    collection,
    currencyMint: m.currency,
    bidderCurrencyAccount: bidder.currencyAccount,
    price,
  });
  await send(m, [ix], bidder.signer);
  return { bidder, bid: ix.bid, vault: ix.vault };
}

type Bid = Awaited<ReturnType<typeof bidOn>>;

function sell(
  m: Market,
  seller: KeyPairSigner,
  b: Bid,
  leaf: MarketLeaf,
  proceeds: Address,
  minPrice: bigint,
) {
  return getSellCompressedNftToBidInstruction({
    programAddress: m.programAddress,
    seller,
    bid: b.bid,
    vault: b.vault,
    bidder: b.bidder.signer.address,
    proceeds,
    leaf,
    minPrice,
  });
}

describe("local NFT market: compressed NFT listings", () => {
  let m: Market;
  beforeEach(async () => {
    m = await createMarket();
  });

  it("refuses a wrong proof, a proof of another tree, another tree's account, a leaf owned by someone else and a look-alike Bubblegum", async () => {
    const seller = await wallet(m);
    const leaf = await leafOf(m, seller.signer.address);
    // two leaves in the other tree: its proof of nonce 0 differs from this tree's (all empty nodes)
    await leafOf(m, seller.signer.address, { tree: m.otherTree });
    await leafOf(m, seller.signer.address, { tree: m.otherTree });
    expectRoot(m);
    const junk = (await generateKeyPairSigner()).address;
    const wrongProof = await list(
      m,
      seller.signer,
      await marketLeaf(leaf, { proof: [junk, ...leaf.tree.proof(leaf.nonce).slice(1)] }),
      USDC,
    );
    expect(await failure(send(m, [wrongProof], seller.signer))).toBe("leaf refused");
    const otherProof = await list(
      m,
      seller.signer,
      await marketLeaf(leaf, { proof: m.otherTree.proof(leaf.nonce) }),
      USDC,
    );
    expect(await failure(send(m, [otherProof], seller.signer))).toBe("leaf refused");
    // the other tree's account: its leaf of this nonce has another asset id than the listing's PDA names
    const otherTree = await marketLeaf(leaf, { tree: m.otherTree });
    const wrongTree = await list(m, seller.signer, { ...otherTree, assetId: leaf.asset }, USDC);
    expect(await failure(send(m, [wrongTree], seller.signer))).toBe(E.InvalidPda);
    // a stranger lists the seller's leaf
    const stranger = await wallet(m);
    expect(await failure(send(m, [await list(m, stranger.signer, leaf, USDC)], stranger.signer))).toBe(
      "leaf refused",
    );
    // another program passed as Bubblegum
    const ix = await list(m, seller.signer, leaf, USDC);
    const accounts = [...(ix.accounts ?? [])];
    accounts[5] = { ...accounts[5]!, address: m.programAddress };
    expect(await failure(send(m, [{ ...ix, accounts }], seller.signer))).toBe(E.InvalidBubblegumProgram);
    // a leaf in no verified collection, and metadata that does not parse
    const loose = await leafOf(m, seller.signer.address, { collection: null });
    expect(await failure(send(m, [await list(m, seller.signer, loose, USDC)], seller.signer))).toBe(
      E.NotInCollection,
    );
    const cut = { ...(await marketLeaf(leaf)), metadataArgs: leaf.args.slice(0, -1) };
    expect(await failure(send(m, [await list(m, seller.signer, cut, USDC)], seller.signer))).toBe(
      E.InvalidMetadata,
    );
    // nothing listed, every leaf still its owner's
    expect(getAccountData(m.svm, ix.listing)).toBeNull();
    expectRoot(m);
    expectRoot(m, m.otherTree);
  });

  it("a buyer paying less, hashes the leaf does not commit to, another tree and a stranger's delist are refused with nothing moved", async () => {
    const seller = await wallet(m);
    const leaf = await leafOf(m, seller.signer.address);
    const ix = await list(m, seller.signer, leaf, 250n * USDC);
    await send(m, [ix], seller.signer);
    moved(leaf, ix.listing);
    const buyer = await wallet(m, 300n);
    const buy = async (maxPrice: bigint, l?: MarketLeaf) =>
      getBuyCompressedNftInstruction({
        programAddress: m.programAddress,
        buyer: buyer.signer,
        listing: ix.listing,
        payFrom: buyer.currencyAccount,
        sellerCurrencyAccount: seller.currencyAccount,
        newOwner: buyer.signer.address,
        seller: seller.signer.address,
        leaf: l ?? (await marketLeaf(leaf)),
        maxPrice,
      });
    expect(await failure(send(m, [await buy(249n * USDC)], buyer.signer))).toBe(E.PriceMoved);
    const other = await leafOf(m, seller.signer.address);
    const lie = { ...(await marketLeaf(leaf)), dataHash: other.dataHash, root: m.tree.root };
    expect(await failure(send(m, [await buy(250n * USDC, lie)], buyer.signer))).toBe("leaf refused");
    const elsewhere = await marketLeaf(leaf, { tree: m.otherTree });
    expect(await failure(send(m, [await buy(250n * USDC, elsewhere)], buyer.signer))).toBe(E.AccountMismatch);
    // a classic Buy of a compressed listing
    const classic = getBuyNftInstruction({
      programAddress: m.programAddress,
      buyer: buyer.signer,
      listing: ix.listing,
      escrow: m.tree.address,
      payFrom: buyer.currencyAccount,
      sellerCurrencyAccount: seller.currencyAccount,
      nftDestination: buyer.currencyAccount,
      seller: seller.signer.address,
      maxPrice: 250n * USDC,
    });
    expect(await failure(send(m, [classic], buyer.signer))).toBe(E.InvalidOwner);
    const stranger = await wallet(m);
    const delist = getDelistCompressedNftInstruction({
      programAddress: m.programAddress,
      seller: stranger.signer,
      listing: ix.listing,
      leaf: await marketLeaf(leaf),
    });
    expect(await failure(send(m, [delist], stranger.signer))).toBe(E.Unauthorized);
    expect(getTokenBalance(m.svm, buyer.currencyAccount)).toBe(300n * USDC);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(0n);
    expect(decodeMarketListing(getAccountData(m.svm, ix.listing)!).price).toBe(250n * USDC);
    expectRoot(m);
  });

  it("a listing owns the leaf; a buyer pays the price and receives it; the seller delists another", async () => {
    const seller = await wallet(m);
    const leaf = await leafOf(m, seller.signer.address);
    const ix = await list(m, seller.signer, leaf, 250n * USDC);
    await measured(m, "ListCnft", ix, seller.signer);
    moved(leaf, ix.listing);
    expectRoot(m);
    expect(decodeMarketListing(getAccountData(m.svm, ix.listing)!)).toMatchObject({
      standard: "compressed",
      seller: seller.signer.address,
      nftMint: leaf.asset,
      escrow: m.shells,
      price: 250n * USDC,
      leafNonce: BigInt(leaf.nonce),
    });
    // listed again with a fresh proof: the listing owns it now, the seller cannot move it
    expect(await failure(send(m, [await list(m, seller.signer, leaf, USDC)], seller.signer))).not.toBe(
      "success",
    );
    const buyer = await wallet(m, 300n);
    const buy = getBuyCompressedNftInstruction({
      programAddress: m.programAddress,
      buyer: buyer.signer,
      listing: ix.listing,
      payFrom: buyer.currencyAccount,
      sellerCurrencyAccount: seller.currencyAccount,
      newOwner: buyer.signer.address,
      seller: seller.signer.address,
      leaf: await marketLeaf(leaf),
      maxPrice: 250n * USDC,
    });
    await measured(m, "BuyCnft", buy, buyer.signer);
    moved(leaf, buyer.signer.address);
    expectRoot(m);
    expect(getTokenBalance(m.svm, buyer.currencyAccount)).toBe(50n * USDC);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(250n * USDC);
    expect(getAccountData(m.svm, ix.listing)).toBeNull();
    expect(await failure(send(m, [buy], buyer.signer))).toBe(E.InvalidOwner);

    const second = await leafOf(m, seller.signer.address);
    const listed = await list(m, seller.signer, second, 10n * USDC);
    await send(m, [listed], seller.signer);
    moved(second, listed.listing);
    const delist = getDelistCompressedNftInstruction({
      programAddress: m.programAddress,
      seller: seller.signer,
      listing: listed.listing,
      leaf: await marketLeaf(second),
    });
    await measured(m, "DelistCnft", delist, seller.signer);
    moved(second, seller.signer.address);
    expectRoot(m);
    expect(getAccountData(m.svm, listed.listing)).toBeNull();
  });
});

describe("local NFT market: compressed NFTs sold into a collection bid", () => {
  let m: Market;
  beforeEach(async () => {
    m = await createMarket();
  });

  it("refuses metadata claiming a verified collection the leaf does not commit to, a leaf outside the collection, a price below the minimum", async () => {
    const seller = await wallet(m);
    const b = await bidOn(m, 100n * USDC);
    // minted naming the bid's collection unverified: the claim that it is verified hashes to another leaf
    const unverified = await leafOf(m, seller.signer.address, { verified: false });
    const claimed = Uint8Array.from(unverified.args);
    claimed[verifiedFlagAt(claimed)] = 1;
    const lie = { ...(await marketLeaf(unverified)), metadataArgs: claimed };
    expect(
      await failure(send(m, [sell(m, seller.signer, b, lie, seller.currencyAccount, 0n)], seller.signer)),
    ).toBe("leaf refused");
    // as it is: not verified
    const asIs = sell(m, seller.signer, b, await marketLeaf(unverified), seller.currencyAccount, 0n);
    expect(await failure(send(m, [asIs], seller.signer))).toBe(E.NotInCollection);
    // a verified leaf of another collection
    const outside = await leafOf(m, seller.signer.address, { collection: m.otherCollection });
    const wrong = sell(m, seller.signer, b, await marketLeaf(outside), seller.currencyAccount, 0n);
    expect(await failure(send(m, [wrong], seller.signer))).toBe(E.NotInCollection);
    // the collection's leaf, another owner's
    const stranger = await wallet(m);
    const theirs = await leafOf(m, stranger.signer.address);
    const notOwned = sell(m, seller.signer, b, await marketLeaf(theirs), seller.currencyAccount, 0n);
    expect(await failure(send(m, [notOwned], seller.signer))).toBe("leaf refused");
    // the seller's own, below their minimum
    const mine = await leafOf(m, seller.signer.address);
    const low = sell(m, seller.signer, b, await marketLeaf(mine), seller.currencyAccount, 101n * USDC);
    expect(await failure(send(m, [low], seller.signer))).toBe(E.PriceMoved);
    expect(getTokenBalance(m.svm, b.vault)).toBe(100n * USDC);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(0n);
    expectRoot(m);
  });

  it("a leaf of the collection fills the bid: the bidder owns it, the seller is paid; the same leaf cannot be sold twice", async () => {
    const seller = await wallet(m);
    const first = await bidOn(m, 100n * USDC);
    const second = await bidOn(m, 90n * USDC, m.shells, 2n);
    const leaf = await leafOf(m, seller.signer.address);
    const fill = sell(m, seller.signer, first, await marketLeaf(leaf), seller.currencyAccount, 100n * USDC);
    await measured(m, "SellCnftToBid", fill, seller.signer);
    moved(leaf, first.bidder.signer.address);
    expectRoot(m);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(100n * USDC);
    expect(getAccountData(m.svm, first.bid)).toBeNull();
    expect(getAccountData(m.svm, first.vault)).toBeNull();
    // the same leaf again: the first bid is closed, and the second bid's sale finds the leaf the bidder's now
    expect(await failure(send(m, [fill], seller.signer))).toBe(E.InvalidOwner);
    const again = sell(m, seller.signer, second, await marketLeaf(leaf), seller.currencyAccount, 0n);
    expect(await failure(send(m, [again], seller.signer))).toBe("leaf refused");
    expect(decodeMarketBid(getAccountData(m.svm, second.bid)!).price).toBe(90n * USDC);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(100n * USDC);
    expectRoot(m);
  });

  it("a program's PDA that owns a leaf sells it into a bid by CPI, signing as the seller (as a loan will)", async () => {
    // test/fixtures/pda-seller.c: forwards a market instruction, signing for its PDA ["seller"]
    const fixture = await buildSources({
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      sources: ["test/fixtures/pda-seller.c", "../toolchain/c/libsol.c"],
      includeDirs: ["../toolchain/c"],
    });
    const holder = (await generateKeyPairSigner()).address;
    m.svm.addProgram(holder, fixture.so);
    const [pda, bump] = await getProgramDerivedAddress({ programAddress: holder, seeds: ["seller"] });
    const leaf = await leafOf(m, pda);
    const b = await bidOn(m, 100n * USDC);
    const payee = await wallet(m);
    const sale = getSellCompressedNftToBidInstruction({
      programAddress: m.programAddress,
      seller: pda,
      sellerSignsByCpi: true,
      bid: b.bid,
      vault: b.vault,
      bidder: b.bidder.signer.address,
      proceeds: payee.currencyAccount,
      leaf: await marketLeaf(leaf),
      minPrice: 100n * USDC,
    });
    // sent directly, nobody signs for the PDA
    expect(await failure(send(m, [sale], payee.signer))).toBe(E.MissingSigner);
    const viaProgram: Instruction = {
      programAddress: holder,
      accounts: [{ address: m.programAddress, role: AccountRole.READONLY }, ...(sale.accounts ?? [])],
      data: Uint8Array.from([bump, ...sale.data!]),
    };
    const out = await send(m, [viaProgram], payee.signer);
    console.log(`SellCnftToBid by CPI (a PDA seller): ${out.computeUnits} CU`);
    moved(leaf, b.bidder.signer.address);
    expectRoot(m);
    expect(getTokenBalance(m.svm, payee.currencyAccount)).toBe(100n * USDC);
    expect(getAccountData(m.svm, b.bid)).toBeNull();
  });
});
