/* Account checks and token/system CPIs of the local NFT market. */
#include "market.h"
#include "spl.c"

u64 check_market_mint(const SolAccountInfo *a, bool nft) {
  u8 decimals;
  u64 supply;
  u64 r = check_mint(a, &decimals, &supply);
  if (r) return r;
  if (nft && (decimals != 0 || supply != 1)) return E_NOT_AN_NFT;
  return SUCCESS;
}

u64 verify_pda(const SolSignerSeed *seeds, int n, const SolPubkey *program_id, const SolPubkey *expected) {
  SolPubkey derived;
  if (sol_create_program_address(seeds, n, program_id, &derived)) return E_INVALID_PDA;
  return pubkey_eq(&derived, expected) ? SUCCESS : E_INVALID_PDA;
}

u64 check_state(const SolAccountInfo *a, const SolPubkey *program_id, u8 tag, u64 size) {
  if (!pubkey_eq(a->owner, program_id)) return E_INVALID_OWNER;
  if (a->data_len != size || a->data[0] != tag || a->data[1] != MARKET_VERSION) return E_INVALID_OWNER;
  if (!a->is_writable) return E_NOT_WRITABLE;
  return SUCCESS;
}

u64 create_pda(const NewAccount *a) {
  CreateAccountArgs ca = {a->payer, a->target, a->sys, a->owner, a->space, a->seeds};
  return create_pda_account(&ca);
}

u64 create_token_pda(const NewAccount *a) {
  TokenAccountArgs ta = {a->payer, a->target, a->mint, a->sys, a->token, a->authority, a->seeds};
  return create_token_account(&ta);
}

void close_state(const SolAccountInfo *a, const SolAccountInfo *to) {
  sol_memset_(a->data, 0, a->data_len);
  *to->lamports += *a->lamports;
  *a->lamports = 0;
}

void log_event(const u8 *name, u64 len, u64 price) {
  SolBytes fields[2] = {{name, len}, {(const u8 *)&price, 8}};
  sol_log_data(fields, 2);
}
