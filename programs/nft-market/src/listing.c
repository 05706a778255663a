/* List, Delist and Buy: a listing escrows one NFT at a fixed price in a currency until bought or withdrawn. */
#include "market.h"

static const u8 LISTING_SEED[] = "listing";
static const u8 ESCROW_SEED[] = "escrow";

void listing_seeds(const Listing *l, const SolPubkey *mint, SolSignerSeed *out) {
  out[0] = (SolSignerSeed){LISTING_SEED, sizeof(LISTING_SEED) - 1};
  out[1] = (SolSignerSeed){mint->x, 32};
  out[2] = (SolSignerSeed){&l->bump, 1};
}

/* 0 List: data [0, listing bump, escrow bump, price u64]; accounts: 0 seller (s, w), 1 listing (w; PDA
 * ["listing", nft mint]), 2 escrow (w; PDA ["escrow", listing]), 3 NFT mint, 4 seller's NFT account (w),
 * 5 currency mint, 6 token program, 7 system program */
u64 ix_list(const SolParameters *p) {
  if (p->data_len != 11) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 8) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *listing = &p->ka[1], *escrow = &p->ka[2], *mint = &p->ka[3];
  const SolAccountInfo *source = &p->ka[4], *currency = &p->ka[5], *token = &p->ka[6], *sys = &p->ka[7];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  u64 r, price = rd64(p->data + 3);
  if (price == 0) return E_ZERO_PRICE;
  if ((r = check_token_program(token)) || (r = check_system_program(sys))) return r;
  if ((r = check_market_mint(mint, true)) || (r = check_market_mint(currency, false))) return r;
  if (pubkey_eq(mint->key, currency->key)) return E_INVALID_MINT;
  if ((r = check_token_account(source, mint->key, seller->key))) return r;
  u8 bump = p->data[1], escrow_bump = p->data[2];
  SolSignerSeed seeds[3] = {{LISTING_SEED, sizeof(LISTING_SEED) - 1}, {mint->key->x, 32}, {&bump, 1}};
  if ((r = verify_pda(seeds, 3, p->program_id, listing->key))) return r;
  SolSignerSeed eseeds[3] = {{ESCROW_SEED, sizeof(ESCROW_SEED) - 1}, {listing->key->x, 32}, {&escrow_bump, 1}};
  if ((r = verify_pda(eseeds, 3, p->program_id, escrow->key))) return r;
  SolSignerSeeds signer = {seeds, 3}, esigner = {eseeds, 3};
  NewAccount state = {seller, listing, sys, token, NULL, p->program_id, NULL, sizeof(Listing), &signer};
  if ((r = create_pda(&state))) return r;
  NewAccount vault = {seller, escrow, sys, token, mint, NULL, listing->key, 0, &esigner};
  if ((r = create_token_pda(&vault))) return r;
  TokenMove in = {token, source, escrow, seller, 1, NULL};
  if ((r = spl_transfer(&in))) return r;
  SolClock clock;
  if ((r = sol_get_clock_sysvar(&clock))) return r;
  Listing *l = (Listing *)listing->data;
  l->tag = TAG_LISTING;
  l->version = MARKET_VERSION;
  l->bump = bump;
  l->escrow_bump = escrow_bump;
  copy_key(&l->seller, seller->key);
  copy_key(&l->nft_mint, mint->key);
  copy_key(&l->currency_mint, currency->key);
  copy_key(&l->escrow, escrow->key);
  l->price = price;
  l->created_at = clock.unix_timestamp;
  return SUCCESS;
}

/* the listing (owned, tagged, at its PDA) */
u64 load_listing_state(const SolParameters *p, const SolAccountInfo *listing, Listing **out) {
  u64 r = check_state(listing, p->program_id, TAG_LISTING, sizeof(Listing));
  if (r) return r;
  Listing *l = (Listing *)listing->data;
  SolSignerSeed seeds[3];
  listing_seeds(l, &l->nft_mint, seeds);
  if ((r = verify_pda(seeds, 3, p->program_id, listing->key))) return r;
  *out = l;
  return SUCCESS;
}

/* a listing of `standard` and what holds its NFT, writable: a classic listing's escrow, a pNFT listing's token
 * account, a Core listing's asset */
u64 load_listing_of(const SolParameters *p, const SolAccountInfo *listing, u8 standard, const SolAccountInfo *held,
                    Listing **out) {
  Listing *l;
  u64 r = load_listing_state(p, listing, &l);
  if (r) return r;
  if (l->standard != standard) return E_INVALID_OWNER;
  if (!pubkey_eq(standard == STANDARD_CORE ? &l->nft_mint : &l->escrow, held->key)) return E_ACCOUNT_MISMATCH;
  if (!held->is_writable) return E_NOT_WRITABLE;
  *out = l;
  return SUCCESS;
}

u64 pay_for_listing(const SolParameters *p, const Listing *l, const ListingPayment *m) {
  if (l->price > rd64(p->data + 1)) return E_PRICE_MOVED;
  if (!pubkey_eq(&l->seller, m->seller->key)) return E_ACCOUNT_MISMATCH;
  if (!m->seller->is_writable) return E_NOT_WRITABLE;
  u64 r;
  if ((r = check_token_program(m->token))) return r;
  if ((r = check_token_account(m->pay, &l->currency_mint, NULL))) return r;
  if ((r = check_token_account(m->proceeds, &l->currency_mint, &l->seller))) return r;
  TokenMove payment = {m->token, m->pay, m->proceeds, m->buyer, l->price, NULL};
  return spl_transfer(&payment);
}

/* 1 Delist: data [1]; accounts: 0 seller (s, w), 1 listing (w), 2 escrow (w), 3 seller's NFT account (w),
 * 4 token program. The NFT returns; escrow and listing close to the seller. */
u64 ix_delist(const SolParameters *p) {
  if (p->data_len != 1) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *listing = &p->ka[1], *escrow = &p->ka[2], *dest = &p->ka[3];
  const SolAccountInfo *token = &p->ka[4];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  Listing *l;
  u64 r = load_listing_of(p, listing, STANDARD_CLASSIC, escrow, &l);
  if (r) return r;
  if (!pubkey_eq(&l->seller, seller->key)) return E_UNAUTHORIZED;
  if ((r = check_token_program(token)) || (r = check_token_account(dest, &l->nft_mint, seller->key))) return r;
  SolSignerSeed seeds[3];
  listing_seeds(l, &l->nft_mint, seeds);
  SolSignerSeeds signer = {seeds, 3};
  TokenMove back = {token, escrow, dest, listing, 1, &signer};
  if ((r = spl_transfer(&back))) return r;
  TokenMove close = {token, escrow, seller, listing, 0, &signer};
  if ((r = token_close(&close))) return r;
  close_state(listing, seller);
  return SUCCESS;
}

/* 2 Buy: data [2, max price u64]; accounts: 0 buyer (s), 1 listing (w), 2 escrow (w), 3 buyer's currency account
 * (w; pays), 4 seller's currency account (w; owner = the seller), 5 NFT destination (w; any account of the NFT
 * mint), 6 seller (w; receives the rents), 7 token program. Refused above `max price` (PriceMoved). */
u64 ix_buy(const SolParameters *p) {
  if (p->data_len != 9) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 8) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *buyer = &p->ka[0], *listing = &p->ka[1], *escrow = &p->ka[2], *pay = &p->ka[3];
  const SolAccountInfo *proceeds = &p->ka[4], *dest = &p->ka[5], *seller = &p->ka[6], *token = &p->ka[7];
  if (!buyer->is_signer) return E_MISSING_SIGNER;
  Listing *l;
  u64 r = load_listing_of(p, listing, STANDARD_CLASSIC, escrow, &l);
  if (r) return r;
  if ((r = check_token_account(dest, &l->nft_mint, NULL))) return r;
  ListingPayment payment = {buyer, pay, proceeds, seller, token};
  if ((r = pay_for_listing(p, l, &payment))) return r;
  u64 price = l->price;
  SolSignerSeed seeds[3];
  listing_seeds(l, &l->nft_mint, seeds);
  SolSignerSeeds signer = {seeds, 3};
  TokenMove nft = {token, escrow, dest, listing, 1, &signer};
  if ((r = spl_transfer(&nft))) return r;
  TokenMove close = {token, escrow, seller, listing, 0, &signer};
  if ((r = token_close(&close))) return r;
  close_state(listing, seller);
  static const u8 EVENT[] = "bought";
  log_event(EVENT, sizeof(EVENT) - 1, price);
  return SUCCESS;
}
