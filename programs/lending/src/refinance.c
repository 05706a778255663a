/* Refinance (19): an ongoing loan moves to another pool of the same currency in one instruction. The new pool's
 * bank lends the new principal; the old loan is paid off exactly as Repay would pay it (principal + the lender's
 * share of the interest owed now into the old bank's vault, the fee to the treasury); the collateral moves
 * old escrow -> new escrow and never leaves the program. */
#include "loan.h"

static const u8 BANK_SEED[] = "bank";

/* accounts: 0 borrower (s, w), 1 oracle (s), 2 config, 3 new pool (w), 4 new bank (w), 5 new vault (w),
 * 6 old loan (w), 7 old escrow (w), 8 new loan (w), 9 new escrow (w), 10 collateral mint, 11 borrower currency
 * (w), 12 treasury currency (w), 13 token program, 14 system program, 15 old pool (w), 16 old bank (w),
 * 17 old vault (w), 18 optional whitelist of the new pool */
u64 ix_refinance(const SolParameters *p) {
  if (p->ka_num < 18) return E_NOT_ENOUGH_ACCOUNTS;
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
  c.whitelist_index = 18;
  u64 r = new_loan_parse(&c);
  if (r) return r;
  if (p->data[3] != 0 || c.pull_index != 0) return E_INVALID_INSTRUCTION; /* TakeLoan-only bytes */
  const SolAccountInfo *old_loan = &ka[6], *old_escrow = &ka[7], *currency = &ka[11], *treasury = &ka[12];
  const SolAccountInfo *old_pool = &ka[15], *old_bank = &ka[16], *old_vault = &ka[17];
  if ((r = check_state(old_loan, p->program_id, TAG_LOAN, sizeof(Loan), true))) return r;
  if ((r = check_state(old_pool, p->program_id, TAG_POOL, sizeof(Pool), true))) return r;
  if ((r = check_state(old_bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  Loan *old = (Loan *)old_loan->data;
  Pool *opl = (Pool *)old_pool->data;
  Bank *obk = (Bank *)old_bank->data;
  if (!pubkey_eq(&old->pool, old_pool->key) || !pubkey_eq(&old->bank, old_bank->key) ||
      !pubkey_eq(&old->escrow, old_escrow->key) || !pubkey_eq(&obk->vault, old_vault->key))
    return E_ACCOUNT_MISMATCH;
  /* another pool (Extend stays in the same one), lending the same currency */
  if (pubkey_eq(old_pool->key, c.pool->key) || !pubkey_eq(&obk->mint, &c.bk->mint)) return E_ACCOUNT_MISMATCH;
  if (!old_escrow->is_writable || !old_vault->is_writable) return E_NOT_WRITABLE;
  if (old->status != LOAN_ONGOING) return E_LOAN_NOT_ONGOING;
  if (!pubkey_eq(&old->borrower, c.borrower->key)) return E_UNAUTHORIZED;
  /* past expiry + grace the loan can only be repaid or liquidated: moving it would take it from the lender */
  if (c.clock.unix_timestamp > old->expired_at + (i64)grace_seconds(old->duration)) return E_LOAN_LIQUIDATABLE;
  if (!pubkey_eq(&old->collateral_mint, c.mint->key)) return E_INVALID_MINT;
  copy_key(&c.collection, &old->collection);
  if (old->collateral_amount != c.collateral_amount) return E_INVALID_COLLATERAL;
  if ((r = check_mint(c.mint, NULL, NULL))) return r;
  if ((r = check_wallet_currency_account(currency, &c.bk->mint, c.borrower->key, c.vault))) return r;
  if (pubkey_eq(currency->key, old_vault->key)) return E_ACCOUNT_MISMATCH;
  if ((r = check_token_account(treasury, &c.bk->mint, NULL))) return r;
  if (!pubkey_eq((const SolPubkey *)(treasury->data + 32), &c.cfg->treasury)) return E_INVALID_TREASURY;

  /* the old loan's payoff, exactly as Repay computes it now */
  u64 owed;
  if (!owed_interest(old, c.clock.unix_timestamp, &owed)) return E_MATH_OVERFLOW;
  u64 fee = protocol_fee(owed, c.cfg->fee_bps);
  u64 share = owed - fee, back, repaid;
  if (!add_ok(old->principal, share, &back) || !add_ok(old->principal, owed, &repaid)) return E_MATH_OVERFLOW;
  c.released = 0; /* another pool: nothing of this pool's exposure is released */
  if ((r = new_loan_limits(&c))) return r;
  if ((r = new_loan_create(&c))) return r;

  /* new principal: new vault -> borrower; payoff: borrower -> old vault (principal + share) and treasury (fee) */
  SolSignerSeed bank_seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {c.bk->owner.x, 32}, {c.bk->mint.x, 32}, {&c.bk->bump, 1}};
  SolSignerSeeds bank_signer = {bank_seeds, 4};
  TransferArgs lend = {c.token, c.vault, currency, c.bank, c.principal, &bank_signer};
  if ((r = token_transfer(&lend))) return r;
  TransferArgs payoff = {c.token, currency, old_vault, c.borrower, back, NULL};
  if ((r = token_transfer(&payoff))) return r;
  if (fee) {
    TransferArgs f = {c.token, currency, treasury, c.borrower, fee, NULL};
    if ((r = token_transfer(&f))) return r;
  }
  SolSignerSeed seeds[5];
  loan_signer_seeds(old, seeds);
  SolSignerSeeds old_signer = {seeds, 5};
  TransferArgs move = {c.token, old_escrow, c.escrow, old_loan, old->collateral_amount, &old_signer};
  if ((r = token_transfer(&move))) return r;
  TransferArgs close = {c.token, old_escrow, c.borrower, old_loan, 0, &old_signer};
  if ((r = token_close(&close))) return r;

  /* the old bank and pool as after a Repay */
  u64 old_total, old_available;
  if (!add_ok(obk->total, share, &old_total) || !add_ok(obk->available, back, &old_available))
    return E_MATH_OVERFLOW;
  obk->total = old_total;
  obk->available = old_available;
  obk->repaid_at = c.clock.unix_timestamp;
  if ((r = release_loan(opl, obk, old))) return r;
  opl->total_interest += owed;
  old->status = LOAN_REPAID;
  old->repaid_at = c.clock.unix_timestamp;
  old->repaid_amount = repaid;
  old->fee_paid = fee;
  copy_key(&old->extended_to, c.loan->key);
  /* the new bank lends the principal */
  c.bk->available = c.available - c.principal;
  new_loan_record(&c, old->is_defi);
  return SUCCESS;
}
