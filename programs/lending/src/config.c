/* InitializeConfig (0) and UpdateConfig (1). */
#include "lending.h"

static const u8 CONFIG_SEED[] = "config";

/* accounts: 0 admin (s, w), 1 config PDA (w), 2 system program.
 * data: tag, bump u8, fee_bps u16, oracle, treasury */
u64 ix_initialize_config(const SolParameters *p) {
  if (p->data_len != 68) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 3) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *admin = &p->ka[0], *config = &p->ka[1], *sys = &p->ka[2];
  u64 r = check_signer(admin, true);
  if (r) return r;
  if ((r = check_system_program(sys))) return r;
  u8 bump = p->data[1];
  u16 fee_bps = rd16(p->data + 2);
  if (fee_bps > MAX_FEE_BPS) return E_INVALID_FEE;
  SolSignerSeed seeds[2] = {{CONFIG_SEED, sizeof(CONFIG_SEED) - 1}, {&bump, 1}};
  if ((r = verify_pda(seeds, 2, p->program_id, config->key))) return r;
  SolSignerSeeds signer = {seeds, 2};
  CreateAccountArgs ca = {admin, config, sys, p->program_id, sizeof(Config), &signer};
  if ((r = create_pda_account(&ca))) return r;
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  Config *c = (Config *)config->data;
  c->tag = TAG_CONFIG;
  c->version = ACCOUNT_VERSION;
  c->bump = bump;
  c->paused = 0;
  c->fee_bps = fee_bps;
  copy_key(&c->admin, admin->key);
  copy_key(&c->oracle, (const SolPubkey *)(p->data + 4));
  copy_key(&c->treasury, (const SolPubkey *)(p->data + 36));
  c->created_at = clock.unix_timestamp;
  c->updated_at = clock.unix_timestamp;
  return SUCCESS;
}

#define MASK_ORACLE 1
#define MASK_TREASURY 2
#define MASK_PAUSED 4
#define MASK_ADMIN 8

/* accounts: 0 admin (s), 1 config (w). data: tag, mask, paused, oracle, treasury, admin, reserved */
u64 ix_update_config(const SolParameters *p) {
  if (p->data_len != 100) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 2) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *admin = &p->ka[0], *config = &p->ka[1];
  u64 r = check_signer(admin, false);
  if (r) return r;
  if ((r = check_state(config, p->program_id, TAG_CONFIG, sizeof(Config), true))) return r;
  Config *c = (Config *)config->data;
  if (!pubkey_eq(&c->admin, admin->key)) return E_UNAUTHORIZED;
  u8 mask = p->data[1], paused = p->data[2];
  if (mask > 15 || paused > 1) return E_INVALID_INSTRUCTION;
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  if (mask & MASK_ORACLE) copy_key(&c->oracle, (const SolPubkey *)(p->data + 3));
  if (mask & MASK_TREASURY) copy_key(&c->treasury, (const SolPubkey *)(p->data + 35));
  if (mask & MASK_PAUSED) c->paused = paused;
  if (mask & MASK_ADMIN) {
    if (is_zero_key((const SolPubkey *)(p->data + 67))) return E_INVALID_INSTRUCTION;
    copy_key(&c->admin, (const SolPubkey *)(p->data + 67));
  }
  c->updated_at = clock.unix_timestamp;
  return SUCCESS;
}
