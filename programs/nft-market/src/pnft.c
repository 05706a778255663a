/* Programmable NFTs (Token Metadata ProgrammableNonFungible) on the market: a listing PDA holds the listed pNFT in
 * its associated token account, and a collection bid takes a pNFT of its verified collection. Every move is Token
 * Metadata's own Transfer v1 with the token records, the edition, the rule set the metadata names and Token Auth
 * Rules, so the rule set decides it (one that refuses the market's listing PDA refuses the listing). The checks and
 * the transfer are the shared programs/toolchain/c/tm_pnft.h. */
#include "market.h"
#include "tm_pnft.h"

static const u8 LISTING_SEED[] = "listing";
#define PNFT_TAIL_LEN 10

/* the ten accounts every pNFT instruction ends with: mint, metadata (w), master edition, Token Metadata, Token Auth
 * Rules (Token Metadata's id when the metadata names no rule set), the rule set (idem), sysvar instructions, system
 * program, token program, associated token program */
static void pnft_tail(const SolParameters *p, u64 first, TmPnft *out) {
  const SolAccountInfo *ka = p->ka + first;
  *out = (TmPnft){&ka[3], &ka[0], &ka[1], &ka[2], &ka[4], &ka[5], &ka[6], &ka[7], &ka[8], &ka[9]};
}

static u64 market_error(int r) {
  switch (r) {
    case TM_PNFT_OK: return SUCCESS;
    case TM_PNFT_BAD_PROGRAM: return E_INVALID_TM_PROGRAM;
    case TM_PNFT_NOT_PROGRAMMABLE: return E_NOT_PROGRAMMABLE;
    case TM_PNFT_NOT_WRITABLE: return E_NOT_WRITABLE;
    case TM_PNFT_BAD_TOKEN: return E_INVALID_TOKEN_ACCOUNT;
    case TM_PNFT_BAD_ADDRESS: return E_INVALID_PDA;
    default: return E_INVALID_METADATA;
  }
}

/* the tail's accounts (tm_pnft_check) with the mint an NFT's (decimals 0, supply 1) */
static u64 check_pnft(const TmPnft *a, u8 metadata_bump, u8 edition_bump) {
  u64 r = check_market_mint(a->mint, true);
  return r ? r : market_error(tm_pnft_check(a, metadata_bump, edition_bump));
}

/* `token` holds the pNFT for `owner`, and `record` is its token record */
static u64 check_holding(const TmPnft *a, const SolAccountInfo *token, const SolAccountInfo *record,
                         const SolPubkey *owner, u8 record_bump) {
  if (!token->is_writable) return E_NOT_WRITABLE;
  int r = tm_holds_pnft(a, token, owner);
  if (r == TM_PNFT_OK) r = tm_token_record_check(a, token, record, record_bump);
  return market_error(r);
}

/* Transfer v1, then what the chain holds: `h->to` is `h->to_owner`'s and holds the pNFT */
static u64 pnft_move(const TmPnft *a, const TmTransfer *h) {
  u64 r = tm_transfer_v1(a, h);
  return r ? r : market_error(tm_holds_pnft(a, h->to, h->to_owner->key));
}

/* 10 ListPnft: data [10, listing bump, price u64, metadata bump, edition bump, seller's token record bump];
 * accounts: 0 seller (s, w; the token's owner, pays), 1 listing (w; PDA ["listing", mint]), 2 seller's token account
 * (w; holds the pNFT), 3 its token record (w), 4 the listing's associated token account (w), 5 its token record
 * (w), 6 currency mint, 7-16 the pNFT tail. The listing PDA becomes the pNFT's owner (Transfer v1 by the seller). */
u64 ix_list_pnft(const SolParameters *p) {
  if (p->data_len != 13) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 7 + PNFT_TAIL_LEN) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *listing = &p->ka[1], *source = &p->ka[2], *source_record = &p->ka[3];
  const SolAccountInfo *held = &p->ka[4], *held_record = &p->ka[5], *currency = &p->ka[6];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  u64 r, price = rd64(p->data + 2);
  if (price == 0) return E_ZERO_PRICE;
  TmPnft a;
  pnft_tail(p, 7, &a);
  if ((r = check_pnft(&a, p->data[10], p->data[11])) || (r = check_market_mint(currency, false))) return r;
  if (pubkey_eq(a.mint->key, currency->key)) return E_INVALID_MINT;
  if ((r = check_holding(&a, source, source_record, seller->key, p->data[12]))) return r;
  u8 bump = p->data[1];
  SolSignerSeed seeds[3] = {{LISTING_SEED, sizeof(LISTING_SEED) - 1}, {a.mint->key->x, 32}, {&bump, 1}};
  if ((r = verify_pda(seeds, 3, p->program_id, listing->key))) return r;
  if ((r = market_error(tm_ata_and_record(&a, listing->key, held, held_record)))) return r;
  SolSignerSeeds signer = {seeds, 3};
  NewAccount state = {seller, listing, a.system, NULL, NULL, p->program_id, NULL, sizeof(Listing), &signer};
  if ((r = create_pda(&state))) return r;
  /* the listing exists (owned by the market, with data) before the rule set is asked about it */
  Listing *l = (Listing *)listing->data;
  l->tag = TAG_LISTING;
  l->version = MARKET_VERSION;
  l->bump = bump;
  l->standard = STANDARD_PNFT;
  copy_key(&l->seller, seller->key);
  copy_key(&l->nft_mint, a.mint->key);
  copy_key(&l->currency_mint, currency->key);
  copy_key(&l->escrow, held->key);
  l->price = price;
  TmTransfer in = {source, seller, source_record, held, listing, held_record, seller, seller, NULL};
  if ((r = pnft_move(&a, &in))) return r;
  SolClock clock;
  if ((r = sol_get_clock_sysvar(&clock))) return r;
  l->created_at = clock.unix_timestamp;
  return SUCCESS;
}

/* the pNFT `held` (a market PDA's associated token account, token record `held_record`) to `to` (`to_owner`'s
 * associated token account, token record `to_record`), the PDA signing; Token Metadata closes `held_record`, the
 * PDA closes `held` (empty now) to `rent_to` */
typedef struct {
  const SolAccountInfo *pda, *held, *held_record, *to, *to_record, *to_owner, *payer, *rent_to;
  const SolSignerSeeds *signer;
} PdaOut;

static u64 pda_out(const TmPnft *a, const PdaOut *o) {
  TmTransfer out = {o->held, o->pda, o->held_record, o->to, o->to_owner, o->to_record, o->pda, o->payer, o->signer};
  u64 r = pnft_move(a, &out);
  if (r) return r;
  TokenMove close = {a->token, o->held, o->rent_to, o->pda, 0, o->signer};
  return token_close(&close);
}

/* the listing's pNFT to `to` (`to_owner`'s associated token account), the listing signing; its token account (whose
 * rent the seller paid at ListPnft) and the listing close to the seller */
typedef struct {
  const SolAccountInfo *listing, *held, *held_record, *to, *to_record, *to_owner, *payer, *seller;
  u8 held_record_bump;
} ListingOut;

static u64 listing_out(const TmPnft *a, const ListingOut *o, Listing *l) {
  u64 r;
  if (!pubkey_eq(a->mint->key, &l->nft_mint)) return E_INVALID_MINT;
  if ((r = check_holding(a, o->held, o->held_record, o->listing->key, o->held_record_bump))) return r;
  if ((r = market_error(tm_ata_and_record(a, o->to_owner->key, o->to, o->to_record)))) return r;
  SolSignerSeed seeds[3];
  listing_seeds(l, &l->nft_mint, seeds);
  SolSignerSeeds signer = {seeds, 3};
  PdaOut out = {o->listing, o->held, o->held_record, o->to, o->to_record, o->to_owner, o->payer, o->seller, &signer};
  if ((r = pda_out(a, &out))) return r;
  close_state(o->listing, o->seller);
  return SUCCESS;
}

/* 11 DelistPnft: data [11, metadata bump, edition bump, the listing's token record bump]; accounts: 0 seller (s, w),
 * 1 listing (w), 2 the listing's associated token account (w), 3 its token record (w), 4 the seller's associated
 * token account (w), 5 its token record (w), 6-15 the pNFT tail. The pNFT returns; the listing closes to the seller. */
u64 ix_delist_pnft(const SolParameters *p) {
  if (p->data_len != 4) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 6 + PNFT_TAIL_LEN) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *listing = &p->ka[1];
  if (!seller->is_signer) return E_MISSING_SIGNER;
  if (!seller->is_writable) return E_NOT_WRITABLE;
  Listing *l;
  u64 r = load_listing_of(p, listing, STANDARD_PNFT, &p->ka[2], &l);
  if (r) return r;
  if (!pubkey_eq(&l->seller, seller->key)) return E_UNAUTHORIZED;
  TmPnft a;
  pnft_tail(p, 6, &a);
  if ((r = check_pnft(&a, p->data[1], p->data[2]))) return r;
  ListingOut o = {listing, &p->ka[2], &p->ka[3], &p->ka[4], &p->ka[5], seller, seller, seller, p->data[3]};
  return listing_out(&a, &o, l);
}

/* 12 BuyPnft: data [12, max price u64, metadata bump, edition bump, the listing's token record bump]; accounts:
 * 0 buyer (s, w; pays the price and what Token Metadata charges), 1 listing (w), 2 buyer's currency account (w),
 * 3 seller's currency account (w; owner = the seller), 4 seller (w; receives the listing's rent), 5 the pNFT's new
 * owner (any address), 6 the listing's associated token account (w), 7 its token record (w), 8 the new owner's
 * associated token account (w), 9 its token record (w), 10-19 the pNFT tail. Refused above `max price`. */
u64 ix_buy_pnft(const SolParameters *p) {
  if (p->data_len != 12) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 10 + PNFT_TAIL_LEN) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *buyer = &p->ka[0], *listing = &p->ka[1], *pay = &p->ka[2], *proceeds = &p->ka[3];
  const SolAccountInfo *seller = &p->ka[4];
  if (!buyer->is_signer) return E_MISSING_SIGNER;
  if (!buyer->is_writable) return E_NOT_WRITABLE;
  Listing *l;
  u64 r = load_listing_of(p, listing, STANDARD_PNFT, &p->ka[6], &l);
  if (r) return r;
  TmPnft a;
  pnft_tail(p, 10, &a);
  if ((r = check_pnft(&a, p->data[9], p->data[10]))) return r;
  u64 price = l->price;
  ListingPayment payment = {buyer, pay, proceeds, seller, a.token};
  if ((r = pay_for_listing(p, l, &payment))) return r;
  ListingOut o = {listing, &p->ka[6], &p->ka[7], &p->ka[8], &p->ka[9], &p->ka[5], buyer, seller, p->data[11]};
  if ((r = listing_out(&a, &o, l))) return r;
  static const u8 EVENT[] = "bought";
  log_event(EVENT, sizeof(EVENT) - 1, price);
  return SUCCESS;
}

/* 13 SellPnftToBid: data [13, min price u64, metadata bump, edition bump, the seller's token record bump];
 * accounts: 0 seller (s; the token's owner: a wallet, or a program's PDA signing by CPI), 1 payer (s, w; pays what
 * Token Metadata charges), 2 bid (w), 3 vault (w), 4 the seller's token account (w; holds the pNFT), 5 its token
 * record (w), 6 the bid's associated token account (w), 7 its token record (w), 8 the bidder's associated token
 * account (w), 9 its token record (w), 10 proceeds account (w; of the bid's currency), 11 bidder (w; receives the
 * rents), 12-21 the pNFT tail. The pNFT's verified collection must be the bid's; refused below `min price`.
 * It passes through the bid PDA's own token account: Token Metadata asks the rule set about a transfer a program
 * makes between two wallets as about any owner's transfer ("Transfer:Owner"), which rule sets allow when the source
 * or the destination is an account of a program they allow; the bid PDA is the market's. */
u64 ix_sell_pnft_to_bid(const SolParameters *p) {
  if (p->data_len != 12) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 12 + PNFT_TAIL_LEN) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *seller = &p->ka[0], *payer = &p->ka[1], *bid = &p->ka[2], *vault = &p->ka[3];
  const SolAccountInfo *source = &p->ka[4], *source_record = &p->ka[5], *via = &p->ka[6], *via_record = &p->ka[7];
  const SolAccountInfo *dest = &p->ka[8], *dest_record = &p->ka[9], *proceeds = &p->ka[10], *bidder = &p->ka[11];
  if (!seller->is_signer || !payer->is_signer) return E_MISSING_SIGNER;
  if (!payer->is_writable) return E_NOT_WRITABLE;
  Bid *b;
  u64 r = load_bid_for_sale(p, bid, vault, bidder, &b);
  if (r) return r;
  TmPnft a;
  pnft_tail(p, 12, &a);
  if ((r = check_pnft(&a, p->data[9], p->data[10]))) return r;
  SolPubkey collection;
  switch (metaplex_verified_collection(a.metadata, a.mint->key, p->data[9], &collection)) {
    case METAPLEX_OK: break;
    case METAPLEX_NOT_VERIFIED: return E_NOT_IN_COLLECTION;
    default: return E_INVALID_METADATA;
  }
  if (!pubkey_eq(&collection, &b->collection)) return E_NOT_IN_COLLECTION;
  if ((r = check_holding(&a, source, source_record, seller->key, p->data[11]))) return r;
  if ((r = market_error(tm_ata_and_record(&a, bid->key, via, via_record))) ||
      (r = market_error(tm_ata_and_record(&a, bidder->key, dest, dest_record))))
    return r;
  if ((r = check_token_account(proceeds, &b->currency_mint, NULL))) return r;
  u64 price = b->price;
  TmTransfer in = {source, seller, source_record, via, bid, via_record, seller, payer, NULL};
  if ((r = pnft_move(&a, &in))) return r;
  SolSignerSeed seeds[4];
  bid_seeds(b, seeds);
  SolSignerSeeds signer = {seeds, 4};
  PdaOut out = {bid, via, via_record, dest, dest_record, bidder, payer, payer, &signer};
  if ((r = pda_out(&a, &out))) return r;
  TokenMove pay = {a.token, vault, proceeds, bid, 0, NULL};
  if ((r = settle_bid(&pay, bidder, b))) return r;
  static const u8 EVENT[] = "filled";
  log_event(EVENT, sizeof(EVENT) - 1, price);
  return SUCCESS;
}
