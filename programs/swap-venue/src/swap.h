/* Cistern's local swap venue: a constant-product AMM, one pool per mint pair. Layout contract: ../LAYOUT.md. */
#pragma once
#include "sol.h"
#include "u128.h"

#define E_INVALID_INSTRUCTION 15000ULL
#define E_NOT_ENOUGH_ACCOUNTS 15001ULL
#define E_MISSING_SIGNER 15002ULL
#define E_NOT_WRITABLE 15003ULL
#define E_INVALID_OWNER 15004ULL
#define E_INVALID_PDA 15005ULL
#define E_ALREADY_INITIALIZED 15006ULL
#define E_INVALID_TOKEN_PROGRAM 15007ULL
#define E_INVALID_SYSTEM_PROGRAM 15008ULL
#define E_INVALID_MINT 15009ULL
#define E_INVALID_VAULT 15010ULL
#define E_INVALID_TOKEN_ACCOUNT 15011ULL
#define E_INVALID_FEE 15012ULL
#define E_ZERO_AMOUNT 15013ULL
#define E_SLIPPAGE_EXCEEDED 15014ULL
#define E_EMPTY_POOL 15015ULL
#define E_MATH_OVERFLOW 15016ULL

#define TAG_POOL 1
#define POOL_VERSION 1
#define MAX_FEE_BPS 1000
#define BPS 10000ULL
#define TOKEN_ACCOUNT_SIZE 165ULL
#define MINT_SIZE 82ULL

typedef struct {
  u8 tag, version, bump, vault_a_bump, vault_b_bump, reserved0;
  u16 fee_bps;
  SolPubkey mint_a, mint_b, vault_a, vault_b;
  u64 reserved1;
} SwapPool;
_Static_assert(sizeof(SwapPool) == 144, "SwapPool size");

static const SolPubkey TOKEN_PROGRAM_ID = {{
  0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
  0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9}};

static inline u64 rd64(const u8 *p) { return *(const u64 *)p; }
static inline u16 rd16(const u8 *p) { return *(const u16 *)p; }
static inline bool is_zero_key(const SolPubkey *k) {
  const u64 *x = (const u64 *)k;
  return (x[0] | x[1] | x[2] | x[3]) == 0;
}
static inline void copy_key(SolPubkey *dst, const SolPubkey *src) {
  u64 *d = (u64 *)dst;
  const u64 *s = (const u64 *)src;
  d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
}
/* -1, 0, 1 comparing the 32 bytes as unsigned big-endian numbers (the mint order of a pool) */
static inline int key_cmp(const SolPubkey *a, const SolPubkey *b) {
  for (int i = 0; i < 32; i++) {
    if (a->x[i] != b->x[i]) return a->x[i] < b->x[i] ? -1 : 1;
  }
  return 0;
}
/* a classic SPL token account's amount (no checks) */
static inline u64 token_amount(const SolAccountInfo *a) { return rd64(a->data + 64); }

/* ---- venue.c ---- */
u64 check_token_program(const SolAccountInfo *a);
/* classic SPL token account, initialized, of `mint` (owner checked by the token program on transfer) */
u64 check_token_account(const SolAccountInfo *a, const SolPubkey *mint);
/* the pool account: owned by the program, tag/version/size, at its PDA ["pool", mint_a, mint_b, bump] */
u64 load_pool(const SolAccountInfo *a, const SolPubkey *program_id, const SwapPool **out);
typedef struct {
  const SolAccountInfo *token_program, *from, *to, *authority;
  u64 amount;
  const SolSignerSeeds *seeds; /* NULL when the authority signed the transaction */
} Transfer;
u64 token_transfer(const Transfer *t);
typedef struct {
  u64 reserve_in, reserve_out, amount_in;
  u16 fee_bps;
  u64 amount_out, fee; /* results */
} Quote;
/* fee = ceil(amount_in * fee_bps / 10000); amount_out = floor(reserve_out * (amount_in - fee) / (reserve_in +
 * amount_in - fee)). False on overflow. */
bool quote_exact_in(Quote *q);

u64 ix_initialize_pool(const SolParameters *p);
u64 ix_add_liquidity(const SolParameters *p);
u64 ix_swap(const SolParameters *p);
