/* Loan requests: PostRequest (20), CancelRequest (21), FillRequest (22). A borrower posts the terms they want
 * (currency, principal, duration, the highest APR they accept) with the collateral escrowed by the program; any
 * lender fills it from one of their pools' bank in one instruction, or the borrower cancels and gets the
 * collateral back. The filled loan is a Loan of kind RequestLoan and ends like any loan. */
#include "loan.h"

#define POST_DATA_LEN 41
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

/* the request's custody (its escrow, the request signing) */
typedef struct {
  SolSignerSeed seeds[4];
  SolSignerSeeds signer;
  Custody custody;
} RequestCustody;

static void request_custody(RequestCustody *rc, const SolAccountInfo *token, const SolAccountInfo *request,
                            const SolAccountInfo *escrow) {
  request_signer_seeds((const Request *)request->data, rc->seeds);
  rc->signer.addr = rc->seeds;
  rc->signer.len = 4;
  Custody held = {NFT_TYPE_CLASSIC, token, request, &rc->signer, escrow};
  rc->custody = held;
}

/* data: tag, request bump, escrow bump, metadata bump (nft; 0 for tokens), isDefi u8, nonce u64, principal u64,
 * duration u64, collateral amount u64, max APR bps u32.
 * accounts: 0 borrower (s, w), 1 config, 2 request PDA (w), 3 escrow PDA (w), 4 collateral mint, 5 borrower
 * collateral token account (w), 6 currency mint, 7 token program, 8 system program, 9 NFT metadata (nft only) */
u64 ix_post_request(const SolParameters *p) {
  if (p->data_len != POST_DATA_LEN) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 9) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *borrower = &ka[0], *config = &ka[1], *request = &ka[2], *escrow = &ka[3];
  const SolAccountInfo *mint = &ka[4], *collateral = &ka[5], *currency = &ka[6], *token = &ka[7], *sys = &ka[8];
  const u8 *d = p->data;
  u8 is_defi = d[4];
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
  u8 decimals;
  u64 supply;
  if ((r = check_mint(mint, &decimals, &supply)) || (r = check_mint(currency, NULL, NULL))) return r;
  if (pubkey_eq(mint->key, currency->key)) return E_INVALID_MINT;
  SolPubkey collection;
  if (is_defi) {
    if (d[3] != 0) return E_INVALID_INSTRUCTION;
    copy_key(&collection, mint->key);
  } else {
    if (decimals != 0 || supply != 1 || amount != 1) return E_INVALID_COLLATERAL;
    if (p->ka_num < 10) return E_NOT_ENOUGH_ACCOUNTS;
    if ((r = read_verified_collection(&ka[9], mint->key, d[3], &collection))) return r;
  }
  if ((r = check_token_account(collateral, mint->key, borrower->key))) return r;

  u8 bump = d[1], escrow_bump = d[2];
  SolSignerSeed seeds[4] = {
    {REQUEST_SEED, sizeof(REQUEST_SEED) - 1}, {borrower->key->x, 32}, {d + 5, 8}, {&bump, 1}};
  if ((r = verify_pda(seeds, 4, p->program_id, request->key))) return r;
  SolSignerSeed escrow_seeds[3] = {{ESCROW_SEED, sizeof(ESCROW_SEED) - 1}, {request->key->x, 32}, {&escrow_bump, 1}};
  if ((r = verify_pda(escrow_seeds, 3, p->program_id, escrow->key))) return r;
  SolSignerSeeds signer = {seeds, 4};
  CreateAccountArgs ca = {borrower, request, sys, p->program_id, sizeof(Request), &signer};
  if ((r = create_pda_account(&ca))) return r;
  SolSignerSeeds escrow_signer = {escrow_seeds, 3};
  TokenAccountArgs ta = {borrower, escrow, mint, sys, token, request->key, &escrow_signer};
  if ((r = create_token_account(&ta))) return r;
  Custody held = {NFT_TYPE_CLASSIC, token, request, NULL, escrow};
  if ((r = custody_lock(&held, borrower, collateral, amount))) return r;

  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  Request *rq = (Request *)request->data;
  rq->tag = TAG_REQUEST;
  rq->version = ACCOUNT_VERSION;
  rq->bump = bump;
  rq->escrow_bump = escrow_bump;
  rq->status = REQUEST_OPEN;
  rq->is_defi = is_defi;
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
  return SUCCESS;
}

/* data: tag. accounts: 0 borrower (s, w; receives the escrow rent), 1 request (w), 2 escrow (w), 3 borrower
 * collateral token account (w), 4 token program */
u64 ix_cancel_request(const SolParameters *p) {
  if (p->data_len != 1) return E_INVALID_INSTRUCTION;
  if (p->ka_num < 5) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  const SolAccountInfo *borrower = &ka[0], *request = &ka[1], *escrow = &ka[2], *collateral = &ka[3];
  u64 r = check_signer(borrower, true);
  if (r) return r;
  if ((r = check_open_request(p, request, escrow, &ka[4]))) return r;
  Request *rq = (Request *)request->data;
  if (!pubkey_eq(&rq->borrower, borrower->key)) return E_UNAUTHORIZED;
  if ((r = check_token_account(collateral, &rq->collateral_mint, borrower->key))) return r;
  /* the collateral (and anything paid into the escrow) back to the borrower, the escrow's rent too */
  RequestCustody rc;
  request_custody(&rc, &ka[4], request, escrow);
  if ((r = custody_release_to_borrower(&rc.custody, collateral, borrower))) return r;
  SolClock clock;
  if ((r = clock_now(&clock))) return r;
  rq->status = REQUEST_CANCELLED;
  rq->closed_at = clock.unix_timestamp;
  return SUCCESS;
}

/* data: tag, loan bump, loan escrow bump, reserved u8 (0), nonce u64, principal u64, duration u64, APR bps u32
 * (principal and duration equal to the request's, 1 <= APR <= its maximum: the lender states the terms it fills,
 * so a changed request cannot be filled by surprise).
 * accounts: 0 lender (s, w; pays the loan's rent, receives the request escrow's), 1 config, 2 pool (w; the
 * lender's, of the request's kind), 3 bank (w; == pool.bank, of the request's currency), 4 vault (w), 5 request
 * (w), 6 request escrow (w), 7 loan PDA (w; new, ["loan", pool, borrower, nonce]), 8 loan escrow PDA (w; new),
 * 9 collateral mint, 10 borrower currency token account (w), 11 token program, 12 system program */
u64 ix_fill_request(const SolParameters *p) {
  if (p->data_len != FILL_DATA_LEN) return E_INVALID_INSTRUCTION;
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
  c.nft_type = NFT_TYPE_CLASSIC; /* a request holds its collateral in a classic escrow */
  static const u8 NO_ATTESTATION[80];
  c.att = NO_ATTESTATION; /* no oracle valuation: collateralValue and attestationSlot stay 0 */
  if ((r = new_loan_create(&c))) return r;
  /* the collateral moves request escrow -> loan escrow (it never leaves the program); the lender paid the new
   * escrow's rent and gets the request escrow's (both token accounts of the same size) */
  Custody loan_custody = {c.nft_type, c.token, c.loan, NULL, c.escrow};
  RequestCustody rc;
  request_custody(&rc, c.token, request, request_escrow);
  if ((r = custody_move(&rc.custody, &loan_custody, lender))) return r;
  SolSignerSeed bank_seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {c.bk->owner.x, 32}, {c.bk->mint.x, 32}, {&c.bk->bump, 1}};
  SolSignerSeeds bank_signer = {bank_seeds, 4};
  TransferArgs out = {c.token, c.vault, currency, c.bank, c.principal, &bank_signer};
  if ((r = token_transfer(&out))) return r;
  c.bk->available -= c.principal;
  new_loan_record(&c, rq->is_defi);
  rq->status = REQUEST_FILLED;
  rq->closed_at = c.clock.unix_timestamp;
  copy_key(&rq->loan, c.loan->key);
  return SUCCESS;
}
