// The instant sell of a loan against a programmable NFT (MarketSell with the NFT market's SellPnftToBid), through the
// real Token Metadata and Token Auth Rules (a rule set allowing the lending program and the market): the loan PDA, as
// the LockedTransfer delegate, unlocks the pNFT and moves it into its own associated token account, the market sells
// it from there into the bid, and the program reads that the loan's account no longer holds it and measures the
// proceeds. Adversarial cases first.
import { readFileSync } from "node:fs";
import { getAssociatedTokenAddress, getTokenRecordAddress } from "@cistern/localnet";
import { getMarketSellInstruction, getSellPnftToBidInstruction, LENDING_ERROR_CODE } from "@cistern/sdk";
import { AccountRole, type Address, address, generateKeyPairSigner, type Instruction } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { computeLimit, expectOk, wireSize } from "./support/kit.ts";
import { MARKET_SO } from "./support/nft-sale-world.ts";
import { loanCustody, type PnftSaleWorld, pnftBid, pnftSaleWorld } from "./support/pnft-sale-world.ts";
import { meta, mintPnft, type Pnft, takePnftIx, W } from "./support/pnft-world.ts";
import { rentLedger, SIGNATURE_FEE } from "./support/rent-ledger.ts";
import { tokenBalance } from "./support/tokens.ts";
import { DAY, loanOf, ONE } from "./support/world.ts";

const E = LENDING_ERROR_CODE;

/** MarketSell of a pNFT loan: 7 the borrower's token account, 8 its token record, then SellPnftToBid. */
async function instantSell(
  s: PnftSaleWorld,
  loan: Address,
  n: Pnft,
  b: { bid: Address; vault: Address; bidder: Address },
) {
  const swap = await getSellPnftToBidInstruction({
    programAddress: s.market,
    seller: loan,
    sellerSignsByCpi: true,
    payer: s.borrower,
    bid: b.bid,
    vault: b.vault,
    bidder: b.bidder,
    nft: await loanCustody(n, loan),
    proceeds: s.borrowerAta,
    minPrice: 0n,
  });
  const ix = await getMarketSellInstruction({
    programAddress: s.program,
    borrower: s.borrower,
    pool: s.pnftPool,
    bank: s.bank,
    loan,
    borrowerCollateralTokenAccount: n.token,
    borrowerCurrencyTokenAccount: s.borrowerAta,
    swap,
  });
  const accounts = [...(ix.accounts ?? [])];
  accounts[7] = meta(n.token, W);
  accounts[8] = meta(n.record[0], W);
  return [computeLimit(1_400_000), { ...ix, accounts }] as Instruction[];
}

const holds = (s: PnftSaleWorld, token: Address) => (s.h.exists(token) ? tokenBalance(s.h, token) : 0n);

describe("instant sell of a pNFT loan (MarketSell + the market's SellPnftToBid)", {
  timeout: 180_000,
}, () => {
  it("refuses a seller who is not the borrower, an unpinned market, another token record, another mint; nothing moves", async () => {
    const s = await pnftSaleWorld();
    const n = await mintPnft(s);
    const take = await takePnftIx(s, n);
    expectOk(await s.h.trySend([computeLimit(400_000), take]));
    const loan = take.loan;
    const b = await pnftBid(s, 500n * ONE);
    const good = await instantSell(s, loan, n, b);
    const sell = good[1]!;
    const edited = (edit: (a: NonNullable<Instruction["accounts"]>[number][]) => void) => {
      const accounts = [...(sell.accounts ?? [])];
      edit(accounts);
      return [good[0]!, { ...sell, accounts }];
    };
    // someone else signs as the borrower
    const stranger = await s.h.wallet();
    const asStranger = edited((a) => {
      a[0] = { address: stranger.address, role: AccountRole.WRITABLE_SIGNER, signer: stranger } as never;
      a[13] = a[0]!; // the market's payer
    });
    expect((await s.h.trySend(asStranger, stranger)).customCode).toBe(E.Unauthorized);
    // the market's code at an address the admin did not pin
    const rogue = (await generateKeyPairSigner()).address;
    s.h.svm.addProgram(rogue, new Uint8Array(readFileSync(MARKET_SO)));
    const unpinned = edited((a) => {
      a[11] = meta(rogue);
    });
    expect((await s.h.trySend(unpinned, s.borrower)).customCode).toBe(E.InvalidVenue);
    // account 8 another token record (the loan account's), the tail naming another mint
    const wrongRecord = edited((a) => {
      a[8] = meta(a[17]!.address, W);
    });
    expect((await s.h.trySend(wrongRecord, s.borrower)).customCode).toBe(E.InvalidMetadata);
    const other = await mintPnft(s);
    const wrongMint = edited((a) => {
      a[24] = meta(other.mint);
    });
    expect((await s.h.trySend(wrongMint, s.borrower)).customCode).toBe(E.InvalidMint);
    expect(tokenBalance(s.h, n.token)).toBe(1n);
    expect(loanOf(s, loan).status).toBe("Ongoing");
  });

  it("refuses a bid short of what is owed (nothing moves); then sells: the bidder holds it, the loan is Sold", async () => {
    const s = await pnftSaleWorld();
    const n = await mintPnft(s);
    const take = await takePnftIx(s, n);
    expectOk(await s.h.trySend([computeLimit(400_000), take]));
    const loan = take.loan;
    s.h.advance(DAY);
    const short = await pnftBid(s, loanOf(s, loan).principal);
    const refused = await s.h.trySend(await instantSell(s, loan, n, short), s.borrower);
    expect(refused.customCode).toBe(E.SaleShort);
    expect(tokenBalance(s.h, n.token)).toBe(1n);
    expect(loanOf(s, loan).status).toBe("Ongoing");

    const good = await pnftBid(s, 500n * ONE);
    const before = tokenBalance(s.h, s.borrowerAta);
    const ixs = await instantSell(s, loan, n, good);
    const bytes = await wireSize(s.h, ixs, s.borrower);
    const via = address(getAssociatedTokenAddress(loan, n.mint));
    const bidderToken = address(getAssociatedTokenAddress(good.bidder, n.mint));
    const ledger = rentLedger(s.h, s.borrower.address, [
      n.token,
      n.record[0],
      via,
      address(getTokenRecordAddress(n.mint, via)),
      bidderToken,
      address(getTokenRecordAddress(n.mint, bidderToken)),
    ]);
    const out = expectOk(await s.h.trySend(ixs, s.borrower));
    console.log(`pNFT instant sell (MarketSell + SellPnftToBid): ${out.computeUnits} CU, ${bytes} B`);
    expect(bytes).toBeLessThanOrEqual(1232);
    const sold = loanOf(s, loan);
    expect(sold.status).toBe("Sold");
    expect(holds(s, address(getAssociatedTokenAddress(good.bidder, n.mint)))).toBe(1n);
    // the borrower's emptied token account is closed (the borrower signing), and the loan PDA's account the pNFT
    // passed through: both rents back to the borrower, who paid them; the borrower paid only the fee (issue #43)
    // (the borrower, the sale's payer, also pays the bidder's new account and record, as any seller of a pNFT does)
    expect(ledger.open()).toEqual([bidderToken, address(getTokenRecordAddress(n.mint, bidderToken))]);
    expect(ledger.payerDelta()).toBe(ledger.released() - SIGNATURE_FEE);
    expect(tokenBalance(s.h, s.borrowerAta)).toBe(before + 500n * ONE - sold.repaidAmount);
  });
});
