/* Delegation of a bank's idle liquidity to the pinned lending venue (Venues.lending_program):
 * SetDelegation (16), Delegate (17), WithdrawDelegated (18). The venue position belongs to the bank's PDA, so
 * only these instructions move it; tokens only ever go between the bank's vault and that position. */
#include "lending.h"

static const u8 BANK_SEED[] = "bank";
/* the venue's instruction tags and account sizes (programs/lending-venue/LAYOUT.md) */
#define VENUE_OPEN_POSITION 2
#define VENUE_DEPOSIT 3
#define VENUE_WITHDRAW 4
#define VENUE_RESERVE_SIZE 160ULL
#define VENUE_POSITION_SIZE 96ULL
#define VENUE_INDEX_ONE 1000000000000ULL
#define VENUE_YEAR_SECONDS 31536000ULL

/* 16 SetDelegation: data [16, keeper pubkey]; accounts: 0 owner (s), 1 bank (w). A zero key: nobody but the owner. */
u64 ix_set_delegation(const SolParameters *p) {
  if (p->data_len != 33) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 2) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *owner = &p->ka[0], *bank = &p->ka[1];
  u64 r = check_signer(owner, false);
  if (r) return r;
  if ((r = check_state(bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  Bank *b = (Bank *)bank->data;
  if (!pubkey_eq(&b->owner, owner->key)) return E_UNAUTHORIZED;
  copy_key(&b->delegation_keeper, (const SolPubkey *)(p->data + 1));
  return SUCCESS;
}

typedef struct {
  const SolAccountInfo *authority, *venues, *bank, *vault, *venue, *reserve, *position, *venue_vault, *token;
  Bank *b;
} Delegation;

/* the venue accounts of a Delegation whose bank, vault and token program are checked: the venue must be the
 * pinned one, the reserve its reserve of the bank's mint, the venue vault that reserve's vault. (The venue
 * itself checks that the position is the bank's own.) */
static u64 check_venue_accounts(const SolParameters *p, const Delegation *d) {
  u64 r = check_venues(d->venues, p->program_id);
  if (r) return r;
  const Venues *v = (const Venues *)d->venues->data;
  if (is_zero_key(&v->lending_program) || !pubkey_eq(&v->lending_program, d->venue->key)) return E_INVALID_VENUE;
  if (!pubkey_eq(d->reserve->owner, d->venue->key) || d->reserve->data_len != VENUE_RESERVE_SIZE ||
      d->reserve->data[0] != 1)
    return E_INVALID_VENUE;
  if (!pubkey_eq((const SolPubkey *)(d->reserve->data + 8), &d->b->mint)) return E_INVALID_MINT;
  if (!pubkey_eq((const SolPubkey *)(d->reserve->data + 40), d->venue_vault->key)) return E_ACCOUNT_MISMATCH;
  if (!d->reserve->is_writable || !d->position->is_writable || !d->venue_vault->is_writable) return E_NOT_WRITABLE;
  return SUCCESS;
}

/* accounts: 0 authority (s), 1 venues, 2 bank (w), 3 vault (w), 4 lending venue program, 5 reserve (w),
 * 6 position (w), 7 venue vault (w), 8 token program. */
static u64 load_delegation(const SolParameters *p, Delegation *d) {
  if (p->ka_num < 9) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  d->authority = &ka[0];
  d->venues = &ka[1];
  d->bank = &ka[2];
  d->vault = &ka[3];
  d->venue = &ka[4];
  d->reserve = &ka[5];
  d->position = &ka[6];
  d->venue_vault = &ka[7];
  d->token = &ka[8];
  u64 r = check_signer(d->authority, false);
  if (r) return r;
  if ((r = check_state(d->bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  d->b = (Bank *)d->bank->data;
  if (!pubkey_eq(&d->b->vault, d->vault->key)) return E_ACCOUNT_MISMATCH;
  if ((r = check_token_account(d->vault, &d->b->mint, NULL))) return r;
  if ((r = check_token_program(d->token))) return r;
  return check_venue_accounts(p, d);
}

/* the venue instruction with accounts [bank PDA (signs), reserve, position, venue vault, bank vault, token] */
static u64 venue_move(const Delegation *d, u8 tag, u64 value) {
  u8 data[9];
  data[0] = tag;
  *(u64 *)(data + 1) = value;
  const Bank *b = d->b;
  SolAccountMeta metas[6] = {{d->bank->key, false, true},        {d->reserve->key, true, false},
                             {d->position->key, true, false},    {d->venue_vault->key, true, false},
                             {d->vault->key, true, false},       {d->token->key, false, false}};
  SolAccountInfo infos[7] = {*d->bank, *d->reserve, *d->position, *d->venue_vault, *d->vault, *d->token, *d->venue};
  /* live lengths from the input region: the position may have been created by a CPI earlier in this instruction */
  for (int i = 0; i < 6; i++) infos[i].data_len = *(const u64 *)(infos[i].data - 8);
  SolSignerSeed seeds[4] = {{BANK_SEED, sizeof(BANK_SEED) - 1}, {b->owner.x, 32}, {b->mint.x, 32}, {&b->bump, 1}};
  SolSignerSeeds signer = {seeds, 4};
  SolInstruction ix = {d->venue->key, metas, 6, data, 9};
  return sol_invoke_signed_c(&ix, infos, 7, &signer, 1);
}

/* the bank's position's shares (0 when it does not exist yet) */
static u64 position_shares(const SolAccountInfo *position) {
  return *(const u64 *)(position->data - 8) == VENUE_POSITION_SIZE ? rd64(position->data + 72) : 0;
}

/* Withdraws `shares` of the `held` into the vault. What comes back is principal (delegated x shares / held,
 * the rest of it when all shares go) plus the venue's yield, which belongs to the bank: available += received,
 * delegated -= principal, total += received - principal (a venue loss lowers total instead). */
static u64 withdraw_shares(const Delegation *d, u64 shares, u64 held) {
  if (shares == 0) return E_INVALID_AMOUNT;
  Bank *b = d->b;
  u64 principal = b->delegated;
  if (shares < held && !mul_div_u64(b->delegated, shares, held, &principal)) return E_MATH_OVERFLOW;
  u64 before = rd64(d->vault->data + 64);
  u64 r = venue_move(d, VENUE_WITHDRAW, shares);
  if (r) return r;
  u64 after = rd64(d->vault->data + 64), received, available, delegated, total;
  if (!sub_ok(after, before, &received)) return E_INCONSISTENT_COUNTERS;
  if (!add_ok(b->available, received, &available) || !sub_ok(b->delegated, principal, &delegated))
    return E_MATH_OVERFLOW;
  if (received >= principal) {
    if (!add_ok(b->total, received - principal, &total)) return E_MATH_OVERFLOW;
  } else if (!sub_ok(b->total, principal - received, &total)) {
    return E_INCONSISTENT_COUNTERS;
  }
  b->available = available;
  b->delegated = delegated;
  b->total = total;
  return SUCCESS;
}

/* 17 Delegate: data [17, amount u64, position bump]; accounts 0-8 as load_delegation (authority = the bank's
 * owner or its delegation keeper), 9 payer (s, w), 10 system program (they open the bank's position on first
 * use). Moves `amount` of available liquidity into the venue: available -= amount, delegated += amount. */
u64 ix_delegate(const SolParameters *p) {
  if (p->data_len != 10) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 11) return E_NOT_ENOUGH_ACCOUNTS;
  Delegation d;
  u64 r = load_delegation(p, &d);
  if (r) return r;
  Bank *b = d.b;
  bool keeper = !is_zero_key(&b->delegation_keeper) && pubkey_eq(&b->delegation_keeper, d.authority->key);
  if (!pubkey_eq(&b->owner, d.authority->key) && !keeper) return E_UNAUTHORIZED;
  u64 amount = rd64(p->data + 1), available, delegated;
  if (amount == 0) return E_INVALID_AMOUNT;
  if (!sub_ok(b->available, amount, &available)) return E_INSUFFICIENT_LIQUIDITY;
  if (!add_ok(b->delegated, amount, &delegated)) return E_MATH_OVERFLOW;
  if (d.position->data_len == 0) {
    const SolAccountInfo *payer = &p->ka[9], *sys = &p->ka[10];
    if ((r = check_signer(payer, true))) return r;
    if ((r = check_system_program(sys))) return r;
    u8 data[2] = {VENUE_OPEN_POSITION, p->data[9]};
    SolAccountMeta metas[5] = {{payer->key, true, true}, {d.bank->key, false, true}, {d.reserve->key, false, false},
                               {d.position->key, true, false}, {sys->key, false, false}};
    SolAccountInfo infos[6] = {*payer, *d.bank, *d.reserve, *d.position, *sys, *d.venue};
    SolSignerSeed seeds[4] = {{BANK_SEED, sizeof(BANK_SEED) - 1}, {b->owner.x, 32}, {b->mint.x, 32}, {&b->bump, 1}};
    SolSignerSeeds signer = {seeds, 4};
    SolInstruction ix = {d.venue->key, metas, 5, data, 2};
    if ((r = sol_invoke_signed_c(&ix, infos, 6, &signer, 1))) return r;
  }
  if ((r = venue_move(&d, VENUE_DEPOSIT, amount))) return r;
  b->available = available;
  b->delegated = delegated;
  return SUCCESS;
}

/* 18 WithdrawDelegated: data [18, shares u64] (0: all the bank's shares); accounts 0-8 as load_delegation,
 * authority = the bank's owner; see withdraw_shares. */
u64 ix_withdraw_delegated(const SolParameters *p) {
  if (p->data_len != 9) return E_INVALID_INSTRUCTION;
  Delegation d;
  u64 r = load_delegation(p, &d);
  if (r) return r;
  Bank *b = d.b;
  if (!pubkey_eq(&b->owner, d.authority->key)) return E_UNAUTHORIZED;
  u64 held = position_shares(d.position), shares = rd64(p->data + 1);
  if (shares == 0) shares = held;
  return withdraw_shares(&d, shares, held);
}


u64 delegation_pull(const SolParameters *p, const Pull *pull) {
  u64 first = pull->first, needed = pull->needed;
  if (first + 5 > p->ka_num) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  Delegation d = {NULL, &ka[first], pull->bank, pull->vault, &ka[first + 1], &ka[first + 2], &ka[first + 3],
                  &ka[first + 4], pull->token, (Bank *)pull->bank->data};
  u64 r = check_venue_accounts(p, &d);
  if (r) return r;
  /* the reserve's index now, as the venue accrues it: index + floor(index x rate x elapsed / (10000 x year)) */
  const u8 *res = d.reserve->data;
  u64 index = rd64(res + 104), rate = rd32(res + 4);
  i64 last = (i64)rd64(res + 120);
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  if (clock.unix_timestamp > last) {
    U128 growth;
    u128_mul64(index, rate, &growth);
    if (u128_mul_u64(&growth, (u64)(clock.unix_timestamp - last), &growth)) return E_MATH_OVERFLOW;
    U128 q;
    u64 rem;
    if (!u128_divmod64(&growth, BPS * VENUE_YEAR_SECONDS, &q, &rem) || !u128_fits_u64(&q) || !add_ok(index, q.lo, &index))
      return E_MATH_OVERFLOW;
  }
  /* the fewest shares worth `needed`: ceil(needed x 1e12 / index) pays floor(shares x index / 1e12) >= needed */
  u64 shares, held = position_shares(d.position);
  if (!mul_div_ceil_u64(needed, VENUE_INDEX_ONE, index, &shares)) return E_MATH_OVERFLOW;
  if (shares > held) shares = held;
  if (shares == 0) return E_INSUFFICIENT_LIQUIDITY;
  return withdraw_shares(&d, shares, held);
}
