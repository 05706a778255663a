/* Refinance (19): an ongoing loan moves to another pool of the same currency in one instruction. The new pool's
 * bank lends the new principal; the old loan is paid off exactly as Repay would pay it (principal + the interest
 * owed now into the old bank's vault, the protocol fee part recorded as that bank's fees_owed); the collateral
 * moves old escrow -> new escrow and never leaves the program. */
#include "loan.h"

static const u8 BANK_SEED[] = "bank";

/* accounts: 0 borrower (s, w), 1 oracle (s), 2 config, 3 new pool (w), 4 new bank (w), 5 new vault (w),
 * 6 old loan (w), 7 old escrow (w), 8 new loan (w), 9 new escrow (w), 10 collateral mint, 11 borrower currency
 * (w), 12 token program, 13 system program, 14 old pool (w), 15 old bank (w), 16 old vault (w), 17 optional
 * whitelist of the new pool */
u64 ix_refinance(const SolParameters *p) {
  if (p->ka_num < 17) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  NewLoan c;
  Loan *old;
  u64 r = moving_loan_parse(&c, p, 17, &old);
  if (r) return r;
  const SolAccountInfo *old_loan = &ka[6], *old_escrow = &ka[7], *currency = &ka[11];
  const SolAccountInfo *old_pool = &ka[14], *old_bank = &ka[15], *old_vault = &ka[16];
  if ((r = check_state(old_pool, p->program_id, TAG_POOL, sizeof(Pool), true))) return r;
  if ((r = check_state(old_bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  Pool *opl = (Pool *)old_pool->data;
  Bank *obk = (Bank *)old_bank->data;
  if (!pubkey_eq(&old->pool, old_pool->key) || !pubkey_eq(&old->bank, old_bank->key) ||
      !pubkey_eq(&obk->vault, old_vault->key))
    return E_ACCOUNT_MISMATCH;
  /* another pool (Extend stays in the same one), lending the same currency */
  if (pubkey_eq(old_pool->key, c.pool->key) || !pubkey_eq(&obk->mint, &c.bk->mint)) return E_ACCOUNT_MISMATCH;
  if (!old_vault->is_writable) return E_NOT_WRITABLE;
  if (pubkey_eq(currency->key, old_vault->key)) return E_ACCOUNT_MISMATCH;

  /* the old loan's payoff, exactly as Repay computes it now */
  u64 owed;
  if (!owed_interest(old, c.clock.unix_timestamp, &owed)) return E_MATH_OVERFLOW;
  u64 fee = protocol_fee(owed, c.cfg->fee_bps);
  u64 share = owed - fee, back, repaid;
  if (!add_ok(old->principal, share, &back) || !add_ok(old->principal, owed, &repaid)) return E_MATH_OVERFLOW;
  c.released = 0; /* another pool: nothing of this pool's exposure is released */
  if ((r = new_loan_limits(&c))) return r;
  if ((r = new_loan_create(&c))) return r;

  /* new principal: new vault -> borrower; payoff: borrower -> old vault (principal + all the interest) */
  SolSignerSeed bank_seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {c.bk->owner.x, 32}, {c.bk->mint.x, 32}, {&c.bk->bump, 1}};
  SolSignerSeeds bank_signer = {bank_seeds, 4};
  TransferArgs lend = {c.token, c.vault, currency, c.bank, c.principal, &bank_signer};
  if ((r = token_transfer(&lend))) return r;
  TransferArgs payoff = {c.token, currency, old_vault, c.borrower, repaid, NULL};
  if ((r = token_transfer(&payoff))) return r;
  if ((r = accrue_fee(obk, fee))) return r;
  if ((r = move_collateral(&c, old_loan, old_escrow))) return r;

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
  old->closed_by = CLOSED_REFINANCED;
  old->repaid_at = c.clock.unix_timestamp;
  old->repaid_amount = repaid;
  old->fee_paid = fee;
  copy_key(&old->extended_to, c.loan->key);
  /* the new bank lends the principal (read live: with two pools of one bank it is the bank the payoff just
   * credited) */
  c.bk->available -= c.principal;
  new_loan_record(&c, old->is_defi);
  copy_key(&((Loan *)c.loan->data)->previous_loan, old_loan->key);
  return SUCCESS;
}
