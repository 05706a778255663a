/* SetVenues (12): the outside programs the lending program composes with, pinned by the admin. */
#include "lending.h"

static const u8 VENUES_SEED[] = "venues";

/* Whether the Venues pin a marginfi group (the lending venue is then marginfi v2), and when `group` is given,
 * whether it is that group. Used by delegation.c. */
bool venues_marginfi_group(const Venues *v, const SolPubkey *group);

/* accounts: 0 admin (s, w), 1 config, 2 venues PDA ["venues"] (w), 3 system program.
 * data: tag, bump, swap program, NFT market program, lending venue program (98 bytes), then optionally the
 * marginfi group (130 bytes): with it the lending venue is marginfi v2 (the program pinned at 66) and delegation
 * only goes into that group; a zero group returns to the local lending venue; 98 bytes leave the group as it was.
 * The group is pinned by its first 16 bytes (Venues' reserved1: finding another account whose address shares
 * 128 bits with it is a 2^128 search). Creates the account on first use; a zero key means "none" (the composed
 * instructions are refused). */
u64 ix_set_venues(const SolParameters *p) {
  if (p->data_len != 98 && p->data_len != 130) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 4) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *admin = &p->ka[0], *config = &p->ka[1], *venues = &p->ka[2], *sys = &p->ka[3];
  u64 r = check_signer(admin, true);
  if (r) return r;
  if ((r = check_config(config, p->program_id, false))) return r;
  if (!pubkey_eq(&((const Config *)config->data)->admin, admin->key)) return E_UNAUTHORIZED;
  if ((r = check_system_program(sys))) return r;
  u8 bump = p->data[1];
  SolSignerSeed seeds[2] = {{VENUES_SEED, sizeof(VENUES_SEED) - 1}, {&bump, 1}};
  /* the one Venues: its canonical address (check_venues then verifies with the stored, canonical bump) */
  if ((r = verify_canonical_pda(seeds, 1, p->program_id, venues->key, bump))) return r;
  if (venues->data_len == 0) {
    SolSignerSeeds signer = {seeds, 2};
    CreateAccountArgs ca = {admin, venues, sys, p->program_id, sizeof(Venues), &signer};
    if ((r = create_pda_account(&ca))) return r;
  } else if ((r = check_state(venues, p->program_id, TAG_VENUES, sizeof(Venues), true))) {
    return r;
  }
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  Venues *v = (Venues *)venues->data;
  v->tag = TAG_VENUES;
  v->version = ACCOUNT_VERSION;
  v->bump = bump;
  copy_key(&v->swap_program, (const SolPubkey *)(p->data + 2));
  copy_key(&v->market_program, (const SolPubkey *)(p->data + 34));
  copy_key(&v->lending_program, (const SolPubkey *)(p->data + 66));
  if (p->data_len == 130) memcpy(v->reserved1, p->data + 98, sizeof(v->reserved1));
  v->updated_at = clock.unix_timestamp;
  return SUCCESS;
}

u64 check_venues(const SolAccountInfo *a, const SolPubkey *program_id) {
  u64 r = check_state(a, program_id, TAG_VENUES, sizeof(Venues), false);
  if (r) return r;
  SolSignerSeed seeds[2] = {{VENUES_SEED, sizeof(VENUES_SEED) - 1}, {&a->data[2], 1}};
  return verify_pda(seeds, 2, program_id, a->key);
}

bool venues_marginfi_group(const Venues *v, const SolPubkey *group) {
  bool pinned = false;
  for (u64 i = 0; i < sizeof(v->reserved1); i++) pinned |= v->reserved1[i] != 0;
  return pinned && (group == NULL || memcmp(v->reserved1, group->x, sizeof(v->reserved1)) == 0);
}
