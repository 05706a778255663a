/* Metaplex Core custody, by ownership: the loan PDA owns the asset for the loan's life. TakeLoan: the borrower
 * transfers it to the loan PDA (Core TransferV1); Repay: the loan PDA transfers it back to the borrower;
 * Liquidate: to the pool owner. Escrowless custody (freeze and transfer delegate plugins held by the loan PDA) is
 * not used: the owner can revoke a TransferDelegate while the asset is frozen, and then the loan PDA could never
 * move it at Liquidate; ownership rests on nothing the borrower holds (LAYOUT.md "Custody", "Core assets"). */
#include "custody.h"
#include "mpl_core.h"

/* The asset and the collection it names, read from their accounts: the asset Core's AssetV1 naming `a->collection`,
 * owned by `owner` (NULL: anyone), the collection Core's CollectionV1, and the plugins of both (none that lets another
 * move, burn or freeze it; not frozen). */
static u64 core_read(const CoreAccounts *a, const SolPubkey *owner, SolPubkey *collection) {
  const SolPubkey *holder, *named;
  u64 asset_plugins, collection_plugins;
  int r = mpl_core_asset(a->asset, &holder, &named, &asset_plugins);
  if (r == MPL_CORE_NO_COLLECTION) return E_COLLECTION_NOT_VERIFIED;
  if (r != MPL_CORE_OK || !pubkey_eq(named, a->collection->key) ||
      mpl_core_collection(a->collection, &collection_plugins) != MPL_CORE_OK)
    return E_INVALID_METADATA;
  if (owner && !pubkey_eq(holder, owner)) return E_INVALID_COLLATERAL;
  int in_asset = mpl_core_plugins(a->asset, asset_plugins);
  int in_collection = mpl_core_plugins(a->collection, collection_plugins);
  if (in_asset == MPL_CORE_INVALID || in_collection == MPL_CORE_INVALID) return E_INVALID_METADATA;
  if (in_asset == MPL_CORE_UNSAFE || in_collection == MPL_CORE_UNSAFE) return E_UNSAFE_COLLATERAL;
  if (in_asset == MPL_CORE_FROZEN || in_collection == MPL_CORE_FROZEN) return E_COLLATERAL_FROZEN;
  copy_key(collection, named);
  return SUCCESS;
}

u64 core_collateral(const CoreAccounts *a, SolPubkey *collection) {
  if (!pubkey_eq(a->core->key, &MPL_CORE_PROGRAM_ID)) return E_INVALID_PROGRAM_ACCOUNT;
  return core_read(a, a->owner->key, collection);
}

u64 core_collection(const CoreAccounts *a, SolPubkey *collection) {
  return core_read(a, NULL, collection);
}

/* whether `asset` (its data as the chain holds it now) is a Core asset owned by `owner` */
static bool core_owned_by(const SolAccountInfo *asset, const SolPubkey *owner) {
  return pubkey_eq(asset->owner, &MPL_CORE_PROGRAM_ID) && *(const u64 *)(asset->data - 8) >= 33 &&
         asset->data[0] == MPL_CORE_KEY_ASSET_V1 &&
         pubkey_eq((const SolPubkey *)(asset->data + MPL_CORE_ASSET_OWNER), owner);
}

/* TransferV1 of the asset, then what the chain holds: the asset's owner is `new_owner` */
static u64 core_transfer(const Custody *c, const SolAccountInfo *authority, const SolAccountInfo *new_owner,
                         const SolSignerSeeds *signer) {
  const CoreAccounts *a = c->core;
  if (!pubkey_eq(a->core->key, &MPL_CORE_PROGRAM_ID)) return E_INVALID_PROGRAM_ACCOUNT;
  if (!pubkey_eq(a->asset->key, c->escrow->key)) return E_ACCOUNT_MISMATCH;
  /* both ends: before, the asset is not `new_owner`'s yet (the transfer must be what delivers it) */
  if (core_owned_by(a->asset, new_owner->key)) return E_INVALID_COLLATERAL;
  MplCoreTransfer t = {a->core, a->asset, a->collection, a->payer, authority, new_owner, signer};
  u64 r = mpl_core_transfer(&t);
  if (r) return r;
  return core_owned_by(a->asset, new_owner->key) ? SUCCESS : E_INVALID_COLLATERAL;
}

u64 core_lock(const Custody *c) {
  /* the owner signs the transaction: authority and payer */
  return core_transfer(c, c->core->owner, c->holder, NULL);
}

u64 core_transfer_out(const Custody *c, const SolAccountInfo *new_owner) {
  return core_transfer(c, c->holder, new_owner, c->signer);
}

u64 core_sell(const Custody *c, const SwapCall *venue) {
  /* both ends: before, the holder owns it (what the sale takes is custody's) */
  if (!core_owned_by(c->escrow, c->holder->key)) return E_INVALID_COLLATERAL;
  u64 r = invoke_loan_swap(venue);
  if (r) return r;
  /* the chain, not the venue: the asset (the custody's account) is no longer the holder's */
  return core_owned_by(c->escrow, c->holder->key) ? E_SALE_SHORT : SUCCESS;
}

u64 core_receive(const Custody *c, const SwapCall *venue, const SolPubkey *collection) {
  const CoreAccounts *a = c->core;
  if (!pubkey_eq(a->asset->key, c->escrow->key)) return E_ACCOUNT_MISMATCH;
  /* both ends: before the purchase the holder does not own it (an asset sent to the loan PDA's address before the
   * loan exists is no purchase: issue #43 finding 3), after it the holder does */
  if (core_owned_by(a->asset, c->holder->key)) return E_SALE_SHORT;
  u64 r = invoke_loan_swap(venue);
  if (r) return r;
  if (!core_owned_by(a->asset, c->holder->key)) return E_SALE_SHORT; /* not delivered */
  /* the asset as the chain holds it now (a transfer may have resized it): still in `collection`, still safe */
  SolAccountInfo asset = *a->asset;
  asset.data_len = *(const u64 *)(asset.data - 8);
  CoreAccounts now = *a;
  now.asset = &asset;
  SolPubkey named;
  if ((r = core_read(&now, c->holder->key, &named))) return r;
  return pubkey_eq(&named, collection) ? SUCCESS : E_INVALID_COLLATERAL;
}
