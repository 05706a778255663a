/* CreatePool (5), UpdatePool (6), ClosePool (7). */
#include "lending.h"

static const u8 POOL_SEED[] = "pool";
#define PARAMS_FIXED 94ULL
#define ENTRY_SIZE 36ULL
#define FLAGS_ALL 7

Entry *pool_find_entry(Pool *pool, const SolPubkey *id) {
  for (u8 i = 0; i < pool->count && i < MAX_COLLECTIONS; i++)
    if (pubkey_eq(&pool->entries[i].id, id)) return &pool->entries[i];
  return NULL;
}

/* number of entries announced by PoolParams at d, or 0 when the data length does not match */
static u64 params_entries(const u8 *d, u64 len) {
  if (len < PARAMS_FIXED) return 0;
  u64 n = d[93];
  if (n == 0 || n > MAX_COLLECTIONS || len != PARAMS_FIXED + n * ENTRY_SIZE) return 0;
  return n;
}

/* Validates PoolParams and writes them (entries with zero counters) into the pool. */
static u64 apply_params(Pool *pool, const u8 *d, u64 n) {
  u8 flags = d[0];
  u64 apr = rd32(d + 1), mortgage_apr = rd32(d + 5), max_duration = rd64(d + 9);
  u64 min_usd = rd64(d + 17), max_usd = rd64(d + 25);
  u8 cond = d[33], wl = d[34];
  u16 threshold = rd16(d + 35);
  const SolPubkey *whitelist = (const SolPubkey *)(d + 61);
  if (flags & ~FLAGS_ALL) return E_INVALID_POOL_PARAMS;
  if (apr == 0 || apr > MAX_APR_BPS || mortgage_apr > MAX_APR_BPS) return E_INVALID_POOL_PARAMS;
  if (pool->pool_type == POOL_DEFI && (mortgage_apr != 0 || (flags & FLAG_MORTGAGE))) return E_INVALID_POOL_PARAMS;
  if (max_duration < MIN_DURATION || max_duration > MAX_POOL_DURATION) return E_INVALID_POOL_PARAMS;
  if (max_usd == 0 || min_usd > max_usd) return E_INVALID_POOL_PARAMS;
  if (cond > 1 || wl > 1 || threshold > BPS) return E_INVALID_POOL_PARAMS;
  if (wl && is_zero_key(whitelist)) return E_INVALID_POOL_PARAMS;
  for (u64 i = 0; i < n; i++) {
    const u8 *e = d + PARAMS_FIXED + i * ENTRY_SIZE;
    u64 ltv = rd16(e + 32), exposure = rd16(e + 34);
    if (is_zero_key((const SolPubkey *)e) || ltv == 0 || ltv > BPS || exposure == 0 || exposure > BPS)
      return E_INVALID_POOL_PARAMS;
    if (pool->pool_type == POOL_DEFI && pubkey_eq((const SolPubkey *)e, &pool->currency)) return E_INVALID_POOL_PARAMS;
    for (u64 j = 0; j < i; j++)
      if (pubkey_eq((const SolPubkey *)e, (const SolPubkey *)(d + PARAMS_FIXED + j * ENTRY_SIZE)))
        return E_INVALID_POOL_PARAMS;
  }
  pool->flags = flags;
  pool->loan_apr_bps = (u32)apr;
  pool->mortgage_apr_bps = (u32)mortgage_apr;
  pool->min_duration = MIN_DURATION;
  pool->max_duration = max_duration;
  pool->min_usd = min_usd;
  pool->max_usd = max_usd;
  pool->cond_enabled = cond;
  pool->whitelist_enabled = wl;
  pool->liq_threshold_bps = threshold;
  pool->min_age = rd64(d + 37);
  pool->min_loan = rd64(d + 45);
  pool->min_volume = rd64(d + 53);
  copy_key(&pool->whitelist, whitelist);
  sol_memset_(pool->entries, 0, sizeof(pool->entries));
  for (u64 i = 0; i < n; i++) {
    const u8 *e = d + PARAMS_FIXED + i * ENTRY_SIZE;
    copy_key(&pool->entries[i].id, (const SolPubkey *)e);
    pool->entries[i].ltv_bps = rd16(e + 32);
    pool->entries[i].exposure_bps = rd16(e + 34);
  }
  pool->count = (u8)n;
  return SUCCESS;
}

/* accounts: 0 owner (s, w), 1 pool PDA (w), 2 bank, 3 system program.
 * data: tag, bump, pool type, seed u64, PoolParams */
u64 ix_create_pool(const SolParameters *p) {
  if (p->data_len < 11) return E_INVALID_INSTRUCTION;
  u64 n = params_entries(p->data + 11, p->data_len - 11);
  if (n == 0) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 4) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *owner = &p->ka[0], *pool = &p->ka[1], *bank = &p->ka[2], *sys = &p->ka[3];
  u64 r = check_signer(owner, true);
  if (r) return r;
  if ((r = check_state(bank, p->program_id, TAG_BANK, sizeof(Bank), false))) return r;
  const Bank *b = (const Bank *)bank->data;
  if (!pubkey_eq(&b->owner, owner->key)) return E_UNAUTHORIZED;
  if ((r = check_system_program(sys))) return r;
  u8 bump = p->data[1], pool_type = p->data[2];
  if (pool_type > POOL_DEFI) return E_INVALID_POOL_PARAMS;
  SolSignerSeed seeds[4] = {
    {POOL_SEED, sizeof(POOL_SEED) - 1}, {owner->key->x, 32}, {p->data + 3, 8}, {&bump, 1}};
  if ((r = verify_pda(seeds, 4, p->program_id, pool->key))) return r;
  SolSignerSeeds signer = {seeds, 4};
  CreateAccountArgs ca = {owner, pool, sys, p->program_id, sizeof(Pool), &signer};
  if ((r = create_pda_account(&ca))) return r;
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  Pool *pl = (Pool *)pool->data;
  pl->pool_type = pool_type;
  copy_key(&pl->currency, &b->mint);
  if ((r = apply_params(pl, p->data + 11, n))) return r;
  pl->tag = TAG_POOL;
  pl->version = POOL_VERSION;
  pl->bump = bump;
  pl->status = POOL_OPEN;
  copy_key(&pl->owner, owner->key);
  copy_key(&pl->bank, bank->key);
  pl->seed = rd64(p->data + 3);
  pl->created_at = clock.unix_timestamp;
  pl->updated_at = clock.unix_timestamp;
  pl->collections_updated_at = clock.unix_timestamp;
  return SUCCESS;
}

/* accounts: 0 owner (s), 1 pool (w). data: tag, status, PoolParams */
u64 ix_update_pool(const SolParameters *p) {
  if (p->data_len < 2) return E_INVALID_INSTRUCTION;
  u64 n = params_entries(p->data + 2, p->data_len - 2);
  if (n == 0) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 2) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *owner = &p->ka[0], *pool = &p->ka[1];
  u64 r = check_signer(owner, false);
  if (r) return r;
  if ((r = check_state(pool, p->program_id, TAG_POOL, sizeof(Pool), true))) return r;
  Pool *pl = (Pool *)pool->data;
  if (!pubkey_eq(&pl->owner, owner->key)) return E_UNAUTHORIZED;
  u8 status = p->data[1];
  if (status != POOL_OPEN && status != POOL_FROZEN) return E_INVALID_POOL_PARAMS;
  Entry old[MAX_COLLECTIONS];
  sol_memcpy_(old, pl->entries, sizeof(old));
  u8 old_count = pl->count;
  if ((r = apply_params(pl, p->data + 2, n))) return r;
  bool changed = old_count != pl->count;
  for (u8 i = 0; i < old_count && i < MAX_COLLECTIONS; i++) {
    Entry *now = pool_find_entry(pl, &old[i].id);
    if (!now) {
      if (old[i].ongoing != 0) return E_COLLECTION_IN_USE;
      changed = true;
      continue;
    }
    if (now->ltv_bps != old[i].ltv_bps || now->exposure_bps != old[i].exposure_bps) changed = true;
    now->borrowed = old[i].borrowed;
    now->ongoing = old[i].ongoing;
  }
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  pl->status = status;
  pl->updated_at = clock.unix_timestamp;
  if (changed) pl->collections_updated_at = clock.unix_timestamp;
  return SUCCESS;
}

/* accounts: 0 owner (s, w), 1 pool (w). data: tag */
u64 ix_close_pool(const SolParameters *p) {
  if (p->data_len != 1) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 2) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *owner = &p->ka[0], *pool = &p->ka[1];
  u64 r = check_signer(owner, true);
  if (r) return r;
  if ((r = check_state(pool, p->program_id, TAG_POOL, sizeof(Pool), true))) return r;
  Pool *pl = (Pool *)pool->data;
  if (!pubkey_eq(&pl->owner, owner->key)) return E_UNAUTHORIZED;
  if (pl->current_loans != 0) return E_POOL_HAS_ONGOING_LOANS;
  sol_memset_(pool->data, 0, pool->data_len);
  *owner->lamports += *pool->lamports;
  *pool->lamports = 0;
  return SUCCESS;
}
