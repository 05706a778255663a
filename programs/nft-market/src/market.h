/* Cistern's local NFT market: listings (a seller escrows an NFT at a price) and collection bids (a bidder
 * escrows currency for any NFT of a verified collection). The embedded default's stand-in for Tensor.
 * Layout contract: ../LAYOUT.md. */
#pragma once
#include "sol.h"
#include "metaplex.h"
#include "spl.h"
#include "mpl_core.h"
#include "bubblegum.h"

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
#define E_INVALID_CORE_PROGRAM 15218ULL
#define E_UNSAFE_ASSET 15219ULL
#define E_ASSET_FROZEN 15220ULL
#define E_INVALID_BUBBLEGUM_PROGRAM 15221ULL
#define E_INVALID_TM_PROGRAM 15222ULL
#define E_NOT_PROGRAMMABLE 15223ULL

#define TAG_LISTING 1
#define TAG_BID 2
#define MARKET_VERSION 1
/* Listing.standard (reserved0[0] before Core listings): which program holds the listed NFT */
#define STANDARD_CLASSIC 0
#define STANDARD_PNFT 1
#define STANDARD_CORE 2
#define STANDARD_CNFT 3

typedef struct {
  u8 tag, version, bump, escrow_bump, standard, config_bump, reserved0[2];
  /* classic: nft_mint the mint, escrow the listing's token account; pNFT: nft_mint the mint, escrow the listing
   * PDA's associated token account; Core: nft_mint the asset, escrow the Core collection the asset names (the
   * listing PDA owns the asset itself); compressed (cnft.c): nft_mint the asset id, escrow the collection its
   * metadata names verified, escrow_bump the asset id's bump, config_bump the tree config's bump, leaf_nonce the
   * leaf's nonce (the listing PDA owns the leaf) */
  SolPubkey seller, nft_mint, currency_mint, escrow;
  u64 price;
  i64 created_at;
  u64 leaf_nonce; /* compressed: the leaf's nonce (its index); 0 otherwise */
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

static inline u64 token_amount(const SolAccountInfo *a) { return rd64(a->data + 64); }

/* ---- util.c ---- */
/* (the System Program and SPL Token checks and CPIs are the shared spl.h) */
/* a classic SPL mint; `nft` also requires decimals 0 and supply 1 */
u64 check_market_mint(const SolAccountInfo *a, bool nft);
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
/* token Transfer of `amount` (spl_transfer), or CloseAccount of `from` into `to` (token_close, amount ignored);
 * the last field NULL when the authority signed the transaction */
typedef TransferArgs TokenMove;
/* zeroes a program account and moves its lamports to `to` */
void close_state(const SolAccountInfo *a, const SolAccountInfo *to);

u64 ix_list(const SolParameters *p);
u64 ix_delist(const SolParameters *p);
u64 ix_buy(const SolParameters *p);
u64 ix_place_bid(const SolParameters *p);
u64 ix_cancel_bid(const SolParameters *p);
u64 ix_sell_to_bid(const SolParameters *p);
u64 ix_list_core(const SolParameters *p);
u64 ix_delist_core(const SolParameters *p);
u64 ix_buy_core(const SolParameters *p);
u64 ix_sell_core_to_bid(const SolParameters *p);
u64 ix_list_pnft(const SolParameters *p);
u64 ix_delist_pnft(const SolParameters *p);
u64 ix_buy_pnft(const SolParameters *p);
u64 ix_sell_pnft_to_bid(const SolParameters *p);
u64 ix_list_cnft(const SolParameters *p);
u64 ix_delist_cnft(const SolParameters *p);
u64 ix_buy_cnft(const SolParameters *p);
u64 ix_sell_cnft_to_bid(const SolParameters *p);

/* ---- listing.c / bid.c, shared with core.c ---- */
void listing_seeds(const Listing *l, const SolPubkey *mint, SolSignerSeed *out);
u64 load_listing_state(const SolParameters *p, const SolAccountInfo *listing, Listing **out);
u64 load_listing_of(const SolParameters *p, const SolAccountInfo *listing, u8 standard, const SolAccountInfo *held,
                    Listing **out);
/* the bid PDA's signer seeds ["bid", bidder, nonce, bump] */
void bid_seeds(const Bid *b, SolSignerSeed *out);
u64 load_bid(const SolParameters *p, const SolAccountInfo *bid, const SolAccountInfo *vault, Bid **out);
/* A sale into a bid (SellToBid, SellCoreToBid, SellPnftToBid, SellCnftToBid; the min price u64 at data byte 1): the bid and its vault
 * (load_bid), at least the min price (PriceMoved), `bidder` the bid's and writable (it takes the NFT and the rents). */
u64 load_bid_for_sale(const SolParameters *p, const SolAccountInfo *bid, const SolAccountInfo *vault,
                      const SolAccountInfo *bidder, Bid **out);
/* A buy's payment (Buy, BuyCore, BuyPnft, BuyCnft; the max price u64 at data byte 1): the listing at most the max price
 * (PriceMoved), `seller` its seller and writable (it takes the rents), `pay` an account of its currency, `proceeds`
 * the seller's; then the buyer (a signer) pays the price. */
typedef struct {
  const SolAccountInfo *buyer, *pay, *proceeds, *seller, *token;
} ListingPayment;
u64 pay_for_listing(const SolParameters *p, const Listing *l, const ListingPayment *m);
u64 settle_bid(TokenMove *m, const SolAccountInfo *bidder, Bid *b);
void log_event(const u8 *name, u64 len, u64 price);

/* ---- core.c ---- */
/* A Core asset owned by `owner`, naming `collection` (a CollectionV1 of Core), with no permanent transfer, burn or
 * freeze delegate nor transfer hook, not frozen; `core` is the Core program. */
u64 check_core_asset(const SolAccountInfo *core, const SolAccountInfo *asset, const SolAccountInfo *collection,
                     const SolPubkey *owner);
