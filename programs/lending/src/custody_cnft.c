/* Compressed NFT custody (Bubblegum V1), by ownership of the leaf: TakeLoan: the borrower transfers the leaf to the
 * loan PDA (Bubblegum Transfer, the borrower signing as the leaf's owner, with the proof); Repay: the loan PDA
 * (signing with its seeds) transfers it back to the borrower; Liquidate: to the pool owner. The checks, the
 * MetadataArgs reader and hashes and the Transfer CPI are the shared programs/toolchain/c/bubblegum.h: Bubblegum
 * verifies the leaf it is asked to replace against the tree's root, so hashes the leaf does not commit to fail the
 * transfer (LAYOUT.md "Custody", "Compressed NFTs"). */
#include "custody.h"

u64 cnft_check_accounts(const CnftAccounts *a) {
  switch (bubblegum_check_accounts(a)) {
    case BUBBLEGUM_OK: return SUCCESS;
    case BUBBLEGUM_WRONG_PROGRAM: return E_INVALID_PROGRAM_ACCOUNT;
    case BUBBLEGUM_WRONG_OWNER: return E_INVALID_OWNER;
    case BUBBLEGUM_NOT_WRITABLE: return E_NOT_WRITABLE;
    case BUBBLEGUM_LONG_PROOF: return E_NOT_ENOUGH_ACCOUNTS;
    default: return E_INVALID_PDA;
  }
}

u64 cnft_read_metadata(const u8 *args, u64 len, SolPubkey *collection, u8 *data_hash, u8 *creator_hash) {
  switch (bubblegum_read_metadata(args, len, collection, data_hash, creator_hash)) {
    case METAPLEX_OK: return SUCCESS;
    case METAPLEX_NOT_VERIFIED: return E_COLLECTION_NOT_VERIFIED;
    default: return E_INVALID_METADATA;
  }
}

/* Bubblegum Transfer of the leaf owned (and delegated) by `owner` to `new_owner`, `signer` signing for the owner */
static u64 cnft_transfer(const Custody *c, const SolAccountInfo *owner, const SolAccountInfo *new_owner,
                         const SolSignerSeeds *signer) {
  const CnftAccounts *a = c->cnft;
  u64 r = cnft_check_accounts(a);
  if (r) return r;
  if (!pubkey_eq(a->tree->key, c->escrow->key)) return E_ACCOUNT_MISMATCH;
  return bubblegum_transfer(a, owner, new_owner, signer);
}

u64 cnft_lock(const Custody *c) {
  /* the borrower signs the transaction as the leaf's owner (and delegate) */
  return cnft_transfer(c, c->cnft->owner, c->holder, NULL);
}

u64 cnft_transfer_out(const Custody *c, const SolAccountInfo *new_owner) {
  return cnft_transfer(c, c->holder, new_owner, c->signer);
}
