// The sale endings of a loan against a Metaplex Core asset, through the real Core program and the pinned NFT market:
// the borrower's instant sell into a collection bid (MarketSell with SellCoreToBid, the loan PDA the seller), the
// auto-sell of a defaulted loan into the vault (LiquidateSell), and the purchase of a listed Core asset with a
// mortgage (TakeMortgage with BuyCore, the loan PDA the new owner). The program trusts the venue for nothing: it reads
// the asset's owner (and for a purchase its collection) after the market's call and measures what reached the
// borrower or the vault. Adversarial cases first; then what the chain holds after each happy path.
import { readFileSync } from "node:fs";
import {
  type AccountReader,
  findLoanPda,
  getBuyCoreAssetInstruction,
  getCancelBidInstruction,
  getLiquidateSellInstruction,
  getListCoreAssetInstruction,
  getMarketSellInstruction,
  getPlaceBidInstruction,
  getSellCoreToBidInstruction,
  getTakeMortgageInstruction,
  LENDING_ERROR_CODE,
  NFT_MARKET_ERRORS,
  readNftCustody,
} from "@cistern/sdk";
import { type Address, generateKeyPairSigner, getAddressEncoder, type KeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { transfer } from "./support/core.ts";
import {
  type CoreWorld,
  coreWorld,
  mintAsset,
  newCollection,
  openLoan,
  ownerOf,
  takeCoreIx,
} from "./support/core-world.ts";
import { expectOk } from "./support/kit.ts";
import { dueNow, type MarketSale, pinNftMarket, placeCollectionBid } from "./support/market-sale.ts";
import { MARKET_SO } from "./support/nft-sale-world.ts";
import { createTokenAccount, fundedTokenAccount, mintTo, tokenBalance } from "./support/tokens.ts";
import {
  attestation,
  bankOf,
  createPool,
  DAY,
  loanOf,
  nftTerms,
  ONE,
  poolOf,
  poolParams,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;
const MORTGAGE_APR_BPS = 1500;
const SALE_FLAGS = { autoSell: true, mortgage: true, compounding: false };
let poolSeed = 300n; // the world's Core pool is seed 200

interface SaleWorld extends CoreWorld, MarketSale {
  seller: KeyPairSigner;
  sellerAta: Address;
}

/** A Core world whose pool auto-sells and offers mortgages, the NFT market deployed and pinned, a bidder, a seller. */
async function saleWorld(): Promise<SaleWorld> {
  const w = await coreWorld({ flags: SALE_FLAGS, mortgageAprBps: MORTGAGE_APR_BPS });
  const seller = await w.h.wallet();
  return {
    ...w,
    ...(await pinNftMarket(w)),
    seller,
    sellerAta: await createTokenAccount(w.h, w.currency, seller.address),
  };
}

/** The SDK's chain read over the test's LiteSVM. */
const reader =
  (w: CoreWorld): AccountReader =>
  async (addresses) =>
    addresses.map((a) => {
      const account = w.h.svm.getAccount(a);
      return account.exists ? { owner: account.programAddress, data: account.data } : null;
    });
const custodyOf = (w: CoreWorld, asset: Address) =>
  readNftCustody(reader(w), { mint: asset, tokenAccount: asset });

/** The bidder's collection bid at `price` for `collection`. */
const placeBid = (s: SaleWorld, price: bigint, collection = s.coreCollection) =>
  placeCollectionBid(s, price, collection);

/** The market's SellCoreToBid of the loan's asset, the loan PDA the seller (it signs through the lending program). */
function sellToBid(
  s: SaleWorld,
  loan: Address,
  asset: Address,
  bid: { bid: Address; vault: Address },
  proceeds: Address,
  over: { collection?: Address; market?: Address } = {},
) {
  return getSellCoreToBidInstruction({
    programAddress: over.market ?? s.market,
    seller: loan,
    bid: bid.bid,
    vault: bid.vault,
    bidder: s.bidder.address,
    asset,
    collection: over.collection ?? s.coreCollection,
    proceeds,
    minPrice: 0n,
  });
}

/** The borrower's instant sell (MarketSell) of a Core loan into `bid`. */
async function instantSell(
  s: SaleWorld,
  opened: { loan: Address; asset: Address },
  bid: { bid: Address; vault: Address },
  over: { collection?: Address; market?: Address; who?: KeyPairSigner; whoAta?: Address } = {},
) {
  const who = over.who ?? s.borrower;
  const currency = over.whoAta ?? s.borrowerAta;
  return getMarketSellInstruction({
    programAddress: s.program,
    borrower: who,
    pool: s.corePool,
    bank: s.bank,
    loan: opened.loan,
    borrowerCollateralTokenAccount: opened.asset,
    borrowerCurrencyTokenAccount: currency,
    swap: sellToBid(s, opened.loan, opened.asset, bid, currency, over),
    custody: await custodyOf(s, opened.asset),
  });
}

/** The auto-sell (LiquidateSell) of a defaulted Core loan into `bid`, the proceeds into the vault. */
async function autoSell(
  s: SaleWorld,
  opened: { loan: Address; asset: Address },
  bid: { bid: Address; vault: Address },
) {
  const liquidator = await s.h.wallet();
  const ix = await getLiquidateSellInstruction({
    programAddress: s.program,
    liquidator,
    pool: s.corePool,
    bank: s.bank,
    loan: opened.loan,
    poolOwnerCollateralTokenAccount: opened.asset,
    swap: sellToBid(s, opened.loan, opened.asset, bid, s.vault),
    custody: await custodyOf(s, opened.asset),
  });
  return { ix, liquidator };
}

/** The seller lists a new asset of `collection` at `price` (the listing PDA owns it). */
async function listAsset(s: SaleWorld, price: bigint, collection = s.coreCollection) {
  const asset = await mintAsset(s, collection, undefined, s.seller.address);
  const ix = await getListCoreAssetInstruction({
    programAddress: s.market,
    seller: s.seller,
    asset,
    collection,
    currencyMint: s.currency,
    price,
  });
  expectOk(await s.h.trySend([ix], s.seller));
  return { asset, listing: ix.listing, price, collection };
}

/** The borrower's TakeMortgage of a listed asset: `principal` from the pool, the rest of the price from their account. */
async function mortgageIx(
  s: SaleWorld,
  listed: { asset: Address; listing: Address; price: bigint; collection: Address },
  principal: bigint,
  over: { newOwner?: Address; attested?: Address; pool?: Address } = {},
) {
  const pool = over.pool ?? s.corePool;
  const terms = nftTerms(s, {
    principalBaseUnits: principal,
    expectedAprBps: MORTGAGE_APR_BPS,
    attestation: attestation(s, {
      collection: over.attested ?? s.coreCollection,
      collateralValueBaseUnits: listed.price,
    }),
  });
  const [loan] = await findLoanPda(s.program, pool, s.borrower.address, terms.nonce);
  const custody = await custodyOf(s, listed.asset); // the collection the asset names now, read from the chain
  const buy = getBuyCoreAssetInstruction({
    programAddress: s.market,
    buyer: s.borrower,
    listing: listed.listing,
    payFrom: s.borrowerAta,
    sellerCurrencyAccount: s.sellerAta,
    newOwner: over.newOwner ?? loan,
    seller: s.seller.address,
    asset: listed.asset,
    collection: custody.standard === "CoreNft" && custody.collection ? custody.collection : listed.collection,
    maxPrice: listed.price,
  });
  return getTakeMortgageInstruction({
    programAddress: s.program,
    borrower: s.borrower,
    oracle: s.oracle,
    pool,
    bank: s.bank,
    collateralMint: listed.asset,
    borrowerCurrencyTokenAccount: s.borrowerAta,
    buy,
    custody,
    ...terms,
  });
}

/** The loan is still Ongoing, the loan PDA still owns its asset, the bid still holds its price. */
function expectUntouched(
  s: SaleWorld,
  opened: { loan: Address; asset: Address },
  bidVault?: Address,
  price?: bigint,
) {
  expect(loanOf(s, opened.loan).status).toBe("Ongoing");
  expect(ownerOf(s, opened.asset)).toBe(opened.loan);
  if (bidVault && price !== undefined) expect(tokenBalance(s.h, bidVault)).toBe(price);
}

describe("instant sell of a Core loan (MarketSell + the market's SellCoreToBid)", {
  timeout: 120_000,
}, () => {
  it("refuses a bid of another collection, an unpinned market, a bid short of what is owed, a seller who is not the borrower", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    s.h.advance(DAY);

    // a bid for another (real) Core collection: the market refuses the asset, nothing moves
    const other = await newCollection(s, s.authority);
    const foreign = await placeBid(s, 500n * ONE, other);
    for (const collection of [s.coreCollection, other]) {
      const out = await s.h.trySend([await instantSell(s, opened, foreign, { collection })], s.borrower);
      expect(out.customCode).toBe(NFT_MARKET_ERRORS.NotInCollection);
    }
    expectUntouched(s, opened, foreign.vault, 500n * ONE);

    // the same market program at an address the admin did not pin
    const bid = await placeBid(s, 500n * ONE);
    const rogue = (await generateKeyPairSigner()).address;
    s.h.svm.addProgram(rogue, new Uint8Array(readFileSync(MARKET_SO)));
    await s.h.expectCode([await instantSell(s, opened, bid, { market: rogue })], E.InvalidVenue, s.borrower);

    // a bid that pays the principal but not the interest owed now
    const short = await placeBid(s, loanOf(s, opened.loan).principal);
    await s.h.expectCode([await instantSell(s, opened, short)], E.SaleShort, s.borrower);
    expectUntouched(s, opened, short.vault, loanOf(s, opened.loan).principal);

    // the bidder selling the borrower's loan to itself
    await s.h.expectCode(
      [await instantSell(s, opened, bid, { who: s.bidder, whoAta: s.bidderAta })],
      E.Unauthorized,
      s.bidder,
    );
    expectUntouched(s, opened, bid.vault, 500n * ONE);
  });

  it("refuses a look-alike collection (Core's bytes under another program) and account 8 other than the asset", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    const lookAlike = (await generateKeyPairSigner()).address;
    const real = s.h.svm.getAccount(s.coreCollection);
    s.h.svm.setAccount({ ...real, address: lookAlike, programAddress: s.authority.address } as never);
    const bid = await placeBid(s, 500n * ONE, lookAlike);
    const out = await s.h.trySend([await instantSell(s, opened, bid, { collection: lookAlike })], s.borrower);
    expect([NFT_MARKET_ERRORS.NotInCollection, NFT_MARKET_ERRORS.InvalidMetadata]).toContain(out.customCode);
    expectUntouched(s, opened, bid.vault, 500n * ONE);

    const good = await placeBid(s, 500n * ONE);
    const ix = await instantSell(s, opened, good);
    const accounts = [...(ix.accounts ?? [])];
    accounts[8] = { ...accounts[8]!, address: s.borrowerAta };
    await s.h.expectCode([{ ...ix, accounts }], E.AccountMismatch, s.borrower);
    expectUntouched(s, opened, good.vault, 500n * ONE);
  });

  it("sells to the bidder, repays what is owed now into the vault, the rest to the borrower; the loan ends Sold", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    s.h.advance(2n * DAY);
    const bid = await placeBid(s, 300n * ONE);
    const due = dueNow(s, opened.loan);
    const borrowerBefore = tokenBalance(s.h, s.borrowerAta);
    const vaultBefore = tokenBalance(s.h, s.vault);
    const bankBefore = bankOf(s);
    const out = expectOk(await s.h.trySend([await instantSell(s, opened, bid)], s.borrower));
    console.log(`Core instant sell (MarketSell + SellCoreToBid): ${out.computeUnits} CU`);
    expect(out.computeUnits).toBeLessThanOrEqual(120_000n);

    expect(ownerOf(s, opened.asset)).toBe(s.bidder.address);
    const loan = loanOf(s, opened.loan);
    expect(loan.status).toBe("Sold");
    expect(s.h.data(opened.loan)[384]).toBe(5); // closedBy Sold
    expect(loan.repaidAmount).toBe(due);
    expect(tokenBalance(s.h, s.borrowerAta)).toBe(borrowerBefore + 300n * ONE - due);
    expect(tokenBalance(s.h, s.vault)).toBe(vaultBefore + due);
    const fee = bankOf(s).feesOwed - bankBefore.feesOwed; // the protocol's share stays in the vault, owed
    expect(fee).toBeGreaterThan(0n);
    expect(bankOf(s).availableLiquidity).toBe(bankBefore.availableLiquidity + due - fee);
    expect(poolOf(s, s.corePool).currentLoans).toBe(0n);
    expect(s.h.exists(bid.bid)).toBe(false);
    expect(out.logs.join("\n")).toContain("Program data: c29sZA=="); // "sold"
    // the loan cannot end twice
    const again = await placeBid(s, 300n * ONE);
    await s.h.expectCode([await instantSell(s, opened, again)], E.LoanNotOngoing, s.borrower);
  });

  it("tokens paid into the bid's vault, the bank's vault or a token account of the loan PDA block no sale", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    s.h.advance(DAY);
    const bid = await placeBid(s, 300n * ONE);
    await fundedTokenAccount(s.h, s.currency, opened.loan, 7n); // a token account of the loan PDA, holding tokens
    await mintTo(s.h, s.currency, bid.vault, 5n);
    await mintTo(s.h, s.currency, s.vault, 3n);
    const due = dueNow(s, opened.loan);
    const before = tokenBalance(s.h, s.borrowerAta);
    expectOk(await s.h.trySend([await instantSell(s, opened, bid)], s.borrower));
    expect(ownerOf(s, opened.asset)).toBe(s.bidder.address);
    expect(loanOf(s, opened.loan).status).toBe("Sold");
    // the market pays what its vault holds: the donation reaches the borrower
    expect(tokenBalance(s.h, s.borrowerAta)).toBe(before + 300n * ONE + 5n - due);
  });
});

describe("auto-sell of a defaulted Core loan (LiquidateSell + SellCoreToBid)", { timeout: 120_000 }, () => {
  it("refuses a sale before expiry + grace and a bid short of what is owed; without auto-sell, the pool refuses", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    const bid = await placeBid(s, 500n * ONE);
    const early = await autoSell(s, opened, bid);
    await s.h.expectCode([early.ix], E.NotLiquidatable, early.liquidator);
    expectUntouched(s, opened, bid.vault, 500n * ONE);

    s.h.advance(30n * DAY);
    const short = await placeBid(s, loanOf(s, opened.loan).principal);
    const low = await autoSell(s, opened, short);
    await s.h.expectCode([low.ix], E.SaleShort, low.liquidator);
    expectUntouched(s, opened, short.vault, loanOf(s, opened.loan).principal);

    // a pool without the auto-sell flag
    const plain = await createPool(
      s.h,
      s.lender,
      s.currency,
      "nft-pool",
      poolSeed++,
      poolParams(s.coreCollection),
    );
    const asset = await mintAsset(s);
    const take = await takeCoreIx(s, asset, s.coreCollection, plain);
    expectOk(await s.h.trySend([take]));
    s.h.advance(30n * DAY);
    const refused = await autoSell(s, { loan: take.loan, asset }, bid);
    const ix = { ...refused.ix, accounts: [...(refused.ix.accounts ?? [])] };
    ix.accounts[3] = { ...ix.accounts[3]!, address: plain };
    await s.h.expectCode([ix], E.AutoSellDisabled, refused.liquidator);
    expect(ownerOf(s, asset)).toBe(take.loan);
  });

  it("sells to the bidder into the vault: the lenders get principal and the rest, the loan ends Liquidated (AutoSold)", async () => {
    const s = await saleWorld();
    const opened = await openLoan(s);
    s.h.advance(30n * DAY);
    const bid = await placeBid(s, 400n * ONE);
    await fundedTokenAccount(s.h, s.currency, opened.loan, 7n); // a donation to a token account of the loan PDA
    const principal = loanOf(s, opened.loan).principal;
    const bankBefore = bankOf(s);
    const vaultBefore = tokenBalance(s.h, s.vault);
    const { ix, liquidator } = await autoSell(s, opened, bid);
    const out = expectOk(await s.h.trySend([ix], liquidator));
    console.log(`Core auto-sell (LiquidateSell + SellCoreToBid): ${out.computeUnits} CU`);
    expect(out.computeUnits).toBeLessThanOrEqual(120_000n);

    expect(ownerOf(s, opened.asset)).toBe(s.bidder.address);
    const loan = loanOf(s, opened.loan);
    expect(loan.status).toBe("Liquidated");
    expect(s.h.data(opened.loan)[384]).toBe(6); // closedBy AutoSold
    expect(loan.repaidAmount).toBe(400n * ONE);
    expect(tokenBalance(s.h, s.vault)).toBe(vaultBefore + 400n * ONE);
    const bank = bankOf(s);
    expect(bank.availableLiquidity).toBe(bankBefore.availableLiquidity + 400n * ONE);
    expect(bank.totalLiquidity).toBe(bankBefore.totalLiquidity + 400n * ONE - principal);
    expect(poolOf(s, s.corePool)).toMatchObject({ currentLoans: 0n, totalLiquidations: 1n });
  });
});

describe("mortgage of a listed Core asset (TakeMortgage + the market's BuyCore)", {
  timeout: 120_000,
}, () => {
  it("refuses an asset outside the pool's collections, a look-alike collection account, a purchase delivered elsewhere", async () => {
    const s = await saleWorld();
    const borrowerBefore = tokenBalance(s.h, s.borrowerAta);

    // an asset of another real Core collection, even with an attestation naming the pool's
    const other = await newCollection(s, s.authority);
    const outsider = await listAsset(s, 100n * ONE, other);
    const a = await mortgageIx(s, outsider, 50n * ONE);
    await s.h.expectCode([a], E.CollectionNotInPool, s.borrower);
    expect(ownerOf(s, outsider.asset)).toBe(outsider.listing);

    // the asset rewritten to name a look-alike collection (Core's bytes at another address, another owner) that a
    // pool lists
    const lookAlike = (await generateKeyPairSigner()).address;
    const real = s.h.svm.getAccount(s.coreCollection);
    s.h.svm.setAccount({ ...real, address: lookAlike, programAddress: s.authority.address } as never);
    const lookAlikePool = await createPool(
      s.h,
      s.lender,
      s.currency,
      "nft-pool",
      poolSeed++,
      poolParams(lookAlike, { flags: SALE_FLAGS, mortgageAprBps: MORTGAGE_APR_BPS }),
    );
    const forged = await listAsset(s, 100n * ONE);
    const bytes = new Uint8Array(s.h.data(forged.asset));
    bytes.set(getAddressEncoder().encode(lookAlike), 34); // update authority Collection(lookAlike)
    s.h.svm.setAccount({ ...s.h.svm.getAccount(forged.asset), address: forged.asset, data: bytes } as never);
    expect((await custodyOf(s, forged.asset)).standard === "CoreNft").toBe(true);
    const b = await mortgageIx(s, forged, 50n * ONE, {
      attested: lookAlike,
      pool: lookAlikePool,
    });
    await s.h.expectCode([b], E.InvalidMetadata, s.borrower);

    // the purchase names the borrower, not the loan, as the asset's new owner: the asset never reaches custody
    const listed = await listAsset(s, 100n * ONE);
    const c = await mortgageIx(s, listed, 50n * ONE, { newOwner: s.borrower.address });
    await s.h.expectCode([c], E.SaleShort, s.borrower);
    expect(ownerOf(s, listed.asset)).toBe(listed.listing);
    expect(s.h.exists(c.loan)).toBe(false);
    expect(tokenBalance(s.h, s.borrowerAta)).toBe(borrowerBefore);
    expect(tokenBalance(s.h, s.sellerAta)).toBe(0n);
    expect(poolOf(s, s.corePool).totalMortgages).toBe(0n);
  });

  it("refuses a 'purchase' of an asset the loan PDA owned before it (issue #43 finding 3): the borrower's own asset sent to the loan's address, the market call their own refundable bid; an honest mortgage after it is accepted", async () => {
    const s = await saleWorld();
    // the borrower's own asset, sent to the address of the loan PDA the mortgage is about to create
    const asset = await mintAsset(s);
    const terms = nftTerms(s, {
      principalBaseUnits: 50n * ONE,
      expectedAprBps: MORTGAGE_APR_BPS,
      attestation: attestation(s, { collection: s.coreCollection, collateralValueBaseUnits: 100n * ONE }),
    });
    const [loan] = await findLoanPda(s.program, s.corePool, s.borrower.address, terms.nonce);
    expectOk(await s.h.trySend([transfer(asset, s.coreCollection, s.borrower, loan)], s.borrower));
    expect(ownerOf(s, asset)).toBe(loan);
    // the "purchase": the borrower's own collection bid of 100 from their currency account (refundable by CancelBid)
    const bid = await getPlaceBidInstruction({
      programAddress: s.market,
      bidder: s.borrower,
      nonce: 9_001n,
      collection: s.coreCollection,
      currencyMint: s.currency,
      bidderCurrencyAccount: s.borrowerAta,
      price: 100n * ONE,
    });
    const attack = await getTakeMortgageInstruction({
      programAddress: s.program,
      borrower: s.borrower,
      oracle: s.oracle,
      pool: s.corePool,
      bank: s.bank,
      collateralMint: asset,
      borrowerCurrencyTokenAccount: s.borrowerAta,
      buy: bid,
      custody: await custodyOf(s, asset),
      ...terms,
    });
    expect(attack.loan).toBe(loan);
    const watched = {
      borrower: tokenBalance(s.h, s.borrowerAta),
      vault: tokenBalance(s.h, s.vault),
      bank: bankOf(s),
      pool: poolOf(s, s.corePool),
    };
    await s.h.expectCode([attack], E.SaleShort, s.borrower);
    // every watched account unchanged: no loan, no bid, the asset where the borrower sent it, no mortgage counted
    expect(s.h.exists(loan)).toBe(false);
    expect(s.h.exists(bid.bid)).toBe(false);
    expect(ownerOf(s, asset)).toBe(loan);
    expect(tokenBalance(s.h, s.borrowerAta)).toBe(watched.borrower);
    expect(tokenBalance(s.h, s.vault)).toBe(watched.vault);
    expect(bankOf(s)).toEqual(watched.bank);
    expect(poolOf(s, s.corePool)).toEqual(watched.pool);
    // (the refund the attack relied on: a CancelBid of that bid has nothing to cancel)
    const cancel = getCancelBidInstruction({
      programAddress: s.market,
      bidder: s.borrower,
      bid: bid.bid,
      vault: bid.vault,
      bidderCurrencyAccount: s.borrowerAta,
    });
    expect((await s.h.trySend([cancel], s.borrower)).ok).toBe(false);

    // the honest mortgage, in the same world: a listed asset bought into the new loan's custody
    const listed = await listAsset(s, 100n * ONE);
    const honest = await mortgageIx(s, listed, 50n * ONE);
    expectOk(await s.h.trySend([honest], s.borrower));
    expect(ownerOf(s, listed.asset)).toBe(honest.loan);
    expect(poolOf(s, s.corePool).totalMortgages).toBe(watched.pool.totalMortgages + 1n);
  });

  it("buys the asset into the loan PDA's custody under the mortgage curve; it then ends as any Core loan", async () => {
    const s = await saleWorld();
    const listed = await listAsset(s, 100n * ONE);
    const ix = await mortgageIx(s, listed, 50n * ONE);
    const borrowerBefore = tokenBalance(s.h, s.borrowerAta);
    const vaultBefore = tokenBalance(s.h, s.vault);
    const out = expectOk(await s.h.trySend([ix], s.borrower));
    console.log(`Core mortgage (TakeMortgage + BuyCore): ${out.computeUnits} CU`);
    expect(out.computeUnits).toBeLessThanOrEqual(120_000n);

    expect(ownerOf(s, listed.asset)).toBe(ix.loan);
    expect(ix.escrow).toBe(listed.asset);
    const loan = loanOf(s, ix.loan);
    expect(loan).toMatchObject({
      kind: "Mortgage",
      status: "Ongoing",
      nftType: "CoreNft",
      aprBps: MORTGAGE_APR_BPS,
      principal: 50n * ONE,
      escrow: listed.asset,
      collateralMint: listed.asset,
      collection: s.coreCollection,
    });
    expect(tokenBalance(s.h, s.sellerAta)).toBe(100n * ONE);
    expect(tokenBalance(s.h, s.borrowerAta)).toBe(borrowerBefore - 50n * ONE); // 100 paid, 50 lent
    expect(tokenBalance(s.h, s.vault)).toBe(vaultBefore - 50n * ONE);
    expect(poolOf(s, s.corePool)).toMatchObject({ totalMortgages: 1n, currentLoans: 1n });
    expect(s.h.exists(listed.listing)).toBe(false);

    // the mortgage ends as any Core loan: an instant sell into a bid
    s.h.advance(DAY);
    const bid = await placeBid(s, 200n * ONE);
    expectOk(
      await s.h.trySend([await instantSell(s, { loan: ix.loan, asset: listed.asset }, bid)], s.borrower),
    );
    expect(ownerOf(s, listed.asset)).toBe(s.bidder.address);
    expect(loanOf(s, ix.loan).status).toBe("Sold");
  });
});
