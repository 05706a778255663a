/* Cistern's local lending venue: one reserve per mint whose share price grows with chain time at a set rate.
 * The embedded default's stand-in for marginfi. Layout contract: ../LAYOUT.md. */
#pragma once
#include "sol.h"
#include "u128.h"

#define E_INVALID_INSTRUCTION 15100ULL
#define E_NOT_ENOUGH_ACCOUNTS 15101ULL
#define E_MISSING_SIGNER 15102ULL
#define E_NOT_WRITABLE 15103ULL
#define E_INVALID_OWNER 15104ULL
#define E_INVALID_PDA 15105ULL
#define E_ALREADY_INITIALIZED 15106ULL
#define E_INVALID_TOKEN_PROGRAM 15107ULL
#define E_INVALID_SYSTEM_PROGRAM 15108ULL
#define E_INVALID_MINT 15109ULL
#define E_INVALID_VAULT 15110ULL
#define E_INVALID_TOKEN_ACCOUNT 15111ULL
#define E_INVALID_RATE 15112ULL
#define E_ZERO_AMOUNT 15113ULL
#define E_INSUFFICIENT_SHARES 15114ULL
#define E_MATH_OVERFLOW 15115ULL
#define E_UNAUTHORIZED 15116ULL
#define E_POSITION_MISMATCH 15117ULL

#define TAG_RESERVE 1
#define TAG_POSITION 2
#define VENUE_VERSION 1
#define BPS 10000ULL
#define YEAR_SECONDS 31536000ULL
/* the share price (index) is a fixed-point number with 12 decimals; it starts at 1 */
#define INDEX_ONE 1000000000000ULL
#define MAX_RATE_BPS 10000U
#define TOKEN_ACCOUNT_SIZE 165ULL
#define MINT_SIZE 82ULL

typedef struct {
  u8 tag, version, bump, vault_bump;
  u32 rate_bps;
  SolPubkey mint, vault, admin;
  u64 index, total_shares;
  i64 last_update, created_at;
  u64 reserved[3];
} Reserve;
_Static_assert(sizeof(Reserve) == 160, "Reserve size");
_Static_assert(__builtin_offsetof(Reserve, index) == 104, "Reserve.index");

typedef struct {
  u8 tag, version, bump, reserved0[5];
  SolPubkey reserve, owner;
  u64 shares;
  i64 updated_at;
  u64 reserved1;
} Position;
_Static_assert(sizeof(Position) == 96, "Position size");

static const SolPubkey TOKEN_PROGRAM_ID = {{
  0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
  0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9}};

static inline u64 rd64(const u8 *p) { return *(const u64 *)p; }
static inline u32 rd32(const u8 *p) { return *(const u32 *)p; }
static inline bool is_zero_key(const SolPubkey *k) {
  const u64 *x = (const u64 *)k;
  return (x[0] | x[1] | x[2] | x[3]) == 0;
}
static inline void copy_key(SolPubkey *dst, const SolPubkey *src) {
  u64 *d = (u64 *)dst;
  const u64 *s = (const u64 *)src;
  d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
}

/* ---- util.c ---- */
typedef struct {
  const SolAccountInfo *payer, *target, *system;
  u64 space;
  const SolPubkey *owner;
  const SolSignerSeeds *seeds;
} CreateAccount;
u64 create_account(const CreateAccount *c);
u64 check_token_program(const SolAccountInfo *a);
/* the reserve: owned by the program, tag/version/size, at its PDA ["reserve", mint, bump] */
u64 load_reserve(const SolAccountInfo *a, const SolPubkey *program_id, Reserve **out);
/* the position: owned by the program, at ["position", reserve, owner, bump], of this reserve and owner */
u64 load_position(const SolAccountInfo *a, const SolPubkey *program_id, const SolAccountInfo *reserve,
                  const SolAccountInfo *owner, Position **out);
typedef struct {
  const SolAccountInfo *token_program, *from, *to, *authority;
  u64 amount;
  const SolSignerSeeds *seeds; /* NULL when the authority signed the transaction */
} Transfer;
u64 token_transfer(const Transfer *t);
/* index grows by floor(index x rate_bps x elapsed / (10000 x 31536000)) since last_update; false on overflow */
bool accrue(Reserve *r, i64 now);
/* shares for a deposit: floor(amount x INDEX_ONE / index) (the depositor never gains from rounding) */
bool shares_for_amount(u64 amount, u64 index, u64 *shares);
/* tokens for shares: floor(shares x index / INDEX_ONE) */
bool amount_for_shares(u64 shares, u64 index, u64 *amount);

u64 ix_initialize_reserve(const SolParameters *p);
u64 ix_set_rate(const SolParameters *p);
u64 ix_open_position(const SolParameters *p);
u64 ix_deposit(const SolParameters *p);
u64 ix_withdraw(const SolParameters *p);
