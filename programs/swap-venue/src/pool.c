/* InitializePool and AddLiquidity. */
#include "swap.h"

static const u8 POOL_SEED[] = "pool";
static const u8 VAULT_SEED[] = "vault";

typedef struct {
  const SolAccountInfo *payer, *target, *system;
  u64 space;
  const SolPubkey *owner;
  const SolSignerSeeds *seeds;
} CreateAccount;

/* system CreateAccount of `target` (a PDA signing with `seeds`), rent-exempt for `space`, owned by `owner` */
static u64 create_account(const CreateAccount *c) {
  const SolAccountInfo *payer = c->payer, *target = c->target, *system = c->system;
  if (*target->lamports != 0 || target->data_len != 0) return E_ALREADY_INITIALIZED;
  SolRent rent;
  u64 r = sol_get_rent_sysvar(&rent);
  if (r) return r;
  u8 data[52];
  *(u32 *)data = 0;
  *(u64 *)(data + 4) = rent_minimum_balance(&rent, c->space);
  *(u64 *)(data + 12) = c->space;
  copy_key((SolPubkey *)(data + 20), c->owner);
  SolAccountMeta metas[2] = {{payer->key, true, true}, {target->key, true, true}};
  SolAccountInfo infos[3] = {*payer, *target, *system};
  SolInstruction ix = {system->key, metas, 2, data, 52};
  return sol_invoke_signed_c(&ix, infos, 3, c->seeds, 1);
}

typedef struct {
  const SolAccountInfo *payer, *vault, *mint, *pool, *system, *token_program;
  u8 bump;
  const SolPubkey *program_id;
} CreateVault;

/* creates the vault token account PDA ["vault", pool, mint, bump] with the pool as its authority */
static u64 create_vault(const CreateVault *v) {
  const SolAccountInfo *payer = v->payer, *vault = v->vault, *mint = v->mint, *pool = v->pool;
  const SolAccountInfo *token_program = v->token_program;
  const SolPubkey *program_id = v->program_id;
  u8 bump = v->bump;
  SolSignerSeed seed[4] = {{VAULT_SEED, sizeof(VAULT_SEED) - 1}, {pool->key->x, 32}, {mint->key->x, 32}, {&bump, 1}};
  SolPubkey derived;
  if (sol_create_program_address(seed, 4, program_id, &derived) || !pubkey_eq(&derived, vault->key))
    return E_INVALID_PDA;
  SolSignerSeeds seeds = {seed, 4};
  CreateAccount c = {payer, vault, v->system, TOKEN_ACCOUNT_SIZE, &TOKEN_PROGRAM_ID, &seeds};
  u64 r = create_account(&c);
  if (r) return r;
  u8 data[33];
  data[0] = 18; /* InitializeAccount3 */
  copy_key((SolPubkey *)(data + 1), pool->key);
  SolAccountMeta metas[2] = {{vault->key, true, false}, {mint->key, false, false}};
  SolAccountInfo infos[3] = {*vault, *mint, *token_program};
  /* the live length from the input region: CreateAccount above resized the vault */
  infos[0].data_len = *(const u64 *)(vault->data - 8);
  SolInstruction ix = {token_program->key, metas, 2, data, 33};
  return sol_invoke_signed_c(&ix, infos, 3, NULL, 0);
}

static bool is_mint(const SolAccountInfo *a) {
  return pubkey_eq(a->owner, &TOKEN_PROGRAM_ID) && a->data_len == MINT_SIZE && a->data[45] == 1;
}

/* 0 InitializePool: data [0, fee_bps u16, pool bump, vault a bump, vault b bump]
 * accounts: 0 payer (s, w), 1 pool (w), 2 mint a, 3 mint b, 4 vault a (w), 5 vault b (w), 6 system, 7 token */
u64 ix_initialize_pool(const SolParameters *p) {
  if (p->ka_num < 8) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len != 6) return E_INVALID_INSTRUCTION;
  const SolAccountInfo *payer = &p->ka[0], *pool = &p->ka[1], *mint_a = &p->ka[2], *mint_b = &p->ka[3];
  const SolAccountInfo *vault_a = &p->ka[4], *vault_b = &p->ka[5], *system = &p->ka[6], *token = &p->ka[7];
  if (!payer->is_signer) return E_MISSING_SIGNER;
  if (!payer->is_writable || !pool->is_writable || !vault_a->is_writable || !vault_b->is_writable)
    return E_NOT_WRITABLE;
  if (!is_zero_key(system->key)) return E_INVALID_SYSTEM_PROGRAM;
  u64 r = check_token_program(token);
  if (r) return r;
  if (!is_mint(mint_a) || !is_mint(mint_b) || key_cmp(mint_a->key, mint_b->key) >= 0) return E_INVALID_MINT;
  u16 fee_bps = rd16(p->data + 1);
  if (fee_bps > MAX_FEE_BPS) return E_INVALID_FEE;
  u8 bump = p->data[3];
  SolSignerSeed seed[4] = {{POOL_SEED, sizeof(POOL_SEED) - 1}, {mint_a->key->x, 32}, {mint_b->key->x, 32}, {&bump, 1}};
  SolPubkey derived;
  if (sol_create_program_address(seed, 4, p->program_id, &derived) || !pubkey_eq(&derived, pool->key))
    return E_INVALID_PDA;
  SolSignerSeeds seeds = {seed, 4};
  CreateAccount c = {payer, pool, system, sizeof(SwapPool), p->program_id, &seeds};
  if ((r = create_account(&c))) return r;
  CreateVault va = {payer, vault_a, mint_a, pool, system, token, p->data[4], p->program_id};
  if ((r = create_vault(&va))) return r;
  CreateVault vb = {payer, vault_b, mint_b, pool, system, token, p->data[5], p->program_id};
  if ((r = create_vault(&vb))) return r;
  SwapPool *state = (SwapPool *)pool->data;
  state->tag = TAG_POOL;
  state->version = POOL_VERSION;
  state->bump = bump;
  state->vault_a_bump = p->data[4];
  state->vault_b_bump = p->data[5];
  state->fee_bps = fee_bps;
  copy_key(&state->mint_a, mint_a->key);
  copy_key(&state->mint_b, mint_b->key);
  copy_key(&state->vault_a, vault_a->key);
  copy_key(&state->vault_b, vault_b->key);
  return SUCCESS;
}

/* 1 AddLiquidity: data [1, amount a u64, amount b u64] (the venue's operator seeds it; no shares)
 * accounts: 0 depositor (s), 1 depositor's a (w), 2 depositor's b (w), 3 pool, 4 vault a (w), 5 vault b (w), 6 token */
u64 ix_add_liquidity(const SolParameters *p) {
  if (p->ka_num < 7) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len != 17) return E_INVALID_INSTRUCTION;
  const SolAccountInfo *depositor = &p->ka[0], *from_a = &p->ka[1], *from_b = &p->ka[2], *pool = &p->ka[3];
  const SolAccountInfo *vault_a = &p->ka[4], *vault_b = &p->ka[5], *token = &p->ka[6];
  if (!depositor->is_signer) return E_MISSING_SIGNER;
  u64 r = check_token_program(token);
  if (r) return r;
  const SwapPool *state;
  if ((r = load_pool(pool, p->program_id, &state))) return r;
  if (!pubkey_eq(vault_a->key, &state->vault_a) || !pubkey_eq(vault_b->key, &state->vault_b)) return E_INVALID_VAULT;
  if ((r = check_token_account(from_a, &state->mint_a)) || (r = check_token_account(from_b, &state->mint_b))) return r;
  u64 amount_a = rd64(p->data + 1), amount_b = rd64(p->data + 9);
  if (amount_a == 0 && amount_b == 0) return E_ZERO_AMOUNT;
  Transfer ta = {token, from_a, vault_a, depositor, amount_a, NULL};
  if (amount_a && (r = token_transfer(&ta))) return r;
  Transfer tb = {token, from_b, vault_b, depositor, amount_b, NULL};
  if (amount_b && (r = token_transfer(&tb))) return r;
  return SUCCESS;
}
