/* InitializeConfig (0) and UpdateConfig (1). */
#include "lending.h"

static const u8 CONFIG_SEED[] = "config";

/* Only the program's upgrade authority may initialize the config: `program` must be this program's
 * BPF Upgradeable Loader Program account (state Program { programdata_address }) and `program_data` that
 * ProgramData account (state ProgramData { slot, upgrade_authority: Some(admin) }). */
static u64 check_upgrade_authority(const SolAccountInfo *program, const SolAccountInfo *program_data,
                                   const SolPubkey *program_id, const SolPubkey *admin) {
  if (!pubkey_eq(program->key, program_id) || !pubkey_eq(program->owner, &BPF_LOADER_UPGRADEABLE_ID) ||
      program->data_len < LOADER_PROGRAM_SIZE || rd32(program->data) != LOADER_STATE_PROGRAM)
    return E_INVALID_PROGRAM_ACCOUNT;
  if (!pubkey_eq(program_data->key, (const SolPubkey *)(program->data + 4)) ||
      !pubkey_eq(program_data->owner, &BPF_LOADER_UPGRADEABLE_ID) ||
      program_data->data_len < LOADER_PROGRAM_DATA_HEADER || rd32(program_data->data) != LOADER_STATE_PROGRAM_DATA)
    return E_INVALID_PROGRAM_DATA;
  u8 has_authority = program_data->data[12];
  if (has_authority == 0) return E_PROGRAM_IMMUTABLE;
  if (has_authority != 1) return E_INVALID_PROGRAM_DATA;
  return pubkey_eq((const SolPubkey *)(program_data->data + 13), admin) ? SUCCESS : E_NOT_UPGRADE_AUTHORITY;
}

/* accounts: 0 admin (s, w; the program's upgrade authority), 1 config PDA (w), 2 system program,
 * 3 program account (this program id), 4 its ProgramData account.
 * data: tag, bump u8, fee_bps u16, oracle, treasury */
u64 ix_initialize_config(const SolParameters *p) {
  if (p->data_len != 68) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *admin = &p->ka[0], *config = &p->ka[1], *sys = &p->ka[2];
  u64 r = check_signer(admin, true);
  if (r) return r;
  if ((r = check_system_program(sys))) return r;
  if ((r = check_upgrade_authority(&p->ka[3], &p->ka[4], p->program_id, admin->key))) return r;
  u8 bump = p->data[1];
  u16 fee_bps = rd16(p->data + 2);
  if (fee_bps > MAX_FEE_BPS) return E_INVALID_FEE;
  SolSignerSeed seeds[2] = {{CONFIG_SEED, sizeof(CONFIG_SEED) - 1}, {&bump, 1}};
  /* the one Config: its canonical address (check_config then verifies with the stored, canonical bump) */
  if ((r = verify_canonical_pda(seeds, 1, p->program_id, config->key, bump))) return r;
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
  if ((r = check_config(config, p->program_id, true))) return r;
  Config *c = (Config *)config->data;
  if (!pubkey_eq(&c->admin, admin->key)) return E_UNAUTHORIZED;
  u8 mask = p->data[1], paused = p->data[2];
  if (mask > 15 || paused > 1 || p->data[99] != 0) return E_INVALID_INSTRUCTION;
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
