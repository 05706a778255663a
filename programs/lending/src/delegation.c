/* Delegation of a bank's idle liquidity to the pinned lending venue (Venues.lending_program): marginfi v2 when
 * the Venues pin a marginfi group (below), else the local lending venue (programs/lending-venue).
 * SetDelegation (16), Delegate (17), WithdrawDelegated (18). The venue position belongs to the bank's PDA, so
 * only these instructions move it; tokens only ever go between the bank's vault and that position. */
#include "lending.h"

static const u8 BANK_SEED[] = "bank";
static const u8 VENUE_POSITION_SEED[] = "position";
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

/* ---- marginfi v2 (the lending venue when the Venues pin a marginfi group; layouts of mrgn-0.1.1) ----
 * The bank's position is a marginfi account at this program's PDA ["marginfi_account", bank] whose authority is
 * the bank's PDA: only these instructions (signing as the bank) can move it. delegated is marked to what marginfi
 * says the position is worth after every move: floor(asset shares x asset share value), so the yield marginfi's
 * curve pays is in the bank's books (total) as soon as it is known, and the books equal vault + position. */
bool venues_marginfi_group(const Venues *v, const SolPubkey *group);

static const u8 MFI_ACCOUNT_SEED[] = "marginfi_account";
static const u8 MFI_IX_DEPOSIT[8] = {0xab, 0x5e, 0xeb, 0x67, 0x52, 0x40, 0xd4, 0x8c};
static const u8 MFI_IX_WITHDRAW[8] = {0x24, 0x48, 0x4a, 0x13, 0xd2, 0xd2, 0xc0, 0xc0};
static const u8 MFI_IX_ACCOUNT_INIT[8] = {0x2b, 0x4e, 0x3d, 0xff, 0x94, 0x34, 0xf9, 0x9a};
static const u8 MFI_IX_ACCRUE[8] = {0x6c, 0xc9, 0x1e, 0x57, 0x2f, 0x41, 0x61, 0xbc};
static const u8 MFI_GROUP_DISC[8] = {0xb6, 0x17, 0xad, 0xf0, 0x97, 0xce, 0xb6, 0x43};
static const u8 MFI_BANK_DISC[8] = {0x8e, 0x31, 0xa6, 0xf2, 0x32, 0x42, 0x61, 0xbc};
static const u8 MFI_ACCOUNT_DISC[8] = {0x43, 0xb2, 0x82, 0x6d, 0x7e, 0x72, 0x1c, 0x2a};
#define MFI_BANK_SIZE 1864ULL
#define MFI_ACCOUNT_SIZE 2312ULL
/* Bank: mint 8, group 41, asset share value 80, liquidity vault 112, total asset shares 272, deposit limit 360,
 * operational state 608 (1 = operational). MarginfiAccount: group 8, authority 40, balances at 72, 16 x 104
 * (active 0, bank 1, asset shares 40). Token account amount at 64. */
#define MFI_BANK_MINT 8
#define MFI_BANK_GROUP 41
#define MFI_BANK_ASSET_SHARE_VALUE 80
#define MFI_BANK_LIQUIDITY_VAULT 112
#define MFI_BANK_TOTAL_ASSET_SHARES 272
#define MFI_BANK_DEPOSIT_LIMIT 360
#define MFI_BANK_STATE 608
/* BankOperationalState (marginfi's enum, u8): Paused 0, Operational 1, ReduceOnly 2, KilledByBankruptcy 3 */
#define MFI_STATE_PAUSED 0
#define MFI_STATE_OPERATIONAL 1
#define MFI_STATE_REDUCE_ONLY 2
#define MFI_STATE_KILLED_BY_BANKRUPTCY 3
#define MFI_ACCOUNT_GROUP 8
#define MFI_ACCOUNT_AUTHORITY 40
#define MFI_BALANCES 72
#define MFI_BALANCE_SIZE 104
#define MFI_BALANCE_SLOTS 16
#define MFI_BALANCE_ASSET_SHARES 40
#define U64_MAX_VALUE 0xffffffffffffffffULL

typedef struct {
  const SolAccountInfo *venues, *bank, *vault, *program, *group, *mbank, *maccount, *token, *liq_vault, *liq_auth,
      *oracle;
  Bank *b;
  u8 maccount_bump; /* the canonical bump of ["marginfi_account", bank] (mfi_check) */
} Mfi;

/* live length (an account created by a CPI earlier in this instruction has its new length in the input region) */
static u64 live_len(const SolAccountInfo *a) { return *(const u64 *)(a->data - 8); }

/* floor(a x b / 2^96) of two non-negative I80F48 (raw / 2^48 each): what `a` shares are worth at share value `b`,
 * in base units, as marginfi computes it (I80F48 product, then to_num, both truncating). false if negative or
 * the result does not fit a u64. */
static bool i80f48_mul_floor(const u8 *a16, const u8 *b16, u64 *out) {
  u64 a0 = rd64(a16), a1 = rd64(a16 + 8), b0 = rd64(b16), b1 = rd64(b16 + 8);
  if ((i64)a1 < 0 || (i64)b1 < 0) return false;
  U128 p00, p01, p10, p11;
  u128_mul64(a0, b0, &p00);
  u128_mul64(a0, b1, &p01);
  u128_mul64(a1, b0, &p10);
  u128_mul64(a1, b1, &p11);
  u64 r1 = p00.hi, c1 = 0;
  r1 += p01.lo;
  c1 += r1 < p01.lo;
  r1 += p10.lo;
  c1 += r1 < p10.lo;
  u64 r2 = p01.hi, c2 = 0;
  r2 += p10.hi;
  c2 += r2 < p10.hi;
  r2 += p11.lo;
  c2 += r2 < p11.lo;
  r2 += c1;
  c2 += r2 < c1;
  u64 r3 = p11.hi + c2;
  if ((r2 >> 32) != 0 || r3 != 0) return false;
  *out = (r1 >> 32) | (r2 << 32);
  return true;
}

/* What the bank's marginfi account holds in the marginfi bank, base units at the bank's share value now
 * (0 when the account does not exist yet or holds nothing there). */
static u64 mfi_position_value(const Mfi *m, u64 *out) {
  *out = 0;
  if (live_len(m->maccount) != MFI_ACCOUNT_SIZE) return SUCCESS;
  const u8 *acc = m->maccount->data;
  for (int i = 0; i < MFI_BALANCE_SLOTS; i++) {
    const u8 *bal = acc + MFI_BALANCES + i * MFI_BALANCE_SIZE;
    if (bal[0] == 0 || !pubkey_eq((const SolPubkey *)(bal + 1), m->mbank->key)) continue;
    if (!i80f48_mul_floor(bal + MFI_BALANCE_ASSET_SHARES, m->mbank->data + MFI_BANK_ASSET_SHARE_VALUE, out))
      return E_MATH_OVERFLOW;
    return SUCCESS;
  }
  return SUCCESS;
}

/* The marginfi accounts, each checked: the program is the pinned lending venue program (executable), the group
 * the pinned group (owned by that program), the marginfi bank one of that group for the bank's mint whose
 * liquidity vault is the one passed, and the marginfi account (unless not created yet) one of that group whose
 * authority is the bank's PDA, at the canonical address ["marginfi_account", bank] (find_program_address: the
 * highest bump), so a bank has exactly one marginfi account. */
static u64 mfi_check(const SolParameters *p, Mfi *m) {
  u64 r = check_venues(m->venues, p->program_id);
  if (r) return r;
  const Venues *v = (const Venues *)m->venues->data;
  const SolPubkey *program = m->program->key;
  if (is_zero_key(&v->lending_program) || !pubkey_eq(&v->lending_program, program) || !m->program->executable)
    return E_INVALID_VENUE;
  if (!venues_marginfi_group(v, m->group->key) || !pubkey_eq(m->group->owner, program) ||
      m->group->data_len < 8 || memcmp(m->group->data, MFI_GROUP_DISC, 8) != 0)
    return E_INVALID_VENUE;
  const u8 *mb = m->mbank->data;
  if (!pubkey_eq(m->mbank->owner, program) || m->mbank->data_len != MFI_BANK_SIZE ||
      memcmp(mb, MFI_BANK_DISC, 8) != 0 || !pubkey_eq((const SolPubkey *)(mb + MFI_BANK_GROUP), m->group->key))
    return E_INVALID_VENUE;
  if (!pubkey_eq((const SolPubkey *)(mb + MFI_BANK_MINT), &m->b->mint)) return E_INVALID_MINT;
  if (!pubkey_eq((const SolPubkey *)(mb + MFI_BANK_LIQUIDITY_VAULT), m->liq_vault->key)) return E_ACCOUNT_MISMATCH;
  if (m->maccount->data_len != 0) {
    const u8 *ma = m->maccount->data;
    if (!pubkey_eq(m->maccount->owner, program) || m->maccount->data_len != MFI_ACCOUNT_SIZE ||
        memcmp(ma, MFI_ACCOUNT_DISC, 8) != 0 ||
        !pubkey_eq((const SolPubkey *)(ma + MFI_ACCOUNT_GROUP), m->group->key) ||
        !pubkey_eq((const SolPubkey *)(ma + MFI_ACCOUNT_AUTHORITY), m->bank->key))
      return E_ACCOUNT_MISMATCH;
  }
  SolSignerSeed seeds[2] = {{MFI_ACCOUNT_SEED, sizeof(MFI_ACCOUNT_SEED) - 1}, {m->bank->key->x, 32}};
  SolPubkey canonical;
  if (sol_try_find_program_address(seeds, 2, p->program_id, &canonical, &m->maccount_bump) ||
      !pubkey_eq(&canonical, m->maccount->key))
    return E_INVALID_PDA;
  if (!m->mbank->is_writable || !m->maccount->is_writable || !m->liq_vault->is_writable) return E_NOT_WRITABLE;
  return SUCCESS;
}

/* a marginfi instruction: metas, data, the infos to pass and optionally the new marginfi account's seeds */
typedef struct {
  const SolAccountMeta *metas;
  int n;
  const u8 *data;
  u64 data_len;
  const SolAccountInfo *infos;
  int n_infos;
  const SolSignerSeeds *extra;
} MfiCall;

/* invokes `c` with the bank's PDA signing (and the new account's seeds when given) */
static u64 mfi_invoke(const Mfi *m, const MfiCall *c) {
  const Bank *b = m->b;
  SolSignerSeed seeds[4] = {{BANK_SEED, sizeof(BANK_SEED) - 1}, {b->owner.x, 32}, {b->mint.x, 32}, {&b->bump, 1}};
  SolSignerSeeds signers[2] = {{seeds, 4}, {NULL, 0}};
  if (c->extra) signers[1] = *c->extra;
  SolInstruction ix = {m->program->key, (SolAccountMeta *)c->metas, c->n, (u8 *)c->data, c->data_len};
  return sol_invoke_signed_c(&ix, c->infos, c->n_infos, signers, c->extra ? 2 : 1);
}

/* lending_account_deposit(amount) from the vault */
static u64 mfi_deposit(const Mfi *m, u64 amount) {
  u8 data[16];
  memcpy(data, MFI_IX_DEPOSIT, 8);
  *(u64 *)(data + 8) = amount;
  SolAccountMeta metas[7] = {{m->group->key, false, false}, {m->maccount->key, true, false},
                             {m->bank->key, false, true},   {m->mbank->key, true, false},
                             {m->vault->key, true, false},  {m->liq_vault->key, true, false},
                             {m->token->key, false, false}};
  SolAccountInfo infos[8] = {*m->group, *m->maccount, *m->bank, *m->mbank, *m->vault, *m->liq_vault, *m->token,
                             *m->program};
  for (int i = 0; i < 7; i++) infos[i].data_len = live_len(&infos[i]);
  MfiCall c = {metas, 7, data, 16, infos, 8, NULL};
  return mfi_invoke(m, &c);
}

/* lending_account_withdraw(amount, withdraw_all) into the vault; a partial withdrawal passes the risk engine the
 * (marginfi bank, oracle) of the balance that stays open */
static u64 mfi_withdraw(const Mfi *m, u64 amount, bool all) {
  u8 data[18];
  memcpy(data, MFI_IX_WITHDRAW, 8);
  *(u64 *)(data + 8) = amount;
  data[16] = 1;
  data[17] = all ? 1 : 0;
  SolAccountMeta metas[10] = {{m->group->key, false, false},    {m->maccount->key, true, false},
                              {m->bank->key, false, true},      {m->mbank->key, true, false},
                              {m->vault->key, true, false},     {m->liq_auth->key, true, false},
                              {m->liq_vault->key, true, false}, {m->token->key, false, false},
                              {m->mbank->key, false, false},    {m->oracle->key, false, false}};
  SolAccountInfo infos[10] = {*m->group, *m->maccount, *m->bank,     *m->mbank,  *m->vault,
                              *m->liq_auth, *m->liq_vault, *m->token, *m->oracle, *m->program};
  MfiCall c = {metas, all ? 8 : 10, data, 18, infos, 10, NULL};
  return mfi_invoke(m, &c);
}

/* Books after a move: the vault went from `before` to now, the position is worth what marginfi says now.
 * available += received - paid; total += (position + received) - (delegated + paid); delegated = position. */
static u64 mfi_settle(const Mfi *m, u64 before) {
  Bank *b = m->b;
  u64 after = rd64(m->vault->data + 64), value, r = mfi_position_value(m, &value);
  if (r) return r;
  u64 in = 0, out = 0, available, gain, cost, total;
  if (after >= before) in = after - before;
  else out = before - after;
  if (!add_ok(b->available, in, &available) || !sub_ok(available, out, &available)) return E_INCONSISTENT_COUNTERS;
  if (!add_ok(value, in, &gain) || !add_ok(b->delegated, out, &cost)) return E_MATH_OVERFLOW;
  if (gain >= cost) {
    if (!add_ok(b->total, gain - cost, &total)) return E_MATH_OVERFLOW;
  } else if (!sub_ok(b->total, cost - gain, &total)) {
    return E_INCONSISTENT_COUNTERS;
  }
  b->available = available;
  b->total = total;
  b->delegated = value;
  return SUCCESS;
}

/* Whether marginfi takes this move in its bank's state now, as marginfi's own rules say (mrgn-0.1.1
 * assert_operational_mode; later versions' validate_bank_state): a deposit only while Operational; a withdrawal
 * (a lender's balance going down) while Operational or ReduceOnly; nothing while Paused or KilledByBankruptcy.
 * A state this program does not know refuses deposits and leaves a withdrawal to marginfi's own checks. The one
 * rule as packages/protocol's marginfi-bank-state.ts says it for the API. */
static u64 mfi_state_refusal(const Mfi *m, bool deposit) {
  switch (m->mbank->data[MFI_BANK_STATE]) {
    case MFI_STATE_OPERATIONAL:
      return SUCCESS;
    case MFI_STATE_REDUCE_ONLY:
      return deposit ? E_VENUE_REDUCE_ONLY : SUCCESS;
    case MFI_STATE_PAUSED:
      return E_VENUE_PAUSED;
    case MFI_STATE_KILLED_BY_BANKRUPTCY:
      return E_VENUE_BANKRUPT;
    default:
      return deposit ? E_VENUE_STATE_UNKNOWN : SUCCESS;
  }
}

/* Whether the marginfi bank's liquidity vault holds `amount` now */
static bool mfi_can_pay(const Mfi *m, u64 amount) {
  return m->liq_vault->data_len >= 72 && rd64(m->liq_vault->data + 64) >= amount;
}

/* Withdraws `amount` (or everything when the position is worth no more) into the vault and settles the books.
 * Refused, nothing moved, with marginfi's reason when its bank's state refuses withdrawals (VenuePaused,
 * VenueBankrupt), with InsufficientLiquidity when marginfi cannot pay it now (utilization leaving too little in
 * its vault) or pays less than asked. */
static u64 mfi_take_back(const Mfi *m, u64 amount) {
  u64 value, r = mfi_position_value(m, &value);
  if (r) return r;
  if (value == 0) return E_INSUFFICIENT_LIQUIDITY;
  bool all = amount >= value;
  u64 asked = all ? value : amount;
  if ((r = mfi_state_refusal(m, false))) return r;
  if (!mfi_can_pay(m, asked)) return E_INSUFFICIENT_LIQUIDITY;
  u64 before = rd64(m->vault->data + 64);
  if ((r = mfi_withdraw(m, all ? 0 : asked, all))) return r;
  if (rd64(m->vault->data + 64) < before + asked) return E_INSUFFICIENT_LIQUIDITY;
  return mfi_settle(m, before);
}

/* accounts: 0 authority (s), 1 venues, 2 bank (w), 3 vault (w), 4 marginfi program, 5 marginfi group,
 * 6 marginfi bank (w), 7 the bank's marginfi account (w), 8 token program, 9 marginfi bank's liquidity vault (w),
 * then Delegate: 10 payer (s, w), 11 system program; WithdrawDelegated: 10 liquidity vault authority (w),
 * 11 the marginfi bank's oracle. */
static u64 mfi_load(const SolParameters *p, Mfi *m) {
  if (p->ka_num < 12) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  m->venues = &ka[1];
  m->bank = &ka[2];
  m->vault = &ka[3];
  m->program = &ka[4];
  m->group = &ka[5];
  m->mbank = &ka[6];
  m->maccount = &ka[7];
  m->token = &ka[8];
  m->liq_vault = &ka[9];
  m->liq_auth = &ka[10];
  m->oracle = &ka[11];
  u64 r = check_signer(&ka[0], false);
  if (r) return r;
  if ((r = check_state(m->bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  m->b = (Bank *)m->bank->data;
  if (!pubkey_eq(&m->b->vault, m->vault->key)) return E_ACCOUNT_MISMATCH;
  if ((r = check_token_account(m->vault, &m->b->mint, NULL))) return r;
  if ((r = check_token_program(m->token))) return r;
  return mfi_check(p, m);
}

/* Delegate through marginfi: amount 0 accrues marginfi's interest and marks the position only. */
static u64 mfi_delegate(const SolParameters *p) {
  Mfi m;
  u64 r = mfi_load(p, &m);
  if (r) return r;
  Bank *b = m.b;
  const SolPubkey *who = p->ka[0].key;
  bool keeper = !is_zero_key(&b->delegation_keeper) && pubkey_eq(&b->delegation_keeper, who);
  if (!pubkey_eq(&b->owner, who) && !keeper) return E_UNAUTHORIZED;
  /* the data's bump must be the canonical one mfi_check derived (kept in the data for layout compatibility) */
  if (p->data[9] != m.maccount_bump) return E_INVALID_PDA;
  u64 amount = rd64(p->data + 1), before = rd64(m.vault->data + 64);
  if (amount == 0) {
    if (m.maccount->data_len == 0) return E_INVALID_AMOUNT;
    u8 data[8];
    memcpy(data, MFI_IX_ACCRUE, 8);
    SolAccountMeta metas[2] = {{m.group->key, false, false}, {m.mbank->key, true, false}};
    SolAccountInfo infos[3] = {*m.group, *m.mbank, *m.program};
    MfiCall c = {metas, 2, data, 8, infos, 3, NULL};
    if ((r = mfi_invoke(&m, &c))) return r;
    return mfi_settle(&m, before);
  }
  if (amount > b->available) return E_INSUFFICIENT_LIQUIDITY;
  const u8 *mb = m.mbank->data;
  if ((r = mfi_state_refusal(&m, true))) return r;
  /* marginfi's deposit limit: its deposits after this one must stay below it (u64 max: no limit) */
  u64 limit = rd64(mb + MFI_BANK_DEPOSIT_LIMIT), deposits;
  if (limit != U64_MAX_VALUE) {
    if (!i80f48_mul_floor(mb + MFI_BANK_TOTAL_ASSET_SHARES, mb + MFI_BANK_ASSET_SHARE_VALUE, &deposits))
      return E_MATH_OVERFLOW;
    if (deposits >= limit || amount >= limit - deposits) return E_VENUE_DEPOSIT_LIMIT;
  }
  if (m.maccount->data_len == 0) {
    const SolAccountInfo *payer = &p->ka[10], *sys = &p->ka[11];
    if ((r = check_signer(payer, true))) return r;
    if ((r = check_system_program(sys))) return r;
    u8 bump = m.maccount_bump;
    SolSignerSeed seeds[3] = {{MFI_ACCOUNT_SEED, sizeof(MFI_ACCOUNT_SEED) - 1}, {m.bank->key->x, 32}, {&bump, 1}};
    SolSignerSeeds account_signer = {seeds, 3};
    SolAccountMeta metas[5] = {{m.group->key, false, false}, {m.maccount->key, true, true}, {m.bank->key, false, true},
                               {payer->key, true, true},     {sys->key, false, false}};
    SolAccountInfo infos[6] = {*m.group, *m.maccount, *m.bank, *payer, *sys, *m.program};
    MfiCall c = {metas, 5, MFI_IX_ACCOUNT_INIT, 8, infos, 6, &account_signer};
    if ((r = mfi_invoke(&m, &c))) return r;
  }
  if ((r = mfi_deposit(&m, amount))) return r;
  if (before - rd64(m.vault->data + 64) != amount) return E_INCONSISTENT_COUNTERS;
  return mfi_settle(&m, before);
}

/* WithdrawDelegated through marginfi: `amount` base units back to the vault (0: everything). */
static u64 mfi_withdraw_delegated(const SolParameters *p) {
  Mfi m;
  u64 r = mfi_load(p, &m);
  if (r) return r;
  if (!pubkey_eq(&m.b->owner, p->ka[0].key)) return E_UNAUTHORIZED;
  if (m.maccount->data_len == 0) return E_INSUFFICIENT_LIQUIDITY;
  u64 amount = rd64(p->data + 1);
  return mfi_take_back(&m, amount == 0 ? U64_MAX_VALUE : amount);
}

/* TakeLoan's pull through marginfi; accounts from `first`: venues, marginfi program, group, marginfi bank (w), the
 * bank's marginfi account (w), liquidity vault (w), liquidity vault authority (w), oracle. */
static u64 mfi_pull(const SolParameters *p, const Pull *pull) {
  u64 first = pull->first;
  if (first + 8 > p->ka_num) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  Mfi m = {&ka[first],     pull->bank,        pull->vault,       &ka[first + 1], &ka[first + 2], &ka[first + 3],
           &ka[first + 4], pull->token,       &ka[first + 5],    &ka[first + 6], &ka[first + 7], (Bank *)pull->bank->data};
  u64 r = mfi_check(p, &m);
  if (r) return r;
  if (m.maccount->data_len == 0) return E_INSUFFICIENT_LIQUIDITY;
  return mfi_take_back(&m, pull->needed);
}

/* whether the Venues account passed at `index` pins marginfi (false when it is not a Venues account: the
 * instruction's own checks then refuse it) */
static bool marginfi_mode(const SolParameters *p, u64 index) {
  if (index >= p->ka_num) return false;
  const SolAccountInfo *venues = &p->ka[index];
  if (check_venues(venues, p->program_id) != SUCCESS) return false;
  return venues_marginfi_group((const Venues *)venues->data, NULL);
}

/* 17 Delegate: data [17, amount u64, position bump]; accounts 0-8 as load_delegation (authority = the bank's
 * owner or its delegation keeper), 9 payer (s, w), 10 system program (they open the bank's position on first
 * use). Moves `amount` of available liquidity into the venue: available -= amount, delegated += amount. */
u64 ix_delegate(const SolParameters *p) {
  if (p->data_len != 10) return E_INVALID_INSTRUCTION;
  if (marginfi_mode(p, 1)) return mfi_delegate(p);
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
    /* one position per bank: the venue's canonical PDA ["position", reserve, bank] with the data's bump (the
     * venue accepts any bump; it is opened only here, signed by the bank's PDA) */
    SolSignerSeed pseeds[3] = {{VENUE_POSITION_SEED, sizeof(VENUE_POSITION_SEED) - 1}, {d.reserve->key->x, 32},
                               {d.bank->key->x, 32}};
    if ((r = verify_canonical_pda(pseeds, 3, d.venue->key, d.position->key, p->data[9]))) return r;
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
  if (marginfi_mode(p, 1)) return mfi_withdraw_delegated(p);
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
  if (marginfi_mode(p, pull->first)) return mfi_pull(p, pull);
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
