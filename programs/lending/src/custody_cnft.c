/* Compressed NFT custody (Bubblegum V1), by ownership of the leaf: TakeLoan: the borrower transfers the leaf to the
 * loan PDA (Bubblegum Transfer, the borrower signing as the leaf's owner, with the proof); Repay: the loan PDA
 * (signing with its seeds) transfers it back to the borrower; Liquidate: to the pool owner. The checks, the
 * MetadataArgs reader and hashes and the Transfer CPI are the shared programs/toolchain/c/bubblegum.h: Bubblegum
 * verifies the leaf it is asked to replace against the tree's root, so hashes the leaf does not commit to fail the
 * transfer (LAYOUT.md "Custody", "Compressed NFTs"). A sale (MarketSell, LiquidateSell): the venue transfers the leaf,
 * the loan PDA signing; the program reads the tree's changelog after it (LAYOUT.md "Sales of a compressed NFT"). */
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

u64 cnft_block(const SolParameters *p, u64 first, bool with_system, const u8 *leaf, CnftAccounts *a) {
  u64 programs = with_system ? 5 : 4;
  if (p->ka_num < first + programs) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka + first;
  a->tree_config = &ka[0];
  a->bubblegum = &ka[1];
  a->compression = &ka[2];
  a->noop = &ka[3];
  if (with_system) a->system = &ka[4];
  a->proof = &ka[programs];
  a->proof_len = p->ka_num - first - programs;
  a->root = leaf;
  a->data_hash = leaf + 32;
  a->creator_hash = leaf + 64;
  return SUCCESS;
}

u64 cnft_begin(const SolParameters *p, CnftAccounts *a, CnftBeginning *b) {
  if (p->data_len <= b->tail_at + CNFT_TAIL_HEADER_LEN) return E_INVALID_INSTRUCTION;
  const u8 *leaf = p->data + b->tail_at;
  a->root = leaf;
  a->nonce = rd64(leaf + 32);
  a->proof_len = leaf[40];
  a->data_hash = b->hashes;
  a->creator_hash = b->hashes + 32;
  if (a->nonce > 0xffffffffULL) return E_INVALID_INSTRUCTION;
  u64 r = cnft_check_accounts(a);
  if (r) return r;
  if (!bubblegum_asset_id_matches(a->tree->key, a->nonce, b->asset_bump, b->asset)) return E_INVALID_PDA;
  if (p->ka_num < b->proof_first + a->proof_len) return E_NOT_ENOUGH_ACCOUNTS;
  a->proof = &p->ka[b->proof_first];
  u64 args_at = b->tail_at + CNFT_TAIL_HEADER_LEN;
  return cnft_read_metadata(p->data + args_at, p->data_len - args_at, &b->collection, b->hashes, b->hashes + 32);
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

u64 cnft_sale_leaf(const SolParameters *p, const SolAccountInfo *tree, CnftAccounts *a) {
  if (p->data_len < 1 + CNFT_SALE_HASHES_LEN + 1) return E_INVALID_INSTRUCTION;
  a->tree = tree;
  a->data_hash = p->data + 1;
  a->creator_hash = p->data + 1 + 32;
  return SUCCESS;
}

/* SPL Account Compression's ConcurrentMerkleTree account: a 56-byte header (account type 1 at 0, max buffer size u32
 * at 2, max depth u32 at 6), then the sequence number u64 (56), the active index u64 (64), the buffer size u64 (72)
 * and the changelog buffer (80: max buffer size entries of root (32), path (32 x depth; path[0] the leaf node),
 * index u32, padding u32), the rightmost proof and the canopy after it. */
#define TREE_SEQ_AT 56
#define TREE_ACTIVE_AT 64
#define TREE_CHANGELOG_AT 80
#define TREE_MAX_DEPTH 30

/* the tree's sequence number and its latest changelog entry (NULL when the account does not hold a tree) */
static const u8 *tree_latest_change(const SolAccountInfo *tree, u64 *seq, u64 *depth) {
  const u8 *d = tree->data;
  if (tree->data_len < TREE_CHANGELOG_AT || d[0] != 1) return NULL;
  u64 buffer = rd32(d + 2), active = rd64(d + TREE_ACTIVE_AT);
  *depth = rd32(d + 6);
  u64 entry = 40 + 32 * *depth;
  if (*depth == 0 || *depth > TREE_MAX_DEPTH || buffer == 0 || active >= buffer ||
      tree->data_len < TREE_CHANGELOG_AT + buffer * entry)
    return NULL;
  *seq = rd64(d + TREE_SEQ_AT);
  return d + TREE_CHANGELOG_AT + active * entry;
}

u64 cnft_sell(const Custody *c, const SwapCall *venue) {
  const CnftAccounts *a = c->cnft;
  const Loan *l = venue->l;
  const SolAccountInfo *tree = a->tree;
  if (!pubkey_eq(tree->key, c->escrow->key) || !pubkey_eq(tree->key, &l->escrow)) return E_ACCOUNT_MISMATCH;
  if (!pubkey_eq(tree->owner, &COMPRESSION_PROGRAM_ID)) return E_INVALID_OWNER;
  /* the leaf the holder owns and delegates: keccak(1, asset id, owner, delegate, nonce u64 LE, data hash, creator
   * hash) */
  static const u8 VERSION = 1;
  u64 nonce = l->leaf_nonce, seq_before, seq_after, depth;
  SolBytes parts[7] = {{&VERSION, 1},   {l->collateral_mint.x, 32}, {c->holder->key->x, 32}, {c->holder->key->x, 32},
                       {(const u8 *)&nonce, 8}, {a->data_hash, 32},        {a->creator_hash, 32}};
  SolPubkey held;
  if (sol_keccak256(parts, 7, held.x)) return E_MATH_OVERFLOW;
  if (!tree_latest_change(tree, &seq_before, &depth)) return E_INVALID_OWNER;
  u64 r = invoke_loan_swap(venue);
  if (r) return r;
  const u8 *change = tree_latest_change(tree, &seq_after, &depth);
  if (!change || seq_after <= seq_before) return E_SALE_SHORT; /* the tree did not change */
  /* the latest change is the leaf's (its index) and the leaf there now is not the holder's */
  if (rd32(change + 32 + 32 * depth) != nonce) return E_SALE_SHORT;
  return pubkey_eq((const SolPubkey *)(change + 32), &held) ? E_SALE_SHORT : SUCCESS;
}
