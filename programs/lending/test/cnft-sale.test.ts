// The sale endings of a loan against a compressed NFT (Bubblegum V1 leaf owned by the loan PDA), through the real
// Bubblegum, SPL Account Compression and Noop programs and the pinned NFT market (its built .so): the borrower's
// instant sell into a collection bid (MarketSell with SellCnftToBid, the loan PDA the seller signing by CPI) and the
// auto-sell of a defaulted loan into the vault (LiquidateSell). The program trusts the venue for nothing: it reads the
// tree's changelog after the market's call (the leaf at the loan's index is no longer the one the loan PDA holds) and
// measures what reached the borrower or the vault. Adversarial cases first; then what the chain holds after each happy
// path (the leaf's owner through the test's copy of the tree, checked against the chain's root).
import { readFileSync } from "node:fs";
import {
  getLiquidateSellInstruction,
  getMarketSellInstruction,
  getSellCompressedNftToBidInstruction,
  LENDING_ERROR_CODE,
  NFT_MARKET_ERRORS,
} from "@cistern/sdk";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  BUBBLEGUM,
  type CnftWorld,
  COMPRESSION,
  cnftWorld,
  custodyOf,
  expectRoot,
  type Leaf,
  mintLeaf,
  moved,
  NOOP,
  SYSTEM,
  takeCnftIx,
} from "./support/cnft-world.ts";
import { expectOk, wireSize } from "./support/kit.ts";
import { dueNow, type MarketSale, pinNftMarket, placeCollectionBid } from "./support/market-sale.ts";
import { MARKET_SO } from "./support/nft-sale-world.ts";
import { fundedTokenAccount, mintTo, tokenBalance } from "./support/tokens.ts";
import { bankOf, DAY, loanOf, ONE, poolOf } from "./support/world.ts";

const E = LENDING_ERROR_CODE;
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;

type SaleWorld = CnftWorld & MarketSale;

/** A compressed NFT world whose pool auto-sells, the NFT market deployed and pinned, a funded bidder. */
async function saleWorld(): Promise<SaleWorld> {
  const w = await cnftWorld({ flags: { autoSell: true, mortgage: false, compounding: false } });
  return { ...w, ...(await pinNftMarket(w)) };
}

/** A leaf minted to the borrower and taken as a loan's collateral: the loan PDA owns it. */
async function openLoan(s: SaleWorld): Promise<{ loan: Address; leaf: Leaf }> {
  const leaf = await mintLeaf(s);
  const take = await takeCnftIx(s, leaf);
  expectOk(await s.h.trySend([take], s.borrower));
  moved(leaf, take.loan);
  expectRoot(s, leaf.tree);
  return { loan: take.loan, leaf };
}

/** The bidder's collection bid at `price` for `collection` (the pool's by default). */
const placeBid = (s: SaleWorld, price: bigint, collection = s.glass) =>
  placeCollectionBid(s, price, collection);
type Bid = Awaited<ReturnType<typeof placeBid>>;

interface SaleOverrides {
  market?: Address;
  /** the leaf the market's instruction sells (the loan's by default) and its seller (the loan PDA by default) */
  sold?: Leaf;
  seller?: Address;
  /** the leaf's hashes the lending instruction names (the loan's leaf's by default) */
  hashesOf?: Leaf;
  who?: KeyPairSigner;
  whoAta?: Address;
}

/** The market's SellCnftToBid: the loan PDA sells its leaf (with a fresh proof from the tree copy) into `bid`. */
async function sellToBid(
  s: SaleWorld,
  loan: Address,
  leaf: Leaf,
  bid: Bid,
  proceeds: Address,
  o: SaleOverrides,
) {
  const sold = o.sold ?? leaf;
  const seller = o.seller ?? loan;
  return getSellCompressedNftToBidInstruction({
    programAddress: o.market ?? s.market,
    seller,
    sellerSignsByCpi: seller === loan,
    bid: bid.bid,
    vault: bid.vault,
    bidder: s.bidder.address,
    proceeds,
    leaf: await custodyOf(sold),
    minPrice: 0n,
  });
}

/** The borrower's instant sell (MarketSell) of a compressed NFT loan into `bid`. */
async function instantSell(
  s: SaleWorld,
  o: { loan: Address; leaf: Leaf },
  bid: Bid,
  over: SaleOverrides = {},
) {
  const who = over.who ?? s.borrower;
  const currency = over.whoAta ?? s.borrowerAta;
  return getMarketSellInstruction({
    programAddress: s.program,
    borrower: who,
    pool: s.cnftPool,
    bank: s.bank,
    loan: o.loan,
    borrowerCollateralTokenAccount: o.leaf.tree.address,
    borrowerCurrencyTokenAccount: currency,
    swap: await sellToBid(s, o.loan, o.leaf, bid, currency, over),
    custody: await custodyOf(over.hashesOf ?? o.leaf),
  });
}

/** The auto-sell (LiquidateSell) of a defaulted compressed NFT loan into `bid`, the proceeds into the vault. */
async function autoSell(s: SaleWorld, o: { loan: Address; leaf: Leaf }, bid: Bid) {
  const liquidator = await s.h.wallet();
  const ix = await getLiquidateSellInstruction({
    programAddress: s.program,
    liquidator,
    pool: s.cnftPool,
    bank: s.bank,
    loan: o.loan,
    poolOwnerCollateralTokenAccount: o.leaf.tree.address,
    swap: await sellToBid(s, o.loan, o.leaf, bid, s.vault, {}),
    custody: await custodyOf(o.leaf),
  });
  return { ix, liquidator };
}

/** The loan is still Ongoing, the loan PDA still owns its leaf (the tree's root is the copy's), the bid holds its
 * price. */
function expectUntouched(s: SaleWorld, o: { loan: Address; leaf: Leaf }, bid?: Bid) {
  expect(loanOf(s, o.loan).status).toBe("Ongoing");
  expect(o.leaf.owner).toBe(o.loan);
  expectRoot(s, o.leaf.tree);
  if (bid) expect(tokenBalance(s.h, bid.vault)).toBe(bid.price);
}

/** The signed transaction's size, the static addresses (programs, config, venues) loaded from a lookup table as the
 * API's protocol table loads them. */
async function sizes(s: SaleWorld, ix: Parameters<typeof wireSize>[1][number], payer: KeyPairSigner) {
  const config = ix.accounts?.[1]?.address as Address;
  const venues = ix.accounts?.[2]?.address as Address;
  const table = "AddressLookupTab1e1111111111111111111111111" as Address;
  return {
    plain: await wireSize(s.h, [ix], payer),
    withTable: await wireSize(s.h, [ix], payer, {
      [table]: [BUBBLEGUM, COMPRESSION, NOOP, SYSTEM, TOKEN, config, venues],
    }),
  };
}

describe("instant sell of a compressed NFT loan (MarketSell + the market's SellCnftToBid)", {
  timeout: 180_000,
}, () => {
  it("refuses an unpinned market, a bid of another collection, a sale of another leaf, a proof or hashes the leaf does not commit to", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    s.h.advance(DAY);
    const bid = await placeBid(s, 500n * ONE);

    // the same market program at an address the admin did not pin
    const rogue = (await generateKeyPairSigner()).address;
    s.h.svm.addProgram(rogue, new Uint8Array(readFileSync(MARKET_SO)));
    await s.h.expectCode([await instantSell(s, opened, bid, { market: rogue })], E.InvalidVenue, s.borrower);
    expectUntouched(s, opened, bid);

    // a bid for another collection: the market refuses the leaf, nothing moves
    const foreign = await placeBid(s, 500n * ONE, s.otherCollection);
    const out = await s.h.trySend([await instantSell(s, opened, foreign)], s.borrower);
    expect(out.customCode).toBe(NFT_MARKET_ERRORS.NotInCollection);
    expectUntouched(s, opened, foreign);

    // the borrower sells another leaf of theirs (same tree, same collection) into the bid in the market call: the
    // tree changed, but not at the loan's leaf
    const own = await mintLeaf(s);
    await s.h.expectCode(
      [await instantSell(s, opened, bid, { sold: own, seller: s.borrower.address })],
      E.SaleShort,
      s.borrower,
    );
    expectUntouched(s, opened, bid);
    expect(own.owner).toBe(s.borrower.address);

    // a leaf of the other tree: the loan's tree did not change
    const elsewhere = await mintLeaf(s, { tree: s.otherTree });
    await s.h.expectCode(
      [await instantSell(s, opened, bid, { sold: elsewhere, seller: s.borrower.address })],
      E.SaleShort,
      s.borrower,
    );
    expectUntouched(s, opened, bid);
    expectRoot(s, s.otherTree);

    // the market asked to sell the loan's leaf with another leaf's metadata: Bubblegum refuses the transfer
    const wrongArgs = await instantSell(s, opened, bid, { sold: { ...opened.leaf, args: own.args } });
    const refused = await s.h.trySend([wrongArgs], s.borrower);
    expect(refused.ok).toBe(false);
    expect(refused.logs.some((l) => l.includes("Invalid root recomputed from proof"))).toBe(true);
    expectUntouched(s, opened, bid);

    // account 8 other than the tree
    const ix = await instantSell(s, opened, bid);
    const accounts = [...(ix.accounts ?? [])];
    accounts[8] = { ...accounts[8]!, address: s.borrowerAta };
    await s.h.expectCode([{ ...ix, accounts }], E.AccountMismatch, s.borrower);
    // the hashes cut from the data (the tag and the venue's data only)
    const cut = await instantSell(s, opened, bid);
    await s.h.expectCode([{ ...cut, data: cut.data!.slice(0, 40) }], E.InvalidInstruction, s.borrower);
    expectUntouched(s, opened, bid);
  });

  it("refuses a bid short of what is owed and a seller who is not the borrower; nothing is written", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    s.h.advance(DAY);
    const principal = loanOf(s, opened.loan).principal;
    const short = await placeBid(s, principal); // the principal, not the interest owed now
    await s.h.expectCode([await instantSell(s, opened, short)], E.SaleShort, s.borrower);
    expectUntouched(s, opened, short);

    const bid = await placeBid(s, 500n * ONE);
    await s.h.expectCode(
      [await instantSell(s, opened, bid, { who: s.bidder, whoAta: s.bidderAta })],
      E.Unauthorized,
      s.bidder,
    );
    expectUntouched(s, opened, bid);
  });

  it("sells the leaf to the bidder, repays what is owed into the vault, the rest to the borrower; tokens paid into the vaults change nothing", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    s.h.advance(2n * DAY);
    const bid = await placeBid(s, 300n * ONE);
    await mintTo(s.h, s.currency, s.vault, 3n); // a donation to the bank's vault
    await fundedTokenAccount(s.h, s.currency, opened.loan, 7n); // a token account of the loan PDA, holding tokens
    const due = dueNow(s, opened.loan);
    const borrowerBefore = tokenBalance(s.h, s.borrowerAta);
    const vaultBefore = tokenBalance(s.h, s.vault);
    const bankBefore = bankOf(s);
    const ix = await instantSell(s, opened, bid);
    const size = await sizes(s, ix, s.borrower);
    const out = expectOk(await s.h.trySend([ix], s.borrower));
    console.log(
      `cNFT instant sell (MarketSell + SellCnftToBid): ${out.computeUnits} CU, ${size.plain} B (${size.withTable} B with the protocol table's addresses)`,
    );
    expect(out.computeUnits).toBeLessThanOrEqual(200_000n);
    expect(size.withTable).toBeLessThanOrEqual(1232);

    moved(opened.leaf, s.bidder.address); // the tree copy: the bidder owns the leaf; its root is the chain's
    expectRoot(s, s.tree);
    const loan = loanOf(s, opened.loan);
    expect(loan.status).toBe("Sold");
    expect(s.h.data(opened.loan)[384]).toBe(5); // closedBy Sold
    expect(loan.repaidAmount).toBe(due);
    expect(tokenBalance(s.h, s.borrowerAta)).toBe(borrowerBefore + 300n * ONE - due);
    expect(tokenBalance(s.h, s.vault)).toBe(vaultBefore + due);
    const fee = bankOf(s).feesOwed - bankBefore.feesOwed;
    expect(bankOf(s).availableLiquidity).toBe(bankBefore.availableLiquidity + due - fee);
    expect(poolOf(s, s.cnftPool).currentLoans).toBe(0n);
    expect(s.h.exists(bid.bid)).toBe(false);
    expect(out.logs.join("\n")).toContain("Program data: c29sZA=="); // "sold"
    // the loan cannot end twice
    const again = await placeBid(s, 300n * ONE);
    await s.h.expectCode([await instantSell(s, opened, again)], E.LoanNotOngoing, s.borrower);
  });
});

describe("auto-sell of a defaulted compressed NFT loan (LiquidateSell + SellCnftToBid)", {
  timeout: 180_000,
}, () => {
  it("refuses a sale before expiry + grace and a bid short of what is owed", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    const bid = await placeBid(s, 500n * ONE);
    const early = await autoSell(s, opened, bid);
    await s.h.expectCode([early.ix], E.NotLiquidatable, early.liquidator);
    expectUntouched(s, opened, bid);

    s.h.advance(30n * DAY);
    const short = await placeBid(s, loanOf(s, opened.loan).principal);
    const low = await autoSell(s, opened, short);
    await s.h.expectCode([low.ix], E.SaleShort, low.liquidator);
    expectUntouched(s, opened, short);
  });

  it("sells the leaf to the bidder into the vault: the lenders get principal and the rest, the loan ends Liquidated (AutoSold)", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    s.h.advance(30n * DAY);
    const bid = await placeBid(s, 400n * ONE);
    await mintTo(s.h, s.currency, s.vault, 3n); // a donation to the vault before the sale
    const principal = loanOf(s, opened.loan).principal;
    const bankBefore = bankOf(s);
    const vaultBefore = tokenBalance(s.h, s.vault);
    const { ix, liquidator } = await autoSell(s, opened, bid);
    const size = await sizes(s, ix, liquidator);
    const out = expectOk(await s.h.trySend([ix], liquidator));
    console.log(
      `cNFT auto-sell (LiquidateSell + SellCnftToBid): ${out.computeUnits} CU, ${size.plain} B (${size.withTable} B with the protocol table's addresses)`,
    );
    expect(out.computeUnits).toBeLessThanOrEqual(200_000n);
    expect(size.withTable).toBeLessThanOrEqual(1232);

    moved(opened.leaf, s.bidder.address);
    expectRoot(s, s.tree);
    const loan = loanOf(s, opened.loan);
    expect(loan.status).toBe("Liquidated");
    expect(s.h.data(opened.loan)[384]).toBe(6); // closedBy AutoSold
    expect(loan.repaidAmount).toBe(400n * ONE);
    expect(tokenBalance(s.h, s.vault)).toBe(vaultBefore + 400n * ONE);
    const bank = bankOf(s);
    expect(bank.availableLiquidity).toBe(bankBefore.availableLiquidity + 400n * ONE);
    expect(bank.totalLiquidity).toBe(bankBefore.totalLiquidity + 400n * ONE - principal);
    expect(poolOf(s, s.cnftPool)).toMatchObject({ currentLoans: 0n, totalLiquidations: 1n });
  });
});
