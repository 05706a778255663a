/* OpenPosition, Deposit and Withdraw: a position holds shares of one reserve for one owner (a wallet or a
 * program's PDA signing by CPI). */
#include "venue.h"

static const u8 POSITION_SEED[] = "position";
static const u8 RESERVE_SEED[] = "reserve";

/* 2 OpenPosition: data [2, bump]; accounts: 0 payer (s, w), 1 owner (s), 2 reserve, 3 position (w), 4 system */
u64 ix_open_position(const SolParameters *p) {
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len != 2) return E_INVALID_INSTRUCTION;
  const SolAccountInfo *payer = &p->ka[0], *owner = &p->ka[1], *reserve = &p->ka[2], *position = &p->ka[3];
  const SolAccountInfo *system = &p->ka[4];
  if (!payer->is_signer || !owner->is_signer) return E_MISSING_SIGNER;
  if (!payer->is_writable || !position->is_writable) return E_NOT_WRITABLE;
  if (!is_zero_key(system->key)) return E_INVALID_SYSTEM_PROGRAM;
  Reserve *res;
  u64 r = load_reserve(reserve, p->program_id, &res);
  if (r) return r;
  u8 bump = p->data[1];
  SolSignerSeed seed[4] = {
      {POSITION_SEED, sizeof(POSITION_SEED) - 1}, {reserve->key->x, 32}, {owner->key->x, 32}, {&bump, 1}};
  SolPubkey derived;
  if (sol_create_program_address(seed, 4, p->program_id, &derived) || !pubkey_eq(&derived, position->key))
    return E_INVALID_PDA;
  SolSignerSeeds seeds = {seed, 4};
  CreateAccount c = {payer, position, system, sizeof(Position), p->program_id, &seeds};
  if ((r = create_account(&c))) return r;
  Position *pos = (Position *)position->data;
  pos->tag = TAG_POSITION;
  pos->version = VENUE_VERSION;
  pos->bump = bump;
  copy_key(&pos->reserve, reserve->key);
  copy_key(&pos->owner, owner->key);
  return SUCCESS;
}

typedef struct {
  const SolAccountInfo *owner, *reserve, *position, *vault, *other, *token;
  Reserve *res;
  Position *pos;
  i64 now;
} Moving;

/* accounts: 0 owner (s), 1 reserve (w), 2 position (w), 3 vault (w), 4 the owner's token account (w), 5 token */
static u64 load_moving(const SolParameters *p, Moving *m) {
  if (p->ka_num < 6) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len != 9) return E_INVALID_INSTRUCTION;
  m->owner = &p->ka[0];
  m->reserve = &p->ka[1];
  m->position = &p->ka[2];
  m->vault = &p->ka[3];
  m->other = &p->ka[4];
  m->token = &p->ka[5];
  if (!m->owner->is_signer) return E_MISSING_SIGNER;
  if (!m->reserve->is_writable || !m->position->is_writable || !m->vault->is_writable || !m->other->is_writable)
    return E_NOT_WRITABLE;
  u64 r = check_token_program(m->token);
  if (r) return r;
  if ((r = load_reserve(m->reserve, p->program_id, &m->res))) return r;
  if (!pubkey_eq(m->vault->key, &m->res->vault)) return E_INVALID_VAULT;
  if ((r = load_position(m->position, p->program_id, m->reserve, m->owner, &m->pos))) return r;
  SolClock clock;
  if ((r = sol_get_clock_sysvar(&clock))) return r;
  m->now = clock.unix_timestamp;
  if (!accrue(m->res, m->now)) return E_MATH_OVERFLOW;
  return SUCCESS;
}

/* 3 Deposit: data [3, amount u64]; shares = floor(amount x 1e12 / index); refused when that is 0 */
u64 ix_deposit(const SolParameters *p) {
  Moving m;
  u64 r = load_moving(p, &m);
  if (r) return r;
  u64 amount = rd64(p->data + 1), shares;
  if (amount == 0) return E_ZERO_AMOUNT;
  if (!shares_for_amount(amount, m.res->index, &shares)) return E_MATH_OVERFLOW;
  if (shares == 0) return E_ZERO_AMOUNT;
  u64 total = m.res->total_shares + shares, held = m.pos->shares + shares;
  if (total < shares || held < shares) return E_MATH_OVERFLOW;
  Transfer t = {m.token, m.other, m.vault, m.owner, amount, NULL};
  if ((r = token_transfer(&t))) return r;
  m.res->total_shares = total;
  m.pos->shares = held;
  m.pos->updated_at = m.now;
  return SUCCESS;
}

/* 4 Withdraw: data [4, shares u64]; pays floor(shares x index / 1e12) from the vault */
u64 ix_withdraw(const SolParameters *p) {
  Moving m;
  u64 r = load_moving(p, &m);
  if (r) return r;
  u64 shares = rd64(p->data + 1), amount;
  if (shares == 0) return E_ZERO_AMOUNT;
  if (shares > m.pos->shares) return E_INSUFFICIENT_SHARES;
  if (!amount_for_shares(shares, m.res->index, &amount)) return E_MATH_OVERFLOW;
  m.pos->shares -= shares;
  m.res->total_shares -= shares;
  m.pos->updated_at = m.now;
  SolSignerSeed seed[3] = {{RESERVE_SEED, sizeof(RESERVE_SEED) - 1}, {m.res->mint.x, 32}, {&m.res->bump, 1}};
  SolSignerSeeds seeds = {seed, 3};
  if (amount == 0) return SUCCESS;
  Transfer t = {m.token, m.vault, m.other, m.reserve, amount, &seeds};
  return token_transfer(&t);
}
