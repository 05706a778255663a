/* Loan requests: PostRequest (20), CancelRequest (21), FillRequest (22). A borrower posts the terms they want
 * (currency, principal, duration, the highest APR they accept) with the collateral escrowed by the program; any
 * lender fills it from one of their pools' bank in one instruction, or the borrower cancels and gets the
 * collateral back. The filled loan is a Loan of kind RequestLoan and ends like any loan. */
#include "loan.h"

#define POST_DATA_LEN 41
/* PostRequest of a Core asset or a compressed NFT: byte 41 its nftType, 42 and 43 its PDA bumps (a compressed NFT: the
 * asset id's, the tree config's; Core: 0), then a compressed NFT's leaf (root, nonce, proof length, MetadataArgs) */
#define POST_CUSTODY_DATA_LEN 44
/* PostRequest of a programmable NFT the request PDA holds: byte 41 nftType 4, 42 the metadata bump, 43 the master
 * edition bump, 44 the borrower's token record bump */
#define POST_PNFT_DATA_LEN 45
#define FILL_DATA_LEN 32

static const u8 REQUEST_SEED[] = "request";
static const u8 ESCROW_SEED[] = "escrow";
static const u8 BANK_SEED[] = "bank";

static void request_signer_seeds(const Request *rq, SolSignerSeed *out) {
  out[0].addr = REQUEST_SEED;
  out[0].len = sizeof(REQUEST_SEED) - 1;
  out[1].addr = rq->borrower.x;
  out[1].len = 32;
  out[2].addr = (const u8 *)&rq->nonce;
  out[2].len = 8;
  out[3].addr = &rq->bump;
  out[3].len = 1;
}

/* the request (Open), its escrow and the token program; the caller checks who signs */
static u64 check_open_request(const SolParameters *p, const SolAccountInfo *request, const SolAccountInfo *escrow,
                              const SolAccountInfo *token) {
  u64 r = check_state(request, p->program_id, TAG_REQUEST, sizeof(Request), true);
  if (r) return r;
  Request *rq = (Request *)request->data;
  if (!pubkey_eq(&rq->escrow, escrow->key)) return E_ACCOUNT_MISMATCH;
  if (!escrow->is_writable) return E_NOT_WRITABLE;
  if (rq->status != REQUEST_OPEN) return E_REQUEST_NOT_OPEN;
  return check_token_program(token);
}

/* The accounts of a request's collateral of another standard than the classic escrow: a Core asset the request PDA
 * owns, or a compressed NFT's leaf it owns (custody.h). */
typedef struct {
  union { /* one standard's */
    CoreAccounts core;
    CnftAccounts cnft;
    PnftAccounts pnft; /* a programmable NFT the request PDA holds in its associated token account */
  };
  CnftBeginning leaf; /* PostRequest of a compressed NFT: its collection and hashes, computed from its metadata */
} RequestStandard;

/* the request's custody (its escrow, the asset or the tree; the request signing) */
typedef struct {
  SolSignerSeed seeds[4];
  SolSignerSeeds signer;
  Custody custody;
} RequestCustody;

static void request_custody(RequestCustody *rc, const SolAccountInfo *token, const SolAccountInfo *request,
                            const SolAccountInfo *escrow, const RequestStandard *standard) {
  const Request *rq = (const Request *)request->data;
  request_signer_seeds(rq, rc->seeds);
  rc->signer.addr = rc->seeds;
  rc->signer.len = 4;
  /* the standard's accounts (one union: any member's address is each one's) */
  Custody held = {rq->nft_type, token, request, &rc->signer, escrow,
                  {rq->nft_type == NFT_TYPE_CLASSIC ? NULL : &standard->pnft}};
  rc->custody = held;
}

/* A held Core asset's accounts: `asset` (the request's escrow), the collection it names now and the Core program at
 * `first`; `payer` signs what Core charges */
static u64 request_core_accounts(const SolParameters *p, u64 first, const SolAccountInfo *asset,
                                 const SolAccountInfo *payer, CoreAccounts *out) {
  if (p->ka_num < first + 2) return E_NOT_ENOUGH_ACCOUNTS;
  out->asset = asset;
  out->collection = &p->ka[first];
  out->core = &p->ka[first + 1];
  out->payer = payer;
  out->owner = &p->ka[0];
  return SUCCESS;
}

/* A held leaf's accounts (the tree the request's escrow) at `first` and the root and hashes in `leaf`; the nonce and
 * tree config bump the request recorded */
static u64 request_cnft_accounts(const SolParameters *p, const Request *rq, u64 first, bool with_system,
                                 const SolAccountInfo *tree, const u8 *leaf, CnftAccounts *out) {
  u64 r = cnft_block(p, first, with_system, leaf, out);
  if (r) return r;
  out->tree = tree;
  out->owner = &p->ka[0];
  out->nonce = rq->leaf_nonce;
  out->config_bump = rq->custody_bumps[1];
  return SUCCESS;
}

/* PostRequest of a programmable NFT (data POST_PNFT_DATA_LEN): 3 the request PDA's associated token account (w; the
 * custody, recorded as `escrow`), 4 the mint, 5 the borrower's token account that holds it (w), 9.. the pNFT block
 * (its token record the request's account's), the associated token program, the borrower's token record (w); the
 * verified collection read from the metadata as for a classic NFT */
static u64 post_request_pnft(const SolParameters *p, PnftAccounts *a, SolPubkey *collection) {
  const SolAccountInfo *ka = p->ka;
  const u8 *d = p->data;
  if (p->data_len != POST_PNFT_DATA_LEN) return E_INVALID_INSTRUCTION;
  a->payer = a->dest_owner = &ka[0];
  u64 r = pnft_held_accounts(p, 9, ka[4].key, d + 42, a);
  if (r) return r;
  u8 decimals;
  u64 supply;
  if ((r = check_mint(&ka[4], &decimals, &supply))) return r;
  if (decimals != 0 || supply != 1) return E_INVALID_COLLATERAL;
  return read_verified_collection(a->metadata, a->mint->key, d[42], collection);
}

/* PostRequest of a Core asset (accounts 3, 4 and 5 the asset, 9 the collection it names, 10 the Core program) or a
 * compressed NFT (3 and 5 the tree, 4 the asset id, 9 the tree config, 10 Bubblegum, 11 SPL Account Compression, 12
 * SPL Noop, 13.. the proof; the leaf after byte 43): membership read from the chain as TakeLoan reads it.
 * Out of line: a classic request pays nothing for it. */
__attribute__((noinline)) static u64 post_request_standard(const SolParameters *p, u8 nft_type, RequestStandard *s,
                                                           SolPubkey *collection) {
  const SolAccountInfo *ka = p->ka;
  const u8 *d = p->data;
  if ((d[2] | d[3] | d[4]) != 0) return E_INVALID_INSTRUCTION; /* no escrow, no metadata account, no tokens */
  if (rd64(d + 29) != 1) return E_INVALID_COLLATERAL;
  if (nft_type == NFT_TYPE_PNFT_HELD) return post_request_pnft(p, &s->pnft, collection);
  if (nft_type == NFT_TYPE_CORE) {
    if (p->data_len != POST_CUSTODY_DATA_LEN || (d[42] | d[43]) != 0) return E_INVALID_INSTRUCTION;
    if (!pubkey_eq(ka[3].key, ka[4].key) || !pubkey_eq(ka[5].key, ka[4].key)) return E_ACCOUNT_MISMATCH;
    if (!ka[4].is_writable) return E_NOT_WRITABLE;
    u64 r = request_core_accounts(p, 9, &ka[4], &ka[0], &s->core);
    return r ? r : core_collateral(&s->core, collection);
  }
  if (nft_type != NFT_TYPE_CNFT) return E_INVALID_COLLATERAL;
  if (p->ka_num < 13) return E_NOT_ENOUGH_ACCOUNTS;
  CnftAccounts *a = &s->cnft;
  a->tree = &ka[3];
  a->tree_config = &ka[9];
  a->bubblegum = &ka[10];
  a->compression = &ka[11];
  a->noop = &ka[12];
  a->system = &ka[8];
  a->owner = &ka[0];
  a->config_bump = d[43];
  if (!pubkey_eq(ka[5].key, a->tree->key)) return E_ACCOUNT_MISMATCH;
  CnftBeginning *b = &s->leaf;
  b->tail_at = POST_CUSTODY_DATA_LEN;
  b->proof_first = 13;
  b->asset_bump = d[42];
  b->asset = ka[4].key;
  u64 r = cnft_begin(p, a, b);
  if (!r) copy_key(collection, &b->collection);
  return r;
}

/* data: tag, request bump, escrow bump, metadata bump (nft; 0 for tokens), isDefi u8, nonce u64, principal u64,
 * duration u64, collateral amount u64, max APR bps u32; a Core asset or a compressed NFT: then nftType, two PDA bumps
 * and a compressed NFT's leaf (POST_CUSTODY_DATA_LEN); a programmable NFT: nftType 4 and three bumps (POST_PNFT_DATA_LEN).
 * accounts: 0 borrower (s, w), 1 config, 2 request PDA (w), 3 escrow PDA (w), 4 collateral mint, 5 borrower
 * collateral token account (w), 6 currency mint, 7 token program, 8 system program, 9 NFT metadata (nft only); a Core
 * asset or a compressed NFT: post_request_standard */
u64 ix_post_request(const SolParameters *p) {
  if (p->data_len != POST_DATA_LEN && p->data_len < POST_CUSTODY_DATA_LEN) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 9) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *borrower = &ka[0], *config = &ka[1], *request = &ka[2], *escrow = &ka[3];
  const SolAccountInfo *mint = &ka[4], *collateral = &ka[5], *currency = &ka[6], *token = &ka[7], *sys = &ka[8];
  const u8 *d = p->data;
  u8 is_defi = d[4];
  u8 nft_type = p->data_len == POST_DATA_LEN ? NFT_TYPE_CLASSIC : d[41];
  u64 principal = rd64(d + 13), duration = rd64(d + 21), amount = rd64(d + 29);
  u32 max_apr = rd32(d + 37);
  u64 r = check_signer(borrower, true);
  if (r) return r;
  if ((r = check_config(config, p->program_id, false))) return r;
  if (((const Config *)config->data)->paused) return E_PROTOCOL_PAUSED;
  if ((r = check_token_program(token)) || (r = check_system_program(sys))) return r;
  if (is_defi > 1) return E_INVALID_INSTRUCTION;
  if (principal == 0 || amount == 0 || max_apr == 0 || max_apr > MAX_APR_BPS) return E_INVALID_AMOUNT;
  if (duration < MIN_DURATION || duration > MAX_POOL_DURATION) return E_INVALID_DURATION;
  if ((r = check_mint(currency, NULL, NULL))) return r;
  if (pubkey_eq(mint->key, currency->key)) return E_INVALID_MINT;
  SolPubkey collection;
  RequestStandard standard;
  if (nft_type != NFT_TYPE_CLASSIC) {
    if ((r = post_request_standard(p, nft_type, &standard, &collection))) return r;
  } else {
    if (p->data_len != POST_DATA_LEN) return E_INVALID_INSTRUCTION; /* a classic request names no standard */
    u8 decimals;
    u64 supply;
    if ((r = check_mint(mint, &decimals, &supply))) return r;
    if (is_defi) {
      if (d[3] != 0) return E_INVALID_INSTRUCTION;
      copy_key(&collection, mint->key);
    } else {
      if (decimals != 0 || supply != 1 || amount != 1) return E_INVALID_COLLATERAL;
      if (p->ka_num < 10) return E_NOT_ENOUGH_ACCOUNTS;
      if ((r = read_verified_collection(&ka[9], mint->key, d[3], &collection))) return r;
    }
    if ((r = check_token_account(collateral, mint->key, borrower->key))) return r;
  }

  u8 bump = d[1], escrow_bump = d[2];
  SolSignerSeed seeds[4] = {
    {REQUEST_SEED, sizeof(REQUEST_SEED) - 1}, {borrower->key->x, 32}, {d + 5, 8}, {&bump, 1}};
  if ((r = verify_pda(seeds, 4, p->program_id, request->key))) return r;
  SolSignerSeed escrow_seeds[3] = {{ESCROW_SEED, sizeof(ESCROW_SEED) - 1}, {request->key->x, 32}, {&escrow_bump, 1}};
  if (nft_type == NFT_TYPE_CLASSIC && (r = verify_pda(escrow_seeds, 3, p->program_id, escrow->key))) return r;
  SolSignerSeeds signer = {seeds, 4};
  CreateAccountArgs ca = {borrower, request, sys, p->program_id, sizeof(Request), &signer};
  if ((r = create_pda_account(&ca))) return r;
  if (nft_type == NFT_TYPE_CLASSIC) {
    SolSignerSeeds escrow_signer = {escrow_seeds, 3};
    TokenAccountArgs ta = {borrower, escrow, mint, sys, token, request->key, &escrow_signer};
    if ((r = create_token_account(&ta))) return r;
  }

  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  /* written before the collateral moves: the holder is an initialized account of this program when it receives it */
  Request *rq = (Request *)request->data;
  rq->tag = TAG_REQUEST;
  rq->version = ACCOUNT_VERSION;
  rq->bump = bump;
  rq->escrow_bump = escrow_bump;
  rq->status = REQUEST_OPEN;
  rq->is_defi = is_defi;
  rq->nft_type = nft_type;
  copy_key(&rq->borrower, borrower->key);
  copy_key(&rq->currency, currency->key);
  copy_key(&rq->collateral_mint, mint->key);
  copy_key(&rq->collection, &collection);
  copy_key(&rq->escrow, escrow->key);
  rq->nonce = rd64(d + 5);
  rq->collateral_amount = amount;
  rq->principal = principal;
  rq->duration = duration;
  rq->max_apr_bps = max_apr;
  rq->created_at = clock.unix_timestamp;
  if (nft_type != NFT_TYPE_CLASSIC) { /* the PDA bumps (a Core asset's are 0) and a leaf's nonce */
    rq->custody_bumps[0] = d[42];
    rq->custody_bumps[1] = d[43];
    if (nft_type == NFT_TYPE_CNFT) rq->leaf_nonce = (u32)standard.cnft.nonce;
  }
  Custody held = {nft_type, token, request, NULL, escrow, {nft_type == NFT_TYPE_CLASSIC ? NULL : &standard.pnft}};
  return custody_lock(&held, borrower, collateral, amount);
}

/* data: tag (a compressed NFT: then the root, data hash and creator hash of its leaf). accounts: 0 borrower (s, w;
 * receives the escrow rent), 1 request (w), 2 escrow (w), 3 borrower collateral token account (w), 4 token program;
 * a Core asset: 2 and 3 the asset, 5 the collection it names now, 6 the Core program; a compressed NFT: 2 and 3 the
 * tree, 5 the tree config, 6 Bubblegum, 7 SPL Account Compression, 8 SPL Noop, 9 the system program, 10.. the proof */
u64 ix_cancel_request(const SolParameters *p) {
  if (p->data_len != 1 && p->data_len != 1 + CNFT_LEAF_HASHES_LEN) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *borrower = &ka[0], *request = &ka[1], *escrow = &ka[2], *collateral = &ka[3];
  u64 r = check_signer(borrower, true);
  if (r) return r;
  if ((r = check_open_request(p, request, escrow, &ka[4]))) return r;
  Request *rq = (Request *)request->data;
  if (!pubkey_eq(&rq->borrower, borrower->key)) return E_UNAUTHORIZED;
  if ((p->data_len != 1) != (rq->nft_type == NFT_TYPE_CNFT)) return E_INVALID_INSTRUCTION;
  RequestStandard standard;
  if (rq->nft_type == NFT_TYPE_CLASSIC) {
    if ((r = check_token_account(collateral, &rq->collateral_mint, borrower->key))) return r;
  } else if (rq->nft_type == NFT_TYPE_CORE) {
    if ((r = request_core_accounts(p, 5, escrow, borrower, &standard.core))) return r;
  } else if (rq->nft_type == NFT_TYPE_PNFT_HELD) {
    /* 3 the borrower's associated token account (w), 5.. the pNFT block (the request's account's token record), the
     * associated token program, the token record of account 3 (w) */
    standard.pnft.payer = standard.pnft.dest_owner = borrower;
    if ((r = pnft_held_accounts(p, 5, &rq->collateral_mint, rq->custody_bumps, &standard.pnft))) return r;
  } else {
    if ((r = request_cnft_accounts(p, rq, 5, true, escrow, p->data + 1, &standard.cnft))) return r;
    if ((r = check_system_program(standard.cnft.system))) return r;
  }
  /* the collateral (and anything paid into the escrow) back to the borrower, the escrow's rent too */
  RequestCustody rc;
  request_custody(&rc, &ka[4], request, escrow, &standard);
  if ((r = custody_release_to_borrower(&rc.custody, collateral, borrower))) return r;
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  rq->status = REQUEST_CANCELLED;
  rq->closed_at = clock.unix_timestamp;
  return SUCCESS;
}

/* FillRequest's accounts for a Core asset (6, 8 and 9 the asset, 13 the collection it names now, 14 the Core program;
 * the lender pays Core) or a compressed NFT (6 and 8 the tree, 9 the asset id, 13 the tree config, 14 Bubblegum, 15
 * SPL Account Compression, 16 SPL Noop, 17.. the proof; data after the terms: the leaf's root and hashes) */
__attribute__((noinline)) static u64 fill_request_standard(const SolParameters *p, const Request *rq,
                                                           RequestStandard *s) {
  const SolAccountInfo *ka = p->ka;
  /* a programmable NFT: 6 the request PDA's associated token account, 8 the new loan PDA's (w; checked at its address
   * by the move, recorded as the loan's `escrow`), 13.. the pNFT block (6's token record), the associated token
   * program, 8's token record (w); the lender, the pool's owner, is whom the loan's liquidation pays */
  if (rq->nft_type == NFT_TYPE_PNFT_HELD) {
    if (p->data_len != FILL_DATA_LEN) return E_INVALID_INSTRUCTION;
    s->pnft.payer = s->pnft.dest_owner = &ka[0];
    return pnft_held_accounts(p, 13, &rq->collateral_mint, rq->custody_bumps, &s->pnft);
  }
  if (!pubkey_eq(ka[8].key, &rq->escrow)) return E_ACCOUNT_MISMATCH; /* the custody stays where it is */
  if (!ka[8].is_writable) return E_NOT_WRITABLE;
  if (rq->nft_type == NFT_TYPE_CORE) {
    if (p->data_len != FILL_DATA_LEN) return E_INVALID_INSTRUCTION;
    if (!ka[9].is_writable) return E_NOT_WRITABLE;
    return request_core_accounts(p, 13, &ka[6], &ka[0], &s->core);
  }
  if (rq->nft_type != NFT_TYPE_CNFT) return E_INVALID_COLLATERAL;
  if (p->data_len != FILL_DATA_LEN + CNFT_LEAF_HASHES_LEN) return E_INVALID_INSTRUCTION;
  u64 r = request_cnft_accounts(p, rq, 13, false, &ka[6], p->data + FILL_DATA_LEN, &s->cnft);
  s->cnft.system = &ka[12];
  return r;
}

/* data: tag, loan bump, loan escrow bump, reserved u8 (0), nonce u64, principal u64, duration u64, APR bps u32
 * (principal and duration equal to the request's, 1 <= APR <= its maximum: the lender states the terms it fills,
 * so a changed request cannot be filled by surprise).
 * accounts: 0 lender (s, w; pays the loan's rent, receives the request escrow's), 1 config, 2 pool (w; the
 * lender's, of the request's kind), 3 bank (w; == pool.bank, of the request's currency), 4 vault (w), 5 request
 * (w), 6 request escrow (w), 7 loan PDA (w; new, ["loan", pool, borrower, nonce]), 8 loan escrow PDA (w; new),
 * 9 collateral mint, 10 borrower currency token account (w), 11 token program, 12 system program */
u64 ix_fill_request(const SolParameters *p) {
  if (p->data_len != FILL_DATA_LEN && p->data_len != FILL_DATA_LEN + CNFT_LEAF_HASHES_LEN) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 13) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *lender = &ka[0], *request = &ka[5], *request_escrow = &ka[6], *currency = &ka[10];
  const u8 *d = p->data;
  if (d[3] != 0) return E_INVALID_INSTRUCTION;
  NewLoan c;
  c.p = p;
  c.payer = lender;
  c.config = &ka[1];
  c.pool = &ka[2];
  c.bank = &ka[3];
  c.vault = &ka[4];
  c.loan = &ka[7];
  c.escrow = &ka[8];
  c.mint = &ka[9];
  c.token = &ka[11];
  c.sys = &ka[12];
  u64 r = check_signer(lender, true);
  if (r) return r;
  if ((r = check_config(c.config, p->program_id, false))) return r;
  c.cfg = (Config *)c.config->data;
  if (c.cfg->paused) return E_PROTOCOL_PAUSED;
  if ((r = check_open_request(p, request, request_escrow, c.token))) return r;
  if ((r = check_system_program(c.sys))) return r;
  Request *rq = (Request *)request->data;
  if (pubkey_eq(&rq->borrower, lender->key)) return E_SELF_FILL;
  if ((r = check_state(c.pool, p->program_id, TAG_POOL, sizeof(Pool), true))) return r;
  if ((r = check_state(c.bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  c.pl = (Pool *)c.pool->data;
  c.bk = (Bank *)c.bank->data;
  if (!pubkey_eq(&c.pl->owner, lender->key) || !pubkey_eq(&c.bk->owner, lender->key)) return E_UNAUTHORIZED;
  if (!pubkey_eq(&c.pl->bank, c.bank->key) || !pubkey_eq(&c.bk->vault, c.vault->key)) return E_ACCOUNT_MISMATCH;
  if (!c.vault->is_writable) return E_NOT_WRITABLE;
  if (c.pl->pool_type != (rq->is_defi ? POOL_DEFI : POOL_NFT)) return E_ACCOUNT_MISMATCH;
  if (!pubkey_eq(&c.bk->mint, &rq->currency)) return E_INVALID_MINT;
  if (!pubkey_eq(c.mint->key, &rq->collateral_mint)) return E_INVALID_MINT;
  RequestStandard standard;
  if (rq->nft_type == NFT_TYPE_CLASSIC ? p->data_len != FILL_DATA_LEN
                                       : (r = fill_request_standard(p, rq, &standard)) != 0)
    return r ? r : E_INVALID_INSTRUCTION;
  c.principal = rd64(d + 12);
  c.duration = rd64(d + 20);
  c.apr_bps = rd32(d + 28);
  if (c.principal != rq->principal || c.duration != rq->duration || c.apr_bps == 0 || c.apr_bps > rq->max_apr_bps)
    return E_REQUEST_TERMS_MISMATCH;
  if (c.principal > c.bk->available) return E_INSUFFICIENT_LIQUIDITY;
  if ((r = check_wallet_currency_account(currency, &c.bk->mint, &rq->borrower, c.vault))) return r;
  if (!total_interest(c.apr_bps, c.principal, c.duration, &c.interest)) return E_MATH_OVERFLOW;
  if ((r = clock_now(&c.clock))) return r;

  c.loan_bump = d[1];
  c.escrow_bump = d[2];
  c.nonce = rd64(d + 4);
  c.nonce_bytes = d + 4;
  c.borrower_key = &rq->borrower;
  c.collateral_amount = rq->collateral_amount;
  copy_key(&c.collection, &rq->collection);
  c.entry = NULL; /* the lender took this collateral by choice: no pool entry limits or counts it */
  c.kind = LOAN_REQUEST;
  c.nft_type = rq->nft_type; /* the loan's custody is the request's standard (no escrow for a Core asset or a leaf) */
  c.custody_data = true;      /* the custody's accounts are the request's, read above */
  c.pnft_bumps = NULL;
  static const u8 NO_ATTESTATION[80];
  c.att = NO_ATTESTATION; /* no oracle valuation: collateralValue and attestationSlot stay 0 */
  if ((r = new_loan_create(&c))) return r;
  /* the collateral moves request custody -> loan custody (it never leaves the program): a classic escrow is swept
   * into the new one (the lender paid the new escrow's rent and gets the request escrow's, both token accounts of the
   * same size); a Core asset or a leaf is transferred by the request PDA to the loan PDA */
  RequestCustody rc;
  request_custody(&rc, c.token, request, request_escrow, &standard);
  Custody loan_custody = rc.custody;
  loan_custody.holder = c.loan;
  loan_custody.signer = NULL;
  loan_custody.escrow = c.escrow;
  if ((r = custody_move(&rc.custody, &loan_custody, lender))) return r;
  SolSignerSeed bank_seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {c.bk->owner.x, 32}, {c.bk->mint.x, 32}, {&c.bk->bump, 1}};
  SolSignerSeeds bank_signer = {bank_seeds, 4};
  TransferArgs out = {c.token, c.vault, currency, c.bank, c.principal, &bank_signer};
  if ((r = token_transfer(&out))) return r;
  c.bk->available -= c.principal;
  new_loan_record(&c, rq->is_defi);
  /* a transfer keeps the leaf's nonce and so its asset id; a pNFT's metadata and edition bumps are the mint's */
  if (rq->nft_type >= NFT_TYPE_CNFT) { /* NFT_TYPE_CNFT, NFT_TYPE_PNFT_HELD */
    Loan *l = (Loan *)c.loan->data;
    l->custody_bumps[0] = rq->custody_bumps[0];
    l->custody_bumps[1] = rq->custody_bumps[1];
    l->leaf_nonce = rq->leaf_nonce;
  }
  rq->status = REQUEST_FILLED;
  rq->closed_at = c.clock.unix_timestamp;
  copy_key(&rq->loan, c.loan->key);
  return SUCCESS;
}
