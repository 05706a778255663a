/* PlaceBid, CancelBid and SellToBid: a collection bid escrows its price until a verified member of the
 * collection fills it or the bidder cancels. */
#include "market.h"

static const u8 BID_SEED[] = "bid";
static const u8 VAULT_SEED[] = "vault";

void bid_seeds(const Bid *b, SolSignerSeed *out) {
  out[0] = (SolSignerSeed){BID_SEED, sizeof(BID_SEED) - 1};
  out[1] = (SolSignerSeed){b->bidder.x, 32};
  out[2] = (SolSignerSeed){(const u8 *)&b->nonce, 8};
  out[3] = (SolSignerSeed){&b->bump, 1};
}

/* 3 PlaceBid: data [3, bid bump, vault bump, nonce u64, price u64, collection (32)]; accounts: 0 bidder (s, w),
 * 1 bid (w; PDA ["bid", bidder, nonce]), 2 vault (w; PDA ["vault", bid]), 3 currency mint, 4 bidder's currency
 * account (w), 5 token program, 6 system program. The price moves into the vault. */
u64 ix_place_bid(const SolParameters *p) {
  if (p->data_len != 51) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 7) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *bidder = &p->ka[0], *bid = &p->ka[1], *vault = &p->ka[2], *currency = &p->ka[3];
  const SolAccountInfo *source = &p->ka[4], *token = &p->ka[5], *sys = &p->ka[6];
  if (!bidder->is_signer) return E_MISSING_SIGNER;
  if (!bidder->is_writable) return E_NOT_WRITABLE;
  u64 r, price = rd64(p->data + 11);
  if (price == 0) return E_ZERO_PRICE;
  if ((r = check_token_program(token)) || (r = check_system_program(sys))) return r;
  if ((r = check_market_mint(currency, false))) return r;
  if ((r = check_token_account(source, currency->key, bidder->key))) return r;
  u8 bump = p->data[1], vault_bump = p->data[2];
  SolSignerSeed seeds[4] = {
    {BID_SEED, sizeof(BID_SEED) - 1}, {bidder->key->x, 32}, {p->data + 3, 8}, {&bump, 1}};
  if ((r = verify_pda(seeds, 4, p->program_id, bid->key))) return r;
  SolSignerSeed vseeds[3] = {{VAULT_SEED, sizeof(VAULT_SEED) - 1}, {bid->key->x, 32}, {&vault_bump, 1}};
  if ((r = verify_pda(vseeds, 3, p->program_id, vault->key))) return r;
  SolSignerSeeds signer = {seeds, 4}, vsigner = {vseeds, 3};
  NewAccount state = {bidder, bid, sys, token, NULL, p->program_id, NULL, sizeof(Bid), &signer};
  if ((r = create_pda(&state))) return r;
  NewAccount escrow = {bidder, vault, sys, token, currency, NULL, bid->key, 0, &vsigner};
  if ((r = create_token_pda(&escrow))) return r;
  TokenMove in = {token, source, vault, bidder, price, NULL};
  if ((r = spl_transfer(&in))) return r;
  SolClock clock;
  if ((r = sol_get_clock_sysvar(&clock))) return r;
  Bid *b = (Bid *)bid->data;
  b->tag = TAG_BID;
  b->version = MARKET_VERSION;
  b->bump = bump;
  b->vault_bump = vault_bump;
  copy_key(&b->bidder, bidder->key);
  copy_key(&b->collection, (const SolPubkey *)(p->data + 19));
  copy_key(&b->currency_mint, currency->key);
  copy_key(&b->vault, vault->key);
  b->price = price;
  b->nonce = rd64(p->data + 3);
  b->created_at = clock.unix_timestamp;
  return SUCCESS;
}

u64 load_bid(const SolParameters *p, const SolAccountInfo *bid, const SolAccountInfo *vault, Bid **out) {
  u64 r = check_state(bid, p->program_id, TAG_BID, sizeof(Bid));
  if (r) return r;
  Bid *b = (Bid *)bid->data;
  SolSignerSeed seeds[4];
  bid_seeds(b, seeds);
  if ((r = verify_pda(seeds, 4, p->program_id, bid->key))) return r;
  if (!pubkey_eq(&b->vault, vault->key)) return E_ACCOUNT_MISMATCH;
  if (!vault->is_writable) return E_NOT_WRITABLE;
  *out = b;
  return SUCCESS;
}

u64 load_bid_for_sale(const SolParameters *p, const SolAccountInfo *bid, const SolAccountInfo *vault,
                      const SolAccountInfo *bidder, Bid **out) {
  u64 r = load_bid(p, bid, vault, out);
  if (r) return r;
  if ((*out)->price < rd64(p->data + 1)) return E_PRICE_MOVED;
  if (!pubkey_eq(&(*out)->bidder, bidder->key)) return E_ACCOUNT_MISMATCH;
  return bidder->is_writable ? SUCCESS : E_NOT_WRITABLE;
}

/* pays the vault out to `to` (m->to), closes it and the bid to the bidder; m->from is the vault, m->authority
 * the bid */
u64 settle_bid(TokenMove *m, const SolAccountInfo *bidder, Bid *b) {
  SolSignerSeed seeds[4];
  bid_seeds(b, seeds);
  SolSignerSeeds signer = {seeds, 4};
  m->signer = &signer;
  m->amount = token_amount(m->from);
  u64 r;
  if (m->amount > 0 && (r = spl_transfer(m))) return r;
  m->to = bidder;
  if ((r = token_close(m))) return r;
  close_state(m->authority, bidder);
  return SUCCESS;
}

/* 4 CancelBid: data [4]; accounts: 0 bidder (s, w), 1 bid (w), 2 vault (w), 3 bidder's currency account (w),
 * 4 token program. The escrowed price returns; vault and bid close to the bidder. */
u64 ix_cancel_bid(const SolParameters *p) {
  if (p->data_len != 1) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *bidder = &p->ka[0], *bid = &p->ka[1], *vault = &p->ka[2], *dest = &p->ka[3];
  const SolAccountInfo *token = &p->ka[4];
  if (!bidder->is_signer) return E_MISSING_SIGNER;
  if (!bidder->is_writable) return E_NOT_WRITABLE;
  Bid *b;
  u64 r = load_bid(p, bid, vault, &b);
  if (r) return r;
  if (!pubkey_eq(&b->bidder, bidder->key)) return E_UNAUTHORIZED;
  if ((r = check_token_program(token)) || (r = check_token_account(dest, &b->currency_mint, bidder->key))) return r;
  TokenMove refund = {token, vault, dest, bid, 0, NULL};
  return settle_bid(&refund, bidder, b);
}

/* 5 SellToBid: data [5, min price u64, metadata bump]; accounts: 0 seller (s; the NFT source's authority, a
 * wallet or a program PDA signing by CPI), 1 bid (w), 2 vault (w), 3 NFT source (w), 4 bidder's NFT account
 * (w; owner = the bidder), 5 proceeds account (w; of the bid's currency), 6 NFT mint, 7 the NFT's Metaplex
 * metadata, 8 bidder (w; receives the rents), 9 token program. The NFT's verified collection must be the bid's;
 * refused below `min price` (PriceMoved). */
u64 ix_sell_to_bid(const SolParameters *p) {
  if (p->data_len != 10) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 10) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *bid = &p->ka[1], *vault = &p->ka[2], *source = &p->ka[3];
  const SolAccountInfo *dest = &p->ka[4], *proceeds = &p->ka[5], *mint = &p->ka[6], *metadata = &p->ka[7];
  const SolAccountInfo *bidder = &p->ka[8], *token = &p->ka[9];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  Bid *b;
  u64 r = load_bid_for_sale(p, bid, vault, bidder, &b);
  if (r) return r;
  if ((r = check_token_program(token)) || (r = check_market_mint(mint, true))) return r;
  SolPubkey collection;
  switch (metaplex_verified_collection(metadata, mint->key, p->data[9], &collection)) {
    case METAPLEX_OK: break;
    case METAPLEX_NOT_VERIFIED: return E_NOT_IN_COLLECTION;
    default: return E_INVALID_METADATA;
  }
  if (!pubkey_eq(&collection, &b->collection)) return E_NOT_IN_COLLECTION;
  if ((r = check_token_account(source, mint->key, NULL))) return r;
  if ((r = check_token_account(dest, mint->key, &b->bidder))) return r;
  if ((r = check_token_account(proceeds, &b->currency_mint, NULL))) return r;
  u64 price = b->price;
  TokenMove nft = {token, source, dest, seller, 1, NULL};
  if ((r = spl_transfer(&nft))) return r;
  TokenMove pay = {token, vault, proceeds, bid, 0, NULL};
  if ((r = settle_bid(&pay, bidder, b))) return r;
  static const u8 EVENT[] = "filled";
  log_event(EVENT, sizeof(EVENT) - 1, price);
  return SUCCESS;
}
