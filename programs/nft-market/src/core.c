/* Metaplex Core assets on the market: a listing PDA owns the listed asset (Core TransferV1 from the seller), and
 * transfers it back (delist) or to the buyer; a collection bid takes a Core asset of its collection. The checks and
 * the transfer are the shared reader and CPI of programs/toolchain/c/mpl_core.h. */
#include "market.h"

static const u8 LISTING_SEED[] = "listing";

u64 check_core_asset(const SolAccountInfo *core, const SolAccountInfo *asset, const SolAccountInfo *collection,
                     const SolPubkey *owner) {
  if (!pubkey_eq(core->key, &MPL_CORE_PROGRAM_ID)) return E_INVALID_CORE_PROGRAM;
  if (!asset->is_writable) return E_NOT_WRITABLE;
  const SolPubkey *holder, *named;
  u64 asset_plugins, collection_plugins;
  int r = mpl_core_asset(asset, &holder, &named, &asset_plugins);
  if (r == MPL_CORE_NO_COLLECTION) return E_NOT_IN_COLLECTION;
  if (r != MPL_CORE_OK) return E_INVALID_METADATA;
  if (!pubkey_eq(named, collection->key)) return E_NOT_IN_COLLECTION;
  if (mpl_core_collection(collection, &collection_plugins) != MPL_CORE_OK) return E_INVALID_METADATA;
  if (!pubkey_eq(holder, owner)) return E_UNAUTHORIZED;
  int in_asset = mpl_core_plugins(asset, asset_plugins);
  int in_collection = mpl_core_plugins(collection, collection_plugins);
  if (in_asset == MPL_CORE_INVALID || in_collection == MPL_CORE_INVALID) return E_INVALID_METADATA;
  if (in_asset == MPL_CORE_UNSAFE || in_collection == MPL_CORE_UNSAFE) return E_UNSAFE_ASSET;
  if (in_asset == MPL_CORE_FROZEN || in_collection == MPL_CORE_FROZEN) return E_ASSET_FROZEN;
  return SUCCESS;
}

/* TransferV1 of the asset to `t->new_owner`, then what the chain holds: its owner is the new owner */
static u64 core_move(const MplCoreTransfer *t) {
  if (!pubkey_eq(t->core->key, &MPL_CORE_PROGRAM_ID)) return E_INVALID_CORE_PROGRAM;
  u64 r = mpl_core_transfer(t);
  if (r) return r;
  const SolAccountInfo *asset = t->asset;
  if (!pubkey_eq(asset->owner, &MPL_CORE_PROGRAM_ID) || *(const u64 *)(asset->data - 8) < 33 ||
      asset->data[0] != MPL_CORE_KEY_ASSET_V1 ||
      !pubkey_eq((const SolPubkey *)(asset->data + MPL_CORE_ASSET_OWNER), t->new_owner->key))
    return E_INVALID_METADATA;
  return SUCCESS;
}

/* 6 ListCore: data [6, listing bump, price u64]; accounts: 0 seller (s, w; the asset's owner), 1 listing (w; PDA
 * ["listing", asset]), 2 asset (w), 3 the Core collection it names, 4 currency mint, 5 Core program, 6 system
 * program. The listing PDA becomes the asset's owner. */
u64 ix_list_core(const SolParameters *p) {
  if (p->data_len != 10) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 7) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *listing = &p->ka[1], *asset = &p->ka[2], *collection = &p->ka[3];
  const SolAccountInfo *currency = &p->ka[4], *core = &p->ka[5], *sys = &p->ka[6];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  u64 r, price = rd64(p->data + 2);
  if (price == 0) return E_ZERO_PRICE;
  if ((r = check_system_program(sys)) || (r = check_market_mint(currency, false))) return r;
  if ((r = check_core_asset(core, asset, collection, seller->key))) return r;
  u8 bump = p->data[1];
  SolSignerSeed seeds[3] = {{LISTING_SEED, sizeof(LISTING_SEED) - 1}, {asset->key->x, 32}, {&bump, 1}};
  if ((r = verify_pda(seeds, 3, p->program_id, listing->key))) return r;
  SolSignerSeeds signer = {seeds, 3};
  NewAccount state = {seller, listing, sys, NULL, NULL, p->program_id, NULL, sizeof(Listing), &signer};
  if ((r = create_pda(&state))) return r;
  MplCoreTransfer in = {core, asset, collection, seller, seller, listing, NULL};
  if ((r = core_move(&in))) return r;
  SolClock clock;
  if ((r = sol_get_clock_sysvar(&clock))) return r;
  Listing *l = (Listing *)listing->data;
  l->tag = TAG_LISTING;
  l->version = MARKET_VERSION;
  l->bump = bump;
  l->standard = STANDARD_CORE;
  copy_key(&l->seller, seller->key);
  copy_key(&l->nft_mint, asset->key);
  copy_key(&l->currency_mint, currency->key);
  copy_key(&l->escrow, collection->key);
  l->price = price;
  l->created_at = clock.unix_timestamp;
  return SUCCESS;
}

/* 7 DelistCore: data [7]; accounts: 0 seller (s, w), 1 listing (w), 2 asset (w), 3 the collection it names,
 * 4 Core program. The asset returns to the seller; the listing closes to the seller. */
u64 ix_delist_core(const SolParameters *p) {
  if (p->data_len != 1) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *listing = &p->ka[1], *asset = &p->ka[2], *collection = &p->ka[3];
  const SolAccountInfo *core = &p->ka[4];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  Listing *l;
  u64 r = load_listing_of(p, listing, STANDARD_CORE, asset, &l);
  if (r) return r;
  if (!pubkey_eq(&l->seller, seller->key)) return E_UNAUTHORIZED;
  SolSignerSeed seeds[3];
  listing_seeds(l, &l->nft_mint, seeds);
  SolSignerSeeds signer = {seeds, 3};
  MplCoreTransfer back = {core, asset, collection, seller, listing, seller, &signer};
  if ((r = core_move(&back))) return r;
  close_state(listing, seller);
  return SUCCESS;
}

/* 8 BuyCore: data [8, max price u64]; accounts: 0 buyer (s, w; pays, and pays the Core transfer), 1 listing (w),
 * 2 buyer's currency account (w), 3 seller's currency account (w; owner = the seller), 4 the asset's new owner
 * (any address), 5 seller (w; receives the rent), 6 asset (w), 7 the collection it names, 8 Core program, 9 token
 * program. Refused above `max price` (PriceMoved). */
u64 ix_buy_core(const SolParameters *p) {
  if (p->data_len != 9) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 10) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *buyer = &p->ka[0], *listing = &p->ka[1], *pay = &p->ka[2], *proceeds = &p->ka[3];
  const SolAccountInfo *new_owner = &p->ka[4], *seller = &p->ka[5], *asset = &p->ka[6], *collection = &p->ka[7];
  const SolAccountInfo *core = &p->ka[8], *token = &p->ka[9];
  if (!buyer->is_signer) return E_MISSING_SIGNER;
  if (!buyer->is_writable) return E_NOT_WRITABLE;
  Listing *l;
  u64 r = load_listing_of(p, listing, STANDARD_CORE, asset, &l);
  if (r) return r;
  ListingPayment payment = {buyer, pay, proceeds, seller, token};
  if ((r = pay_for_listing(p, l, &payment))) return r;
  u64 price = l->price;
  SolSignerSeed seeds[3];
  listing_seeds(l, &l->nft_mint, seeds);
  SolSignerSeeds signer = {seeds, 3};
  MplCoreTransfer out = {core, asset, collection, buyer, listing, new_owner, &signer};
  if ((r = core_move(&out))) return r;
  close_state(listing, seller);
  static const u8 EVENT[] = "bought";
  log_event(EVENT, sizeof(EVENT) - 1, price);
  return SUCCESS;
}

/* 9 SellCoreToBid: data [9, min price u64]; accounts: 0 seller (s, w; the asset's owner, pays the Core transfer),
 * 1 bid (w), 2 vault (w), 3 asset (w), 4 the Core collection it names (= the bid's), 5 proceeds account (w; of the
 * bid's currency), 6 bidder (w; the asset's new owner, receives the rents), 7 Core program, 8 token program.
 * Refused below `min price` (PriceMoved). */
u64 ix_sell_core_to_bid(const SolParameters *p) {
  if (p->data_len != 9) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 9) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *bid = &p->ka[1], *vault = &p->ka[2], *asset = &p->ka[3];
  const SolAccountInfo *collection = &p->ka[4], *proceeds = &p->ka[5], *bidder = &p->ka[6], *core = &p->ka[7];
  const SolAccountInfo *token = &p->ka[8];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  Bid *b;
  u64 r = load_bid_for_sale(p, bid, vault, bidder, &b);
  if (r) return r;
  if (!pubkey_eq(&b->collection, collection->key)) return E_NOT_IN_COLLECTION;
  if ((r = check_token_program(token))) return r;
  if ((r = check_core_asset(core, asset, collection, seller->key))) return r;
  if ((r = check_token_account(proceeds, &b->currency_mint, NULL))) return r;
  u64 price = b->price;
  MplCoreTransfer nft = {core, asset, collection, seller, seller, bidder, NULL};
  if ((r = core_move(&nft))) return r;
  TokenMove pay = {token, vault, proceeds, bid, 0, NULL};
  if ((r = settle_bid(&pay, bidder, b))) return r;
  static const u8 EVENT[] = "filled";
  log_event(EVENT, sizeof(EVENT) - 1, price);
  return SUCCESS;
}
