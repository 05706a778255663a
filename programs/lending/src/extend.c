/* Extend (10): repay an ongoing loan and open a new one on the same collateral and pool, atomically. */
#include "loan.h"

static const u8 BANK_SEED[] = "bank";

/* accounts: see LAYOUT.md Extend (0 borrower .. 13 system program, 14 optional whitelist) */
u64 ix_extend(const SolParameters *p) {
  if (p->ka_num < 14) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  NewLoan c;
  Loan *old;
  u64 r = moving_loan_parse(&c, p, 14, &old);
  if (r) return r;
  const SolAccountInfo *old_loan = &ka[6], *old_escrow = &ka[7], *currency = &ka[11];
  if (!pubkey_eq(&old->pool, c.pool->key) || !pubkey_eq(&old->bank, c.bank->key)) return E_ACCOUNT_MISMATCH;

  u64 owed;
  if (!owed_interest(old, c.clock.unix_timestamp, &owed)) return E_MATH_OVERFLOW;
  u64 fee = protocol_fee(owed, c.cfg->fee_bps);
  u64 share = owed - fee, back, repaid;
  if (!add_ok(old->principal, share, &back) || !add_ok(old->principal, owed, &repaid) ||
      !add_ok(c.available, back, &c.available) || !add_ok(c.bank_total, share, &c.bank_total))
    return E_MATH_OVERFLOW;
  c.released = old->kind == LOAN_REQUEST ? 0 : old->principal; /* a filled request holds no entry */
  if ((r = new_loan_limits(&c))) return r;
  if ((r = new_loan_create(&c))) return r;

  /* the old loan's payoff (principal + all the interest, the fee part staying as fees_owed) and the new principal
   * settle in the vault as one net transfer */
  if (repaid > c.principal) {
    TransferArgs in = {c.token, currency, c.vault, c.borrower, repaid - c.principal, NULL};
    if ((r = token_transfer(&in))) return r;
  } else if (repaid < c.principal) {
    SolSignerSeed bank_seeds[4] = {
      {BANK_SEED, sizeof(BANK_SEED) - 1}, {c.bk->owner.x, 32}, {c.bk->mint.x, 32}, {&c.bk->bump, 1}};
    SolSignerSeeds bank_signer = {bank_seeds, 4};
    TransferArgs out = {c.token, c.vault, currency, c.bank, c.principal - repaid, &bank_signer};
    if ((r = token_transfer(&out))) return r;
  }
  if ((r = accrue_fee(c.bk, fee))) return r;
  if ((r = move_collateral(&c, old_loan, old_escrow))) return r;

  c.bk->total = c.bank_total;
  c.bk->available = c.available - c.principal;
  c.bk->repaid_at = c.clock.unix_timestamp;
  if ((r = release_loan(c.pl, c.bk, old))) return r;
  c.pl->total_interest += owed;
  old->status = LOAN_REPAID;
  old->closed_by = CLOSED_EXTENDED;
  old->repaid_at = c.clock.unix_timestamp;
  old->repaid_amount = repaid;
  old->fee_paid = fee;
  copy_key(&old->extended_to, c.loan->key);
  new_loan_record(&c, old->is_defi);
  copy_key(&((Loan *)c.loan->data)->previous_loan, old_loan->key);
  return SUCCESS;
}
