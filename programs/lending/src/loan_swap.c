/* The venue call of a loan PDA (loan_swap.h) and the loan PDA's signer seeds. */
#include "loan_swap.h"

static const u8 LOAN_SEED[] = "loan";

void loan_signer_seeds(const Loan *loan, SolSignerSeed *out) {
  out[0].addr = LOAN_SEED;
  out[0].len = sizeof(LOAN_SEED) - 1;
  out[1].addr = loan->pool.x;
  out[1].len = 32;
  out[2].addr = loan->borrower.x;
  out[2].len = 32;
  out[3].addr = (const u8 *)&loan->nonce;
  out[3].len = 8;
  out[4].addr = &loan->bump;
  out[4].len = 1;
}

/* The swap CPI: the accounts from `first` on, in order, with the loan PDA signing (it is the escrow's authority);
 * the data as the caller gave it (after the tag). */
u64 invoke_loan_swap(const SwapCall *c) {
  const SolParameters *p = c->p;
  const SolAccountInfo *program = c->program, *loan = c->loan;
  const Loan *l = c->l;
  if (p->ka_num <= c->first) return E_NOT_ENOUGH_ACCOUNTS;
  u64 n = p->ka_num - c->first;
  if (n > MAX_SWAP_ACCOUNTS) return E_NOT_ENOUGH_ACCOUNTS;
  SolAccountMeta metas[MAX_SWAP_ACCOUNTS];
  SolAccountInfo infos[MAX_SWAP_ACCOUNTS + 1];
  for (u64 i = 0; i < n; i++) {
    const SolAccountInfo *a = &p->ka[c->first + i];
    metas[i].pubkey = a->key;
    metas[i].is_writable = a->is_writable;
    metas[i].is_signer = a->is_signer || pubkey_eq(a->key, loan->key);
    infos[i] = *a;
    infos[i].data_len = *(const u64 *)(a->data - 8);
  }
  infos[n] = *program;
  SolSignerSeed seeds[5];
  loan_signer_seeds(l, seeds);
  SolSignerSeeds signer = {seeds, 5};
  SolInstruction ix = {program->key, metas, n, (u8 *)p->data + 1 + c->skip, p->data_len - 1 - c->skip};
  return sol_invoke_signed_c(&ix, infos, (int)n + 1, &signer, 1);
}
