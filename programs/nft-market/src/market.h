/* Cistern's local NFT market: listings (a seller escrows an NFT at a price) and collection bids (a bidder
 * escrows currency for any NFT of a verified collection). The embedded default's stand-in for Tensor.
 * Layout contract: ../LAYOUT.md. */
#pragma once
#include "sol.h"
#include "metaplex.h"

#define E_INVALID_INSTRUCTION 15200ULL
#define E_NOT_ENOUGH_ACCOUNTS 15201ULL
#define E_MISSING_SIGNER 15202ULL
#define E_NOT_WRITABLE 15203ULL
#define E_INVALID_OWNER 15204ULL
#define E_INVALID_PDA 15205ULL
#define E_ALREADY_INITIALIZED 15206ULL
#define E_INVALID_TOKEN_PROGRAM 15207ULL
#define E_INVALID_SYSTEM_PROGRAM 15208ULL
#define E_INVALID_MINT 15209ULL
#define E_INVALID_TOKEN_ACCOUNT 15210ULL
#define E_NOT_AN_NFT 15211ULL
#define E_ZERO_PRICE 15212ULL
#define E_UNAUTHORIZED 15213ULL
#define E_PRICE_MOVED 15214ULL
#define E_INVALID_METADATA 15215ULL
#define E_NOT_IN_COLLECTION 15216ULL
#define E_ACCOUNT_MISMATCH 15217ULL

#define TAG_LISTING 1
#define TAG_BID 2
#define MARKET_VERSION 1
#define TOKEN_ACCOUNT_SIZE 165ULL
#define MINT_SIZE 82ULL

typedef struct {
  u8 tag, version, bump, escrow_bump, reserved0[4];
  SolPubkey seller, nft_mint, currency_mint, escrow;
  u64 price;
  i64 created_at;
  u64 reserved1;
} Listing;
_Static_assert(sizeof(Listing) == 160, "Listing size");

typedef struct {
  u8 tag, version, bump, vault_bump, reserved0[4];
  SolPubkey bidder, collection, currency_mint, vault;
  u64 price, nonce;
  i64 created_at;
  u64 reserved1[4];
} Bid;
_Static_assert(sizeof(Bid) == 192, "Bid size");

static const SolPubkey TOKEN_PROGRAM_ID = {{
  0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
  0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9}};

static inline u64 rd64(const u8 *p) { return *(const u64 *)p; }
static inline void copy_key(SolPubkey *dst, const SolPubkey *src) {
  u64 *d = (u64 *)dst;
  const u64 *s = (const u64 *)src;
  d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
}
static inline u64 token_amount(const SolAccountInfo *a) { return rd64(a->data + 64); }

/* ---- util.c ---- */
u64 check_token_program(const SolAccountInfo *a);
u64 check_system_program(const SolAccountInfo *a);
/* a classic SPL mint; `nft` also requires decimals 0 and supply 1 */
u64 check_mint(const SolAccountInfo *a, bool nft);
/* an initialized token account of `mint` (and of `owner` when not NULL), writable */
u64 check_token_account(const SolAccountInfo *a, const SolPubkey *mint, const SolPubkey *owner);
u64 verify_pda(const SolSignerSeed *seeds, int n, const SolPubkey *program_id, const SolPubkey *expected);
/* the program's account of `tag` at its size, writable */
u64 check_state(const SolAccountInfo *a, const SolPubkey *program_id, u8 tag, u64 size);
/* A new PDA: owned by `owner` with `space` bytes (the payer funds the rent; a pre-funded address is topped
 * up), or, with `mint` set, a token account of that mint whose authority is `authority`. */
typedef struct {
  const SolAccountInfo *payer, *target, *sys, *token, *mint;
  const SolPubkey *owner, *authority;
  u64 space;
  const SolSignerSeeds *seeds;
} NewAccount;
u64 create_pda(const NewAccount *a);
u64 create_token_pda(const NewAccount *a);
/* token Transfer of `amount`, or CloseAccount of `from` into `to` (amount ignored); `seeds` NULL when the
 * authority signed the transaction */
typedef struct {
  const SolAccountInfo *token, *from, *to, *authority;
  u64 amount;
  const SolSignerSeeds *seeds;
} TokenMove;
u64 token_transfer(const TokenMove *m);
u64 token_close(const TokenMove *m);
/* zeroes a program account and moves its lamports to `to` */
void close_state(const SolAccountInfo *a, const SolAccountInfo *to);

u64 ix_list(const SolParameters *p);
u64 ix_delist(const SolParameters *p);
u64 ix_buy(const SolParameters *p);
u64 ix_place_bid(const SolParameters *p);
u64 ix_cancel_bid(const SolParameters *p);
u64 ix_sell_to_bid(const SolParameters *p);
