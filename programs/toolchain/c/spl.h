/* System Program and classic SPL Token: account checks and CPIs shared by the programs (the lending program, the
 * NFT market). Declarations and types here; the definitions are in spl.c, which a program includes in exactly
 * one of its .c files (`#include "spl.c"`) after defining its own error codes for E_NOT_WRITABLE,
 * E_ALREADY_INITIALIZED, E_INVALID_TOKEN_ACCOUNT, E_INVALID_MINT, E_INVALID_TOKEN_PROGRAM and
 * E_INVALID_SYSTEM_PROGRAM. Names here are a stable contract: add, never rename. */
#pragma once
#include "sol.h"
#include "u128.h"

#define TOKEN_ACCOUNT_SIZE 165ULL
#define MINT_SIZE 82ULL

static const SolPubkey TOKEN_PROGRAM_ID = {{
  0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
  0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9}};

/* unaligned little-endian u64 load (SBPF v0 allows unaligned loads) */
static inline u64 rd64(const u8 *p) { return *(const u64 *)p; }
static inline bool is_zero_key(const SolPubkey *k) {
  const u64 *x = (const u64 *)k;
  return (x[0] | x[1] | x[2] | x[3]) == 0;
}
static inline void copy_key(SolPubkey *dst, const SolPubkey *src) {
  u64 *d = (u64 *)dst;
  const u64 *s = (const u64 *)src;
  d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
}

/* ---- checks ---- */
/* the account is the SPL Token program (E_INVALID_TOKEN_PROGRAM) */
u64 check_token_program(const SolAccountInfo *a);
/* the account is the System Program (E_INVALID_SYSTEM_PROGRAM) */
u64 check_system_program(const SolAccountInfo *a);
/* an initialized classic SPL token account of `mint` (and of `owner` unless NULL), writable */
u64 check_token_account(const SolAccountInfo *a, const SolPubkey *mint, const SolPubkey *owner);
/* an initialized classic SPL mint; its decimals and supply through the pointers that are not NULL */
u64 check_mint(const SolAccountInfo *a, u8 *decimals, u64 *supply);

/* ---- CPIs ---- */

/* System Program Transfer of `lamports` from the signer `from` to `to`. */
u64 system_transfer(const SolAccountInfo *system_program, const SolAccountInfo *from, const SolAccountInfo *to,
                    u64 lamports);

typedef struct {
  const SolAccountInfo *payer;
  const SolAccountInfo *target;
  const SolAccountInfo *system_program;
  const SolPubkey *owner;
  u64 space;
  const SolSignerSeeds *target_seeds;
} CreateAccountArgs;
/* Creates a rent-exempt account at a PDA (also works when someone pre-funded the address: top up, allocate and
 * assign, the PDA signing). E_ALREADY_INITIALIZED when the address holds data or is not the System Program's. */
u64 create_pda_account(const CreateAccountArgs *a);

typedef struct {
  const SolAccountInfo *token_program;
  const SolAccountInfo *from;
  const SolAccountInfo *to;
  const SolAccountInfo *authority;
  u64 amount;
  const SolSignerSeeds *signer; /* NULL when the authority signed the transaction */
} TransferArgs;
/* SPL Token Transfer of `amount` (no other check: a program that must refuse from == to checks it itself) */
u64 spl_transfer(const TransferArgs *a);
/* SPL Token CloseAccount of `from` (empty) sending its lamports to `to`; amount ignored */
u64 token_close(const TransferArgs *a);
/* InitializeAccount3(account, mint, owner = *owner) */
u64 token_init_account(const SolAccountInfo *token_program, const SolAccountInfo *account,
                       const SolAccountInfo *mint, const SolPubkey *owner);

/* a token account PDA (space 165, owner Tokenkeg) created and initialized */
typedef struct {
  const SolAccountInfo *payer;
  const SolAccountInfo *account;
  const SolAccountInfo *mint;
  const SolAccountInfo *system_program;
  const SolAccountInfo *token_program;
  const SolPubkey *authority;
  const SolSignerSeeds *seeds;
} TokenAccountArgs;
u64 create_token_account(const TokenAccountArgs *a);
