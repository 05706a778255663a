// The NFT market as the lending program's pinned venue in the sale tests of each standard (core-sale, cnft-sale): the
// built nft-market.so deployed and pinned, a funded bidder's collection bids, and what a loan owes at the clock's now.
import { readFileSync } from "node:fs";
import { computeOwedInterest } from "@cistern/protocol";
import { getPlaceBidInstruction } from "@cistern/sdk";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { expectOk } from "./kit.ts";
import { MARKET_SO } from "./nft-sale-world.ts";
import { fundedTokenAccount } from "./tokens.ts";
import { loanOf, ONE, pinMarket, type World } from "./world.ts";

/** The pinned NFT market (no swap venue) and a bidder holding 10,000 of the world's currency. */
export interface MarketSale {
  market: Address;
  bidder: KeyPairSigner;
  bidderAta: Address;
}

/** Deploys the built NFT market at a new address, pins it as the venues' market and funds a bidder. */
export async function pinNftMarket(w: World): Promise<MarketSale> {
  const market = (await generateKeyPairSigner()).address;
  await pinMarket(w, market, new Uint8Array(readFileSync(MARKET_SO)));
  const bidder = await w.h.wallet();
  const bidderAta = await fundedTokenAccount(w.h, w.currency, bidder.address, 10_000n * ONE);
  return { market, bidder, bidderAta };
}

let bidNonce = 1n;
/** The bidder's collection bid at `price` for `collection`: its account, its vault and the price. */
export async function placeCollectionBid(w: World & MarketSale, price: bigint, collection: Address) {
  const ix = await getPlaceBidInstruction({
    programAddress: w.market,
    bidder: w.bidder,
    nonce: bidNonce++,
    collection,
    currencyMint: w.currency,
    bidderCurrencyAccount: w.bidderAta,
    price,
  });
  expectOk(await w.h.trySend([ix], w.bidder));
  return { bid: ix.bid, vault: ix.vault, price };
}

/** What the loan owes now (principal + interest), as the program computes it. */
export function dueNow(w: World, loan: Address): bigint {
  const l = loanOf(w, loan);
  return (
    l.principal +
    computeOwedInterest({
      aprBps: l.aprBps,
      principal: l.principal,
      durationSeconds: l.durationSeconds,
      createdAt: l.createdAt,
      now: w.h.now,
    })
  );
}
