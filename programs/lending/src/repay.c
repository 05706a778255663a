/* Repay (9) and Liquidate (11). */
#include "loan.h"

/* checks shared by Repay, MarketSell and Liquidate: pool, bank, loan (Ongoing) and escrow links */
u64 check_loan_accounts(const SolParameters *p, const SolAccountInfo *pool, const SolAccountInfo *bank,
                               const SolAccountInfo *loan, const SolAccountInfo *escrow) {
  u64 r = check_state(pool, p->program_id, TAG_POOL, sizeof(Pool), true);
  if (r) return r;
  if ((r = check_state(bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  if ((r = check_state(loan, p->program_id, TAG_LOAN, sizeof(Loan), true))) return r;
  const Loan *l = (const Loan *)loan->data;
  if (!pubkey_eq(&l->pool, pool->key) || !pubkey_eq(&l->bank, bank->key) || !pubkey_eq(&l->escrow, escrow->key))
    return E_ACCOUNT_MISMATCH;
  if (!escrow->is_writable) return E_NOT_WRITABLE;
  if (l->status != LOAN_ONGOING) return E_LOAN_NOT_ONGOING;
  return SUCCESS;
}

u64 accrue_fee(Bank *bank, u64 fee) {
  return add_ok(bank->fees_owed, fee, &bank->fees_owed) ? SUCCESS : E_MATH_OVERFLOW;
}

/* settle_loan and settle_sold_loan: one body, `sold` a constant in each */
__attribute__((always_inline)) static inline u64 settle(const Settlement *s, bool sold) {
  const Config *cfg = s->cfg;
  Bank *bk = s->bk;
  Loan *l = s->l;
  u64 r, owed;
  if (!owed_interest(l, s->now, &owed)) return E_MATH_OVERFLOW;
  u64 fee = protocol_fee(owed, cfg->fee_bps);
  u64 share = owed - fee, to_lenders, repaid, total, available;
  if (!add_ok(l->principal, share, &to_lenders) || !add_ok(l->principal, owed, &repaid) ||
      !add_ok(bk->total, share, &total) || !add_ok(bk->available, to_lenders, &available))
    return E_MATH_OVERFLOW;

  /* principal + all the interest into the vault in one transfer; the fee part is the bank's fees_owed */
  TransferArgs v = {s->token, s->currency, s->vault, s->borrower, repaid, NULL};
  if ((r = token_transfer(&v))) return r;
  if ((r = accrue_fee(bk, fee))) return r;
  SolSignerSeed seeds[5];
  loan_signer_seeds(l, seeds);
  SolSignerSeeds signer = {seeds, 5};
  /* what custody holds now: all of the collateral on a repay (and anything paid into it), what a market sale
   * left of it */
  Custody held = {l->nft_type, s->token, s->loan, &signer, s->escrow, {s->pnft}};
  if ((r = sold ? custody_release_rest(&held, s->collateral, s->borrower)
                : custody_release_to_borrower(&held, s->collateral, s->borrower)))
    return r;

  bk->total = total;
  bk->available = available;
  bk->repaid_at = s->now;
  if ((r = release_loan(s->pl, bk, l))) return r;
  s->pl->total_interest += owed;
  l->repaid_at = s->now;
  l->repaid_amount = repaid;
  l->fee_paid = fee;
  return SUCCESS;
}

u64 settle_loan(const Settlement *s) { return settle(s, false); }
u64 settle_sold_loan(const Settlement *s) { return settle(s, true); }

/* A loan's custody accounts for its standard (pNFT or Core; out of line: classic loans pay nothing for them). */
typedef struct {
  PnftAccounts pnft;
  CoreAccounts core;
  CnftAccounts cnft;
} StandardAccounts;
/* the accounts of `l`'s standard in `a` */
#define STANDARD_OF(l, a)                                                                                     \
  ((l)->nft_type == NFT_TYPE_CORE   ? (const void *)&(a).core                                                 \
   : (l)->nft_type == NFT_TYPE_CNFT ? (const void *)&(a).cnft                                                 \
                                    : (const void *)&(a).pnft)

/* An ending's data: the tag, or for a compressed NFT's loan the tag, then the root the proof was taken against,
 * the leaf's data hash and creator hash (Bubblegum checks them against the leaf the loan PDA owns) */
#define CNFT_ENDING_DATA_LEN (1 + CNFT_LEAF_HASHES_LEN)
static bool ending_data_valid(const SolParameters *p) {
  return p->data_len == 1 || p->data_len == CNFT_ENDING_DATA_LEN;
}

/* a compressed NFT loan's accounts at `first` (the tree config, Bubblegum, SPL Account Compression, SPL Noop, the
 * system program, then the proof to the end); the tree is the loan's escrow; `owner` the borrower's wallet */
static u64 cnft_ending_accounts(const SolParameters *p, const Loan *l, u64 first, const SolAccountInfo *tree,
                                StandardAccounts *out) {
  if (p->data_len != CNFT_ENDING_DATA_LEN) return E_INVALID_INSTRUCTION;
  CnftAccounts *a = &out->cnft;
  u64 r = cnft_block(p, first, true, p->data + 1, a);
  if (r) return r;
  a->tree = tree;
  a->owner = &p->ka[0];
  a->nonce = l->leaf_nonce;
  a->config_bump = l->custody_bumps[1];
  return check_system_program(a->system);
}

/* a Core loan's custody accounts at `first` (the collection the asset names now, the Core program); the asset is
 * the loan's escrow, the borrower's wallet account 0 of Repay */
static u64 core_ending_accounts(const SolParameters *p, u64 first, const SolAccountInfo *asset,
                                const SolAccountInfo *payer, StandardAccounts *out) {
  if (p->ka_num < first + 2) return E_NOT_ENOUGH_ACCOUNTS;
  CoreAccounts *core = &out->core;
  core->asset = asset;
  core->collection = &p->ka[first];
  core->core = &p->ka[first + 1];
  core->payer = payer;
  core->owner = &p->ka[0];
  return SUCCESS;
}

/* Repay: a pNFT loan's block at 10, the borrower paying Token Metadata; a Core loan's accounts at 10 */
__attribute__((noinline)) static u64 repay_custody_accounts(const SolParameters *p, const Loan *l,
                                                            StandardAccounts *out) {
  const SolAccountInfo *borrower = &p->ka[0];
  if (l->nft_type == NFT_TYPE_CORE) return core_ending_accounts(p, 10, &p->ka[6], borrower, out);
  if (l->nft_type == NFT_TYPE_CNFT) return cnft_ending_accounts(p, l, 10, &p->ka[6], out);
  /* a held pNFT: 7 the borrower's associated token account, 10.. the pNFT block, the associated token program, 7's
   * token record */
  if (l->nft_type == NFT_TYPE_PNFT_HELD) {
    out->pnft.payer = out->pnft.dest_owner = borrower;
    return pnft_held_accounts(p, 10, &l->collateral_mint, l->custody_bumps, &out->pnft);
  }
  u64 r;
  PnftAccounts *pnft = &out->pnft;
  if (l->nft_type != NFT_TYPE_PNFT) return E_INVALID_COLLATERAL;
  if ((r = pnft_block(p, 10, pnft))) return r;
  if (!pubkey_eq(pnft->mint->key, &l->collateral_mint)) return E_INVALID_MINT;
  pnft->payer = pnft->owner = borrower;
  pnft->bumps = l->custody_bumps;
  return SUCCESS;
}

/* accounts: 0 borrower (s, w), 1 config, 2 pool (w), 3 bank (w), 4 vault (w), 5 loan (w), 6 escrow (w),
 * 7 borrower collateral token account (w), 8 borrower currency token account (w), 9 token program; a pNFT loan: 6
 * and 7 the borrower's token account that holds it, 10.. the pNFT block (custody.h); a Core loan: 6 and 7 the
 * asset, 10 the collection it names now, 11 the Core program. data: tag */
u64 ix_repay(const SolParameters *p) {
  if (!ending_data_valid(p)) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 10) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *borrower = &ka[0], *config = &ka[1], *pool = &ka[2], *bank = &ka[3], *vault = &ka[4];
  const SolAccountInfo *loan = &ka[5], *escrow = &ka[6], *collateral = &ka[7], *currency = &ka[8];
  const SolAccountInfo *token = &ka[9];
  u64 r = check_signer(borrower, true);
  if (r) return r;
  if ((r = check_config(config, p->program_id, false))) return r;
  if ((r = check_loan_accounts(p, pool, bank, loan, escrow))) return r;
  const Config *cfg = (const Config *)config->data;
  Pool *pl = (Pool *)pool->data;
  Bank *bk = (Bank *)bank->data;
  Loan *l = (Loan *)loan->data;
  if (p->data_len != 1 && l->nft_type != NFT_TYPE_CNFT) return E_INVALID_INSTRUCTION;
  if (!pubkey_eq(&l->borrower, borrower->key)) return E_UNAUTHORIZED;
  if (!pubkey_eq(&bk->vault, vault->key)) return E_ACCOUNT_MISMATCH;
  if (!vault->is_writable) return E_NOT_WRITABLE;
  if ((r = check_token_program(token))) return r;
  StandardAccounts standard;
  const void *custody = NULL; /* the standard's own accounts */
  if (l->nft_type == NFT_TYPE_CLASSIC) {
    if ((r = check_token_account(collateral, &l->collateral_mint, borrower->key))) return r;
  } else {
    if ((r = repay_custody_accounts(p, l, &standard))) return r;
    custody = STANDARD_OF(l, standard);
  }
  if ((r = check_wallet_currency_account(currency, &bk->mint, borrower->key, vault))) return r;

  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  Settlement s = {borrower, token, currency, vault, loan, escrow, collateral, cfg, pl, bk, l, clock.unix_timestamp,
                  {custody}};
  if ((r = settle_loan(&s))) return r;
  l->status = LOAN_REPAID;
  l->closed_by = CLOSED_REPAID;
  return SUCCESS;
}

/* Liquidate: a pNFT loan's block at 7 and the accounts after it; a Core loan's accounts at 7, the receiver (5) the
 * pool owner's wallet */
__attribute__((noinline)) static u64 liquidate_custody_accounts(const SolParameters *p, const Loan *l, const Pool *pl,
                                                                const SolAccountInfo *liquidator,
                                                                StandardAccounts *out) {
  if (l->nft_type == NFT_TYPE_CORE)
    return pubkey_eq(p->ka[5].key, &pl->owner) ? core_ending_accounts(p, 7, &p->ka[4], liquidator, out)
                                                : E_ACCOUNT_MISMATCH;
  if (l->nft_type == NFT_TYPE_CNFT)
    return pubkey_eq(p->ka[5].key, &pl->owner) ? cnft_ending_accounts(p, l, 7, &p->ka[4], out) : E_ACCOUNT_MISMATCH;
  /* a held pNFT: 5 the pool owner's associated token account, 7.. the pNFT block, the associated token program, 5's
   * token record, then 18 the pool owner's wallet */
  if (l->nft_type == NFT_TYPE_PNFT_HELD) {
    if (p->ka_num < 7 + PNFT_HELD_ACCOUNTS + 1) return E_NOT_ENOUGH_ACCOUNTS;
    out->pnft.payer = liquidator;
    out->pnft.dest_owner = &p->ka[7 + PNFT_HELD_ACCOUNTS];
    if (!pubkey_eq(out->pnft.dest_owner->key, &pl->owner)) return E_ACCOUNT_MISMATCH;
    return pnft_held_accounts(p, 7, &l->collateral_mint, l->custody_bumps, &out->pnft);
  }
  u64 r;
  PnftAccounts *pnft = &out->pnft;
  if (l->nft_type != NFT_TYPE_PNFT) return E_INVALID_COLLATERAL;
  if (p->ka_num < 22) return E_NOT_ENOUGH_ACCOUNTS;
  if ((r = pnft_block(p, 7, pnft))) return r;
  if (!pubkey_eq(pnft->mint->key, &l->collateral_mint)) return E_INVALID_MINT;
  if (!pubkey_eq(p->ka[16].key, &l->borrower) || !pubkey_eq(p->ka[17].key, &pl->owner)) return E_ACCOUNT_MISMATCH;
  pnft->payer = liquidator;
  pnft->owner = &p->ka[16];
  pnft->dest_owner = &p->ka[17];
  pnft->dest_token = &p->ka[5];
  pnft->dest_record = &p->ka[18];
  pnft->ata_program = &p->ka[19];
  pnft->via_token = &p->ka[20];
  pnft->via_record = &p->ka[21];
  pnft->bumps = l->custody_bumps;
  return SUCCESS;
}

/* accounts: 0 liquidator (s, w), 1 pool (w), 2 bank (w), 3 loan (w), 4 escrow (w),
 * 5 pool owner's collateral token account (w), 6 token program; a pNFT loan: 4 the borrower's token account that
 * holds it, 5 the pool owner's associated token account (created if need be), 7.. the pNFT block (custody.h),
 * 16 the borrower, 17 the pool owner, 18 the pool owner's token record (w), 19 the associated token program,
 * 20 the loan's associated token account (w; the pNFT passes through it), 21 its token record (w); a Core loan: 4
 * the asset, 5 the pool owner's wallet, 7 the collection the asset names now, 8 the Core program.
 * data: tag */
u64 ix_liquidate(const SolParameters *p) {
  if (!ending_data_valid(p)) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 7) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *liquidator = &ka[0], *pool = &ka[1], *bank = &ka[2], *loan = &ka[3], *escrow = &ka[4];
  const SolAccountInfo *dest = &ka[5], *token = &ka[6];
  u64 r = check_signer(liquidator, true);
  if (r) return r;
  if ((r = check_loan_accounts(p, pool, bank, loan, escrow))) return r;
  Pool *pl = (Pool *)pool->data;
  Bank *bk = (Bank *)bank->data;
  Loan *l = (Loan *)loan->data;
  if (p->data_len != 1 && l->nft_type != NFT_TYPE_CNFT) return E_INVALID_INSTRUCTION;
  if ((r = check_token_program(token))) return r;
  StandardAccounts standard;
  const void *custody = NULL; /* the standard's own accounts */
  if (l->nft_type == NFT_TYPE_CLASSIC) {
    if ((r = check_token_account(dest, &l->collateral_mint, &pl->owner))) return r;
  } else {
    if ((r = liquidate_custody_accounts(p, l, pl, liquidator, &standard))) return r;
    custody = STANDARD_OF(l, standard);
  }
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  i64 deadline = l->expired_at + (i64)grace_seconds(l->duration);
  if (clock.unix_timestamp <= deadline) return E_NOT_LIQUIDATABLE;
  u64 total;
  if (!sub_ok(bk->total, l->principal, &total)) return E_MATH_OVERFLOW;

  SolSignerSeed seeds[5];
  loan_signer_seeds(l, seeds);
  SolSignerSeeds signer = {seeds, 5};
  /* the collateral and anything paid into the escrow go to the pool owner */
  Custody held = {l->nft_type, token, loan, &signer, escrow, {custody}};
  if ((r = custody_release_to_receiver(&held, dest, liquidator))) return r;

  bk->total = total;
  if ((r = release_loan(pl, bk, l))) return r;
  pl->total_liquidations++;
  l->status = LOAN_LIQUIDATED;
  l->closed_by = CLOSED_LIQUIDATED;
  l->liquidated_at = clock.unix_timestamp;
  return SUCCESS;
}
