/* MarketSell (13): sell an ongoing loan's collateral through a pinned venue (the swap venue for tokens, the NFT
 * market's collection bid for an NFT: the borrower's instant sell) and repay from the proceeds, in one
 * instruction. The venue is trusted for nothing: the program measures what left the escrow and what
 * reached the borrower's currency account, and pays the loan off exactly as Repay would. */
#include "loan.h"

#define SWAP_FIRST_ACCOUNT 12
#define MAX_SWAP_DATA 512

static bool is_pinned(const SolPubkey *pinned, const SolAccountInfo *program) {
  return !is_zero_key(pinned) && pubkey_eq(program->key, pinned) && program->executable;
}

u64 check_swap_venue(const SolAccountInfo *venues, const SolAccountInfo *swap, const SolPubkey *program_id) {
  u64 r = check_venues(venues, program_id);
  if (r) return r;
  return is_pinned(&((const Venues *)venues->data)->swap_program, swap) ? SUCCESS : E_INVALID_VENUE;
}

u64 check_market_venue(const SolAccountInfo *venues, const SolAccountInfo *market, const SolPubkey *program_id) {
  u64 r = check_venues(venues, program_id);
  if (r) return r;
  return is_pinned(&((const Venues *)venues->data)->market_program, market) ? SUCCESS : E_INVALID_VENUE;
}

u64 check_sale_venue(const SolAccountInfo *venues, const SolAccountInfo *venue, const SolPubkey *program_id) {
  u64 r = check_venues(venues, program_id);
  if (r) return r;
  const Venues *v = (const Venues *)venues->data;
  return is_pinned(&v->swap_program, venue) || is_pinned(&v->market_program, venue) ? SUCCESS : E_INVALID_VENUE;
}

/* The sale and the settlement, once the accounts are checked: the venue (accounts from 12, the loan PDA signing)
 * takes the collateral from custody (custody_sell: what left it, read from the chain), the proceeds are what reached
 * the borrower's currency account (9); they must cover principal + the interest owed now, and the loan is paid off
 * as Repay would (settle_sold_loan) and ends Sold. One body, inline in the classic path and in the other standards'. */
__attribute__((always_inline)) static inline u64 sell_and_settle(const SolParameters *p, const Custody *held,
                                                                  u64 skip) {
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *borrower = &ka[0], *config = &ka[1], *pool = &ka[3], *bank = &ka[4], *vault = &ka[5];
  const SolAccountInfo *loan = &ka[6], *escrow = &ka[7], *collateral = &ka[8], *currency = &ka[9];
  const SolAccountInfo *token = &ka[10], *swap = &ka[11];
  Loan *l = (Loan *)loan->data;
  u64 currency_before = rd64(currency->data + 64), sold;
  SwapCall call = {p, SWAP_FIRST_ACCOUNT, swap, loan, l, skip};
  /* what the venue took from custody and what reached the borrower: nothing else counts */
  u64 r = custody_sell(held, &call, &sold);
  if (r) return r;
  u64 currency_after = rd64(currency->data + 64);
  if (currency_after <= currency_before) return E_SALE_SHORT;
  u64 proceeds = currency_after - currency_before;

  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  u64 owed, due;
  if (!owed_interest(l, clock.unix_timestamp, &owed) || !add_ok(l->principal, owed, &due)) return E_MATH_OVERFLOW;
  if (proceeds < due) return E_SALE_SHORT;
  Settlement s = {borrower, token,   currency, vault, loan, escrow, collateral, (const Config *)config->data,
                  (Pool *)pool->data, (Bank *)bank->data, l, clock.unix_timestamp};
  if ((r = settle_sold_loan(&s))) return r;
  l->status = LOAN_SOLD;
  l->closed_by = CLOSED_SOLD;
  l->sold_at = clock.unix_timestamp;
  /* the sale for the indexer: "sold", collateral sold, proceeds (base units, u64 LE each) */
  static const u8 EVENT[] = "sold";
  SolBytes fields[3] = {{EVENT, sizeof(EVENT) - 1}, {(const u8 *)&sold, 8}, {(const u8 *)&proceeds, 8}};
  sol_log_data(fields, 3);
  return SUCCESS;
}

u64 check_sale_custody(const Loan *l, const SolAccountInfo *asset, const SolAccountInfo *other) {
  if (l->nft_type != NFT_TYPE_CORE && l->nft_type != NFT_TYPE_CNFT) return E_INVALID_COLLATERAL;
  return pubkey_eq(other->key, asset->key) ? SUCCESS : E_ACCOUNT_MISMATCH;
}

/* The NFT market's SellPnftToBid (13), as MarketSell passes it from account 12: the seller's token account and its
 * token record, then the pNFT tail (mint, metadata, edition, Token Metadata, Token Auth Rules, rule set, sysvar
 * instructions, system, token, associated token programs); nft-market LAYOUT.md */
#define SELL_PNFT_ACCOUNTS 22
#define SELL_PNFT_SELLER_TOKEN 4
#define SELL_PNFT_TAIL 12

/* A pNFT loan's sale (MarketSell, LiquidateSell): account 7 the borrower's token account that holds it (== loan.escrow),
 * 8 its token record (w); the pNFT's accounts are the market's SellPnftToBid's from account 12 (the loan PDA's
 * associated token account and record, the tail), so the loan PDA unlocks it and moves it there as Liquidate's first
 * hop, and the market sells it from there. `owner` is the borrower's wallet (the token's owner), `payer` the signer
 * who pays what Token Metadata charges (MarketSell: both the borrower; LiquidateSell: the borrower's wallet, checked
 * by the caller, and the liquidator). */
u64 sale_pnft_accounts(const SolParameters *p, const Loan *l, const SolAccountInfo *owner,
                       const SolAccountInfo *payer, PnftAccounts *a) {
  const SolAccountInfo *ka = p->ka;
  if (p->ka_num < SALE_PNFT_FIRST_ACCOUNT + SELL_PNFT_ACCOUNTS) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *v = ka + SALE_PNFT_FIRST_ACCOUNT, *tail = v + SELL_PNFT_TAIL;
  if (!pubkey_eq(tail[0].key, &l->collateral_mint)) return E_INVALID_MINT;
  a->mint = &tail[0];
  a->metadata = &tail[1];
  a->edition = &tail[2];
  a->tm = &tail[3];
  a->rules_program = &tail[4];
  a->rule_set = &tail[5];
  a->sysvar_ix = &tail[6];
  a->system = &tail[7];
  a->ata_program = &tail[9];
  a->token_record = &ka[8];
  a->via_token = &v[SELL_PNFT_SELLER_TOKEN];
  a->via_record = &v[SELL_PNFT_SELLER_TOKEN + 1];
  a->payer = payer;
  a->owner = owner;
  a->locked_address = NULL;
  a->dest_owner = a->dest_token = a->dest_record = NULL;
  a->bumps = l->custody_bumps;
  /* a held pNFT is in the loan PDA's associated token account already: the market sells it from there (7, == its
   * seller token account; 8, == that account's token record) */
  if (l->nft_type == NFT_TYPE_PNFT_HELD) {
    if (!pubkey_eq(a->via_token->key, ka[7].key) || !pubkey_eq(a->via_record->key, ka[8].key)) return E_ACCOUNT_MISMATCH;
    a->dest_record = a->via_record;
  }
  return SUCCESS;
}

/* MarketSell of a loan whose collateral is not in a classic escrow (a Core asset: accounts 7 and 8 the asset; a pNFT:
 * sale_pnft_accounts; a compressed NFT: 7 and 8 the tree, the leaf's hashes after the tag); out of line, off a classic
 * loan's path */
__attribute__((noinline)) static u64 market_sell_standard(const SolParameters *p) {
  const SolAccountInfo *ka = p->ka;
  const Loan *l = (const Loan *)ka[6].data;
  PnftAccounts pnft;
  u64 r = l->nft_type == NFT_TYPE_PNFT || l->nft_type == NFT_TYPE_PNFT_HELD
            ? sale_pnft_accounts(p, l, &ka[0], &ka[0], &pnft)
            : check_sale_custody(l, &ka[7], &ka[8]);
  if (r) return r;
  SolSignerSeed seeds[5];
  loan_signer_seeds(l, seeds);
  SolSignerSeeds signer = {seeds, 5};
  Custody held = {l->nft_type, &ka[10], &ka[6], &signer, &ka[7], {&pnft}};
  CnftAccounts leaf;
  u64 skip = 0;
  if (l->nft_type == NFT_TYPE_CNFT) {
    if ((r = cnft_sale_leaf(p, &ka[7], &leaf))) return r;
    held.cnft = &leaf;
    skip = CNFT_SALE_HASHES_LEN;
  }
  return sell_and_settle(p, &held, skip);
}

/* accounts: 0 borrower (s, w), 1 config, 2 venues, 3 pool (w), 4 bank (w), 5 vault (w), 6 loan (w), 7 escrow (w),
 * 8 borrower collateral token account (w), 9 borrower currency token account (w), 10 token program, 11 swap
 * program or NFT market (one the venues account pins), 12.. the venue
 * instruction's accounts in its order. A Core loan: 7 and 8 the asset (the market's SellCoreToBid, the loan PDA its
 * seller). A compressed NFT's loan: 7 and 8 the tree (the market's SellCnftToBid, the loan PDA its seller).
 * data: tag, (a compressed NFT's loan: the leaf's data hash and creator hash,) then the venue instruction's data
 * (512 bytes at most after the tag). */
u64 ix_market_sell(const SolParameters *p) {
  if (p->data_len < 2 || p->data_len > 1 + MAX_SWAP_DATA) return E_INVALID_INSTRUCTION;
  if (p->ka_num <= SWAP_FIRST_ACCOUNT) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *borrower = &ka[0], *config = &ka[1], *venues = &ka[2], *pool = &ka[3], *bank = &ka[4];
  const SolAccountInfo *vault = &ka[5], *loan = &ka[6], *escrow = &ka[7], *collateral = &ka[8];
  const SolAccountInfo *currency = &ka[9], *token = &ka[10], *swap = &ka[11];
  u64 r = check_signer(borrower, true);
  if (r) return r;
  if ((r = check_config(config, p->program_id, false))) return r;
  if ((r = check_sale_venue(venues, swap, p->program_id))) return r;
  if ((r = check_loan_accounts(p, pool, bank, loan, escrow))) return r;
  const Bank *bk = (const Bank *)bank->data;
  const Loan *l = (const Loan *)loan->data;
  if (!pubkey_eq(&l->borrower, borrower->key)) return E_UNAUTHORIZED;
  if (!pubkey_eq(&bk->vault, vault->key)) return E_ACCOUNT_MISMATCH;
  if (!vault->is_writable) return E_NOT_WRITABLE;
  if ((r = check_token_program(token))) return r;
  if ((r = check_wallet_currency_account(currency, &bk->mint, borrower->key, vault))) return r;
  if (l->nft_type != NFT_TYPE_CLASSIC) return market_sell_standard(p);
  if ((r = check_token_account(collateral, &l->collateral_mint, borrower->key))) return r;
  Custody held = {NFT_TYPE_CLASSIC, token, loan, NULL, escrow, {NULL}};
  return sell_and_settle(p, &held, 0);
}
