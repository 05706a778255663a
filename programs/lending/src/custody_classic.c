/* Classic custody: the collateral (an SPL NFT or tokens) sits in an escrow token account whose authority is the
 * holder PDA (a Loan: ["escrow", loan]; a Request: ["escrow", request]). The escrow is created with the loan
 * (new_loan_create) or the request (PostRequest); the lock is one token transfer into it (custody_lock, inline in
 * custody.h). */
#include "custody.h"

u64 classic_release(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to) {
  TransferArgs move = {c->token, c->escrow, to, c->holder, rd64(c->escrow->data + 64), c->signer};
  u64 r;
  if (move.amount && (r = token_transfer(&move))) return r;
  move.to = rent_to;
  return token_close(&move);
}
