/* Metaplex Token Metadata: an NFT's verified collection, read from the chain (never from the oracle). */
#include "lending.h"

static const u8 METADATA_SEED[] = "metadata";
#define METADATA_KEY_V1 4

/* A bounds-checked reader over the account data. */
typedef struct {
  const u8 *data;
  u64 len, at;
  bool bad;
} Reader;

static const u8 *take(Reader *r, u64 n) {
  if (r->bad || n > r->len - r->at) {
    r->bad = true;
    return NULL;
  }
  const u8 *p = r->data + r->at;
  r->at += n;
  return p;
}

static u8 take_u8(Reader *r) {
  const u8 *p = take(r, 1);
  return p ? *p : 0;
}

static u32 take_u32(Reader *r) {
  const u8 *p = take(r, 4);
  return p ? rd32(p) : 0;
}

/* Borsh String: u32 length then the bytes. */
static void skip_string(Reader *r) { take(r, take_u32(r)); }

/* Borsh Option<u8>: tag then the byte when Some. */
static void skip_option_u8(Reader *r) {
  u8 tag = take_u8(r);
  if (tag == 1) take(r, 1);
  else if (tag != 0) r->bad = true;
}

u64 read_verified_collection(const SolAccountInfo *metadata, const SolPubkey *mint, u8 bump, SolPubkey *out) {
  if (!pubkey_eq(metadata->owner, &TOKEN_METADATA_PROGRAM_ID)) return E_INVALID_METADATA;
  SolSignerSeed seeds[4] = {{METADATA_SEED, sizeof(METADATA_SEED) - 1},
                            {TOKEN_METADATA_PROGRAM_ID.x, 32},
                            {mint->x, 32},
                            {&bump, 1}};
  if (verify_pda(seeds, 4, &TOKEN_METADATA_PROGRAM_ID, metadata->key)) return E_INVALID_METADATA;
  Reader r = {metadata->data, metadata->data_len, 0, false};
  if (take_u8(&r) != METADATA_KEY_V1) return E_INVALID_METADATA;
  take(&r, 32); /* update authority */
  const u8 *named_mint = take(&r, 32);
  if (named_mint == NULL || !pubkey_eq((const SolPubkey *)named_mint, mint)) return E_INVALID_METADATA;
  skip_string(&r); /* name */
  skip_string(&r); /* symbol */
  skip_string(&r); /* uri */
  take(&r, 2);     /* seller fee basis points */
  u8 has_creators = take_u8(&r);
  if (has_creators == 1) {
    u32 n = take_u32(&r);
    if (n > 5) return E_INVALID_METADATA; /* Token Metadata allows at most 5 creators */
    take(&r, (u64)n * 34);
  } else if (has_creators != 0) {
    return E_INVALID_METADATA;
  }
  take(&r, 2); /* primary sale happened, is mutable */
  skip_option_u8(&r); /* edition nonce */
  skip_option_u8(&r); /* token standard */
  u8 has_collection = take_u8(&r);
  if (r.bad || has_collection > 1) return E_INVALID_METADATA;
  if (has_collection == 0) return E_COLLECTION_NOT_VERIFIED;
  u8 verified = take_u8(&r);
  const u8 *key = take(&r, 32);
  if (r.bad || verified > 1) return E_INVALID_METADATA;
  if (verified != 1) return E_COLLECTION_NOT_VERIFIED;
  copy_key(out, (const SolPubkey *)key);
  return SUCCESS;
}
