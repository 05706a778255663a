/* Metaplex Token Metadata: an NFT's verified collection, read from the chain (never from the oracle). */
#include "lending.h"
#include "metaplex.h"

u64 read_verified_collection(const SolAccountInfo *metadata, const SolPubkey *mint, u8 bump, SolPubkey *out) {
  switch (metaplex_verified_collection(metadata, mint, bump, out)) {
    case METAPLEX_OK: return SUCCESS;
    case METAPLEX_NOT_VERIFIED: return E_COLLECTION_NOT_VERIFIED;
    default: return E_INVALID_METADATA;
  }
}
