/* Programmable NFT custody by ownership (NFT_TYPE_PNFT_HELD): the holder PDA owns the pNFT in its own associated
 * token account. A loan request's custody (PostRequest: the borrower transfers it to the request PDA), then the loan's
 * that fills it (FillRequest: the request PDA transfers it to the new loan PDA), and so on through Extend and
 * Refinance. Every move is Token Metadata's Transfer v1 with the rule set the metadata names, the holder signing as
 * the owner ("Transfer:Owner" by an account of this program), so no step needs the borrower's signature after the
 * post: that is why a request cannot use the escrowless custody (custody_pnft.c), whose delegate only the owner can
 * move (LAYOUT.md "Custody", "Loan requests of a programmable NFT"). */
#include "custody_pnft.h"

u64 pnft_held_accounts(const SolParameters *p, u64 first, const SolPubkey *mint, const u8 *bumps, PnftAccounts *out) {
  const SolAccountInfo *payer = out->payer, *receiver = out->dest_owner; /* the caller's */
  u64 r = pnft_block(p, first, out);
  if (r) return r;
  if (p->ka_num < first + PNFT_HELD_ACCOUNTS) return E_NOT_ENOUGH_ACCOUNTS;
  if (!pubkey_eq(out->mint->key, mint)) return E_INVALID_MINT;
  out->ata_program = &p->ka[first + PNFT_BLOCK_LEN];
  out->dest_record = &p->ka[first + PNFT_BLOCK_LEN + 1];
  out->payer = out->owner = payer;
  out->dest_owner = receiver;
  out->bumps = bumps;
  return SUCCESS;
}

/* the pNFT's accounts (tm_pnft_check: the programs by id, the metadata and edition at their PDAs with the recorded
 * bumps, ProgrammableNonFungible, the rule set the metadata names) and the holder's associated token account
 * (c->escrow) and its token record at their addresses */
static u64 held_check(const Custody *c, TmPnft *tp) {
  const PnftAccounts *a = c->pnft;
  if (!a->ata_program || !a->dest_record) return E_ACCOUNT_MISMATCH;
  tm_pnft_of(c, tp);
  int r = tm_pnft_check(tp, a->bumps[0], a->bumps[1]);
  if (r == TM_PNFT_OK) r = tm_ata_and_record(tp, c->holder->key, c->escrow, a->token_record);
  return tm_error(r);
}

u64 pnft_held_lock(const Custody *c, const SolAccountInfo *from) {
  const PnftAccounts *a = c->pnft;
  TmPnft tp;
  u64 r = held_check(c, &tp);
  if (r) return r;
  /* the owner's account: of this mint, theirs, holding it, its token record at its PDA (bump: bumps[2]) */
  int t = tm_token_record_check(&tp, from, a->dest_record, a->bumps[2]);
  if (t == TM_PNFT_OK) t = tm_holds_pnft(&tp, from, a->owner->key);
  if ((r = tm_error(t))) return r;
  TmTransfer in = {from, a->owner, a->dest_record, c->escrow, c->holder, a->token_record, a->owner, a->payer, NULL};
  if ((r = tm_transfer_v1(&tp, &in))) return r;
  if ((r = tm_error(tm_holds_pnft(&tp, c->escrow, c->holder->key)))) return r;
  /* the endings, asked now, so a rule set that would refuse them refuses the request before anyone relies on it:
   * the holder to the borrower (CancelRequest; Repay is the same transfer by the loan PDA, another account of this
   * program), and the holder to an account of this program (FillRequest's transfer to the new loan PDA, which does
   * not exist yet: the holder, initialized and this program's, stands for it). Liquidate's receiver, the lender, is
   * known at FillRequest, which asks about it (pnft_held_move). */
  if ((r = pnft_validate_owner_transfer(c, a->owner))) return r;
  return pnft_validate_owner_transfer(c, c->holder);
}

/* The holder's emptied associated token account closes to `rent_to`, the holder signing: Token Metadata's transfer
 * leaves it open, thawed and empty (it closes the token record itself). Its rent goes where a classic escrow's goes:
 * the one who paid it (the borrower at PostRequest, Extend and Refinance; the lender at FillRequest, who gets the
 * request's account's as a classic fill gets the request escrow's) or whoever the ending pays (the liquidator). */
static u64 close_emptied(const Custody *c, const SolAccountInfo *rent_to) {
  TransferArgs close = {c->token, c->escrow, rent_to, c->holder, 0, c->signer};
  return token_close(&close);
}

/* The held pNFT out of the holder's account into `to`, `to_owner`'s associated token account (its token record
 * c->pnft->dest_record), the holder signing as the owner; then the emptied account closes to `rent_to` */
static u64 held_transfer_out(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *to_owner,
                             const SolAccountInfo *rent_to) {
  const PnftAccounts *a = c->pnft;
  TmPnft tp;
  u64 r = held_check(c, &tp);
  if (r) return r;
  if ((r = tm_error(tm_ata_and_record(&tp, to_owner->key, to, a->dest_record))) ||
      (r = pnft_transfer_as_owner(c, c->escrow, a->token_record, to, to_owner)))
    return r;
  return close_emptied(c, rent_to);
}

u64 pnft_held_release(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to) {
  if (!c->pnft->dest_owner) return E_ACCOUNT_MISMATCH;
  return held_transfer_out(c, to, c->pnft->dest_owner, rent_to);
}

u64 pnft_held_move(const Custody *from, const Custody *to, const SolAccountInfo *rent_to) {
  const SolAccountInfo *pool_owner = from->pnft->dest_owner;
  if (!pool_owner) return E_ACCOUNT_MISMATCH;
  u64 r = held_transfer_out(from, to->escrow, to->holder, rent_to);
  /* the new holder's liquidation: "Transfer:Owner" from it to the pool owner */
  return r ? r : pnft_validate_owner_transfer(to, pool_owner);
}

u64 pnft_held_sell(const Custody *c, const SwapCall *venue) {
  TmPnft tp;
  u64 r = held_check(c, &tp);
  return r ? r : pnft_sell_from(c, c->escrow, venue);
}
