/* Account checks and token/system CPIs of the local NFT market. */
#include "market.h"
#include "u128.h"

u64 check_token_program(const SolAccountInfo *a) {
  return pubkey_eq(a->key, &TOKEN_PROGRAM_ID) ? SUCCESS : E_INVALID_TOKEN_PROGRAM;
}

u64 check_system_program(const SolAccountInfo *a) {
  const u64 *k = (const u64 *)a->key;
  return (k[0] | k[1] | k[2] | k[3]) == 0 ? SUCCESS : E_INVALID_SYSTEM_PROGRAM;
}

u64 check_mint(const SolAccountInfo *a, bool nft) {
  if (!pubkey_eq(a->owner, &TOKEN_PROGRAM_ID) || a->data_len != MINT_SIZE || a->data[45] != 1) return E_INVALID_MINT;
  if (nft && (a->data[44] != 0 || rd64(a->data + 36) != 1)) return E_NOT_AN_NFT;
  return SUCCESS;
}

u64 check_token_account(const SolAccountInfo *a, const SolPubkey *mint, const SolPubkey *owner) {
  if (!pubkey_eq(a->owner, &TOKEN_PROGRAM_ID) || a->data_len != TOKEN_ACCOUNT_SIZE || a->data[108] != 1)
    return E_INVALID_TOKEN_ACCOUNT;
  if (!pubkey_eq((const SolPubkey *)a->data, mint)) return E_INVALID_MINT;
  if (owner && !pubkey_eq((const SolPubkey *)(a->data + 32), owner)) return E_INVALID_TOKEN_ACCOUNT;
  if (!a->is_writable) return E_NOT_WRITABLE;
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

/* invoke `program` with up to 3 accounts */
typedef struct {
  const SolAccountInfo *program;
  const SolAccountInfo *acc[3];
  bool writable[3], signer[3];
  u64 n;
  u8 *data;
  u64 len;
  const SolSignerSeeds *seeds;
} Cpi;

static u64 cpi(const Cpi *c) {
  SolAccountMeta metas[3];
  SolAccountInfo infos[4];
  for (u64 i = 0; i < c->n; i++) {
    metas[i].pubkey = c->acc[i]->key;
    metas[i].is_writable = c->writable[i];
    metas[i].is_signer = c->signer[i];
    infos[i] = *c->acc[i];
    infos[i].data_len = *(const u64 *)(infos[i].data - 8);
  }
  infos[c->n] = *c->program;
  SolInstruction ix = {c->program->key, metas, c->n, c->data, c->len};
  return sol_invoke_signed_c(&ix, infos, (int)c->n + 1, c->seeds, c->seeds ? 1 : 0);
}

u64 create_pda(const NewAccount *a) {
  const SolAccountInfo *payer = a->payer, *target = a->target, *sys = a->sys;
  if (!pubkey_eq(target->owner, sys->key) || target->data_len != 0) return E_ALREADY_INITIALIZED;
  if (!target->is_writable) return E_NOT_WRITABLE;
  SolRent rent;
  u64 r = sol_get_rent_sysvar(&rent);
  if (r) return r;
  u64 need = rent_minimum_balance(&rent, a->space), have = *target->lamports;
  u8 data[52];
  if (have == 0) {
    *(u32 *)data = 0; /* CreateAccount */
    *(u64 *)(data + 4) = need;
    *(u64 *)(data + 12) = a->space;
    copy_key((SolPubkey *)(data + 20), a->owner);
    Cpi c = {sys, {payer, target, NULL}, {true, true, false}, {true, true, false}, 2, data, 52, a->seeds};
    return cpi(&c);
  }
  /* a pre-funded address: top up, allocate and assign (the PDA signs the last two) */
  if (have < need) {
    *(u32 *)data = 2; /* Transfer */
    *(u64 *)(data + 4) = need - have;
    Cpi c = {sys, {payer, target, NULL}, {true, true, false}, {true, false, false}, 2, data, 12, NULL};
    if ((r = cpi(&c))) return r;
  }
  *(u32 *)data = 8; /* Allocate */
  *(u64 *)(data + 4) = a->space;
  Cpi alloc = {sys, {target, NULL, NULL}, {true, false, false}, {true, false, false}, 1, data, 12, a->seeds};
  if ((r = cpi(&alloc))) return r;
  *(u32 *)data = 1; /* Assign */
  copy_key((SolPubkey *)(data + 4), a->owner);
  Cpi assign = {sys, {target, NULL, NULL}, {true, false, false}, {true, false, false}, 1, data, 36, a->seeds};
  return cpi(&assign);
}

u64 create_token_pda(const NewAccount *a) {
  NewAccount account = *a;
  account.owner = &TOKEN_PROGRAM_ID;
  account.space = TOKEN_ACCOUNT_SIZE;
  u64 r = create_pda(&account);
  if (r) return r;
  u8 data[33];
  data[0] = 18; /* InitializeAccount3 */
  copy_key((SolPubkey *)(data + 1), a->authority);
  Cpi c = {a->token, {a->target, a->mint, NULL}, {true, false, false}, {false, false, false}, 2, data, 33, NULL};
  return cpi(&c);
}

u64 token_transfer(const TokenMove *m) {
  u8 data[9];
  data[0] = 3; /* Transfer */
  *(u64 *)(data + 1) = m->amount;
  Cpi c = {m->token, {m->from, m->to, m->authority}, {true, true, false}, {false, false, true}, 3, data, 9, m->seeds};
  return cpi(&c);
}

u64 token_close(const TokenMove *m) {
  u8 data[1] = {9}; /* CloseAccount */
  Cpi c = {m->token, {m->from, m->to, m->authority}, {true, true, false}, {false, false, true}, 3, data, 1, m->seeds};
  return cpi(&c);
}

void close_state(const SolAccountInfo *a, const SolAccountInfo *to) {
  sol_memset_(a->data, 0, a->data_len);
  *to->lamports += *a->lamports;
  *a->lamports = 0;
}
