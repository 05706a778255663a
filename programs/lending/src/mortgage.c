/* TakeMortgage (23): buy a listed NFT with a loan. The buyer's down payment plus a loan from an nft-pool that
 * offers mortgages pay the pinned NFT market's listing, and the NFT lands in the new loan's escrow as its
 * collateral, under the pool's mortgage curve. It ends like any loan: repay, instant sell, or liquidation
 * (the buyer then loses the NFT and the down payment). */
#include "loan.h"

#define MARKET_FIRST_ACCOUNT 15
#define MAX_MARKET_DATA 512
static const u8 BANK_SEED[] = "bank";

/* The loan and the purchase, once the collateral's collection is read (c->collection): the pool's limits (no
 * whitelist account: a private pool's mortgage is refused), the loan PDA, the principal to the borrower; then the
 * market's purchase (accounts from 15, the borrower paying from account 9) must deliver the NFT into the new loan's
 * custody (custody_receive, read from the chain), and what left the borrower's account is the price, of which the
 * pool lends at most its LTV. One body, inline in the classic path (`standard` a constant) and in Core's and the
 * pNFT's (the loan PDA signs its Lock: its seeds only there). */
__attribute__((always_inline)) static inline u64 lend_and_buy(NewLoan *c, u8 standard, const CoreAccounts *core,
                                                              const PnftAccounts *pnft) {
  const SolParameters *p = c->p;
  const SolAccountInfo *currency = &p->ka[9], *venues = &p->ka[10], *market = &p->ka[14];
  c->whitelist_index = p->ka_num;
  u64 r = new_loan_limits(c);
  if (r) return r;
  if ((r = check_wallet_currency_account(currency, &c->bk->mint, c->borrower->key, c->vault))) return r;
  if ((r = check_market_venue(venues, market, p->program_id))) return r;
  if ((r = new_loan_create(c))) return r;

  SolSignerSeed bank_seeds[4] = {
    {BANK_SEED, sizeof(BANK_SEED) - 1}, {c->bk->owner.x, 32}, {c->bk->mint.x, 32}, {&c->bk->bump, 1}};
  SolSignerSeeds bank_signer = {bank_seeds, 4};
  TransferArgs out = {c->token, c->vault, currency, c->bank, c->principal, &bank_signer};
  if ((r = token_transfer(&out))) return r;
  c->bk->available -= c->principal;
  new_loan_record(c, false);
  Loan *l = (Loan *)c->loan->data;
  u64 currency_before = rd64(currency->data + 64);
  SolParameters shifted = *p;
  shifted.data = p->data + LOAN_DATA_LEN - 1;
  shifted.data_len = p->data_len - LOAN_DATA_LEN + 1;
  SwapCall call = {&shifted, MARKET_FIRST_ACCOUNT, market, c->loan, l};
  SolSignerSeed seeds[5];
  SolSignerSeeds signer = {seeds, 5};
  Custody held = {standard, c->token, c->loan, NULL, c->escrow, {.core = core}};
  if (standard == NFT_TYPE_PNFT) {
    loan_signer_seeds(l, seeds);
    held.signer = &signer;
    held.pnft = pnft;
  }
  /* the NFT must be in the new loan's custody (a Core asset: owned by the loan PDA, in the collection read before; a
   * pNFT: in the borrower's associated token account, delegated to the loan PDA and locked) */
  if ((r = custody_receive(&held, &call, &c->collection))) return r;
  u64 currency_after = rd64(currency->data + 64);
  /* what left the buyer's account (principal included) is the price paid */
  u64 paid = currency_before > currency_after ? currency_before - currency_after : 0;
  /* the pool lends at most its LTV of the price: the down payment covers the rest */
  if (!mul_le(c->principal, BPS, paid, c->entry->ltv_bps)) return E_LTV_EXCEEDED;
  u64 down_payment = paid - c->principal;
  c->pl->total_mortgages++;
  c->pl->last_mortgage_at = c->clock.unix_timestamp;
  static const u8 EVENT[] = "mortgage";
  SolBytes fields[3] = {{EVENT, sizeof(EVENT) - 1}, {(const u8 *)&paid, 8}, {(const u8 *)&down_payment, 8}};
  sol_log_data(fields, 3);
  return SUCCESS;
}

/* A Core asset's mortgage: accounts 7 and 8 the asset (w; the market's BuyCore delivers it to the loan PDA, account
 * 6), 13 the Core collection it names (instead of the metadata); data byte 121 = 2 (bytes 2, 3, 122, 123 zero). The
 * collection is read from the asset and collection accounts with TakeLoan's checks (core_collateral) but the owner's
 * (the listing's PDA until the purchase), and again after it with the owner the loan PDA. Out of line: a classic
 * mortgage pays nothing for it. */
__attribute__((noinline)) static u64 take_mortgage_core(NewLoan *c) {
  const SolParameters *p = c->p;
  const SolAccountInfo *asset = c->mint;
  if ((p->data[2] | p->data[3]) != 0) return E_INVALID_INSTRUCTION; /* no escrow, no metadata */
  if (c->collateral_amount != 1) return E_INVALID_COLLATERAL;
  if (!pubkey_eq(p->ka[7].key, asset->key)) return E_ACCOUNT_MISMATCH;
  if (!asset->is_writable) return E_NOT_WRITABLE;
  CoreAccounts core = {asset, &p->ka[13], NULL, c->borrower, c->borrower}; /* the market invokes Core, not this */
  u64 r = core_collection(&core, &c->collection);
  return r ? r : lend_and_buy(c, NFT_TYPE_CORE, &core, NULL);
}

/* The market's BuyPnft (12) as TakeMortgage passes it from account 15 (nft-market LAYOUT.md): 0 buyer, 5 the new
 * owner, 8 the new owner's associated token account, 9 its token record, 10.. the pNFT tail (mint, metadata,
 * edition, Token Metadata, Token Auth Rules, rule set, sysvar instructions, system, token, associated token) */
#define BUY_PNFT_ACCOUNTS 20
#define BUY_PNFT_NEW_TOKEN 8
#define BUY_PNFT_TAIL 10

/* A pNFT's mortgage, escrowless (data byte 121 = 1; byte 2 zero, 3 the metadata bump, 122 the master edition's,
 * 123 the token record's): the market's BuyPnft delivers it to the borrower's associated token account (account 7,
 * == the buy's new owner's account; recorded as `escrow`), then it is delegated to the loan PDA and locked as at
 * TakeLoan. Account 13 is the pool owner's wallet (the liquidation's receiver the rule set is asked about) instead
 * of the metadata: the pNFT block is read from the buy's accounts (the instruction stays within 40 accounts). Out
 * of line: a classic mortgage pays nothing for it. */
__attribute__((noinline)) static u64 take_mortgage_pnft(NewLoan *c, u8 decimals, u64 supply) {
  const SolParameters *p = c->p;
  const u8 *d = p->data;
  if (d[2] != 0) return E_INVALID_INSTRUCTION; /* no escrow PDA */
  if (decimals != 0 || supply != 1 || c->collateral_amount != 1) return E_INVALID_COLLATERAL;
  if (p->ka_num < MARKET_FIRST_ACCOUNT + BUY_PNFT_ACCOUNTS) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *buy = p->ka + MARKET_FIRST_ACCOUNT, *tail = buy + BUY_PNFT_TAIL;
  if (!pubkey_eq(tail[0].key, c->mint->key)) return E_INVALID_MINT;
  if (!pubkey_eq(c->escrow->key, buy[BUY_PNFT_NEW_TOKEN].key) || !pubkey_eq(p->ka[13].key, &c->pl->owner))
    return E_ACCOUNT_MISMATCH;
  PnftAccounts pnft = {&tail[0], &tail[1], &tail[2], &buy[BUY_PNFT_NEW_TOKEN + 1], &tail[6], &tail[3], &tail[4],
                       &tail[5], &tail[7]};
  pnft.payer = pnft.owner = c->borrower;
  pnft.locked_address = &c->pl->owner;
  pnft.dest_owner = &p->ka[13];
  u8 bumps[3] = {d[3], d[122], d[123]};
  pnft.bumps = bumps;
  c->pnft_bumps = bumps; /* the loan records them for its endings */
  u64 r = read_verified_collection(pnft.metadata, c->mint->key, d[3], &c->collection);
  return r ? r : lend_and_buy(c, NFT_TYPE_PNFT, NULL, &pnft);
}

/* accounts: 0 borrower (s, w), 1 oracle (s), 2 config, 3 pool (w; an nft-pool with the mortgage flag, not
 * private), 4 bank (w), 5 vault (w), 6 loan (w; new PDA), 7 escrow (w; new PDA, token account of the NFT),
 * 8 NFT mint, 9 borrower currency token account (w; holds the down payment, receives the principal, pays the
 * listing), 10 venues, 11 token program, 12 system program, 13 the NFT's Metaplex metadata, 14 NFT market (the
 * pinned one), 15.. the market's Buy accounts (buyer: account 0; payment from account 9; NFT to account 7).
 * data: the TakeLoan terms (124 bytes, tag 23; byte 3 = metadata bump; expectedAprBps = the pool's
 * mortgageAprBps; collateralAmount 1), then the market instruction's data (at most 512 bytes). A Core asset: see
 * take_mortgage_core (the market's BuyCore, its new owner the loan PDA); a pNFT: take_mortgage_pnft (BuyPnft, its
 * new owner the borrower). */
u64 ix_take_mortgage(const SolParameters *p) {
  if (p->ka_num <= MARKET_FIRST_ACCOUNT) return E_NOT_ENOUGH_ACCOUNTS;
  if (p->data_len <= LOAN_DATA_LEN || p->data_len > LOAN_DATA_LEN + MAX_MARKET_DATA) return E_INVALID_INSTRUCTION;
  NewLoan c;
  new_loan_accounts(&c, p, true, true);
  u64 r = new_loan_parse(&c);
  if (r) return r;
  if (c.pull_index != 0) return E_INVALID_INSTRUCTION;
  if (c.pl->pool_type != POOL_NFT) return E_INVALID_COLLATERAL;
  if (!(c.pl->flags & FLAG_MORTGAGE)) return E_MORTGAGE_DISABLED;
  u8 decimals;
  u64 supply;
  if ((r = check_mint(c.mint, &decimals, &supply))) /* no mint: a Core asset, or the error */
    return c.nft_type == NFT_TYPE_CORE ? take_mortgage_core(&c) : r;
  if (c.nft_type == NFT_TYPE_PNFT) return take_mortgage_pnft(&c, decimals, supply);
  /* a mint: classic (new_loan_parse takes byte 121 for a pNFT, or a Core asset: an account of the Core program) */
  if (decimals != 0 || supply != 1 || c.collateral_amount != 1) return E_INVALID_COLLATERAL;
  if ((r = read_verified_collection(&p->ka[13], c.mint->key, p->data[3], &c.collection))) return r;
  return lend_and_buy(&c, NFT_TYPE_CLASSIC, NULL, NULL);
}
