/* Account checks and CPIs; those of the System Program and classic SPL Token are the shared spl.c. */
#include "lending.h"
#include "spl.c"

u64 check_signer(const SolAccountInfo *a, bool writable) {
  if (!a->is_signer) return E_MISSING_SIGNER;
  if (writable && !a->is_writable) return E_NOT_WRITABLE;
  return SUCCESS;
}

u8 current_version(u8 tag) {
  return tag == TAG_POOL ? POOL_VERSION : tag == TAG_LOAN ? LOAN_VERSION : ACCOUNT_VERSION;
}

u64 check_state(const SolAccountInfo *a, const SolPubkey *program_id, u8 tag, u64 size, bool writable) {
  if (!pubkey_eq(a->owner, program_id)) return E_INVALID_OWNER;
  u8 version = current_version(tag);
  if (a->data_len >= 2 && a->data[0] == tag && a->data[1] < version) return E_ACCOUNT_NEEDS_MIGRATION;
  if (a->data_len != size || a->data[0] != tag || a->data[1] != version) return E_INVALID_DISCRIMINATOR;
  if (writable && !a->is_writable) return E_NOT_WRITABLE;
  return SUCCESS;
}
u64 check_wallet_currency_account(const SolAccountInfo *a, const SolPubkey *mint, const SolPubkey *wallet,
                                  const SolAccountInfo *vault) {
  if (pubkey_eq(a->key, vault->key)) return E_ACCOUNT_MISMATCH;
  return check_token_account(a, mint, wallet);
}

static const u8 CONFIG_SEED[] = "config";

u64 check_config(const SolAccountInfo *a, const SolPubkey *program_id, bool writable) {
  u64 r = check_state(a, program_id, TAG_CONFIG, sizeof(Config), writable);
  if (r) return r;
  SolSignerSeed seeds[2] = {{CONFIG_SEED, sizeof(CONFIG_SEED) - 1}, {&a->data[2], 1}};
  return verify_pda(seeds, 2, program_id, a->key);
}

u64 verify_pda(const SolSignerSeed *seeds, int n, const SolPubkey *program_id, const SolPubkey *expected) {
  return pda_matches(seeds, n, program_id, expected) ? SUCCESS : E_INVALID_PDA;
}

u64 verify_canonical_pda(const SolSignerSeed *seeds, int n, const SolPubkey *program_id, const SolPubkey *expected,
                         u8 bump) {
  SolPubkey canonical;
  u8 found;
  if (sol_try_find_program_address(seeds, n, program_id, &canonical, &found) || found != bump ||
      !pubkey_eq(&canonical, expected))
    return E_INVALID_PDA;
  return SUCCESS;
}

u64 clock_now(SolClock *clock) { return sol_get_clock_sysvar(clock); }

u64 token_transfer(const TransferArgs *a) {
  /* SPL Token accepts a transfer to the same account and moves nothing: books written after it would lie */
  if (pubkey_eq(a->from->key, a->to->key)) return E_SAME_ACCOUNT;
  return spl_transfer(a);
}
