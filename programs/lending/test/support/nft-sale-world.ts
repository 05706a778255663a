/**
 * A LiteSVM world for the NFT sales that compose with the local NFT market: the lending program and the market
 * deployed side by side, the market pinned, an nft-pool of one verified collection (60% LTV, 20% loan APR,
 * mortgages at 15%, auto-sell on), a listing and a collection bid. Used by the instant sell, mortgage and
 * auto-sell tests and by bench/venue-cu.bench.ts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  findEscrowPda,
  findLoanPda,
  findMarketEscrowPda,
  findMarketListingPda,
  getBuyNftInstruction,
  getListNftInstruction,
  getMarketSellInstruction,
  getPlaceBidInstruction,
  getSellToBidInstruction,
  getSetVenuesInstruction,
  getTakeMortgageInstruction,
  NO_VENUE,
} from "@cistern/sdk";
import {
  attest,
  createLendingWorld,
  createPool,
  createWallet,
  type LendingWorld,
  mintNft,
  mintTo,
  readLoan,
  sendWithLiteSvm,
  takeLoan,
  tokenAccountOf,
  type Wallet,
  type WorldPool,
} from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner, type Instruction } from "@solana/kit";

const LENDING_SO = fileURLToPath(new URL("../../build/lending.so", import.meta.url));
export const MARKET_SO = fileURLToPath(new URL("../../../nft-market/build/nft-market.so", import.meta.url));
export const USDC = 1_000_000n;
export const DAY = 86_400n;
export const LOAN_APR_BPS = 2000;
export const MORTGAGE_APR_BPS = 1500;
export const LTV_BPS = 6000;

export interface NftSale {
  world: LendingWorld;
  market: Address;
  collection: Address;
  pool: WorldPool;
  borrower: Wallet;
  bidder: Wallet;
  seller: Wallet;
}

export async function createNftSale(): Promise<NftSale> {
  const world = await createLendingWorld({ soPath: LENDING_SO, depositBaseUnits: 10_000n * USDC });
  const market = (await generateKeyPairSigner()).address;
  world.svm.addProgram(market, new Uint8Array(readFileSync(MARKET_SO)));
  await sendWithLiteSvm(
    world.svm,
    [
      await getSetVenuesInstruction({
        programAddress: world.programAddress,
        admin: world.admin,
        swapProgram: NO_VENUE,
        marketProgram: market,
      }),
    ],
    world.admin,
  );
  const collection = (await generateKeyPairSigner()).address;
  const pool = await createPool(world, {
    poolType: "nft-pool",
    collectionIds: [collection],
    loanAprBps: LOAN_APR_BPS,
    ltvBps: LTV_BPS,
    autoSell: true,
    mortgageAprBps: MORTGAGE_APR_BPS,
  });
  const wallet = async (usdc: bigint) => {
    const w = await createWallet(world.svm, world.admin, [world.currencyMint]);
    if (usdc > 0n)
      await mintTo(
        world.svm,
        world.admin,
        world.currencyMint,
        w.tokenAccounts.get(world.currencyMint)!,
        usdc * USDC,
      );
    return w;
  };
  return {
    world,
    market,
    collection,
    pool,
    borrower: await wallet(100n),
    bidder: await wallet(1000n),
    seller: await wallet(0n),
  };
}

/** The bidder's collection bid at `price`; returns the bid and its vault. */
export async function placeBid(s: NftSale, price: bigint, nonce = 1n, collection = s.collection) {
  const ix = await getPlaceBidInstruction({
    programAddress: s.market,
    bidder: s.bidder.signer,
    nonce,
    collection,
    currencyMint: s.world.currencyMint,
    bidderCurrencyAccount: await tokenAccountOf(s.world, s.bidder, s.world.currencyMint),
    price,
  });
  await sendWithLiteSvm(s.world.svm, [ix], s.bidder.signer);
  return { bid: ix.bid, vault: ix.vault, price };
}

/** An NFT loan of the borrower: an NFT of the collection valued `value`, `principal` borrowed for a week. */
export async function openNftLoan(s: NftSale, principal: bigint, value = 100n * USDC) {
  const nft = await mintNft(s.world, s.borrower, s.collection);
  const loan = await takeLoan(s.world, {
    pool: s.pool,
    borrower: s.borrower,
    collateralMint: nft,
    collection: s.collection,
    collateralAmountBaseUnits: 1n,
    collateralValueBaseUnits: value,
    principalBaseUnits: principal,
    durationSeconds: 7n * DAY,
  });
  return { loan, nft };
}

/** The market's SellToBid selling `loan`'s NFT (escrow, the loan signing by CPI) into `proceeds`. */
export async function sellLoanToBid(
  s: NftSale,
  loan: Address,
  bid: { bid: Address; vault: Address },
  proceeds: Address,
  minPrice = 0n,
): Promise<Instruction> {
  const l = readLoan(s.world, loan);
  const [escrow] = await findEscrowPda(s.world.programAddress, loan);
  return getSellToBidInstruction({
    programAddress: s.market,
    seller: loan,
    sellerSignsByCpi: true,
    bid: bid.bid,
    vault: bid.vault,
    bidder: s.bidder.signer.address,
    nftMint: l.collateralMint,
    nftSource: escrow,
    bidderNftAccount: await tokenAccountOf(s.world, s.bidder, l.collateralMint),
    proceeds,
    minPrice,
  });
}

/** The borrower's instant sell: MarketSell with the market's SellToBid into the borrower's currency account. */
export async function instantSell(s: NftSale, loan: Address, sale: Instruction, who: Wallet = s.borrower) {
  const l = readLoan(s.world, loan);
  return getMarketSellInstruction({
    programAddress: s.world.programAddress,
    borrower: who.signer,
    pool: l.pool,
    bank: l.bank,
    loan,
    borrowerCollateralTokenAccount: await tokenAccountOf(s.world, who, l.collateralMint),
    borrowerCurrencyTokenAccount: await tokenAccountOf(s.world, who, l.currencyMint),
    swap: sale,
  });
}

/** The seller lists a new NFT of `collection` at `price`. */
export async function listNft(s: NftSale, price: bigint, collection: Address | null = s.collection) {
  const nft = await mintNft(s.world, s.seller, collection);
  const ix = await getListNftInstruction({
    programAddress: s.market,
    seller: s.seller.signer,
    nftMint: nft,
    sellerNftAccount: await tokenAccountOf(s.world, s.seller, nft),
    currencyMint: s.world.currencyMint,
    price,
  });
  await sendWithLiteSvm(s.world.svm, [ix], s.seller.signer);
  return { nft, listing: ix.listing, escrow: ix.escrow, price };
}

/** The borrower's TakeMortgage of `listing`: `principal` from `pool`, the rest from their currency account. */
export async function takeMortgageInstruction(
  s: NftSale,
  listing: { nft: Address; price: bigint },
  principal: bigint,
  over: { pool?: WorldPool; value?: bigint; aprBps?: number; market?: Address; collection?: Address } = {},
) {
  const pool = over.pool ?? s.pool;
  const nonce = s.world.counters.loanNonce++;
  const [loan] = await findLoanPda(s.world.programAddress, pool.address, s.borrower.signer.address, nonce);
  const [escrow] = await findEscrowPda(s.world.programAddress, loan);
  const [listingAddress] = await findMarketListingPda(s.market, listing.nft);
  const [listingEscrow] = await findMarketEscrowPda(s.market, listingAddress);
  const currency = await tokenAccountOf(s.world, s.borrower, s.world.currencyMint);
  const buy = getBuyNftInstruction({
    programAddress: over.market ?? s.market,
    buyer: s.borrower.signer,
    listing: listingAddress,
    escrow: listingEscrow,
    payFrom: currency,
    sellerCurrencyAccount: await tokenAccountOf(s.world, s.seller, s.world.currencyMint),
    nftDestination: escrow,
    seller: s.seller.signer.address,
    maxPrice: listing.price,
  });
  return getTakeMortgageInstruction({
    programAddress: s.world.programAddress,
    borrower: s.borrower.signer,
    oracle: s.world.oracle,
    pool: pool.address,
    bank: pool.bank.address,
    collateralMint: listing.nft,
    borrowerCurrencyTokenAccount: currency,
    buy,
    nonce,
    principalBaseUnits: principal,
    durationSeconds: 30n * DAY,
    collateralAmountBaseUnits: 1n,
    expectedAprBps: over.aprBps ?? MORTGAGE_APR_BPS,
    attestation: attest(s.world, {
      collection: over.collection ?? s.collection,
      collateralValueBaseUnits: over.value ?? listing.price,
    }),
  });
}
