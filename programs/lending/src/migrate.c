/* 24 Migrate: brings a pool and loans of that pool from layout v1 to the current layout after a program
 * upgrade. Anyone may send it (a borrower must never wait on an absent lender to repay); the payer funds the
 * rent of the bytes the accounts grow by. */
#include "lending.h"

/* Outcome of bringing one account up. */
#define MIGRATED 1
#define ALREADY_CURRENT 0

/* Who pays, under which program. */
typedef struct {
  const SolAccountInfo *payer, *sys;
  const SolPubkey *program_id;
} Upgrade;

/* An account type's v1 and current sizes. */
typedef struct {
  u8 tag;
  u64 v1_size, size;
} Layout;

static const Layout POOL_LAYOUT = {TAG_POOL, POOL_V1_SIZE, sizeof(Pool)};
static const Layout LOAN_LAYOUT = {TAG_LOAN, LOAN_V1_SIZE, sizeof(Loan)};

/* Grows `a` from its v1 size to the current one at the current version, the payer topping its lamports up to
 * rent exemption; sets *outcome. An account already current is left alone. */
static u64 bring_up(const Upgrade *u, SolAccountInfo *a, const Layout *layout, u8 *outcome) {
  u8 tag = layout->tag;
  u64 v1_size = layout->v1_size, size = layout->size;
  if (!pubkey_eq(a->owner, u->program_id)) return E_INVALID_OWNER;
  if (!a->is_writable) return E_NOT_WRITABLE;
  u8 version = current_version(tag);
  if (a->data_len == size && a->data[0] == tag && a->data[1] == version) {
    *outcome = ALREADY_CURRENT;
    return SUCCESS;
  }
  if (a->data_len != v1_size || a->data[0] != tag || a->data[1] != 1) return E_INVALID_DISCRIMINATOR;
  SolRent rent;
  u64 r = sol_get_rent_sysvar(&rent);
  if (r) return r;
  u64 need = rent_minimum_balance(&rent, size);
  if (*a->lamports < need && (r = system_transfer(u->sys, u->payer, a, need - *a->lamports))) return r;
  /* The loader serialised the data length just before the data and left MAX_PERMITTED_DATA_INCREASE bytes
   * after it: growing within them is writing the new length (the runtime reads it back). */
  for (u64 i = v1_size; i < size; i++) a->data[i] = 0;
  *(u64 *)(a->data - 8) = size;
  a->data_len = size;
  a->data[1] = version;
  *outcome = MIGRATED;
  return SUCCESS;
}

/* How a v1 loan ended, as far as v1 recorded it (v1 wrote a refinanced loan like an extended one and an
 * auto-sold loan like a liquidated one). */
static u8 v1_closed_by(const Loan *l) {
  if (l->status == LOAN_REPAID) return is_zero_key(&l->extended_to) ? CLOSED_REPAID : CLOSED_EXTENDED;
  if (l->status == LOAN_LIQUIDATED) return CLOSED_LIQUIDATED;
  if (l->status == LOAN_SOLD) return CLOSED_SOLD;
  return CLOSED_OPEN;
}

u64 ix_migrate(const SolParameters *p) {
  /* accounts: payer (signer, writable), system program, pool (writable), loans of the pool (writable)...;
   * at most 32 in all (the entrypoint refuses more rather than skip some) */
  if (p->ka_num < 3) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len != 1) return E_INVALID_INSTRUCTION;
  SolAccountInfo *ka = p->ka;
  const SolAccountInfo *payer = &ka[0], *sys = &ka[1];
  SolAccountInfo *pool = &ka[2];
  u64 r;
  if ((r = check_signer(payer, true))) return r;
  if ((r = check_system_program(sys))) return r;
  Upgrade u = {payer, sys, p->program_id};
  u8 outcome;
  u64 migrated = 0;
  if ((r = bring_up(&u, pool, &POOL_LAYOUT, &outcome))) return r;
  if (outcome == MIGRATED) {
    SolClock clock;
    if ((r = clock_now(&clock))) return r;
    ((Pool *)pool->data)->migrated_at = clock.unix_timestamp;
    migrated++;
  }
  for (u64 i = 3; i < p->ka_num; i++) {
    SolAccountInfo *loan = &ka[i];
    if ((r = bring_up(&u, loan, &LOAN_LAYOUT, &outcome))) return r;
    Loan *l = (Loan *)loan->data;
    if (!pubkey_eq(&l->pool, pool->key)) return E_ACCOUNT_MISMATCH;
    if (outcome == MIGRATED) {
      l->closed_by = v1_closed_by(l);
      migrated++;
    }
  }
  return migrated > 0 ? SUCCESS : E_NOTHING_TO_MIGRATE;
}
