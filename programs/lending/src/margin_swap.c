/* MarginSwap (15): a borrower's down payment plus a loan from a defi-pool are swapped through the pinned swap
 * venue into the pool's collateral token, which is locked as the collateral of a MarginSwapLoan. No price
 * liquidation: it ends by repay, market sell or time-based liquidation like any loan. */
#include "loan.h"

#define SWAP_FIRST_ACCOUNT 14
#define MAX_SWAP_DATA 512
static const u8 BANK_SEED[] = "bank";

/* accounts: 0 borrower (s, w), 1 oracle (s), 2 config, 3 pool (w; a defi-pool, not private), 4 bank (w),
 * 5 vault (w), 6 loan (w; new PDA), 7 escrow (w; new PDA), 8 collateral mint (the token bought), 9 borrower
 * currency token account (w; holds the down payment, receives the principal, pays the swap), 10 venues,
 * 11 token program, 12 system program, 13 swap program (the pinned one), 14.. the swap instruction's accounts
 * (input: account 9, the borrower signing; output: the escrow).
 * data: the TakeLoan terms (124 bytes, tag 15; collateral amount = the least the swap must deliver, which the
 * attestation values), down payment u64, then the swap instruction's data (at most 512 bytes). */
u64 ix_margin_swap(const SolParameters *p) {
  if (p->ka_num <= SWAP_FIRST_ACCOUNT) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len <= LOAN_DATA_LEN + 8 || p->data_len > LOAN_DATA_LEN + 8 + MAX_SWAP_DATA)
    return E_INVALID_INSTRUCTION;
  const SolAccountInfo *ka = p->ka;
  NewLoan c;
  new_loan_accounts(&c, p, true, false);
  const SolAccountInfo *currency = &ka[9], *venues = &ka[10], *swap = &ka[13];
  u64 r = new_loan_parse(&c);
  if (r) return r;
  if (p->data[3] != 0 || c.pull_index != 0) return E_INVALID_INSTRUCTION;
  if (c.pl->pool_type != POOL_DEFI) return E_INVALID_COLLATERAL;
  if ((r = check_mint(c.mint, NULL, NULL))) return r;
  copy_key(&c.collection, c.mint->key);
  c.whitelist_index = p->ka_num; /* margin swaps from private pools are refused (no whitelist account) */
  if ((r = new_loan_limits(&c))) return r;
  if ((r = check_wallet_currency_account(currency, &c.bk->mint, c.borrower->key, c.vault))) return r;
  if ((r = check_swap_venue(venues, swap, p->program_id))) return r;
  u64 down_payment = rd64(p->data + LOAN_DATA_LEN);
  c.kind = LOAN_MARGIN_SWAP;
  if ((r = new_loan_create(&c))) return r;

  SolSignerSeed bank_seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {c.bk->owner.x, 32}, {c.bk->mint.x, 32}, {&c.bk->bump, 1}};
  SolSignerSeeds bank_signer = {bank_seeds, 4};
  TransferArgs out = {c.token, c.vault, currency, c.bank, c.principal, &bank_signer};
  if ((r = token_transfer(&out))) return r;
  c.bk->available -= c.principal;
  /* the loan is written first: its PDA's signer seeds come from it */
  new_loan_record(&c, true);
  Loan *l = (Loan *)c.loan->data;
  u64 escrow_before = rd64(c.escrow->data + 64);
  /* the swap's data follows the terms and the down payment: pass it on as the venue's instruction */
  SolParameters shifted = *p;
  shifted.data = p->data + LOAN_DATA_LEN + 8 - 1;
  shifted.data_len = p->data_len - LOAN_DATA_LEN - 8 + 1;
  SwapCall call = {&shifted, SWAP_FIRST_ACCOUNT, swap, c.loan, l};
  if ((r = invoke_loan_swap(&call))) return r;
  u64 received = rd64(c.escrow->data + 64) - escrow_before;
  /* what the venue delivered into the escrow, at least the amount the attestation valued */
  if (received < c.collateral_amount) return E_SALE_SHORT;
  l->collateral_amount = received;
  static const u8 EVENT[] = "margin";
  SolBytes fields[3] = {{EVENT, sizeof(EVENT) - 1}, {(const u8 *)&down_payment, 8}, {(const u8 *)&received, 8}};
  sol_log_data(fields, 3);
  return SUCCESS;
}
