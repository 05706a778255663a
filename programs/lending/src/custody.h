/* Custody of a loan's (or a request's) collateral: one interface that every beginning and ending of a loan calls,
 * one file per NFT standard behind it (custody_classic.c: the escrow token account). The standard is recorded in
 * Loan.nft_type (LAYOUT.md); a loan written before it existed reads 0, the classic escrow.
 *
 *   lock                  TakeLoan, PostRequest: the collateral goes into the holder's custody
 *   move                  Extend, Refinance, FillRequest: from one holder's custody to a new one's
 *   release to borrower   Repay, MarketSell, CancelRequest: what custody holds back to the borrower
 *   release to a receiver Liquidate, LiquidateSell: what custody holds to the pool owner (a buyer's venue takes
 *                         it inside MarketSell / LiquidateSell / TakeMortgage with the holder signing)
 */
#pragma once
#include "lending.h"

/* Loan.nft_type */
#define NFT_TYPE_CLASSIC 0 /* SPL token (an NFT or a token) in an escrow token account of the loan PDA */

/* The custody of one holder (a Loan or Request PDA; it signs with `signer`). */
typedef struct {
  u8 nft_type;
  const SolAccountInfo *token;  /* SPL Token program */
  const SolAccountInfo *holder; /* the loan or request PDA */
  const SolSignerSeeds *signer; /* the holder's seeds */
  const SolAccountInfo *escrow; /* classic: the escrow token account (authority = holder) */
} Custody;

/* ---- custody_classic.c ---- */
/* sweeps the escrow (what it holds now: the collateral and anything paid into it) to `to`, the holder signing, and
 * closes it to `rent_to` */
u64 classic_release(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to);

/* ---- custody.c: the other standards ---- */
u64 custody_lock_other(const Custody *c, const SolAccountInfo *owner, const SolAccountInfo *from, u64 amount);
u64 custody_release_other(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to, bool to_borrower);
u64 custody_move_other(const Custody *from, const Custody *to, const SolAccountInfo *rent_to);

/* ---- the interface ----
 * Inline, the classic escrow's lock in the caller's frame (the Custody is copied only on the other standards'
 * branch), so a classic loan's custody costs what the escrow's token calls cost. */
#define CUSTODY_INLINE __attribute__((always_inline)) static inline

/* The owner (signing) puts `amount` of `from` (their token account) in custody. */
CUSTODY_INLINE u64 custody_lock(const Custody *c, const SolAccountInfo *owner, const SolAccountInfo *from, u64 amount) {
  if (c->nft_type != NFT_TYPE_CLASSIC) {
    Custody other = *c;
    return custody_lock_other(&other, owner, from, amount);
  }
  /* classic: one token transfer into the escrow, the owner signing */
  TransferArgs t = {c->token, from, c->escrow, owner, amount, NULL};
  return token_transfer(&t);
}

CUSTODY_INLINE u64 custody_release(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to,
                                   bool to_borrower) {
  return c->nft_type == NFT_TYPE_CLASSIC ? classic_release(c, to, rent_to)
                                         : custody_release_other(c, to, rent_to, to_borrower);
}

/* All that custody holds goes back to the borrower (`to`: their account); the escrow's rent to `rent_to`. */
CUSTODY_INLINE u64 custody_release_to_borrower(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to) {
  return custody_release(c, to, rent_to, true);
}
/* All that custody holds goes to the pool owner (`to`: their account); the escrow's rent to `rent_to`. */
CUSTODY_INLINE u64 custody_release_to_receiver(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to) {
  return custody_release(c, to, rent_to, false);
}
/* All that custody `from` holds goes into custody `to` (the same standard); `from`'s escrow rent to `rent_to`. */
CUSTODY_INLINE u64 custody_move(const Custody *from, const Custody *to, const SolAccountInfo *rent_to) {
  if (from->nft_type != NFT_TYPE_CLASSIC || to->nft_type != NFT_TYPE_CLASSIC) {
    Custody other = *to;
    return custody_move_other(from, &other, rent_to);
  }
  return classic_release(from, to->escrow, rent_to);
}
