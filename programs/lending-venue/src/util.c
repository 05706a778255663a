/* Account checks, token transfers and the share maths of the local lending venue. */
#include "venue.h"

static const u8 RESERVE_SEED[] = "reserve";
static const u8 POSITION_SEED[] = "position";

u64 create_account(const CreateAccount *c) {
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

u64 check_token_program(const SolAccountInfo *a) {
  return pubkey_eq(a->key, &TOKEN_PROGRAM_ID) ? SUCCESS : E_INVALID_TOKEN_PROGRAM;
}

u64 load_reserve(const SolAccountInfo *a, const SolPubkey *program_id, Reserve **out) {
  if (!pubkey_eq(a->owner, program_id)) return E_INVALID_OWNER;
  if (a->data_len != sizeof(Reserve) || a->data[0] != TAG_RESERVE || a->data[1] != VENUE_VERSION)
    return E_INVALID_OWNER;
  Reserve *reserve = (Reserve *)a->data;
  SolSignerSeed seeds[3] = {{RESERVE_SEED, sizeof(RESERVE_SEED) - 1}, {reserve->mint.x, 32}, {&reserve->bump, 1}};
  SolPubkey derived;
  if (sol_create_program_address(seeds, 3, program_id, &derived) || !pubkey_eq(&derived, a->key))
    return E_INVALID_PDA;
  *out = reserve;
  return SUCCESS;
}

u64 load_position(const SolAccountInfo *a, const SolPubkey *program_id, const SolAccountInfo *reserve,
                  const SolAccountInfo *owner, Position **out) {
  if (!pubkey_eq(a->owner, program_id)) return E_INVALID_OWNER;
  if (a->data_len != sizeof(Position) || a->data[0] != TAG_POSITION || a->data[1] != VENUE_VERSION)
    return E_INVALID_OWNER;
  Position *position = (Position *)a->data;
  if (!pubkey_eq(&position->reserve, reserve->key) || !pubkey_eq(&position->owner, owner->key))
    return E_POSITION_MISMATCH;
  SolSignerSeed seeds[4] = {
      {POSITION_SEED, sizeof(POSITION_SEED) - 1}, {reserve->key->x, 32}, {owner->key->x, 32}, {&position->bump, 1}};
  SolPubkey derived;
  if (sol_create_program_address(seeds, 4, program_id, &derived) || !pubkey_eq(&derived, a->key))
    return E_INVALID_PDA;
  *out = position;
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

bool accrue(Reserve *r, i64 now) {
  if (now <= r->last_update) return true;
  u64 elapsed = (u64)(now - r->last_update);
  U128 growth;
  u128_mul64(r->index, r->rate_bps, &growth);
  if (u128_mul_u64(&growth, elapsed, &growth)) return false; /* true on overflow */
  U128 q;
  u64 rem;
  if (!u128_divmod64(&growth, BPS * YEAR_SECONDS, &q, &rem) || !u128_fits_u64(&q)) return false;
  u64 index = r->index + q.lo;
  if (index < r->index) return false;
  r->index = index;
  r->last_update = now;
  return true;
}

bool shares_for_amount(u64 amount, u64 index, u64 *shares) {
  U128 n;
  u128_mul64(amount, INDEX_ONE, &n);
  u64 rem;
  return index != 0 && u128_div64(&n, index, shares, &rem);
}

bool amount_for_shares(u64 shares, u64 index, u64 *amount) {
  U128 n;
  u128_mul64(shares, index, &n);
  u64 rem;
  return u128_div64(&n, INDEX_ONE, amount, &rem);
}
