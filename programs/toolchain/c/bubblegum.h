/* Metaplex Bubblegum V1 (BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY): a compressed NFT is a leaf of an SPL Account
 * Compression Merkle tree. What a program needs to hold or sell one: the accounts a Bubblegum Transfer goes through
 * (checked by id, owner and PDA), the asset id of a leaf, a leaf's MetadataArgs read (its verified collection) and
 * hashed as Bubblegum commits to them, and the Transfer CPI. Bubblegum verifies the leaf it is asked to replace (asset
 * id from the tree and nonce, owner, delegate, nonce, data hash, creator hash) against the tree's root through SPL
 * Account Compression, so hashes the leaf does not commit to, a stale or foreign proof, or an owner who does not own
 * the leaf fail the transfer. Layouts from mpl-bubblegum (state/metaplex_adapter.rs MetadataArgs, hash_metadata,
 * hash_creators; instructions/transfer.rs). Shared by the programs; each maps the results to its own error codes. */
#pragma once
#include "metaplex.h" /* the bounds-checked reader, METAPLEX_OK / INVALID / NOT_VERIFIED */

#define BUBBLEGUM_OK 0
#define BUBBLEGUM_WRONG_PROGRAM 1 /* Bubblegum, SPL Account Compression or SPL Noop is not the account passed */
#define BUBBLEGUM_WRONG_OWNER 2   /* the tree is not Compression's, or its config not Bubblegum's */
#define BUBBLEGUM_NOT_WRITABLE 3  /* the tree is not writable */
#define BUBBLEGUM_LONG_PROOF 4    /* more proof nodes than BUBBLEGUM_MAX_PROOF */
#define BUBBLEGUM_WRONG_PDA 5     /* the tree config is not Bubblegum's PDA [tree] */

/* proof nodes below the canopy a transfer takes at most (a depth-24 tree without canopy) */
#define BUBBLEGUM_MAX_PROOF 24

static const SolPubkey BUBBLEGUM_PROGRAM_ID = {{152, 139, 128, 235, 121, 53,  40,  105, 178, 36, 116,
                                                95,  89,  221, 191, 138, 38,  88,  202, 19,  220, 104,
                                                129, 33,  38,  53,  28,  174, 7,   193, 165, 165}};
static const SolPubkey COMPRESSION_PROGRAM_ID = {{9,   42,  19,  238, 149, 196, 28,  186, 8,   166, 127,
                                                  90,  198, 126, 141, 247, 225, 218, 17,  98,  94,  29,
                                                  100, 19,  127, 143, 79,  35,  131, 3,   127, 20}};
static const SolPubkey NOOP_PROGRAM_ID = {{11,  188, 15,  192, 187, 71,  202, 47,  116, 196, 17,
                                           46,  148, 171, 19,  207, 163, 198, 52,  229, 220, 23,
                                           234, 203, 3,   205, 26,  35,  205, 126, 120, 124}};

/* The accounts and the leaf a Bubblegum Transfer goes through. */
typedef struct {
  const SolAccountInfo *tree;        /* the Merkle tree (writable) */
  const SolAccountInfo *tree_config; /* Bubblegum's tree config PDA [tree] */
  const SolAccountInfo *bubblegum, *compression, *noop, *system;
  const SolAccountInfo *owner;       /* the leaf's owner as the caller names it (the lending program: the borrower) */
  const SolAccountInfo *proof;       /* the proof nodes below the canopy, proof_len accounts */
  u64 proof_len;
  const u8 *root, *data_hash, *creator_hash; /* 32 bytes each */
  u64 nonce;                         /* the leaf's nonce (= its index) */
  u8 config_bump;
} BubblegumAccounts;

/* the program ids, the tree (SPL Account Compression's, writable), the tree config (Bubblegum's PDA of the tree) */
static inline int bubblegum_check_accounts(const BubblegumAccounts *a) {
  if (!pubkey_eq(a->bubblegum->key, &BUBBLEGUM_PROGRAM_ID) ||
      !pubkey_eq(a->compression->key, &COMPRESSION_PROGRAM_ID) || !pubkey_eq(a->noop->key, &NOOP_PROGRAM_ID))
    return BUBBLEGUM_WRONG_PROGRAM;
  if (!pubkey_eq(a->tree->owner, &COMPRESSION_PROGRAM_ID)) return BUBBLEGUM_WRONG_OWNER;
  if (!a->tree->is_writable) return BUBBLEGUM_NOT_WRITABLE;
  if (a->proof_len > BUBBLEGUM_MAX_PROOF) return BUBBLEGUM_LONG_PROOF;
  if (!pubkey_eq(a->tree_config->owner, &BUBBLEGUM_PROGRAM_ID)) return BUBBLEGUM_WRONG_OWNER;
  SolSignerSeed seeds[2] = {{a->tree->key->x, 32}, {&a->config_bump, 1}};
  return pda_matches(seeds, 2, &BUBBLEGUM_PROGRAM_ID, a->tree_config->key) ? BUBBLEGUM_OK : BUBBLEGUM_WRONG_PDA;
}

/* a leaf's asset id: Bubblegum's PDA ["asset", tree, nonce u64 LE] with `bump`; false when the seeds are off curve */
static inline bool bubblegum_asset_id(const SolPubkey *tree, u64 nonce, u8 bump, SolPubkey *out) {
  static const u8 SEED[] = "asset";
  SolSignerSeed seeds[4] = {{SEED, sizeof(SEED) - 1}, {tree->x, 32}, {(const u8 *)&nonce, 8}, {&bump, 1}};
  return sol_create_program_address(seeds, 4, &BUBBLEGUM_PROGRAM_ID, out) == 0;
}

/* whether `asset` is the asset id of leaf `nonce` of `tree` with `bump` */
static inline bool bubblegum_asset_id_matches(const SolPubkey *tree, u64 nonce, u8 bump, const SolPubkey *asset) {
  static const u8 SEED[] = "asset";
  SolSignerSeed seeds[4] = {{SEED, sizeof(SEED) - 1}, {tree->x, 32}, {(const u8 *)&nonce, 8}, {&bump, 1}};
  return pda_matches(seeds, 4, &BUBBLEGUM_PROGRAM_ID, asset);
}

/* Borsh Option<T> of `size` bytes; false when None */
static inline bool bubblegum_option(MetaplexReader *r, u64 size) {
  u8 tag = metaplex_u8(r);
  if (tag > 1) r->bad = true;
  if (tag == 1) metaplex_take(r, size);
  return tag == 1;
}

/* Parses MetadataArgs (Borsh, exactly `len` bytes): its verified collection, and the data hash and creator hash
 * Bubblegum commits to in a leaf: data hash = keccak(keccak(args) ++ seller fee LE), creator hash =
 * keccak(address ++ verified ++ share, for each creator). METAPLEX_INVALID when it does not parse, METAPLEX_NOT_VERIFIED
 * when it names no collection or one not verified. Whether the leaf commits to them is Bubblegum's Transfer's check. */
static inline int bubblegum_read_metadata(const u8 *args, u64 len, SolPubkey *collection, u8 *data_hash,
                                          u8 *creator_hash) {
  MetaplexReader r = {args, len, 0, false};
  for (int i = 0; i < 3; i++) metaplex_take(&r, metaplex_u32(&r)); /* name, symbol, uri */
  const u8 *fee = metaplex_take(&r, 2);                             /* seller fee basis points */
  metaplex_take(&r, 2);                                             /* primary sale happened, is mutable */
  bubblegum_option(&r, 1);                                          /* edition nonce */
  bubblegum_option(&r, 1);                                          /* token standard */
  u64 collection_at = r.at;
  bool has_collection = bubblegum_option(&r, 33);                   /* Collection { verified, key } */
  bubblegum_option(&r, 17);                                         /* Uses { use_method, remaining, total } */
  metaplex_take(&r, 1);                                             /* token program version */
  u32 creators = metaplex_u32(&r);
  const u8 *creator_data = metaplex_take(&r, (u64)creators * 34); /* Creator { address, verified, share } */
  if (r.bad || r.at != len || creators > 5) return METAPLEX_INVALID;
  if (!has_collection || args[collection_at + 1] != 1) return METAPLEX_NOT_VERIFIED;
  sol_memcpy_(collection, args + collection_at + 2, 32);
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
  return e ? METAPLEX_INVALID : METAPLEX_OK;
}

/* Bubblegum Transfer of the leaf owned (and delegated) by `owner` to `new_owner`: `owner` signs the transaction, or
 * is the caller's PDA signing with `signer` (NULL otherwise), or a PDA of the program that called the caller (its
 * signature carries through). The accounts must have passed bubblegum_check_accounts. Out of line: the metas and
 * infos of up to BUBBLEGUM_MAX_PROOF nodes stay off the caller's frame. */
__attribute__((noinline)) static inline u64 bubblegum_transfer(const BubblegumAccounts *a,
                                                               const SolAccountInfo *owner,
                                                               const SolAccountInfo *new_owner,
                                                               const SolSignerSeeds *signer) {
  /* sha256("global:transfer")[0..8] */
  static const u8 DISCRIMINATOR[8] = {163, 52, 200, 231, 140, 3, 69, 186};
  SolAccountMeta metas[8 + BUBBLEGUM_MAX_PROOF] = {
    {a->tree_config->key, false, false}, {owner->key, false, true},        {owner->key, false, false},
    {new_owner->key, false, false},      {a->tree->key, true, false},      {a->noop->key, false, false},
    {a->compression->key, false, false}, {a->system->key, false, false},
  };
  const SolAccountInfo *acc[8] = {a->tree_config, owner, new_owner, a->tree, a->noop, a->compression, a->system,
                                  a->bubblegum};
  SolAccountInfo infos[8 + BUBBLEGUM_MAX_PROOF];
  for (int i = 0; i < 8; i++) infos[i] = *acc[i];
  u64 n = a->proof_len > BUBBLEGUM_MAX_PROOF ? BUBBLEGUM_MAX_PROOF : a->proof_len;
  for (u64 i = 0; i < n; i++) {
    metas[8 + i].pubkey = a->proof[i].key;
    metas[8 + i].is_writable = false;
    metas[8 + i].is_signer = false;
    infos[8 + i] = a->proof[i];
  }
  /* root, data hash, creator hash, nonce u64, index u32 (a Bubblegum leaf's index is its nonce) */
  u8 data[8 + 96 + 12];
  sol_memcpy_(data, DISCRIMINATOR, 8);
  sol_memcpy_(data + 8, a->root, 32);
  sol_memcpy_(data + 40, a->data_hash, 32);
  sol_memcpy_(data + 72, a->creator_hash, 32);
  sol_memcpy_(data + 104, &a->nonce, 8);
  u32 index = (u32)a->nonce;
  sol_memcpy_(data + 112, &index, 4);
  SolInstruction ix = {a->bubblegum->key, metas, 8 + n, data, sizeof(data)};
  return sol_invoke_signed_c(&ix, infos, (int)(8 + n), signer, signer ? 1 : 0);
}
