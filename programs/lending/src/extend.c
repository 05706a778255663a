/* Extend (10): repay an ongoing loan and open a new one on the same collateral and pool, atomically. */
#include "loan.h"

static const u8 BANK_SEED[] = "bank";

/* accounts: see LAYOUT.md Extend (0 borrower .. 14 system program, 15 optional whitelist) */
u64 ix_extend(const SolParameters *p) {
  if (p->ka_num < 15) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  NewLoan c;
  c.p = p;
  c.trailing_data = false;
  c.borrower = &ka[0];
  c.oracle = &ka[1];
  c.config = &ka[2];
  c.pool = &ka[3];
  c.bank = &ka[4];
  c.vault = &ka[5];
  c.loan = &ka[8];
  c.escrow = &ka[9];
  c.mint = &ka[10];
  c.token = &ka[13];
  c.sys = &ka[14];
  c.whitelist_index = 15;
  u64 r = new_loan_parse(&c);
  if (r) return r;
  if (p->data[3] != 0 || c.pull_index != 0) return E_INVALID_INSTRUCTION; /* TakeLoan-only bytes */
  const SolAccountInfo *old_loan = &ka[6], *old_escrow = &ka[7], *currency = &ka[11], *treasury = &ka[12];
  if ((r = check_state(old_loan, p->program_id, TAG_LOAN, sizeof(Loan), true))) return r;
  Loan *old = (Loan *)old_loan->data;
  if (!pubkey_eq(&old->pool, c.pool->key) || !pubkey_eq(&old->bank, c.bank->key) ||
      !pubkey_eq(&old->escrow, old_escrow->key))
    return E_ACCOUNT_MISMATCH;
  if (!old_escrow->is_writable) return E_NOT_WRITABLE;
  if (old->status != LOAN_ONGOING) return E_LOAN_NOT_ONGOING;
  if (!pubkey_eq(&old->borrower, c.borrower->key)) return E_UNAUTHORIZED;
  /* past expiry + grace the loan can only be repaid or liquidated: an extension would take it from the lender */
  if (c.clock.unix_timestamp > old->expired_at + (i64)grace_seconds(old->duration)) return E_LOAN_LIQUIDATABLE;
  if (!pubkey_eq(&old->collateral_mint, c.mint->key)) return E_INVALID_MINT;
  copy_key(&c.collection, &old->collection);
  if (old->collateral_amount != c.collateral_amount) return E_INVALID_COLLATERAL;
  if ((r = check_mint(c.mint, NULL, NULL))) return r;
  if ((r = check_wallet_currency_account(currency, &c.bk->mint, c.borrower->key, c.vault))) return r;
  if ((r = check_token_account(treasury, &c.bk->mint, NULL))) return r;
  if (!pubkey_eq((const SolPubkey *)(treasury->data + 32), &c.cfg->treasury)) return E_INVALID_TREASURY;

  u64 owed;
  if (!owed_interest(old, c.clock.unix_timestamp, &owed)) return E_MATH_OVERFLOW;
  u64 fee = protocol_fee(owed, c.cfg->fee_bps);
  u64 share = owed - fee, back, repaid;
  if (!add_ok(old->principal, share, &back) || !add_ok(old->principal, owed, &repaid) ||
      !add_ok(c.available, back, &c.available) || !add_ok(c.bank_total, share, &c.bank_total))
    return E_MATH_OVERFLOW;
  c.released = old->principal;
  if ((r = new_loan_limits(&c))) return r;
  if ((r = new_loan_create(&c))) return r;

  if (fee) {
    TransferArgs f = {c.token, currency, treasury, c.borrower, fee, NULL};
    if ((r = token_transfer(&f))) return r;
  }
  if (back > c.principal) {
    TransferArgs in = {c.token, currency, c.vault, c.borrower, back - c.principal, NULL};
    if ((r = token_transfer(&in))) return r;
  } else if (back < c.principal) {
    SolSignerSeed bank_seeds[4] = {
      {BANK_SEED, sizeof(BANK_SEED) - 1}, {c.bk->owner.x, 32}, {c.bk->mint.x, 32}, {&c.bk->bump, 1}};
    SolSignerSeeds bank_signer = {bank_seeds, 4};
    TransferArgs out = {c.token, c.vault, currency, c.bank, c.principal - back, &bank_signer};
    if ((r = token_transfer(&out))) return r;
  }
  SolSignerSeed seeds[5];
  loan_signer_seeds(old, seeds);
  SolSignerSeeds old_signer = {seeds, 5};
  TransferArgs move = {c.token, old_escrow, c.escrow, old_loan, old->collateral_amount, &old_signer};
  if ((r = token_transfer(&move))) return r;
  TransferArgs close = {c.token, old_escrow, c.borrower, old_loan, 0, &old_signer};
  if ((r = token_close(&close))) return r;

  c.bk->total = c.bank_total;
  c.bk->available = c.available - c.principal;
  c.bk->repaid_at = c.clock.unix_timestamp;
  if ((r = release_loan(c.pl, c.bk, old))) return r;
  c.pl->total_interest += owed;
  old->status = LOAN_REPAID;
  old->repaid_at = c.clock.unix_timestamp;
  old->repaid_amount = repaid;
  old->fee_paid = fee;
  copy_key(&old->extended_to, c.loan->key);
  new_loan_record(&c, old->is_defi);
  return SUCCESS;
}
