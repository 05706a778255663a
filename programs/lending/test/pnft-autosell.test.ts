// The auto-sell of a defaulted loan against a programmable NFT (LiquidateSell with the NFT market's SellPnftToBid),
// through the real Token Metadata and Token Auth Rules: the loan PDA, as the LockedTransfer delegate, unlocks the pNFT
// in the borrower's token account and moves it into its own associated token account (Transfer v1 names the
// borrower's wallet as the token's owner: account 11), the market sells it from there into the bid with the vault as
// the proceeds account, and the program reads that the loan's account no longer holds it, closes that account to the
// liquidator and measures what reached the vault. Adversarial cases first; nothing moves on a refusal.
import { readFileSync } from "node:fs";
import { getAssociatedTokenAddress } from "@cistern/localnet";
import {
  getLiquidateSellInstruction,
  getSellPnftToBidInstruction,
  LENDING_ERROR_CODE,
  NFT_MARKET_ERRORS,
} from "@cistern/sdk";
import {
  type Address,
  address,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { computeLimit, computePrice, expectOk, wireSize } from "./support/kit.ts";
import { MARKET_SO } from "./support/nft-sale-world.ts";
import {
  loanCustody,
  type PnftSaleWorld,
  pnftBid,
  pnftCustodyAt,
  pnftSaleWorld,
} from "./support/pnft-sale-world.ts";
import {
  AUTH_RULES,
  liquidatePnftIx,
  meta,
  mintPnft,
  type Pnft,
  SYSTEM,
  SYSVAR_INSTRUCTIONS,
  TM,
  takePnftIx,
  W,
} from "./support/pnft-world.ts";
import { fundedTokenAccount, mintTo, TOKEN_PROGRAM_ADDRESS, tokenBalance } from "./support/tokens.ts";
import { bankOf, DAY, loanOf, ONE, poolOf } from "./support/world.ts";

const E = LENDING_ERROR_CODE;
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address;
/** The compute-unit limit of these transactions (the API budgets LiquidateSell of a pNFT 650,000; see below). */
const CU_LIMIT = 800_000;
/** Token Metadata's token record states (byte 2). */
const RECORD_UNLOCKED = 0;
const RECORD_LOCKED = 1;
/** Token Auth Rules' error 30: the transfer's source or destination is no account of a program the rule set lists. */
const TOKEN_AUTH_RULES_PROGRAM_OWNED_LIST_CHECK_FAILED = 30;

type Bid = { bid: Address; vault: Address; bidder: Address };

/** Opens a pNFT loan in `pool` (the auto-sell pool by default). */
async function openLoan(s: PnftSaleWorld, pool = s.autoSellPool) {
  const n = await mintPnft(s);
  const take = await takePnftIx(s, n, pool);
  expectOk(await s.h.trySend([computeLimit(400_000), take]));
  return { n, loan: take.loan };
}

/** LiquidateSell of the pNFT loan into `bid`: 7 the borrower's token account, 8 its token record, 11 the borrower's
 * wallet, 12.. SellPnftToBid (the loan the seller, the liquidator the payer, the vault the proceeds). */
async function autoSell(
  s: PnftSaleWorld,
  loan: Address,
  n: Pnft,
  b: Bid,
  liquidator: KeyPairSigner,
  pool = s.autoSellPool,
  proceeds = s.vault,
) {
  const swap = await getSellPnftToBidInstruction({
    programAddress: s.market,
    seller: loan,
    sellerSignsByCpi: true,
    payer: liquidator,
    bid: b.bid,
    vault: b.vault,
    bidder: b.bidder,
    nft: await loanCustody(n, loan),
    proceeds,
    minPrice: 0n,
  });
  const ix = await getLiquidateSellInstruction({
    programAddress: s.program,
    liquidator,
    pool,
    bank: s.bank,
    loan,
    poolOwnerCollateralTokenAccount: n.token,
    swap,
    custody: await pnftCustodyAt(n, n.token),
    borrower: s.borrower.address,
  });
  return [computeLimit(CU_LIMIT), ix] as Instruction[];
}

/** The same transaction with some of the lending instruction's accounts replaced. */
function edited(ixs: Instruction[], edit: (a: NonNullable<Instruction["accounts"]>[number][]) => void) {
  const accounts = [...(ixs[1]!.accounts ?? [])];
  edit(accounts);
  return [ixs[0]!, { ...ixs[1]!, accounts }];
}

const holds = (s: PnftSaleWorld, token: Address) => (s.h.exists(token) ? tokenBalance(s.h, token) : 0n);

/** Nothing moved: the pNFT locked in the borrower's account, the loan Ongoing, the vault and the bid as they were. */
function expectUntouched(s: PnftSaleWorld, n: Pnft, loan: Address, vault: bigint, b: Bid, price: bigint) {
  expect(tokenBalance(s.h, n.token)).toBe(1n);
  expect(s.h.data(n.record[0])[2]).toBe(RECORD_LOCKED);
  expect(loanOf(s, loan).status).toBe("Ongoing");
  expect(tokenBalance(s.h, s.vault)).toBe(vault);
  expect(tokenBalance(s.h, b.vault)).toBe(price);
  expect(holds(s, address(getAssociatedTokenAddress(b.bidder, n.mint)))).toBe(0n);
}

describe("auto-sell of a defaulted pNFT loan (LiquidateSell + the market's SellPnftToBid)", {
  timeout: 300_000,
}, () => {
  it("refuses before expiry + grace, an unpinned market, another wallet as the borrower, another token record, a stranger's token account, another mint, a bid of another collection, proceeds paid elsewhere than the vault, a bid short of what is owed; nothing moves", async () => {
    const s = await pnftSaleWorld();
    const { n, loan } = await openLoan(s);
    const liquidator = await s.h.wallet();
    const price = 500n * ONE;
    const b = await pnftBid(s, price);
    const vault = tokenBalance(s.h, s.vault);
    const good = await autoSell(s, loan, n, b, liquidator);
    expect((await s.h.trySend(good, liquidator)).customCode).toBe(E.NotLiquidatable);
    expectUntouched(s, n, loan, vault, b, price);

    s.h.advance(30n * DAY);
    const refused = async (ixs: Instruction[], code: number) => {
      expect((await s.h.trySend(ixs, liquidator)).customCode).toBe(code);
      expectUntouched(s, n, loan, vault, b, price);
    };
    // the market's code at an address the admin did not pin
    const rogue = (await generateKeyPairSigner()).address;
    s.h.svm.addProgram(rogue, new Uint8Array(readFileSync(MARKET_SO)));
    await refused(
      edited(good, (a) => {
        a[10] = meta(rogue);
      }),
      E.InvalidVenue,
    );
    // account 11 a wallet that is not the loan's borrower
    const stranger = await s.h.wallet();
    await refused(
      edited(good, (a) => {
        a[11] = meta(stranger.address);
      }),
      E.AccountMismatch,
    );
    // account 8 another token record (the loan account's), then a stranger's pNFT token account and its record
    await refused(
      edited(good, (a) => {
        a[8] = meta(a[17]!.address, W);
      }),
      E.InvalidMetadata,
    );
    const strangers = await mintPnft(s, s.pnftCollection, stranger.address);
    await refused(
      edited(good, (a) => {
        a[7] = meta(strangers.token, W);
        a[8] = meta(strangers.record[0], W);
      }),
      E.AccountMismatch,
    );
    // the tail naming another mint
    await refused(
      edited(good, (a) => {
        a[24] = meta(strangers.mint);
      }),
      E.InvalidMint,
    );
    // a bid of another collection: the market refuses the pNFT
    const other = await pnftBid(s, price, (await generateKeyPairSigner()).address);
    expect((await s.h.trySend(await autoSell(s, loan, n, other, liquidator), liquidator)).customCode).toBe(
      NFT_MARKET_ERRORS.NotInCollection,
    );
    expectUntouched(s, n, loan, vault, b, price);
    // the market pays the liquidator's own currency account instead of the vault: the vault gains nothing
    const liquidatorAta = await fundedTokenAccount(s.h, s.currency, liquidator.address, 0n);
    expect(
      (
        await s.h.trySend(
          await autoSell(s, loan, n, b, liquidator, s.autoSellPool, liquidatorAta),
          liquidator,
        )
      ).customCode,
    ).toBe(E.SaleShort);
    expectUntouched(s, n, loan, vault, b, price);
    expect(tokenBalance(s.h, liquidatorAta)).toBe(0n);
    // a bid that pays the principal but not the interest owed
    const short = await pnftBid(s, loanOf(s, loan).principal);
    expect((await s.h.trySend(await autoSell(s, loan, n, short, liquidator), liquidator)).customCode).toBe(
      E.SaleShort,
    );
    expectUntouched(s, n, loan, vault, b, price);
  });

  it("refuses a pool without auto-sell; a rule set that does not allow the market refuses the sale, and the loan still goes to the pool owner (Liquidate)", async () => {
    const s = await pnftSaleWorld();
    const plain = await openLoan(s, s.pnftPool);
    s.h.advance(30n * DAY);
    const liquidator = await s.h.wallet();
    const b = await pnftBid(s, 500n * ONE);
    const vault = tokenBalance(s.h, s.vault);
    expect(
      (await s.h.trySend(await autoSell(s, plain.loan, plain.n, b, liquidator, s.pnftPool), liquidator))
        .customCode,
    ).toBe(E.AutoSellDisabled);
    expectUntouched(s, plain.n, plain.loan, vault, b, 500n * ONE);

    // the rule set allows the lending program (so the loan was made) but not the market
    const strict = await pnftSaleWorld(false);
    const { n, loan } = await openLoan(strict);
    strict.h.advance(30n * DAY);
    const sb = await pnftBid(strict, 500n * ONE);
    const strictVault = tokenBalance(strict.h, strict.vault);
    const keeper = await strict.h.wallet();
    const out = await strict.h.trySend(await autoSell(strict, loan, n, sb, keeper), keeper);
    expect(out.ok).toBe(false);
    expect(out.customCode).toBe(TOKEN_AUTH_RULES_PROGRAM_OWNED_LIST_CHECK_FAILED);
    expectUntouched(strict, n, loan, strictVault, sb, 500n * ONE);
    const liquidate = await liquidatePnftIx(strict, keeper, loan, n, {
      pool: strict.autoSellPool,
      bank: strict.bank,
      owner: strict.lender.address,
    });
    expectOk(await strict.h.trySend([computeLimit(400_000), liquidate], keeper));
    expect(tokenBalance(strict.h, liquidate.dest)).toBe(1n);
    expect(loanOf(strict, loan).status).toBe("Liquidated");
  });

  it("sells to the bidder into the vault despite donations: the lenders get principal and the rest, the loan ends Liquidated (AutoSold), the loan PDA keeps no account", async () => {
    const s = await pnftSaleWorld();
    const { n, loan } = await openLoan(s);
    s.h.advance(30n * DAY);
    const price = 400n * ONE;
    const b = await pnftBid(s, price);
    const liquidator = await s.h.wallet();
    // donations beforehand: currency into the vault and into a token account of the loan PDA; the loan PDA's
    // associated token account of the pNFT created by a stranger, with lamports sent to it
    const donor = await s.h.wallet();
    await mintTo(s.h, s.currency, s.vault, 9n);
    const donated = await fundedTokenAccount(s.h, s.currency, loan, 7n);
    const loanAta = address(getAssociatedTokenAddress(loan, n.mint));
    expectOk(
      await s.h.trySend(
        [
          getCreateAssociatedTokenIdempotentInstruction({
            payer: donor,
            ata: loanAta,
            owner: loan,
            mint: n.mint,
          }),
        ],
        donor,
      ),
    );
    const principal = loanOf(s, loan).principal;
    const bankBefore = bankOf(s);
    const vaultBefore = tokenBalance(s.h, s.vault);
    const liquidatorBefore = s.h.lamports(liquidator.address);
    const ixs = await autoSell(s, loan, n, b, liquidator);
    const bytes = await wireSize(s.h, ixs, liquidator);
    // as the API sends it: a compute-unit price too, the protocol's lookup table loading the programs it holds
    const accounts = ixs[1]!.accounts!;
    const apiShaped = [ixs[0]!, computePrice(1n), ixs[1]!];
    const withTable = await wireSize(s.h, apiShaped, liquidator, {
      ["AddressLookupTab1e1111111111111111111111111" as Address]: [
        TM,
        AUTH_RULES,
        SYSVAR_INSTRUCTIONS,
        SYSTEM,
        TOKEN_PROGRAM_ADDRESS,
        ATA_PROGRAM,
        accounts[1]!.address,
        accounts[2]!.address,
      ],
    });
    const out = expectOk(await s.h.trySend(ixs, liquidator));
    console.log(
      `pNFT auto-sell (LiquidateSell + SellPnftToBid): ${out.computeUnits} CU, ${bytes} B inline (${withTable} B with a price instruction and the protocol table), ${accounts.length} accounts`,
    );
    expect(bytes).toBeLessThanOrEqual(1232);
    expect(withTable).toBeLessThanOrEqual(1232);
    expect(accounts.length).toBeLessThanOrEqual(40);
    expect(out.computeUnits).toBeLessThanOrEqual(650_000n);

    // the bidder holds it (unlocked, in their own account); the borrower's account and the loan PDA's are empty
    const bidderAta = address(getAssociatedTokenAddress(b.bidder, n.mint));
    expect(tokenBalance(s.h, bidderAta)).toBe(1n);
    const bidderRecord = (await pnftCustodyAt(n, bidderAta)).tokenRecord;
    expect(s.h.data(bidderRecord)[2]).toBe(RECORD_UNLOCKED);
    expect(tokenBalance(s.h, n.token)).toBe(0n);
    expect(s.h.exists(n.record[0])).toBe(false);
    expect(s.h.exists(loanAta)).toBe(false);
    expect(s.h.exists((await loanCustody(n, loan)).tokenRecord)).toBe(false);
    // the pool owner receives nothing NFT-wise
    expect(holds(s, address(getAssociatedTokenAddress(s.lender.address, n.mint)))).toBe(0n);
    // the liquidator paid the fee and the rents Token Metadata charged (the bidder's account and record), and got
    // the loan PDA's account's rent (here the donor's) and the bid's account's back
    const paid = liquidatorBefore - s.h.lamports(liquidator.address);
    console.log(`pNFT auto-sell: the liquidator's net cost ${paid} lamports`);
    expect(paid).toBeLessThan(10_000_000n);

    const sold = loanOf(s, loan);
    expect(sold.status).toBe("Liquidated");
    expect(s.h.data(loan)[384]).toBe(6); // closedBy AutoSold
    expect(sold.repaidAmount).toBe(price); // the donations are not proceeds
    expect(tokenBalance(s.h, s.vault)).toBe(vaultBefore + price);
    const bank = bankOf(s);
    expect(bank.availableLiquidity).toBe(bankBefore.availableLiquidity + price);
    expect(bank.totalLiquidity).toBe(bankBefore.totalLiquidity + price - principal);
    expect(poolOf(s, s.autoSellPool)).toMatchObject({ currentLoans: 0n, totalLiquidations: 1n });
    expect(tokenBalance(s.h, donated)).toBe(7n);

    // the same sale again: the loan is no longer Ongoing
    const again = await pnftBid(s, price);
    expect((await s.h.trySend(await autoSell(s, loan, n, again, liquidator), liquidator)).customCode).toBe(
      E.LoanNotOngoing,
    );
  });
});
