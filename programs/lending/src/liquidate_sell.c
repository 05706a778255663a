/* LiquidateSell (14): a loan past expiry + grace in an auto-sell pool is liquidated by selling its collateral
 * through a pinned venue (the swap venue for tokens, the NFT market's collection bid for an NFT) into the bank's
 * vault, instead of handing the collateral to the pool owner. */
#include "loan.h"

#define SWAP_FIRST_ACCOUNT 11
#define MAX_SWAP_DATA 512
#define PNFT_BORROWER_ACCOUNT 11 /* a pNFT loan: the borrower's wallet (its token's owner), the venue from 12 */

/* A pNFT loan's sale: 7 the token account that holds it (== loan.escrow, checked with the loan: the borrower's, or a
 * held pNFT's the loan PDA's associated token account, the market's seller account too), 8 its token record, 11 the
 * borrower's wallet (== loan.borrower: Token Metadata's Transfer v1 by the delegate names the token's owner; a held
 * pNFT's sale does not use it, one layout for both), the market's SellPnftToBid from 12 (sale_pnft_accounts, as
 * MarketSell's); the liquidator pays what Token Metadata charges and gets the emptied loan PDA's account's rent. Out
 * of line, off the classic path. */
__attribute__((noinline)) static u64 liquidate_sell_pnft_accounts(const SolParameters *p, const Loan *l,
                                                                   PnftAccounts *a) {
  const SolAccountInfo *borrower = &p->ka[PNFT_BORROWER_ACCOUNT];
  if (!pubkey_eq(borrower->key, &l->borrower)) return E_ACCOUNT_MISMATCH;
  return sale_pnft_accounts(p, l, borrower, &p->ka[0], a);
}

/* accounts: 0 liquidator (s, w; anyone; receives the escrow rent), 1 config, 2 venues, 3 pool (w), 4 bank (w),
 * 5 vault (w; the swap's output), 6 loan (w), 7 escrow (w), 8 pool owner's collateral token account (w; what
 * the sale leaves), 9 token program, 10 swap program or NFT market (a pinned one), 11.. the venue instruction's
 * accounts. A Core loan: 7 and 8 the asset (the market's SellCoreToBid, the loan PDA its seller, the vault the
 * proceeds account); a compressed NFT's loan: 7 and 8 the tree (the market's SellCnftToBid, likewise); a pNFT loan:
 * 7 the borrower's token account (a held pNFT's, nftType 4: the loan PDA's associated token account), 8 its token
 * record, 11 the borrower's wallet, 12.. the market's SellPnftToBid (liquidate_sell_pnft_accounts; 34 accounts).
 * data: tag, (a compressed NFT's loan: the leaf's data hash and creator hash,) then the swap instruction's data. The sale must bring the vault at least principal + the interest
 * owed now, so the lenders are paid in full; otherwise nothing happens and the loan can be liquidated the
 * classic way (Liquidate). */
u64 ix_liquidate_sell(const SolParameters *p) {
  if (p->data_len < 2 || p->data_len > 1 + MAX_SWAP_DATA) return E_INVALID_INSTRUCTION;
  if (p->ka_num <= SWAP_FIRST_ACCOUNT) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *liquidator = &ka[0], *config = &ka[1], *venues = &ka[2], *pool = &ka[3], *bank = &ka[4];
  const SolAccountInfo *vault = &ka[5], *loan = &ka[6], *escrow = &ka[7], *dest = &ka[8], *token = &ka[9];
  const SolAccountInfo *swap = &ka[10];
  u64 r = check_signer(liquidator, true);
  if (r) return r;
  if ((r = check_config(config, p->program_id, false))) return r;
  if ((r = check_sale_venue(venues, swap, p->program_id))) return r;
  if ((r = check_loan_accounts(p, pool, bank, loan, escrow))) return r;
  Pool *pl = (Pool *)pool->data;
  Bank *bk = (Bank *)bank->data;
  Loan *l = (Loan *)loan->data;
  if (!(pl->flags & FLAG_AUTO_SELL)) return E_AUTO_SELL_DISABLED;
  if (!pubkey_eq(&bk->vault, vault->key)) return E_ACCOUNT_MISMATCH;
  if ((r = check_token_account(vault, &bk->mint, NULL))) return r;
  if ((r = check_token_program(token))) return r;
  PnftAccounts pnft;
  u64 first = SWAP_FIRST_ACCOUNT;
  if (l->nft_type == NFT_TYPE_CLASSIC) {
    if ((r = check_token_account(dest, &l->collateral_mint, &pl->owner))) return r;
  } else if (l->nft_type == NFT_TYPE_PNFT || l->nft_type == NFT_TYPE_PNFT_HELD) {
    if ((r = liquidate_sell_pnft_accounts(p, l, &pnft))) return r;
    first = SALE_PNFT_FIRST_ACCOUNT;
  } else if ((r = check_sale_custody(l, escrow, dest))) {
    return r;
  }
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  i64 deadline = l->expired_at + (i64)grace_seconds(l->duration);
  if (clock.unix_timestamp <= deadline) return E_NOT_LIQUIDATABLE;

  u64 vault_before = rd64(vault->data + 64), sold;
  SwapCall call = {p, first, swap, loan, l, 0};
  SolSignerSeed seeds[5];
  loan_signer_seeds(l, seeds);
  SolSignerSeeds signer = {seeds, 5};
  /* the pNFT accounts, read by a pNFT's custody only (as MarketSell's) */
  Custody held = {l->nft_type, token, loan, &signer, escrow, {&pnft}};
  CnftAccounts leaf;
  if (l->nft_type == NFT_TYPE_CNFT) {
    if ((r = cnft_sale_leaf(p, escrow, &leaf))) return r;
    held.cnft = &leaf;
    call.skip = CNFT_SALE_HASHES_LEN;
  }
  /* what the venue took from custody and what reached the vault: nothing else counts */
  if ((r = custody_sell(&held, &call, &sold))) return r;
  u64 vault_after = rd64(vault->data + 64);
  if (vault_after <= vault_before) return E_SALE_SHORT;
  u64 proceeds = vault_after - vault_before;
  u64 owed, due, total, available;
  if (!owed_interest(l, clock.unix_timestamp, &owed) || !add_ok(l->principal, owed, &due)) return E_MATH_OVERFLOW;
  if (proceeds < due) return E_SALE_SHORT;
  /* the principal comes back and the rest of the proceeds is the lenders' */
  if (!add_ok(bk->total, proceeds - l->principal, &total) || !add_ok(bk->available, proceeds, &available))
    return E_MATH_OVERFLOW;

  /* what the sale left in custody goes to the pool owner */
  if ((r = custody_release_rest(&held, dest, liquidator))) return r;

  bk->total = total;
  bk->available = available;
  if ((r = release_loan(pl, bk, l))) return r;
  pl->total_liquidations++;
  pl->total_interest += proceeds - l->principal;
  l->status = LOAN_LIQUIDATED;
  l->closed_by = CLOSED_AUTO_SOLD;
  l->liquidated_at = clock.unix_timestamp;
  l->repaid_amount = proceeds;
  static const u8 EVENT[] = "autosold";
  SolBytes fields[3] = {{EVENT, sizeof(EVENT) - 1}, {(const u8 *)&sold, 8}, {(const u8 *)&proceeds, 8}};
  sol_log_data(fields, 3);
  return SUCCESS;
}
