/* Account checks, token transfers and the swap maths of the local swap venue. */
#include "swap.h"

static const u8 POOL_SEED[] = "pool";

u64 check_token_program(const SolAccountInfo *a) {
  return pubkey_eq(a->key, &TOKEN_PROGRAM_ID) ? SUCCESS : E_INVALID_TOKEN_PROGRAM;
}

u64 check_token_account(const SolAccountInfo *a, const SolPubkey *mint) {
  if (!pubkey_eq(a->owner, &TOKEN_PROGRAM_ID) || a->data_len != TOKEN_ACCOUNT_SIZE || a->data[108] != 1)
    return E_INVALID_TOKEN_ACCOUNT;
  if (!pubkey_eq((const SolPubkey *)a->data, mint)) return E_INVALID_MINT;
  if (!a->is_writable) return E_NOT_WRITABLE;
  return SUCCESS;
}

u64 load_pool(const SolAccountInfo *a, const SolPubkey *program_id, const SwapPool **out) {
  if (!pubkey_eq(a->owner, program_id)) return E_INVALID_OWNER;
  if (a->data_len != sizeof(SwapPool) || a->data[0] != TAG_POOL || a->data[1] != POOL_VERSION)
    return E_INVALID_OWNER;
  const SwapPool *pool = (const SwapPool *)a->data;
  SolSignerSeed seeds[4] = {
      {POOL_SEED, sizeof(POOL_SEED) - 1}, {pool->mint_a.x, 32}, {pool->mint_b.x, 32}, {&pool->bump, 1}};
  SolPubkey derived;
  if (sol_create_program_address(seeds, 4, program_id, &derived) || !pubkey_eq(&derived, a->key))
    return E_INVALID_PDA;
  *out = pool;
  return SUCCESS;
}

u64 token_transfer(const Transfer *t) {
  u8 data[9];
  data[0] = 3; /* Transfer */
  *(u64 *)(data + 1) = t->amount;
  SolAccountMeta metas[3] = {{t->from->key, true, false}, {t->to->key, true, false}, {t->authority->key, false, true}};
  SolAccountInfo infos[4] = {*t->from, *t->to, *t->authority, *t->token_program};
  SolInstruction ix = {t->token_program->key, metas, 3, data, 9};
  return sol_invoke_signed_c(&ix, infos, 4, t->seeds, t->seeds ? 1 : 0);
}

bool quote_exact_in(Quote *q) {
  /* the fee rounds up and the output down: the pool never loses to rounding */
  if (!mul_div_ceil_u64(q->amount_in, q->fee_bps, BPS, &q->fee)) return false;
  u64 in_after_fee = q->amount_in - q->fee;
  U128 numerator;
  u128_mul64(q->reserve_out, in_after_fee, &numerator);
  u64 denominator = q->reserve_in + in_after_fee;
  if (denominator < q->reserve_in) return false;
  u64 rem;
  return u128_div64(&numerator, denominator, &q->amount_out, &rem);
}
