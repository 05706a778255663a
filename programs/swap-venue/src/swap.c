/* Swap: exact input, constant product, fee kept by the pool. */
#include "swap.h"

static const u8 POOL_SEED[] = "pool";

/* 2 Swap: data [2, amount in u64, minimum out u64]
 * accounts: 0 user (s), 1 user's source (w), 2 user's destination (w), 3 pool, 4 vault in (w), 5 vault out (w),
 * 6 token program. Vault in/out are the pool's two vaults in either order; reserves are their balances. */
u64 ix_swap(const SolParameters *p) {
  if (p->ka_num < 7) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len != 17) return E_INVALID_INSTRUCTION;
  const SolAccountInfo *user = &p->ka[0], *source = &p->ka[1], *destination = &p->ka[2], *pool = &p->ka[3];
  const SolAccountInfo *vault_in = &p->ka[4], *vault_out = &p->ka[5], *token = &p->ka[6];
  if (!user->is_signer) return E_MISSING_SIGNER;
  u64 r = check_token_program(token);
  if (r) return r;
  const SwapPool *state;
  if ((r = load_pool(pool, p->program_id, &state))) return r;
  bool a_to_b = pubkey_eq(vault_in->key, &state->vault_a) && pubkey_eq(vault_out->key, &state->vault_b);
  bool b_to_a = pubkey_eq(vault_in->key, &state->vault_b) && pubkey_eq(vault_out->key, &state->vault_a);
  if (!a_to_b && !b_to_a) return E_INVALID_VAULT;
  const SolPubkey *mint_in = a_to_b ? &state->mint_a : &state->mint_b;
  const SolPubkey *mint_out = a_to_b ? &state->mint_b : &state->mint_a;
  if ((r = check_token_account(vault_in, mint_in)) || (r = check_token_account(vault_out, mint_out))) return r;
  if ((r = check_token_account(source, mint_in)) || (r = check_token_account(destination, mint_out))) return r;
  u64 amount_in = rd64(p->data + 1), min_out = rd64(p->data + 9);
  if (amount_in == 0) return E_ZERO_AMOUNT;
  u64 reserve_in = token_amount(vault_in), reserve_out = token_amount(vault_out);
  if (reserve_in == 0 || reserve_out == 0) return E_EMPTY_POOL;
  Quote q = {reserve_in, reserve_out, amount_in, state->fee_bps, 0, 0};
  if (!quote_exact_in(&q)) return E_MATH_OVERFLOW;
  u64 amount_out = q.amount_out;
  if (amount_out == 0) return E_ZERO_AMOUNT;
  if (amount_out < min_out) return E_SLIPPAGE_EXCEEDED;
  Transfer pay = {token, source, vault_in, user, amount_in, NULL};
  if ((r = token_transfer(&pay))) return r;
  SolSignerSeed seed[4] = {
      {POOL_SEED, sizeof(POOL_SEED) - 1}, {state->mint_a.x, 32}, {state->mint_b.x, 32}, {&state->bump, 1}};
  SolSignerSeeds seeds = {seed, 4};
  Transfer receive = {token, vault_out, destination, pool, amount_out, &seeds};
  return token_transfer(&receive);
}
