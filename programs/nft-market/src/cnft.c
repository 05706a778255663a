/* Compressed NFTs (Bubblegum V1 leaves) on the market: a listing PDA owns the listed leaf (Bubblegum Transfer from
 * the seller, the proof as the last accounts) and transfers it back (delist) or to the buyer; a collection bid takes
 * a leaf whose MetadataArgs name its collection verified. The program reads the collection from the MetadataArgs the
 * seller passes and hashes them; Bubblegum's Transfer verifies the leaf commits to those hashes, so metadata the leaf
 * does not commit to, a stale or foreign proof, or a seller who does not own the leaf fail the transfer. The checks,
 * the reader and the CPI are the shared programs/toolchain/c/bubblegum.h (the lending program's cNFT custody uses
 * them too). */
#include "market.h"

static const u8 LISTING_SEED[] = "listing";

/* the Bubblegum block at `at` (tree (w), tree config, Bubblegum, SPL Account Compression, SPL Noop, system program),
 * then the proof: every account after the block */
static u64 cnft_block(const SolParameters *p, u64 at, BubblegumAccounts *a) {
  if (p->ka_num < at + 6) return E_NOT_ENOUGH_ACCOUNTS;
  a->tree = &p->ka[at];
  a->tree_config = &p->ka[at + 1];
  a->bubblegum = &p->ka[at + 2];
  a->compression = &p->ka[at + 3];
  a->noop = &p->ka[at + 4];
  a->system = &p->ka[at + 5];
  a->owner = NULL;
  a->proof = &p->ka[at + 6];
  a->proof_len = p->ka_num - at - 6;
  return SUCCESS;
}

/* the block's programs by id, the tree (Compression's, writable) and its config (Bubblegum's PDA, a->config_bump) */
static u64 cnft_check(const BubblegumAccounts *a) {
  u64 r = check_system_program(a->system);
  if (r) return r;
  switch (bubblegum_check_accounts(a)) {
    case BUBBLEGUM_OK: return SUCCESS;
    case BUBBLEGUM_WRONG_PROGRAM: return E_INVALID_BUBBLEGUM_PROGRAM;
    case BUBBLEGUM_WRONG_OWNER: return E_INVALID_METADATA;
    case BUBBLEGUM_NOT_WRITABLE: return E_NOT_WRITABLE;
    case BUBBLEGUM_LONG_PROOF: return E_NOT_ENOUGH_ACCOUNTS;
    default: return E_INVALID_PDA;
  }
}

/* the Bubblegum block at `at`, checked */
static u64 cnft_accounts(const SolParameters *p, u64 at, BubblegumAccounts *a) {
  u64 r = cnft_block(p, at, a);
  return r ? r : cnft_check(a);
}

/* the leaf named by the data at `leaf` (root 32, nonce u64, MetadataArgs to the end): its verified collection and
 * the hashes (64 bytes: data hash, creator hash) Bubblegum's Transfer checks the leaf against */
static u64 cnft_leaf(const SolParameters *p, const u8 *leaf, BubblegumAccounts *a, SolPubkey *collection,
                     u8 *hashes) {
  a->root = leaf;
  a->nonce = rd64(leaf + 32);
  a->data_hash = hashes;
  a->creator_hash = hashes + 32;
  if (a->nonce > 0xffffffffULL) return E_INVALID_INSTRUCTION; /* a leaf's nonce is its u32 index */
  const u8 *args = leaf + 40;
  switch (bubblegum_read_metadata(args, p->data + p->data_len - args, collection, hashes, hashes + 32)) {
    case METAPLEX_OK: return SUCCESS;
    case METAPLEX_NOT_VERIFIED: return E_NOT_IN_COLLECTION;
    default: return E_INVALID_METADATA;
  }
}

/* a compressed listing's Bubblegum block at `at` and its leaf from the data at `hashes` (root, data hash, creator
 * hash): the tree passed must be the one whose leaf `nonce` is the listed asset id */
static u64 listed_leaf(const SolParameters *p, u64 at, const Listing *l, const u8 *hashes, BubblegumAccounts *a) {
  u64 r = cnft_block(p, at, a);
  if (r) return r;
  a->config_bump = l->config_bump;
  a->root = hashes;
  a->data_hash = hashes + 32;
  a->creator_hash = hashes + 64;
  a->nonce = l->leaf_nonce;
  if (!bubblegum_asset_id_matches(a->tree->key, a->nonce, l->escrow_bump, &l->nft_mint)) return E_ACCOUNT_MISMATCH;
  return cnft_check(a);
}

/* a compressed listing (loaded, of this standard; held by no other account than the listing itself) */
static u64 load_cnft_listing(const SolParameters *p, const SolAccountInfo *listing, Listing **out) {
  u64 r = load_listing_state(p, listing, out);
  if (r) return r;
  return (*out)->standard == STANDARD_CNFT ? SUCCESS : E_INVALID_OWNER;
}

/* 14 ListCnft: data [14, listing bump, asset id bump, tree config bump, price u64, root, nonce u64, MetadataArgs];
 * accounts: 0 seller (s, w; the leaf's owner), 1 listing (w; PDA ["listing", asset id]), 2 currency mint, 3-8 the
 * Bubblegum block (tree (w), tree config, Bubblegum, SPL Account Compression, SPL Noop, system program), 9.. the
 * proof. The listing PDA becomes the leaf's owner; the listing records the collection the metadata names verified. */
u64 ix_list_cnft(const SolParameters *p) {
  if (p->data_len <= 52) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 9) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *listing = &p->ka[1], *currency = &p->ka[2];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  u64 r, price = rd64(p->data + 4);
  if (price == 0) return E_ZERO_PRICE;
  BubblegumAccounts a;
  a.config_bump = p->data[3];
  SolPubkey collection, asset;
  u8 hashes[64];
  if ((r = cnft_accounts(p, 3, &a)) || (r = cnft_leaf(p, p->data + 12, &a, &collection, hashes))) return r;
  if ((r = check_market_mint(currency, false))) return r;
  if (!bubblegum_asset_id(a.tree->key, a.nonce, p->data[2], &asset)) return E_INVALID_PDA;
  u8 bump = p->data[1];
  SolSignerSeed seeds[3] = {{LISTING_SEED, sizeof(LISTING_SEED) - 1}, {asset.x, 32}, {&bump, 1}};
  if ((r = verify_pda(seeds, 3, p->program_id, listing->key))) return r;
  SolSignerSeeds signer = {seeds, 3};
  NewAccount state = {seller, listing, a.system, NULL, NULL, p->program_id, NULL, sizeof(Listing), &signer};
  if ((r = create_pda(&state))) return r;
  if ((r = bubblegum_transfer(&a, seller, listing, NULL))) return r;
  SolClock clock;
  if ((r = sol_get_clock_sysvar(&clock))) return r;
  Listing *l = (Listing *)listing->data;
  l->tag = TAG_LISTING;
  l->version = MARKET_VERSION;
  l->bump = bump;
  l->escrow_bump = p->data[2];
  l->standard = STANDARD_CNFT;
  l->config_bump = a.config_bump;
  copy_key(&l->seller, seller->key);
  copy_key(&l->nft_mint, &asset);
  copy_key(&l->currency_mint, currency->key);
  copy_key(&l->escrow, &collection);
  l->price = price;
  l->created_at = clock.unix_timestamp;
  l->leaf_nonce = a.nonce;
  return SUCCESS;
}

/* 15 DelistCnft: data [15, root, data hash, creator hash]; accounts: 0 seller (s, w), 1 listing (w), 2-7 the
 * Bubblegum block, 8.. the proof. The leaf returns to the seller; the listing closes to the seller. */
u64 ix_delist_cnft(const SolParameters *p) {
  if (p->data_len != 97) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 8) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *listing = &p->ka[1];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  Listing *l;
  u64 r = load_cnft_listing(p, listing, &l);
  if (r) return r;
  if (!pubkey_eq(&l->seller, seller->key)) return E_UNAUTHORIZED;
  BubblegumAccounts a;
  if ((r = listed_leaf(p, 2, l, p->data + 1, &a))) return r;
  SolSignerSeed seeds[3];
  listing_seeds(l, &l->nft_mint, seeds);
  SolSignerSeeds signer = {seeds, 3};
  if ((r = bubblegum_transfer(&a, listing, seller, &signer))) return r;
  close_state(listing, seller);
  return SUCCESS;
}

/* 16 BuyCnft: data [16, max price u64, root, data hash, creator hash]; accounts: 0 buyer (s), 1 listing (w),
 * 2 buyer's currency account (w), 3 seller's currency account (w; owner = the seller), 4 the leaf's new owner (any
 * address), 5 seller (w; receives the rent), 6 token program, 7-12 the Bubblegum block, 13.. the proof. Refused
 * above `max price` (PriceMoved). */
u64 ix_buy_cnft(const SolParameters *p) {
  if (p->data_len != 105) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 13) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *buyer = &p->ka[0], *listing = &p->ka[1], *pay = &p->ka[2], *proceeds = &p->ka[3];
  const SolAccountInfo *new_owner = &p->ka[4], *seller = &p->ka[5], *token = &p->ka[6];
  if (!buyer->is_signer) return E_MISSING_SIGNER;
  Listing *l;
  u64 r = load_cnft_listing(p, listing, &l);
  if (r) return r;
  BubblegumAccounts a;
  if ((r = listed_leaf(p, 7, l, p->data + 9, &a))) return r;
  ListingPayment payment = {buyer, pay, proceeds, seller, token};
  if ((r = pay_for_listing(p, l, &payment))) return r;
  u64 price = l->price;
  SolSignerSeed seeds[3];
  listing_seeds(l, &l->nft_mint, seeds);
  SolSignerSeeds signer = {seeds, 3};
  if ((r = bubblegum_transfer(&a, listing, new_owner, &signer))) return r;
  close_state(listing, seller);
  static const u8 EVENT[] = "bought";
  log_event(EVENT, sizeof(EVENT) - 1, price);
  return SUCCESS;
}

/* 17 SellCnftToBid: data [17, min price u64, tree config bump, root, nonce u64, MetadataArgs]; accounts: 0 seller
 * (s; the leaf's owner: a wallet, or a program's PDA signing by CPI; it pays nothing), 1 bid (w), 2 vault (w),
 * 3 proceeds account (w; of the bid's currency), 4 bidder (w; the leaf's new owner, receives the rents), 5 token
 * program, 6-11 the Bubblegum block, 12.. the proof. The collection the metadata names verified must be the bid's;
 * Bubblegum's Transfer checks the leaf commits to that metadata. Refused below `min price` (PriceMoved). */
u64 ix_sell_cnft_to_bid(const SolParameters *p) {
  if (p->data_len <= 50) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 12) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *bid = &p->ka[1], *vault = &p->ka[2], *proceeds = &p->ka[3];
  const SolAccountInfo *bidder = &p->ka[4], *token = &p->ka[5];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  Bid *b;
  u64 r = load_bid_for_sale(p, bid, vault, bidder, &b);
  if (r) return r;
  BubblegumAccounts a;
  a.config_bump = p->data[9];
  SolPubkey collection;
  u8 hashes[64];
  if ((r = cnft_accounts(p, 6, &a)) || (r = cnft_leaf(p, p->data + 10, &a, &collection, hashes))) return r;
  if (!pubkey_eq(&collection, &b->collection)) return E_NOT_IN_COLLECTION;
  if ((r = check_token_program(token))) return r;
  if ((r = check_token_account(proceeds, &b->currency_mint, NULL))) return r;
  u64 price = b->price;
  if ((r = bubblegum_transfer(&a, seller, bidder, NULL))) return r;
  TokenMove pay = {token, vault, proceeds, bid, 0, NULL};
  if ((r = settle_bid(&pay, bidder, b))) return r;
  static const u8 EVENT[] = "filled";
  log_event(EVENT, sizeof(EVENT) - 1, price);
  return SUCCESS;
}
