/* The custody interface (custody.h) for the standards other than the classic escrow. */
#include "custody.h"

u64 custody_lock_other(const Custody *c, const SolAccountInfo *owner, const SolAccountInfo *from, u64 amount) {
  if (c->nft_type == NFT_TYPE_PNFT && c->pnft && amount == 1 && pubkey_eq(from->key, c->escrow->key) &&
      pubkey_eq(owner->key, c->pnft->owner->key))
    return pnft_lock(c);
  if (c->nft_type == NFT_TYPE_CORE && c->core && amount == 1 && pubkey_eq(from->key, c->escrow->key) &&
      pubkey_eq(owner->key, c->core->owner->key))
    return core_lock(c);
  if (c->nft_type == NFT_TYPE_CNFT && c->cnft && amount == 1 && pubkey_eq(from->key, c->escrow->key) &&
      pubkey_eq(owner->key, c->cnft->owner->key))
    return cnft_lock(c);
  if (c->nft_type == NFT_TYPE_PNFT_HELD && c->pnft && amount == 1 && pubkey_eq(owner->key, c->pnft->owner->key))
    return pnft_held_lock(c, from);
  return E_INVALID_COLLATERAL;
}

u64 custody_release_other(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to, bool to_borrower) {
  /* no escrow but a held pNFT's: no rent */
  if (c->nft_type == NFT_TYPE_CORE && c->core) {
    /* to the borrower: the custody's own account (the asset) names where it returns, the borrower's wallet */
    if (to_borrower) return pubkey_eq(to->key, c->escrow->key) ? core_transfer_out(c, c->core->owner) : E_ACCOUNT_MISMATCH;
    return core_transfer_out(c, to);
  }
  if (c->nft_type == NFT_TYPE_CNFT && c->cnft) {
    /* to the borrower: the leaf's tree names nothing; the borrower's wallet is `owner` (Repay's account 0) */
    if (to_borrower) return pubkey_eq(to->key, c->escrow->key) ? cnft_transfer_out(c, c->cnft->owner) : E_ACCOUNT_MISMATCH;
    return cnft_transfer_out(c, to);
  }
  if (c->nft_type == NFT_TYPE_PNFT_HELD && c->pnft) {
    /* to the borrower: the wallet it returns to is the borrower's (Repay, CancelRequest: their account 0) */
    if (to_borrower && !pubkey_eq(c->pnft->dest_owner->key, c->pnft->owner->key)) return E_ACCOUNT_MISMATCH;
    return pnft_held_release(c, to, rent_to);
  }
  if (c->nft_type != NFT_TYPE_PNFT || !c->pnft) return E_INVALID_COLLATERAL;
  if (to_borrower) return pubkey_eq(to->key, c->escrow->key) ? pnft_release_to_owner(c) : E_ACCOUNT_MISMATCH;
  return pnft_transfer_out(c, to);
}

u64 custody_move_other(const Custody *from, const Custody *to, const SolAccountInfo *rent_to) {
  /* no escrow but a held pNFT's: no rent */
  if (from->nft_type != to->nft_type || !from->pnft || !to->pnft) return E_INVALID_COLLATERAL;
  /* Core: the old holder transfers the asset to the new one */
  if (from->nft_type == NFT_TYPE_CORE) return core_transfer_out(from, to->holder);
  /* a compressed NFT: the old holder transfers the leaf to the new one (Bubblegum Transfer with a fresh proof) */
  if (from->nft_type == NFT_TYPE_CNFT) return cnft_transfer_out(from, to->holder);
  /* a held pNFT: the old holder transfers it to the new holder's associated token account */
  if (from->nft_type == NFT_TYPE_PNFT_HELD) return pnft_held_move(from, to, rent_to);
  if (from->nft_type != NFT_TYPE_PNFT) return E_INVALID_COLLATERAL;
  /* pNFT: the old holder unlocks and the owner revokes it, then delegates it to the new holder, which locks it (and
   * Token Auth Rules is asked about the new loan's liquidation) */
  u64 r = pnft_release_to_owner(from);
  return r ? r : pnft_lock(to);
}

u64 custody_sell_other(const Custody *c, const SwapCall *venue) {
  if (c->nft_type == NFT_TYPE_CORE) return core_sell(c, venue);
  if (c->nft_type == NFT_TYPE_CNFT && c->cnft) return cnft_sell(c, venue);
  if (c->nft_type == NFT_TYPE_PNFT && c->pnft) return pnft_sell(c, venue);
  if (c->nft_type == NFT_TYPE_PNFT_HELD && c->pnft) return pnft_held_sell(c, venue);
  return E_INVALID_COLLATERAL;
}

u64 custody_receive_other(const Custody *c, const SwapCall *venue, const SolPubkey *collection) {
  if (c->nft_type == NFT_TYPE_CORE && c->core) return core_receive(c, venue, collection);
  if (c->nft_type == NFT_TYPE_PNFT && c->pnft) return pnft_receive(c, venue, collection);
  return E_INVALID_COLLATERAL; /* a compressed NFT: not bought through a venue yet */
}
