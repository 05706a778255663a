/* TakeLoan (8) and the shared new-loan checks used by Extend. */
#include "loan.h"
#include "mpl_core.h"

static const u8 LOAN_SEED[] = "loan";
static const u8 ESCROW_SEED[] = "escrow";

void new_loan_accounts(NewLoan *c, const SolParameters *p, bool trailing_data, bool mortgage) {
  const SolAccountInfo *ka = p->ka;
  c->p = p;
  c->trailing_data = trailing_data;
  c->mortgage = mortgage;
  c->custody_data = !trailing_data && !mortgage;
  c->borrower = &ka[0];
  c->oracle = &ka[1];
  c->config = &ka[2];
  c->pool = &ka[3];
  c->bank = &ka[4];
  c->vault = &ka[5];
  c->loan = &ka[6];
  c->escrow = &ka[7];
  c->mint = &ka[8];
  c->token = &ka[11];
  c->sys = &ka[12];
}

/* TakeLoan's custody bytes naming a standard: 121 NFT_TYPE_PNFT (122, 123 its PDA bumps), NFT_TYPE_CNFT or
 * NFT_TYPE_CORE (122, 123 zero); TakeMortgage's: NFT_TYPE_CORE (122, 123 zero) for an account of the Core program
 * (so a classic mortgage's mint is never taken for another standard), or NFT_TYPE_PNFT (its bumps); out of line, off
 * a classic loan's path */
__attribute__((noinline)) static bool custody_bytes_valid(const NewLoan *c, const u8 *d) {
  bool core = d[121] == NFT_TYPE_CORE && (d[122] | d[123]) == 0;
  if (c->mortgage) return (core && pubkey_eq(c->mint->owner, &MPL_CORE_PROGRAM_ID)) || d[121] == NFT_TYPE_PNFT;
  return c->custody_data && (d[121] == NFT_TYPE_PNFT || d[121] == NFT_TYPE_CNFT || core);
}

u64 new_loan_parse(NewLoan *c) {
  const SolParameters *p = c->p;
  /* TakeLoan of a compressed NFT: the leaf follows the terms (CNFT_LEAF_OFFSET) */
  bool leaf_data = c->custody_data && p->data_len > CNFT_LEAF_OFFSET + 41 && p->data[121] == NFT_TYPE_CNFT;
  if (c->trailing_data ? p->data_len <= LOAN_DATA_LEN : (p->data_len != LOAN_DATA_LEN && !leaf_data))
    return E_INVALID_INSTRUCTION;
  const u8 *d = p->data;
  c->loan_bump = d[1];
  c->escrow_bump = d[2];
  c->nonce = rd64(d + 4);
  c->principal = rd64(d + 12);
  c->duration = rd64(d + 20);
  c->collateral_amount = rd64(d + 28);
  c->att = d + ATTESTATION_OFFSET;
  u64 r = check_signer(c->borrower, true);
  if (r) return r;
  if (!c->oracle->is_signer) return E_MISSING_SIGNER;
  if ((r = check_config(c->config, p->program_id, false))) return r;
  c->cfg = (Config *)c->config->data;
  if (!pubkey_eq(&c->cfg->oracle, c->oracle->key)) return E_WRONG_ORACLE;
  if (c->cfg->paused) return E_PROTOCOL_PAUSED;
  if ((r = check_state(c->pool, p->program_id, TAG_POOL, sizeof(Pool), true))) return r;
  c->pl = (Pool *)c->pool->data;
  if (c->pl->status != POOL_OPEN) return E_POOL_NOT_OPEN;
  if ((r = check_state(c->bank, p->program_id, TAG_BANK, sizeof(Bank), true))) return r;
  c->bk = (Bank *)c->bank->data;
  if (!pubkey_eq(&c->pl->bank, c->bank->key) || !pubkey_eq(&c->bk->vault, c->vault->key)) return E_ACCOUNT_MISMATCH;
  if (!c->vault->is_writable) return E_NOT_WRITABLE;
  if ((r = check_token_program(c->token))) return r;
  if ((r = check_system_program(c->sys))) return r;
  if ((r = clock_now(&c->clock))) return r;
  u64 slot = rd64(c->att + 72);
  if (slot > c->clock.slot) return E_FUTURE_ATTESTATION;
  if (c->clock.slot - slot > MAX_ATTESTATION_AGE_SLOTS) return E_STALE_ATTESTATION;
  if (c->duration < MIN_DURATION || c->duration > c->pl->max_duration) return E_INVALID_DURATION;
  u32 apr_bps = c->mortgage ? c->pl->mortgage_apr_bps : c->pl->loan_apr_bps;
  if (rd32(d + 36) != apr_bps) return E_APR_MISMATCH;
  if (c->principal == 0 || c->collateral_amount == 0) return E_INVALID_AMOUNT;
  /* reserved, but for TakeLoan: the collateral's standard and its PDA bumps (byte 121 NFT_TYPE_PNFT: 122 master
   * edition bump, 123 token record bump; NFT_TYPE_CORE: none) */
  if ((d[121] | d[122] | d[123]) != 0 && !custody_bytes_valid(c, d)) return E_INVALID_INSTRUCTION;
  c->pull_index = d[120];
  c->available = c->bk->available;
  c->bank_total = c->bk->total;
  c->released = 0;
  c->payer = c->borrower;
  c->borrower_key = c->borrower->key;
  c->nonce_bytes = d + 4;
  c->kind = c->mortgage ? LOAN_MORTGAGE : LOAN_CLASSIC;
  c->nft_type = d[121];
  c->apr_bps = apr_bps;
  return SUCCESS;
}

static u64 check_whitelist(NewLoan *c) {
  const SolParameters *p = c->p;
  if (p->ka_num <= c->whitelist_index) return E_INVALID_WHITELIST;
  const SolAccountInfo *alt = &p->ka[c->whitelist_index];
  if (!pubkey_eq(alt->key, &c->pl->whitelist) || !pubkey_eq(alt->owner, &ALT_PROGRAM_ID) ||
      alt->data_len < ALT_HEADER_SIZE || (alt->data_len - ALT_HEADER_SIZE) % 32 != 0)
    return E_INVALID_WHITELIST;
  u64 n = (alt->data_len - ALT_HEADER_SIZE) / 32;
  const SolPubkey *list = (const SolPubkey *)(alt->data + ALT_HEADER_SIZE);
  for (u64 i = 0; i < n; i++)
    if (pubkey_eq(&list[i], c->borrower->key)) return SUCCESS;
  return E_NOT_WHITELISTED;
}

u64 new_loan_limits(NewLoan *c) {
  const u8 *att = c->att;
  u64 value = rd64(att);
  /* the attestation must value this collateral's collection (read from the chain by the caller) */
  if (!pubkey_eq(&c->collection, (const SolPubkey *)(att + 8))) return E_COLLECTION_NOT_IN_POOL;
  c->entry = pool_find_entry(c->pl, &c->collection);
  if (!c->entry) return E_COLLECTION_NOT_IN_POOL;
  u64 usd;
  if (!usd_value(c->principal, rd64(att + 40), c->bk->decimals, &usd)) return E_MATH_OVERFLOW;
  if (usd < c->pl->min_usd) return E_BELOW_MIN_AMOUNT_USD;
  if (usd > c->pl->max_usd) return E_ABOVE_MAX_AMOUNT_USD;
  if (!mul_le(c->principal, BPS, value, c->entry->ltv_bps)) return E_LTV_EXCEEDED;
  u64 borrowed;
  if (!sub_ok(c->entry->borrowed, c->released, &borrowed) || !add_ok(borrowed, c->principal, &borrowed))
    return E_MATH_OVERFLOW;
  if (!mul_le(borrowed, BPS, c->entry->exposure_bps, c->bank_total)) return E_EXPOSURE_EXCEEDED;
  if (c->pl->cond_enabled &&
      (rd64(att + 48) < c->pl->min_age || rd64(att + 56) < c->pl->min_loan || rd64(att + 64) < c->pl->min_volume))
    return E_CONDITIONS_NOT_MET;
  u64 r;
  if (c->pl->whitelist_enabled && (r = check_whitelist(c))) return r;
  if (c->principal > c->available) return E_INSUFFICIENT_LIQUIDITY;
  if (!total_interest(c->apr_bps, c->principal, c->duration, &c->interest)) return E_MATH_OVERFLOW;
  return SUCCESS;
}

/* A moving compressed NFT loan: accounts 7 and 9 the tree (== the old loan's escrow), 10 the asset id; after the optional
 * whitelist the tree config, Bubblegum, SPL Account Compression, SPL Noop, then the proof; data after the terms: the
 * root, data hash and creator hash of the leaf the old loan PDA owns. The new loan records the leaf's nonce and PDA
 * bumps (a transfer keeps them). */
static u64 moving_cnft_accounts(NewLoan *c, const Loan *old, u64 first) {
  CnftAccounts *a = &c->moving.cnft;
  u64 r = cnft_block(c->p, first, false, c->p->data + LOAN_DATA_LEN, a);
  if (r) return r;
  a->tree = c->escrow;
  a->system = c->sys;
  a->owner = c->borrower;
  a->nonce = old->leaf_nonce;
  a->config_bump = old->custody_bumps[1];
  Loan *l = (Loan *)c->loan->data; /* created: new_loan_record leaves these bytes of a compressed NFT's loan */
  l->custody_bumps[0] = old->custody_bumps[0];
  l->custody_bumps[1] = old->custody_bumps[1];
  l->leaf_nonce = old->leaf_nonce;
  return SUCCESS;
}

/* A moving (Extend, Refinance) pNFT or Core loan's custody accounts, after the optional whitelist: Core: the
 * collection the asset names now, the Core program (accounts 7, 9 and 10 the asset); pNFT: the pNFT block, then the
 * new pool owner's wallet (accounts 7 and 9 the borrower's token account that holds it). */
__attribute__((noinline)) static u64 moving_custody_accounts(NewLoan *c) {
  const SolParameters *p = c->p;
  const Loan *old = (const Loan *)p->ka[6].data; /* checked by moving_loan_parse */
  MovingCustody *m = &c->moving;
  /* the new loan was tagged by new_loan_create before its custody moves (a rule set refuses an account of this
   * program whose data is all zero as the new delegate or owner) */
  SolSignerSeed *seeds = m->new_seeds; /* the new loan PDA's, as new_loan_create derives it */
  seeds[0].addr = LOAN_SEED;
  seeds[0].len = sizeof(LOAN_SEED) - 1;
  seeds[1].addr = c->pool->key->x;
  seeds[1].len = 32;
  seeds[2].addr = c->borrower_key->x;
  seeds[2].len = 32;
  seeds[3].addr = c->nonce_bytes;
  seeds[3].len = 8;
  seeds[4].addr = &c->loan_bump;
  seeds[4].len = 1;
  m->new_signer.addr = seeds;
  m->new_signer.len = 5;
  u64 first = c->whitelist_index + (c->pl->whitelist_enabled ? 1 : 0);
  /* a held pNFT: 9 the new loan PDA's associated token account (checked at its address by the move, the new loan's
   * escrow); after the whitelist the pNFT block (7's token record), the associated token program, 9's token record
   * (w), the new pool owner's wallet (whom the new loan's liquidation would pay: the rule set is asked) */
  if (old->nft_type == NFT_TYPE_PNFT_HELD) {
    if (p->ka_num < first + PNFT_HELD_ACCOUNTS + 1) return E_NOT_ENOUGH_ACCOUNTS;
    m->pnft.payer = c->borrower;
    m->pnft.dest_owner = &p->ka[first + PNFT_HELD_ACCOUNTS];
    if (!pubkey_eq(m->pnft.dest_owner->key, &c->pl->owner)) return E_ACCOUNT_MISMATCH;
    c->pnft_bumps = old->custody_bumps;
    return pnft_held_accounts(p, first, &old->collateral_mint, old->custody_bumps, &m->pnft);
  }
  /* the custody stays where it is: the new loan's escrow is the old one's */
  if (!pubkey_eq(c->escrow->key, &old->escrow)) return E_ACCOUNT_MISMATCH;
  if (!c->escrow->is_writable) return E_NOT_WRITABLE;
  if (old->nft_type == NFT_TYPE_CORE) {
    if (p->ka_num < first + 2) return E_NOT_ENOUGH_ACCOUNTS;
    CoreAccounts *core = &m->core;
    core->asset = c->escrow;
    core->collection = &p->ka[first];
    core->core = &p->ka[first + 1];
    core->payer = core->owner = c->borrower;
    return SUCCESS;
  }
  if (old->nft_type == NFT_TYPE_CNFT) return moving_cnft_accounts(c, old, first);
  if (old->nft_type != NFT_TYPE_PNFT) return E_INVALID_COLLATERAL;
  PnftAccounts *pnft = &m->pnft;
  u64 r = pnft_block(p, first, pnft);
  if (r) return r;
  if (p->ka_num < first + PNFT_BLOCK_LEN + 1) return E_NOT_ENOUGH_ACCOUNTS;
  if (!pubkey_eq(pnft->mint->key, c->mint->key)) return E_INVALID_MINT;
  const SolAccountInfo *pool_owner = &p->ka[first + PNFT_BLOCK_LEN];
  if (!pubkey_eq(pool_owner->key, &c->pl->owner)) return E_ACCOUNT_MISMATCH;
  pnft->payer = pnft->owner = c->borrower;
  pnft->dest_owner = pool_owner;
  pnft->locked_address = &c->pl->owner;
  pnft->bumps = old->custody_bumps;
  c->pnft_bumps = old->custody_bumps;
  return SUCCESS;
}

u64 new_loan_create(NewLoan *c) {
  const SolParameters *p = c->p;
  SolSignerSeed loan_seeds[5] = {{LOAN_SEED, sizeof(LOAN_SEED) - 1},
                                 {c->pool->key->x, 32},
                                 {c->borrower_key->x, 32},
                                 {c->nonce_bytes, 8},
                                 {&c->loan_bump, 1}};
  u64 r = verify_pda(loan_seeds, 5, p->program_id, c->loan->key);
  if (r) return r;
  SolSignerSeed escrow_seeds[3] = {{ESCROW_SEED, sizeof(ESCROW_SEED) - 1}, {c->loan->key->x, 32}, {&c->escrow_bump, 1}};
  if (c->nft_type == NFT_TYPE_CLASSIC && (r = verify_pda(escrow_seeds, 3, p->program_id, c->escrow->key))) return r;
  SolSignerSeeds loan_signer = {loan_seeds, 5};
  CreateAccountArgs ca = {c->payer, c->loan, c->sys, p->program_id, sizeof(Loan), &loan_signer};
  if ((r = create_pda_account(&ca))) return r;
  /* no escrow: a pNFT stays in the borrower's account, a Core asset is the loan PDA's (TakeMortgage: once bought); a
   * moving loan's custody accounts are read here, off a classic loan's path */
  if (c->nft_type != NFT_TYPE_CLASSIC) {
    /* tagged before its custody arrives (new_loan_record writes it whole later): a rule set may refuse an account of
     * this program whose data is all zero as a pNFT's new owner or delegate */
    c->loan->data[0] = TAG_LOAN;
    return c->custody_data || c->mortgage ? SUCCESS : moving_custody_accounts(c);
  }
  SolSignerSeeds escrow_signer = {escrow_seeds, 3};
  TokenAccountArgs ta = {c->payer, c->escrow, c->mint, c->sys, c->token, c->loan->key, &escrow_signer};
  return create_token_account(&ta);
}

void new_loan_record(NewLoan *c, bool is_defi) {
  Loan *l = (Loan *)c->loan->data;
  const u8 *att = c->att;
  i64 now = c->clock.unix_timestamp;
  l->tag = TAG_LOAN;
  l->version = LOAN_VERSION;
  l->bump = c->loan_bump;
  l->escrow_bump = c->escrow_bump;
  l->status = LOAN_ONGOING;
  l->kind = c->kind;
  l->is_defi = is_defi;
  if (c->nft_type) { /* the new account is zeroed: a classic loan writes nothing */
    l->nft_type = c->nft_type;
    if ((c->nft_type == NFT_TYPE_PNFT || c->nft_type == NFT_TYPE_PNFT_HELD) && c->pnft_bumps) {
      l->custody_bumps[0] = c->pnft_bumps[0];
      l->custody_bumps[1] = c->pnft_bumps[1];
      l->custody_bumps[2] = c->pnft_bumps[2];
    }
  }
  copy_key(&l->borrower, c->borrower_key);
  copy_key(&l->pool, c->pool->key);
  copy_key(&l->bank, c->bank->key);
  copy_key(&l->currency, &c->bk->mint);
  copy_key(&l->collateral_mint, c->mint->key);
  copy_key(&l->collection, &c->collection);
  copy_key(&l->escrow, c->escrow->key);
  l->nonce = c->nonce;
  l->collateral_amount = c->collateral_amount;
  l->principal = c->principal;
  l->interest = c->interest;
  l->apr_bps = c->apr_bps;
  l->duration = c->duration;
  l->created_at = now;
  l->expired_at = now + (i64)c->duration;
  l->collateral_value = rd64(att);
  l->attestation_slot = rd64(att + 72);
  Pool *pl = c->pl;
  pl->total_loans++;
  pl->current_loans++;
  pl->borrowed += c->principal;
  pl->last_loan_at = now;
  if (c->entry) {
    c->entry->borrowed += c->principal;
    c->entry->ongoing++;
  }
  c->bk->ongoing_loans++;
  c->bk->borrowed_at = now;
}

u64 release_loan(Pool *pool, Bank *bank, const Loan *loan) {
  u64 pool_borrowed;
  if (!sub_ok(pool->borrowed, loan->principal, &pool_borrowed) || pool->current_loans == 0 ||
      bank->ongoing_loans == 0)
    return E_INCONSISTENT_COUNTERS;
  if (loan->kind != LOAN_REQUEST) {
    /* An update may remove a collection only when it has no ongoing loans, so the entry is there. */
    Entry *e = pool_find_entry(pool, &loan->collection);
    u64 entry_borrowed;
    if (!e || !sub_ok(e->borrowed, loan->principal, &entry_borrowed) || e->ongoing == 0)
      return E_INCONSISTENT_COUNTERS;
    e->borrowed = entry_borrowed;
    e->ongoing--;
  }
  pool->borrowed = pool_borrowed;
  pool->current_loans--;
  bank->ongoing_loans--;
  return SUCCESS;
}

static const u8 BANK_SEED[] = "bank";

/* A pNFT TakeLoan: the pNFT block follows the metadata (14..22), then 23 the pool owner's wallet (the receiver of
 * Liquidate's transfer, which the rule set is asked about), the whitelist after it; the custody is the borrower's own
 * token account (accounts 7 = 9). Out of line, as is the lock: classic loans pay nothing for them. */
__attribute__((noinline)) static u64 take_loan_pnft_accounts(NewLoan *c, PnftAccounts *pnft) {
  const SolParameters *p = c->p;
  if (c->nft_type != NFT_TYPE_PNFT) return E_INVALID_COLLATERAL; /* a Core asset is no SPL mint */
  u64 r = pnft_block(p, 14, pnft);
  if (r) return r;
  if (!pubkey_eq(pnft->mint->key, c->mint->key) || !pubkey_eq(pnft->metadata->key, p->ka[13].key) ||
      !pubkey_eq(c->escrow->key, p->ka[9].key) || p->data[2] != 0)
    return E_ACCOUNT_MISMATCH;
  if (p->ka_num < 15 + PNFT_BLOCK_LEN) return E_NOT_ENOUGH_ACCOUNTS;
  if (!pubkey_eq(p->ka[14 + PNFT_BLOCK_LEN].key, &c->pl->owner)) return E_ACCOUNT_MISMATCH;
  pnft->dest_owner = &p->ka[14 + PNFT_BLOCK_LEN];
  c->pnft_bumps = NULL; /* take_loan_pnft_lock records them */
  c->whitelist_index = 15 + PNFT_BLOCK_LEN;
  return SUCCESS;
}

/* escrowless custody: the loan PDA (created, so the rule set sees an account of this program) becomes the asset's
 * delegate and locks it, signing with its seeds; the loan records the PDA bumps its endings check */
__attribute__((noinline)) static u64 take_loan_pnft_lock(const NewLoan *c, PnftAccounts *pnft) {
  const u8 *d = c->p->data;
  Loan *l = (Loan *)c->loan->data;
  l->custody_bumps[0] = d[3];
  l->custody_bumps[1] = d[122];
  l->custody_bumps[2] = d[123];
  SolSignerSeed seeds[5];
  loan_signer_seeds(l, seeds);
  SolSignerSeeds signer = {seeds, 5};
  pnft->payer = c->borrower;
  pnft->owner = c->borrower;
  pnft->locked_address = &c->pl->owner;
  pnft->bumps = l->custody_bumps;
  Custody held = {c->nft_type, c->token, c->loan, &signer, c->escrow, {pnft}};
  return custody_lock(&held, c->borrower, &c->p->ka[9], c->collateral_amount);
}

/* A Core asset's TakeLoan: accounts 7, 8 and 9 the asset, 13 the collection it names, 14 the Core program (the
 * whitelist after them); the collection read from the chain. Out of line: classic loans pay nothing for it. */
__attribute__((noinline)) static u64 take_loan_core_accounts(NewLoan *c, CoreAccounts *core) {
  const SolParameters *p = c->p;
  const SolAccountInfo *ka = p->ka;
  if (p->ka_num < 15) return E_NOT_ENOUGH_ACCOUNTS;
  if ((p->data[2] | p->data[3]) != 0) return E_INVALID_INSTRUCTION; /* no escrow, no metadata */
  if (c->collateral_amount != 1) return E_INVALID_COLLATERAL;
  const SolAccountInfo *asset = c->mint;
  if (!pubkey_eq(ka[7].key, asset->key) || !pubkey_eq(ka[9].key, asset->key)) return E_ACCOUNT_MISMATCH;
  if (!asset->is_writable) return E_NOT_WRITABLE;
  core->asset = asset;
  core->collection = &ka[13];
  core->core = &ka[14];
  core->payer = core->owner = c->borrower;
  c->whitelist_index = 15;
  return core_collateral(core, &c->collection);
}

/* the asset goes to the loan PDA (created: Core sees an account of this program as the new owner) */
__attribute__((noinline)) static u64 take_loan_core_lock(const NewLoan *c, const CoreAccounts *core) {
  Custody held = {NFT_TYPE_CORE, c->token, c->loan, NULL, c->escrow, {.core = core}};
  return custody_lock(&held, c->borrower, &c->p->ka[9], c->collateral_amount);
}

/* A compressed NFT's TakeLoan: 7 and 9 the tree (w), 8 the asset id (no account; Bubblegum's ["asset", tree,
 * nonce], bump data byte 122), 13 the tree config (bump byte 123), 14 Bubblegum, 15 SPL Account Compression, 16 SPL
 * Noop, the whitelist after them, then the proof; data after the terms: root, nonce u64, proof length u8,
 * MetadataArgs. The collection is the one the metadata names verified; Bubblegum checks the leaf commits to it.
 * Out of line: classic loans pay nothing for it. */
__attribute__((noinline)) static u64 take_loan_cnft_accounts(NewLoan *c, CnftAccounts *a, CnftBeginning *b) {
  const SolParameters *p = c->p;
  const SolAccountInfo *ka = p->ka;
  const u8 *d = p->data;
  if (p->ka_num < 17) return E_NOT_ENOUGH_ACCOUNTS;
  if ((d[2] | d[3]) != 0) return E_INVALID_INSTRUCTION; /* no escrow, no metadata account */
  if (c->collateral_amount != 1) return E_INVALID_COLLATERAL;
  a->tree = &ka[7];
  a->tree_config = &ka[13];
  a->bubblegum = &ka[14];
  a->compression = &ka[15];
  a->noop = &ka[16];
  a->system = c->sys;
  a->owner = c->borrower;
  a->config_bump = d[123];
  if (!pubkey_eq(ka[9].key, a->tree->key)) return E_ACCOUNT_MISMATCH;
  c->whitelist_index = 17;
  u64 first = 17 + (c->pl->whitelist_enabled ? 1 : 0);
  b->tail_at = CNFT_LEAF_OFFSET;
  b->proof_first = first;
  b->asset_bump = d[122];
  b->asset = c->mint->key;
  u64 r = cnft_begin(p, a, b);
  if (!r) copy_key(&c->collection, &b->collection);
  return r;
}

/* the leaf goes to the loan PDA (created first); the loan records the leaf's nonce and the PDA bumps */
__attribute__((noinline)) static u64 take_loan_cnft_lock(const NewLoan *c, const CnftAccounts *a) {
  Loan *l = (Loan *)c->loan->data;
  l->custody_bumps[0] = c->p->data[122];
  l->custody_bumps[1] = a->config_bump;
  l->leaf_nonce = (u32)a->nonce;
  Custody held = {NFT_TYPE_CNFT, c->token, c->loan, NULL, c->escrow, {.cnft = a}};
  return custody_lock(&held, c->borrower, &c->p->ka[9], c->collateral_amount);
}

/* accounts: see LAYOUT.md TakeLoan (0 borrower .. 12 system program; nft-pool: 13 metadata, 14 optional
 * whitelist; defi-pool: 13 optional whitelist; a pNFT or Core asset: LAYOUT.md "Custody") */
u64 ix_take_loan(const SolParameters *p) {
  if (p->ka_num < 13) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka;
  NewLoan c;
  new_loan_accounts(&c, p, false, false);
  u64 r = new_loan_parse(&c);
  if (r) return r;
  const SolAccountInfo *collateral = &ka[9], *currency = &ka[10];
  bool is_defi = c.pl->pool_type == POOL_DEFI;
  u8 metadata_bump = p->data[3];
  PnftAccounts pnft;
  CoreAccounts core;
  CnftAccounts cnft;
  CnftBeginning leaf; /* a compressed NFT's leaf: its collection and hashes */
  u8 decimals;
  u64 supply;
  if ((r = check_mint(c.mint, &decimals, &supply))) {
    /* no mint: a Core asset's accounts, or the error (nothing on a classic loan's path) */
    if ((c.nft_type != NFT_TYPE_CORE && c.nft_type != NFT_TYPE_CNFT) || is_defi) return r;
    if (c.nft_type == NFT_TYPE_CNFT ? (r = take_loan_cnft_accounts(&c, &cnft, &leaf)) != 0
                                    : (r = take_loan_core_accounts(&c, &core)) != 0)
      return r;
  } else if (is_defi) {
    if (metadata_bump != 0 || c.nft_type != NFT_TYPE_CLASSIC) return E_INVALID_INSTRUCTION; /* NFT loans only */
    copy_key(&c.collection, c.mint->key);
    c.whitelist_index = 13;
  } else {
    if (decimals != 0 || supply != 1 || c.collateral_amount != 1) return E_INVALID_COLLATERAL;
    if (p->ka_num < 14) return E_NOT_ENOUGH_ACCOUNTS;
    if ((r = read_verified_collection(&ka[13], c.mint->key, metadata_bump, &c.collection))) return r;
    c.whitelist_index = 14;
    if (c.nft_type != NFT_TYPE_CLASSIC && (r = take_loan_pnft_accounts(&c, &pnft))) return r;
  }
  /* a loan larger than the idle liquidity takes what it lacks back from the bank's lending venue position */
  if (c.pull_index != 0 && c.principal > c.available) {
    if (c.pull_index < 13) return E_INVALID_INSTRUCTION;
    Pull pull = {c.pull_index, c.bank, c.vault, c.token, c.principal - c.available};
    if ((r = delegation_pull(p, &pull))) return r;
    c.available = c.bk->available;
    c.bank_total = c.bk->total;
  }
  if ((r = new_loan_limits(&c))) return r;
  if (c.nft_type == NFT_TYPE_CLASSIC && (r = check_token_account(collateral, c.mint->key, c.borrower->key))) return r;
  if ((r = check_wallet_currency_account(currency, &c.bk->mint, c.borrower->key, c.vault))) return r;
  if ((r = new_loan_create(&c))) return r;
  if (c.nft_type == NFT_TYPE_CLASSIC) {
    Custody held = {c.nft_type, c.token, c.loan, NULL, c.escrow, {NULL}};
    if ((r = custody_lock(&held, c.borrower, collateral, c.collateral_amount))) return r;
  } else if (c.nft_type == NFT_TYPE_CORE && (r = take_loan_core_lock(&c, &core))) {
    return r;
  }
  SolSignerSeed bank_seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {c.bk->owner.x, 32}, {c.bk->mint.x, 32}, {&c.bk->bump, 1}};
  SolSignerSeeds bank_signer = {bank_seeds, 4};
  TransferArgs out = {c.token, c.vault, currency, c.bank, c.principal, &bank_signer};
  if ((r = token_transfer(&out))) return r;
  c.bk->available -= c.principal;
  new_loan_record(&c, is_defi);
  if (c.nft_type == NFT_TYPE_PNFT) return take_loan_pnft_lock(&c, &pnft);
  if (c.nft_type == NFT_TYPE_CNFT) return take_loan_cnft_lock(&c, &cnft);
  return SUCCESS;
}

/* A moving loan's collateral that is no mint: a Core asset (its account is checked by Core and its custody), or the
 * error; out of line, off a classic loan's path */
__attribute__((noinline)) static u64 no_mint(const Loan *old, u64 r) {
  return old->nft_type == NFT_TYPE_CORE || old->nft_type == NFT_TYPE_CNFT ? SUCCESS : r;
}

/* Extend and Refinance share accounts 0-13 (0 borrower, 1 oracle, 2 config, 3 new pool, 4 new bank, 5 new vault,
 * 6 old loan, 7 old escrow, 8 new loan, 9 new escrow, 10 collateral mint, 11 borrower currency, 12 token program,
 * 13 system program) and these checks: the new loan's terms, the old loan Ongoing and the borrower's, not past
 * expiry + grace, the same collateral and collection, and the borrower's currency account of the new bank's mint. The caller checks how the old loan's pool relates to the new one. */
u64 moving_loan_parse(NewLoan *c, const SolParameters *p, u64 whitelist_index, Loan **old_out) {
  const SolAccountInfo *ka = p->ka;
  c->p = p;
  /* a compressed NFT loan's move: the leaf's root and hashes follow the terms (checked against the standard below) */
  c->trailing_data = p->data_len == LOAN_DATA_LEN + CNFT_LEAF_HASHES_LEN;
  c->mortgage = false;
  c->custody_data = false;
  c->borrower = &ka[0];
  c->oracle = &ka[1];
  c->config = &ka[2];
  c->pool = &ka[3];
  c->bank = &ka[4];
  c->vault = &ka[5];
  c->loan = &ka[8];
  c->escrow = &ka[9];
  c->mint = &ka[10];
  c->token = &ka[12];
  c->sys = &ka[13];
  c->whitelist_index = whitelist_index;
  u64 r = new_loan_parse(c);
  if (r) return r;
  if (p->data[3] != 0 || c->pull_index != 0) return E_INVALID_INSTRUCTION; /* TakeLoan-only bytes */
  const SolAccountInfo *old_loan = &ka[6], *old_escrow = &ka[7], *currency = &ka[11];
  if ((r = check_state(old_loan, p->program_id, TAG_LOAN, sizeof(Loan), true))) return r;
  Loan *old = (Loan *)old_loan->data;
  if (!pubkey_eq(&old->escrow, old_escrow->key)) return E_ACCOUNT_MISMATCH;
  if (!old_escrow->is_writable) return E_NOT_WRITABLE;
  if (old->status != LOAN_ONGOING) return E_LOAN_NOT_ONGOING;
  if (!pubkey_eq(&old->borrower, c->borrower->key)) return E_UNAUTHORIZED;
  /* past expiry + grace the loan can only be repaid or liquidated: moving it would take it from the lender */
  if (c->clock.unix_timestamp > old->expired_at + (i64)grace_seconds(old->duration)) return E_LOAN_LIQUIDATABLE;
  if (!pubkey_eq(&old->collateral_mint, c->mint->key)) return E_INVALID_MINT;
  copy_key(&c->collection, &old->collection);
  c->nft_type = old->nft_type;
  if (c->trailing_data != (old->nft_type == NFT_TYPE_CNFT)) return E_INVALID_INSTRUCTION;
  if (old->collateral_amount != c->collateral_amount) return E_INVALID_COLLATERAL;
  if (__builtin_expect((r = check_mint(c->mint, NULL, NULL)) != 0, 0) && (r = no_mint(old, r))) return r;
  if ((r = check_wallet_currency_account(currency, &c->bk->mint, c->borrower->key, c->vault))) return r;
  *old_out = old;
  return SUCCESS;
}

/* moves the old loan's collateral (and anything paid into its escrow) into the new escrow and closes the old escrow
 * to the borrower; a pNFT or Core asset: its custody passes to the new loan PDA (c->moving) */
u64 move_collateral(const NewLoan *c, const SolAccountInfo *old_loan, const SolAccountInfo *old_escrow) {
  const Loan *old = (const Loan *)old_loan->data;
  SolSignerSeed seeds[5];
  loan_signer_seeds(old, seeds);
  SolSignerSeeds old_signer = {seeds, 5};
  Custody from = {old->nft_type, c->token, old_loan, &old_signer, old_escrow, {&c->moving.pnft}};
  Custody to = {old->nft_type, c->token, c->loan, &c->moving.new_signer, c->escrow, {&c->moving.pnft}};
  return custody_move(&from, &to, c->borrower);
}
