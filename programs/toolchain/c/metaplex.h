/* Metaplex Token Metadata: an NFT's verified collection, read from its metadata account (never from a caller).
 * Shared by the lending program and the local NFT market; each maps the results to its own error codes. */
#pragma once
#include "sol.h"

#define METAPLEX_OK 0
#define METAPLEX_INVALID 1      /* not Token Metadata's account, not the mint's PDA, names another mint, malformed */
#define METAPLEX_NOT_VERIFIED 2 /* no collection, or its collection is not verified */
#define METAPLEX_KEY_METADATA_V1 4

static const SolPubkey METAPLEX_PROGRAM_ID = {{
  0x0b, 0x70, 0x65, 0xb1, 0xe3, 0xd1, 0x7c, 0x45, 0x38, 0x9d, 0x52, 0x7f, 0x6b, 0x04, 0xc3, 0xcd,
  0x58, 0xb8, 0x6c, 0x73, 0x1a, 0xa0, 0xfd, 0xb5, 0x49, 0xb6, 0xd1, 0xbc, 0x03, 0xf8, 0x29, 0x46}};

/* A bounds-checked reader over account data. */
typedef struct {
  const u8 *data;
  u64 len, at;
  bool bad;
} MetaplexReader;

static inline const u8 *metaplex_take(MetaplexReader *r, u64 n) {
  if (r->bad || n > r->len - r->at) {
    r->bad = true;
    return NULL;
  }
  const u8 *p = r->data + r->at;
  r->at += n;
  return p;
}

static inline u8 metaplex_u8(MetaplexReader *r) {
  const u8 *p = metaplex_take(r, 1);
  return p ? *p : 0;
}

static inline u32 metaplex_u32(MetaplexReader *r) {
  const u8 *p = metaplex_take(r, 4);
  return p ? *(const u32 *)p : 0;
}

/* Borsh Option<u8>: tag then the byte when Some. */
static inline void metaplex_skip_option_u8(MetaplexReader *r) {
  u8 tag = metaplex_u8(r);
  if (tag == 1) metaplex_take(r, 1);
  else if (tag != 0) r->bad = true;
}

/* The verified collection of `mint` from its metadata account (PDA ["metadata", Token Metadata, mint, bump]). */
static inline int metaplex_verified_collection(const SolAccountInfo *metadata, const SolPubkey *mint, u8 bump,
                                               SolPubkey *out) {
  static const u8 SEED[] = "metadata";
  if (!pubkey_eq(metadata->owner, &METAPLEX_PROGRAM_ID)) return METAPLEX_INVALID;
  SolSignerSeed seeds[4] = {{SEED, sizeof(SEED) - 1}, {METAPLEX_PROGRAM_ID.x, 32}, {mint->x, 32}, {&bump, 1}};
  /* Token Metadata creates a metadata account only at this PDA, signing with these seeds */
  if (!pda_matches(seeds, 4, &METAPLEX_PROGRAM_ID, metadata->key)) return METAPLEX_INVALID;
  MetaplexReader r = {metadata->data, metadata->data_len, 0, false};
  if (metaplex_u8(&r) != METAPLEX_KEY_METADATA_V1) return METAPLEX_INVALID;
  metaplex_take(&r, 32); /* update authority */
  const u8 *named_mint = metaplex_take(&r, 32);
  if (named_mint == NULL || !pubkey_eq((const SolPubkey *)named_mint, mint)) return METAPLEX_INVALID;
  for (int i = 0; i < 3; i++) metaplex_take(&r, metaplex_u32(&r)); /* name, symbol, uri */
  metaplex_take(&r, 2);                                             /* seller fee basis points */
  u8 has_creators = metaplex_u8(&r);
  if (has_creators == 1) {
    u32 n = metaplex_u32(&r);
    if (n > 5) return METAPLEX_INVALID; /* Token Metadata allows at most 5 creators */
    metaplex_take(&r, (u64)n * 34);
  } else if (has_creators != 0) {
    return METAPLEX_INVALID;
  }
  metaplex_take(&r, 2);             /* primary sale happened, is mutable */
  metaplex_skip_option_u8(&r);      /* edition nonce */
  metaplex_skip_option_u8(&r);      /* token standard */
  u8 has_collection = metaplex_u8(&r);
  if (r.bad || has_collection > 1) return METAPLEX_INVALID;
  if (has_collection == 0) return METAPLEX_NOT_VERIFIED;
  u8 verified = metaplex_u8(&r);
  const u8 *key = metaplex_take(&r, 32);
  if (r.bad || verified > 1) return METAPLEX_INVALID;
  if (verified != 1) return METAPLEX_NOT_VERIFIED;
  u64 *d = (u64 *)out;
  const u64 *s = (const u64 *)key;
  d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
  return METAPLEX_OK;
}

#define METAPLEX_PROGRAMMABLE_NON_FUNGIBLE 4

/* A programmable NFT's rule set from its metadata account (already checked by metaplex_verified_collection: owner,
 * address, key, mint): METAPLEX_OK when the token standard is ProgrammableNonFungible, with *has_rule_set and
 * *rule_set from its ProgrammableConfig::V1 (none: *has_rule_set false); METAPLEX_INVALID otherwise. */
static inline int metaplex_programmable(const SolAccountInfo *metadata, bool *has_rule_set, SolPubkey *rule_set) {
  MetaplexReader r = {metadata->data, metadata->data_len, 0, false};
  metaplex_take(&r, 1 + 32 + 32); /* key, update authority, mint */
  for (int i = 0; i < 3; i++) metaplex_take(&r, metaplex_u32(&r));
  metaplex_take(&r, 2);
  u8 has_creators = metaplex_u8(&r);
  if (has_creators == 1) {
    u32 n = metaplex_u32(&r);
    if (n > 5) return METAPLEX_INVALID;
    metaplex_take(&r, (u64)n * 34);
  } else if (has_creators != 0) {
    return METAPLEX_INVALID;
  }
  metaplex_take(&r, 2);
  metaplex_skip_option_u8(&r); /* edition nonce */
  u8 has_standard = metaplex_u8(&r);
  u8 standard = has_standard == 1 ? metaplex_u8(&r) : 0xff;
  if (r.bad || standard != METAPLEX_PROGRAMMABLE_NON_FUNGIBLE) return METAPLEX_INVALID;
  u8 tag = metaplex_u8(&r); /* collection */
  if (tag == 1) metaplex_take(&r, 33);
  else if (tag != 0) return METAPLEX_INVALID;
  tag = metaplex_u8(&r); /* uses */
  if (tag == 1) metaplex_take(&r, 17);
  else if (tag != 0) return METAPLEX_INVALID;
  tag = metaplex_u8(&r); /* collection details: V1 { size u64 } or V2 { padding [u8; 8] } */
  if (tag == 1) metaplex_take(&r, 9);
  else if (tag != 0) return METAPLEX_INVALID;
  *has_rule_set = false;
  tag = metaplex_u8(&r); /* programmable config: V1 { rule_set: Option<Pubkey> } */
  if (tag == 1) {
    if (metaplex_u8(&r) != 0) return METAPLEX_INVALID; /* only V1 exists */
    u8 some = metaplex_u8(&r);
    if (some == 1) {
      const u8 *key = metaplex_take(&r, 32);
      if (r.bad) return METAPLEX_INVALID;
      u64 *d = (u64 *)rule_set;
      const u64 *s = (const u64 *)key;
      d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
      *has_rule_set = true;
    } else if (some != 0) {
      return METAPLEX_INVALID;
    }
  } else if (tag != 0) {
    return METAPLEX_INVALID;
  }
  return r.bad ? METAPLEX_INVALID : METAPLEX_OK;
}
