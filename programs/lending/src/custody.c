/* The custody interface (custody.h) for the standards other than the classic escrow. */
#include "custody.h"

u64 custody_lock_other(const Custody *c, const SolAccountInfo *owner, const SolAccountInfo *from, u64 amount) {
  (void)c; (void)owner; (void)from; (void)amount;
  return E_INVALID_COLLATERAL;
}

u64 custody_release_other(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to, bool to_borrower) {
  (void)c; (void)to; (void)rent_to; (void)to_borrower;
  return E_INVALID_COLLATERAL;
}

u64 custody_move_other(const Custody *from, const Custody *to, const SolAccountInfo *rent_to) {
  (void)from; (void)to; (void)rent_to;
  return E_INVALID_COLLATERAL; /* a standard's custody never changes within a loan's life */
}
