/* InitializeReserve and SetRate. */
#include "venue.h"

static const u8 RESERVE_SEED[] = "reserve";
static const u8 VAULT_SEED[] = "vault";

static bool is_mint(const SolAccountInfo *a) {
  return pubkey_eq(a->owner, &TOKEN_PROGRAM_ID) && a->data_len == MINT_SIZE && a->data[45] == 1;
}

/* 0 InitializeReserve: data [0, rate_bps u32, reserve bump, vault bump]
 * accounts: 0 admin (s, w; pays), 1 reserve (w), 2 mint, 3 vault (w), 4 system, 5 token */
u64 ix_initialize_reserve(const SolParameters *p) {
  if (p->ka_num < 6) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len != 7) return E_INVALID_INSTRUCTION;
  const SolAccountInfo *admin = &p->ka[0], *reserve = &p->ka[1], *mint = &p->ka[2], *vault = &p->ka[3];
  const SolAccountInfo *system = &p->ka[4], *token = &p->ka[5];
  if (!admin->is_signer) return E_MISSING_SIGNER;
  if (!admin->is_writable || !reserve->is_writable || !vault->is_writable) return E_NOT_WRITABLE;
  if (!is_zero_key(system->key)) return E_INVALID_SYSTEM_PROGRAM;
  u64 r = check_token_program(token);
  if (r) return r;
  if (!is_mint(mint)) return E_INVALID_MINT;
  u32 rate = rd32(p->data + 1);
  if (rate > MAX_RATE_BPS) return E_INVALID_RATE;
  u8 bump = p->data[5], vault_bump = p->data[6];
  SolSignerSeed seed[3] = {{RESERVE_SEED, sizeof(RESERVE_SEED) - 1}, {mint->key->x, 32}, {&bump, 1}};
  SolPubkey derived;
  if (sol_create_program_address(seed, 3, p->program_id, &derived) || !pubkey_eq(&derived, reserve->key))
    return E_INVALID_PDA;
  SolSignerSeeds seeds = {seed, 3};
  CreateAccount c = {admin, reserve, system, sizeof(Reserve), p->program_id, &seeds};
  if ((r = create_account(&c))) return r;

  SolSignerSeed vseed[3] = {{VAULT_SEED, sizeof(VAULT_SEED) - 1}, {reserve->key->x, 32}, {&vault_bump, 1}};
  if (sol_create_program_address(vseed, 3, p->program_id, &derived) || !pubkey_eq(&derived, vault->key))
    return E_INVALID_PDA;
  SolSignerSeeds vseeds = {vseed, 3};
  CreateAccount cv = {admin, vault, system, TOKEN_ACCOUNT_SIZE, &TOKEN_PROGRAM_ID, &vseeds};
  if ((r = create_account(&cv))) return r;
  u8 data[33];
  data[0] = 18; /* InitializeAccount3: the reserve is the vault's authority */
  copy_key((SolPubkey *)(data + 1), reserve->key);
  SolAccountMeta metas[2] = {{vault->key, true, false}, {mint->key, false, false}};
  SolAccountInfo infos[3] = {*vault, *mint, *token};
  infos[0].data_len = *(const u64 *)(vault->data - 8); /* the live length after CreateAccount */
  SolInstruction ix = {token->key, metas, 2, data, 33};
  if ((r = sol_invoke_signed_c(&ix, infos, 3, NULL, 0))) return r;

  SolClock clock;
  if ((r = sol_get_clock_sysvar(&clock))) return r;
  Reserve *res = (Reserve *)reserve->data;
  res->tag = TAG_RESERVE;
  res->version = VENUE_VERSION;
  res->bump = bump;
  res->vault_bump = vault_bump;
  res->rate_bps = rate;
  copy_key(&res->mint, mint->key);
  copy_key(&res->vault, vault->key);
  copy_key(&res->admin, admin->key);
  res->index = INDEX_ONE;
  res->total_shares = 0;
  res->last_update = clock.unix_timestamp;
  res->created_at = clock.unix_timestamp;
  return SUCCESS;
}

/* 1 SetRate: data [1, rate_bps u32]; accounts: 0 admin (s), 1 reserve (w). Interest so far accrues at the old rate. */
u64 ix_set_rate(const SolParameters *p) {
  if (p->ka_num < 2) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len != 5) return E_INVALID_INSTRUCTION;
  const SolAccountInfo *admin = &p->ka[0], *reserve = &p->ka[1];
  if (!admin->is_signer) return E_MISSING_SIGNER;
  if (!reserve->is_writable) return E_NOT_WRITABLE;
  Reserve *res;
  u64 r = load_reserve(reserve, p->program_id, &res);
  if (r) return r;
  if (!pubkey_eq(&res->admin, admin->key)) return E_UNAUTHORIZED;
  u32 rate = rd32(p->data + 1);
  if (rate > MAX_RATE_BPS) return E_INVALID_RATE;
  SolClock clock;
  if ((r = sol_get_clock_sysvar(&clock))) return r;
  if (!accrue(res, clock.unix_timestamp)) return E_MATH_OVERFLOW;
  res->rate_bps = rate;
  return SUCCESS;
}
