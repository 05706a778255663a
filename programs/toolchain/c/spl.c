/* Definitions of spl.h: include in exactly one .c file of a program, after its error codes (see spl.h). */
#include "spl.h"

u64 check_token_program(const SolAccountInfo *a) {
  return pubkey_eq(a->key, &TOKEN_PROGRAM_ID) ? SUCCESS : E_INVALID_TOKEN_PROGRAM;
}

u64 check_system_program(const SolAccountInfo *a) {
  return is_zero_key(a->key) ? SUCCESS : E_INVALID_SYSTEM_PROGRAM;
}

u64 check_token_account(const SolAccountInfo *a, const SolPubkey *mint, const SolPubkey *owner) {
  if (!pubkey_eq(a->owner, &TOKEN_PROGRAM_ID) || a->data_len != TOKEN_ACCOUNT_SIZE || a->data[108] != 1)
    return E_INVALID_TOKEN_ACCOUNT;
  if (!pubkey_eq((const SolPubkey *)a->data, mint)) return E_INVALID_MINT;
  if (owner && !pubkey_eq((const SolPubkey *)(a->data + 32), owner)) return E_INVALID_TOKEN_ACCOUNT;
  if (!a->is_writable) return E_NOT_WRITABLE;
  return SUCCESS;
}

u64 check_mint(const SolAccountInfo *a, u8 *decimals, u64 *supply) {
  if (!pubkey_eq(a->owner, &TOKEN_PROGRAM_ID) || a->data_len != MINT_SIZE || a->data[45] != 1) return E_INVALID_MINT;
  if (decimals) *decimals = a->data[44];
  if (supply) *supply = rd64(a->data + 36);
  return SUCCESS;
}

/* an invoke of `program` with up to 3 accounts (each passed with the data length it has now); `seeds` NULL when
 * no PDA signs */
typedef struct {
  const SolAccountInfo *program;
  const SolAccountInfo *acc[3];
  bool writable[3];
  bool signer[3];
  u64 n;
  u8 *data;
  u64 data_len;
  const SolSignerSeeds *seeds;
} Cpi;

static u64 cpi_run(const Cpi *c) {
  SolAccountMeta metas[3];
  SolAccountInfo infos[4];
  for (u64 i = 0; i < c->n; i++) {
    metas[i].pubkey = c->acc[i]->key;
    metas[i].is_writable = c->writable[i];
    metas[i].is_signer = c->signer[i];
    infos[i] = *c->acc[i];
    /* live length from the input region (an earlier CPI in this instruction may have resized it) */
    infos[i].data_len = *(const u64 *)(infos[i].data - 8);
  }
  infos[c->n] = *c->program;
  SolInstruction ix = {c->program->key, metas, c->n, c->data, c->data_len};
  return sol_invoke_signed_c(&ix, infos, (int)c->n + 1, c->seeds, c->seeds ? 1 : 0);
}

u64 system_transfer(const SolAccountInfo *system_program, const SolAccountInfo *from, const SolAccountInfo *to,
                    u64 lamports) {
  u8 data[12];
  *(u32 *)data = 2; /* Transfer */
  *(u64 *)(data + 4) = lamports;
  Cpi c = {system_program, {from, to, NULL}, {true, true, false}, {true, false, false}, 2, data, 12, NULL};
  return cpi_run(&c);
}

u64 create_pda_account(const CreateAccountArgs *a) {
  if (!pubkey_eq(a->target->owner, (const SolPubkey *)a->system_program->key) || a->target->data_len != 0)
    return E_ALREADY_INITIALIZED;
  if (!a->target->is_writable) return E_NOT_WRITABLE;
  SolRent rent;
  u64 r = sol_get_rent_sysvar(&rent);
  if (r) return r;
  u64 need = rent_minimum_balance(&rent, a->space);
  u64 have = *a->target->lamports;
  u8 data[52];
  if (have == 0) {
    *(u32 *)data = 0; /* CreateAccount */
    *(u64 *)(data + 4) = need;
    *(u64 *)(data + 12) = a->space;
    copy_key((SolPubkey *)(data + 20), a->owner);
    Cpi c = {a->system_program, {a->payer, a->target, NULL}, {true, true, false}, {true, true, false}, 2, data, 52, a->target_seeds};
    return cpi_run(&c);
  }
  /* pre-funded address: top up, allocate and assign (the PDA signs the last two) */
  if (have < need && (r = system_transfer(a->system_program, a->payer, a->target, need - have))) return r;
  *(u32 *)data = 8; /* Allocate */
  *(u64 *)(data + 4) = a->space;
  Cpi alloc = {a->system_program, {a->target, NULL, NULL}, {true, false, false}, {true, false, false}, 1, data, 12, a->target_seeds};
  if ((r = cpi_run(&alloc))) return r;
  *(u32 *)data = 1; /* Assign */
  copy_key((SolPubkey *)(data + 4), a->owner);
  Cpi assign = {a->system_program, {a->target, NULL, NULL}, {true, false, false}, {true, false, false}, 1, data, 36, a->target_seeds};
  return cpi_run(&assign);
}

u64 spl_transfer(const TransferArgs *a) {
  u8 data[9];
  data[0] = 3; /* Transfer */
  *(u64 *)(data + 1) = a->amount;
  Cpi c = {a->token_program, {a->from, a->to, a->authority}, {true, true, false}, {false, false, true}, 3, data, 9, a->signer};
  return cpi_run(&c);
}

u64 token_close(const TransferArgs *a) {
  u8 data[1] = {9}; /* CloseAccount */
  Cpi c = {a->token_program, {a->from, a->to, a->authority}, {true, true, false}, {false, false, true}, 3, data, 1, a->signer};
  return cpi_run(&c);
}

u64 token_init_account(const SolAccountInfo *token_program, const SolAccountInfo *account,
                       const SolAccountInfo *mint, const SolPubkey *owner) {
  u8 data[33];
  data[0] = 18; /* InitializeAccount3 */
  copy_key((SolPubkey *)(data + 1), owner);
  Cpi c = {token_program, {account, mint, NULL}, {true, false, false}, {false, false, false}, 2, data, 33, NULL};
  return cpi_run(&c);
}

u64 create_token_account(const TokenAccountArgs *a) {
  CreateAccountArgs ca = {a->payer, a->account, a->system_program, &TOKEN_PROGRAM_ID, TOKEN_ACCOUNT_SIZE, a->seeds};
  u64 r = create_pda_account(&ca);
  if (r) return r;
  return token_init_account(a->token_program, a->account, a->mint, a->authority);
}
