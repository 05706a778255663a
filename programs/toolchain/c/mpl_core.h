/* Metaplex Core (CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d): an asset's owner and collection, and what the plugins
 * of an asset or a collection let others do, read from their accounts (never from a caller); and TransferV1.
 * Layouts from mpl-core's programs/mpl-core/src/state (AssetV1, CollectionV1, UpdateAuthority, Authority) and
 * plugins (PluginHeaderV1, PluginRegistryV1, RegistryRecord, ExternalRegistryRecord, Plugin, PluginType), all Borsh.
 * Shared by the programs; each maps the results to its own error codes. */
#pragma once
#include "metaplex.h" /* the bounds-checked reader */

#define MPL_CORE_OK 0
#define MPL_CORE_INVALID 1       /* not Core's account, another key, or malformed */
#define MPL_CORE_NO_COLLECTION 2 /* the asset's update authority is not a collection */
#define MPL_CORE_FROZEN 3        /* a FreezeDelegate or PermanentFreezeDelegate is frozen */
#define MPL_CORE_UNSAFE 4        /* a permanent transfer, burn or freeze delegate with an authority, or a transfer hook */

/* Key */
#define MPL_CORE_KEY_ASSET_V1 1
#define MPL_CORE_KEY_PLUGIN_HEADER_V1 3
#define MPL_CORE_KEY_PLUGIN_REGISTRY_V1 4
#define MPL_CORE_KEY_COLLECTION_V1 5
/* UpdateAuthority: None, Address(Pubkey), Collection(Pubkey) */
#define MPL_CORE_UA_COLLECTION 2
/* Authority: None, Owner, UpdateAuthority, Address { Pubkey } */
#define MPL_CORE_AUTHORITY_NONE 0
#define MPL_CORE_AUTHORITY_ADDRESS 3
/* PluginType */
#define MPL_CORE_FREEZE_DELEGATE 1
#define MPL_CORE_PERMANENT_FREEZE_DELEGATE 5
#define MPL_CORE_PERMANENT_TRANSFER_DELEGATE 7
#define MPL_CORE_PERMANENT_BURN_DELEGATE 8
/* HookableLifecycleEvent */
#define MPL_CORE_EVENT_TRANSFER 1
/* MplAssetInstruction::TransferV1 */
#define MPL_CORE_TRANSFER_V1 14
/* AssetV1: the owner at bytes 1-32 */
#define MPL_CORE_ASSET_OWNER 1

static const SolPubkey MPL_CORE_PROGRAM_ID = {{
  0xaf, 0x54, 0xab, 0x10, 0xbd, 0x97, 0xa5, 0x42, 0xa0, 0x9e, 0xf7, 0xb3, 0x98, 0x89, 0xdd, 0x0c,
  0xd3, 0x94, 0xa4, 0xcc, 0xe9, 0xdf, 0xa6, 0xcd, 0xc9, 0x7e, 0xbe, 0x2d, 0x23, 0x5b, 0xa7, 0x48}};

static inline u64 mpl_core_u64(MetaplexReader *r) {
  const u8 *p = metaplex_take(r, 8);
  return p ? *(const u64 *)p : 0;
}

/* Authority: the tag, and the address after it for Address */
static inline u8 mpl_core_authority(MetaplexReader *r) {
  u8 tag = metaplex_u8(r);
  if (tag == MPL_CORE_AUTHORITY_ADDRESS) metaplex_take(r, 32);
  else if (tag > MPL_CORE_AUTHORITY_ADDRESS) r->bad = true;
  return tag;
}

/* Borsh Option<u64> */
static inline void mpl_core_skip_option_u64(MetaplexReader *r) {
  u8 tag = metaplex_u8(r);
  if (tag == 1) metaplex_take(r, 8);
  else if (tag != 0) r->bad = true;
}

/* An AssetV1 account of the Core program: *owner its owner, *collection the collection its update authority names,
 * *plugins_at where its base fields end (a plugin header follows when the account is longer). MPL_CORE_NO_COLLECTION
 * when its update authority is None or an Address. */
static inline int mpl_core_asset(const SolAccountInfo *asset, const SolPubkey **owner, const SolPubkey **collection,
                                 u64 *plugins_at) {
  if (!pubkey_eq(asset->owner, &MPL_CORE_PROGRAM_ID)) return MPL_CORE_INVALID;
  MetaplexReader r = {asset->data, asset->data_len, 0, false};
  if (metaplex_u8(&r) != MPL_CORE_KEY_ASSET_V1) return MPL_CORE_INVALID;
  *owner = (const SolPubkey *)metaplex_take(&r, 32);
  u8 ua = metaplex_u8(&r);
  *collection = ua == 0 ? NULL : (const SolPubkey *)metaplex_take(&r, 32);
  for (int i = 0; i < 2; i++) metaplex_take(&r, metaplex_u32(&r)); /* name, uri */
  mpl_core_skip_option_u64(&r);                                     /* seq */
  if (r.bad || ua > MPL_CORE_UA_COLLECTION) return MPL_CORE_INVALID;
  *plugins_at = r.at;
  return ua == MPL_CORE_UA_COLLECTION ? MPL_CORE_OK : MPL_CORE_NO_COLLECTION;
}

/* A CollectionV1 account of the Core program; *plugins_at where its base fields end. */
static inline int mpl_core_collection(const SolAccountInfo *collection, u64 *plugins_at) {
  if (!pubkey_eq(collection->owner, &MPL_CORE_PROGRAM_ID)) return MPL_CORE_INVALID;
  MetaplexReader r = {collection->data, collection->data_len, 0, false};
  if (metaplex_u8(&r) != MPL_CORE_KEY_COLLECTION_V1) return MPL_CORE_INVALID;
  metaplex_take(&r, 32);                                            /* update authority */
  for (int i = 0; i < 2; i++) metaplex_take(&r, metaplex_u32(&r)); /* name, uri */
  metaplex_take(&r, 8);                                             /* num_minted, current_size */
  if (r.bad) return MPL_CORE_INVALID;
  *plugins_at = r.at;
  return MPL_CORE_OK;
}

/* What the plugins of an asset or collection account (base fields ending at `at`) let others do: MPL_CORE_UNSAFE for
 * a PermanentFreezeDelegate, PermanentTransferDelegate or PermanentBurnDelegate whose authority is not None, or an
 * external plugin adapter with a lifecycle check on Transfer; else MPL_CORE_FROZEN for a FreezeDelegate or
 * PermanentFreezeDelegate that is frozen; MPL_CORE_INVALID when the header or registry does not parse. */
static inline int mpl_core_plugins(const SolAccountInfo *a, u64 at) {
  if (a->data_len == at) return MPL_CORE_OK; /* no plugins */
  MetaplexReader r = {a->data, a->data_len, at, false};
  if (metaplex_u8(&r) != MPL_CORE_KEY_PLUGIN_HEADER_V1) return MPL_CORE_INVALID;
  u64 registry = mpl_core_u64(&r);
  if (r.bad || registry >= a->data_len) return MPL_CORE_INVALID;
  r.at = registry;
  if (metaplex_u8(&r) != MPL_CORE_KEY_PLUGIN_REGISTRY_V1) return MPL_CORE_INVALID;
  bool unsafe = false, frozen = false;
  u32 n = metaplex_u32(&r);
  for (u32 i = 0; i < n && !r.bad; i++) {
    u8 type = metaplex_u8(&r);
    u8 authority = mpl_core_authority(&r);
    u64 offset = mpl_core_u64(&r);
    if (r.bad) return MPL_CORE_INVALID;
    if ((type == MPL_CORE_PERMANENT_FREEZE_DELEGATE || type == MPL_CORE_PERMANENT_TRANSFER_DELEGATE ||
         type == MPL_CORE_PERMANENT_BURN_DELEGATE) &&
        authority != MPL_CORE_AUTHORITY_NONE)
      unsafe = true;
    if (type == MPL_CORE_FREEZE_DELEGATE || type == MPL_CORE_PERMANENT_FREEZE_DELEGATE) {
      /* Plugin::FreezeDelegate / PermanentFreezeDelegate { frozen: bool }: [type, frozen] */
      if (offset >= a->data_len - 1 || a->data[offset] != type || a->data[offset + 1] > 1) return MPL_CORE_INVALID;
      if (a->data[offset + 1] == 1) frozen = true;
    }
  }
  u32 m = metaplex_u32(&r);
  for (u32 i = 0; i < m && !r.bad; i++) {
    metaplex_u8(&r); /* ExternalPluginAdapterType */
    mpl_core_authority(&r);
    u8 has_checks = metaplex_u8(&r);
    if (has_checks == 1) {
      u32 k = metaplex_u32(&r);
      for (u32 j = 0; j < k && !r.bad; j++) {
        if (metaplex_u8(&r) == MPL_CORE_EVENT_TRANSFER) unsafe = true;
        metaplex_take(&r, 4); /* ExternalCheckResult flags */
      }
    } else if (has_checks != 0) {
      return MPL_CORE_INVALID;
    }
    metaplex_take(&r, 8);           /* offset */
    mpl_core_skip_option_u64(&r);   /* data offset */
    mpl_core_skip_option_u64(&r);   /* data length */
  }
  if (r.bad) return MPL_CORE_INVALID;
  return unsafe ? MPL_CORE_UNSAFE : frozen ? MPL_CORE_FROZEN : MPL_CORE_OK;
}

/* Core TransferV1 of `asset` to `new_owner`, `authority` (its owner, or the owner-to-be's program PDA that owns it)
 * signing, `payer` (a signer) paying; `signer`: seeds when the authority is a PDA of the caller (NULL otherwise).
 * `collection`: the collection the asset names (the Core program's account when it names none). */
typedef struct {
  const SolAccountInfo *core, *asset, *collection, *payer, *authority, *new_owner;
  const SolSignerSeeds *signer;
} MplCoreTransfer;

static inline u64 mpl_core_transfer(const MplCoreTransfer *t) {
  const SolAccountInfo *acc[6] = {t->asset, t->collection, t->payer, t->authority, t->new_owner, t->core};
  SolAccountMeta metas[7] = {
    {t->asset->key, true, false},     {t->collection->key, false, false}, {t->payer->key, true, true},
    {t->authority->key, false, true}, {t->new_owner->key, false, false},
    {t->core->key, false, false}, /* system program: none */
    {t->core->key, false, false}, /* log wrapper: none */
  };
  SolAccountInfo infos[6];
  for (int i = 0; i < 6; i++) {
    infos[i] = *acc[i];
    infos[i].data_len = *(const u64 *)(infos[i].data - 8); /* live length */
  }
  u8 data[2] = {MPL_CORE_TRANSFER_V1, 0}; /* TransferV1Args { compression_proof: None } */
  SolInstruction ix = {t->core->key, metas, 7, data, 2};
  return sol_invoke_signed_c(&ix, infos, 6, t->signer, t->signer ? 1 : 0);
}
