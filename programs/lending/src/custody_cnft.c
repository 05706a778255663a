/* Compressed NFT custody (Bubblegum V1), by ownership of the leaf: TakeLoan: the borrower transfers the leaf to the
 * loan PDA (Bubblegum Transfer, the borrower signing as the leaf's owner, with the proof); Repay: the loan PDA
 * (signing with its seeds) transfers it back to the borrower; Liquidate: to the pool owner. Bubblegum verifies the
 * leaf it is asked to replace (asset id from the tree and nonce, owner, delegate, nonce, data hash, creator hash)
 * against the tree's root through SPL Account Compression, so hashes the leaf does not commit to fail the transfer
 * (LAYOUT.md "Custody", "Compressed NFTs"). */
#include "custody.h"

const SolPubkey BUBBLEGUM_PROGRAM_ID = {{152, 139, 128, 235, 121, 53,  40,  105, 178, 36, 116,
                                         95,  89,  221, 191, 138, 38,  88,  202, 19,  220, 104,
                                         129, 33,  38,  53,  28,  174, 7,   193, 165, 165}};
const SolPubkey COMPRESSION_PROGRAM_ID = {{9,   42,  19,  238, 149, 196, 28,  186, 8,   166, 127,
                                           90,  198, 126, 141, 247, 225, 218, 17,  98,  94,  29,
                                           100, 19,  127, 143, 79,  35,  131, 3,   127, 20}};
const SolPubkey NOOP_PROGRAM_ID = {{11,  188, 15,  192, 187, 71,  202, 47,  116, 196, 17,
                                    46,  148, 171, 19,  207, 163, 198, 52,  229, 220, 23,
                                    234, 203, 3,   205, 26,  35,  205, 126, 120, 124}};

static const u8 ASSET_SEED[] = "asset";
/* sha256("global:transfer")[0..8] */
static const u8 TRANSFER_DISCRIMINATOR[8] = {163, 52, 200, 231, 140, 3, 69, 186};

u64 cnft_check_accounts(const CnftAccounts *a) {
  if (!pubkey_eq(a->bubblegum->key, &BUBBLEGUM_PROGRAM_ID) ||
      !pubkey_eq(a->compression->key, &COMPRESSION_PROGRAM_ID) || !pubkey_eq(a->noop->key, &NOOP_PROGRAM_ID))
    return E_INVALID_PROGRAM_ACCOUNT;
  if (!pubkey_eq(a->tree->owner, &COMPRESSION_PROGRAM_ID)) return E_INVALID_OWNER;
  if (!a->tree->is_writable) return E_NOT_WRITABLE;
  if (a->proof_len > CNFT_MAX_PROOF) return E_NOT_ENOUGH_ACCOUNTS;
  /* the tree's config: Bubblegum's PDA [tree] */
  SolSignerSeed seeds[2] = {{a->tree->key->x, 32}, {&a->config_bump, 1}};
  if (!pubkey_eq(a->tree_config->owner, &BUBBLEGUM_PROGRAM_ID)) return E_INVALID_OWNER;
  return pda_matches(seeds, 2, &BUBBLEGUM_PROGRAM_ID, a->tree_config->key) ? SUCCESS : E_INVALID_PDA;
}

bool cnft_asset_id_matches(const SolPubkey *tree, u64 nonce, u8 bump, const SolPubkey *asset) {
  SolSignerSeed seeds[4] = {
    {ASSET_SEED, sizeof(ASSET_SEED) - 1}, {tree->x, 32}, {(const u8 *)&nonce, 8}, {&bump, 1}};
  return pda_matches(seeds, 4, &BUBBLEGUM_PROGRAM_ID, asset);
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
  if (!cnft_asset_id_matches(a->tree->key, a->nonce, b->asset_bump, b->asset)) return E_INVALID_PDA;
  if (p->ka_num < b->proof_first + a->proof_len) return E_NOT_ENOUGH_ACCOUNTS;
  a->proof = &p->ka[b->proof_first];
  u64 args_at = b->tail_at + CNFT_TAIL_HEADER_LEN;
  return cnft_read_metadata(p->data + args_at, p->data_len - args_at, &b->collection, b->hashes, b->hashes + 32);
}

/* A Borsh reader over MetadataArgs (mpl-bubblegum state/metaplex_adapter.rs). */
typedef struct {
  const u8 *d;
  u64 len, at;
  bool bad;
} Reader;

static const u8 *take(Reader *r, u64 n) {
  if (r->bad || n > r->len - r->at) {
    r->bad = true;
    return NULL;
  }
  const u8 *out = r->d + r->at;
  r->at += n;
  return out;
}
static u8 take_u8(Reader *r) {
  const u8 *b = take(r, 1);
  return b ? *b : 0;
}
static u32 take_u32(Reader *r) {
  const u8 *b = take(r, 4);
  return b ? rd32(b) : 0;
}
/* an Option<T> of `size` bytes; false when None */
static bool take_option(Reader *r, u64 size) {
  u8 tag = take_u8(r);
  if (tag > 1) r->bad = true;
  if (tag == 1) take(r, size);
  return tag == 1;
}

u64 cnft_read_metadata(const u8 *args, u64 len, SolPubkey *collection, u8 *data_hash, u8 *creator_hash) {
  Reader r = {args, len, 0, false};
  for (int i = 0; i < 3; i++) take(&r, take_u32(&r)); /* name, symbol, uri */
  const u8 *fee = take(&r, 2);                        /* seller fee basis points */
  take(&r, 2);                                        /* primary sale happened, is mutable */
  take_option(&r, 1);                                 /* edition nonce */
  take_option(&r, 1);                                 /* token standard */
  u64 collection_at = r.at;
  bool has_collection = take_option(&r, 33);          /* Collection { verified, key } */
  take_option(&r, 17);                                /* Uses { use_method, remaining, total } */
  take(&r, 1);                                        /* token program version */
  u32 creators = take_u32(&r);
  const u8 *creator_data = take(&r, (u64)creators * 34); /* Creator { address, verified, share } */
  if (r.bad || r.at != len || creators > 5) return E_INVALID_METADATA;
  if (!has_collection || args[collection_at + 1] != 1) return E_COLLECTION_NOT_VERIFIED;
  copy_key(collection, (const SolPubkey *)(args + collection_at + 2));
  /* data hash = keccak(keccak(args) ++ seller fee LE); creator hash = keccak(address ++ verified ++ share ...) */
  u8 args_hash[32];
  SolBytes one = {args, len};
  u64 e = sol_keccak256(&one, 1, args_hash);
  SolBytes two[2] = {{args_hash, 32}, {fee, 2}};
  if (!e) e = sol_keccak256(two, 2, data_hash);
  SolBytes each[5];
  for (u32 i = 0; i < creators; i++) {
    each[i].addr = creator_data + 34 * i;
    each[i].len = 34;
  }
  if (!e) e = sol_keccak256(each, (int)creators, creator_hash);
  return e ? E_INVALID_METADATA : SUCCESS;
}

/* Bubblegum Transfer of the leaf owned (and delegated) by `owner` to `new_owner`, `signer` signing for the owner */
static u64 cnft_transfer(const Custody *c, const SolAccountInfo *owner, const SolAccountInfo *new_owner,
                         const SolSignerSeeds *signer) {
  const CnftAccounts *a = c->cnft;
  u64 r = cnft_check_accounts(a);
  if (r) return r;
  if (!pubkey_eq(a->tree->key, c->escrow->key)) return E_ACCOUNT_MISMATCH;
  SolAccountMeta metas[8 + CNFT_MAX_PROOF] = {
    {a->tree_config->key, false, false}, {owner->key, false, true},        {owner->key, false, false},
    {new_owner->key, false, false},      {a->tree->key, true, false},      {a->noop->key, false, false},
    {a->compression->key, false, false}, {a->system->key, false, false},
  };
  const SolAccountInfo *acc[8] = {a->tree_config, owner, new_owner, a->tree, a->noop, a->compression, a->system,
                                  a->bubblegum};
  SolAccountInfo infos[8 + CNFT_MAX_PROOF];
  for (int i = 0; i < 8; i++) infos[i] = *acc[i];
  for (u64 i = 0; i < a->proof_len; i++) {
    metas[8 + i].pubkey = a->proof[i].key;
    metas[8 + i].is_writable = false;
    metas[8 + i].is_signer = false;
    infos[8 + i] = a->proof[i];
  }
  /* root, data hash, creator hash, nonce u64, index u32 (a Bubblegum leaf's index is its nonce) */
  u8 data[8 + 96 + 12];
  sol_memcpy_(data, TRANSFER_DISCRIMINATOR, 8);
  sol_memcpy_(data + 8, a->root, 32);
  sol_memcpy_(data + 40, a->data_hash, 32);
  sol_memcpy_(data + 72, a->creator_hash, 32);
  sol_memcpy_(data + 104, &a->nonce, 8);
  u32 index = (u32)a->nonce;
  sol_memcpy_(data + 112, &index, 4);
  SolInstruction ix = {a->bubblegum->key, metas, 8 + a->proof_len, data, sizeof(data)};
  return sol_invoke_signed_c(&ix, infos, (int)(8 + a->proof_len), signer, signer ? 1 : 0);
}

u64 cnft_lock(const Custody *c) {
  /* the borrower signs the transaction as the leaf's owner (and delegate) */
  return cnft_transfer(c, c->cnft->owner, c->holder, NULL);
}

u64 cnft_transfer_out(const Custody *c, const SolAccountInfo *new_owner) {
  return cnft_transfer(c, c->holder, new_owner, c->signer);
}
