// The sale endings of a pNFT loan (MarketSell, LiquidateSell with the NFT market's SellPnftToBid) on the real Token
// Metadata and Token Auth Rules: a pNFT world whose rule set allows the lending program and (unless told not to) the
// market, the market deployed and pinned, an auto-sell pool of the pNFT collection, collection bids, and the custody
// of a pNFT in a given token account as the SDK reads it.
import { readFileSync } from "node:fs";
import { getAssociatedTokenAddress } from "@cistern/localnet";
import { getPlaceBidInstruction, type ProgrammableCustody } from "@cistern/sdk";
import {
  type Address,
  address,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
} from "@solana/kit";
import { expectOk } from "./kit.ts";
import { MARKET_SO } from "./nft-sale-world.ts";
import { type Pnft, type PnftWorld, pnftWorld, TM } from "./pnft-world.ts";
import { fundedTokenAccount } from "./tokens.ts";
import { createPool, ONE, pinMarket, poolParams } from "./world.ts";

export interface PnftSaleWorld extends PnftWorld {
  market: Address;
  /** A pool of the pNFT collection with the auto-sell flag (the world's pnftPool has none). */
  autoSellPool: Address;
}

let poolSeed = 500n;

/** The pNFT world with the market pinned; `allowMarket` false: the rule set allows the lending program only. */
export async function pnftSaleWorld(allowMarket = true): Promise<PnftSaleWorld> {
  const market = (await generateKeyPairSigner()).address;
  const w = await pnftWorld((program) => (allowMarket ? [program, market] : [program]));
  await pinMarket(w, market, new Uint8Array(readFileSync(MARKET_SO)));
  const autoSellPool = await createPool(
    w.h,
    w.lender,
    w.currency,
    "nft-pool",
    poolSeed++,
    poolParams(w.pnftCollection, { flags: { autoSell: true, mortgage: false, compounding: false } }),
  );
  return { ...w, market, autoSellPool };
}

/** The custody of `n` held in `tokenAccount` (its token record at its PDA), as readNftCustody answers it. */
export async function pnftCustodyAt(n: Pnft, tokenAccount: Address): Promise<ProgrammableCustody> {
  const enc = getAddressEncoder();
  const [tokenRecord, tokenRecordBump] = await getProgramDerivedAddress({
    programAddress: TM,
    seeds: ["metadata", enc.encode(TM), enc.encode(n.mint), "token_record", enc.encode(tokenAccount)],
  });
  return {
    standard: "ProgrammableNft",
    mint: n.mint,
    tokenAccount,
    metadata: n.metadata[0],
    metadataBump: n.metadata[1],
    masterEdition: n.edition[0],
    masterEditionBump: n.edition[1],
    tokenRecord,
    tokenRecordBump,
    ruleSet: n.ruleSet,
  };
}

/** The loan PDA's own associated token account of the pNFT: the market's seller account in a loan's sale. */
export const loanCustody = (n: Pnft, loan: Address) =>
  pnftCustodyAt(n, address(getAssociatedTokenAddress(loan, n.mint)));

let bidNonce = 1n;
/** A new bidder's collection bid at `price` (for the pNFT collection unless told). */
export async function pnftBid(s: PnftSaleWorld, price: bigint, collection = s.pnftCollection) {
  const bidder = await s.h.wallet();
  const bidderAta = await fundedTokenAccount(s.h, s.currency, bidder.address, 10_000n * ONE);
  const ix = await getPlaceBidInstruction({
    programAddress: s.market,
    bidder,
    nonce: bidNonce++,
    collection,
    currencyMint: s.currency,
    bidderCurrencyAccount: bidderAta,
    price,
  });
  expectOk(await s.h.trySend([ix], bidder));
  return { bid: ix.bid, vault: ix.vault, bidder: bidder.address };
}
