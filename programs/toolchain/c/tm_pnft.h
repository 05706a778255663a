/* Metaplex Token Metadata's programmable NFTs (pNFT): the accounts every Token Metadata instruction on a pNFT names
 * (metadata, master edition, token records, the rule set the metadata names, Token Auth Rules), checked from the
 * chain, and the invoke of Token Metadata's own instructions (Transfer v1 built here), so a pNFT's rule set decides
 * each move. Shared by the lending program (custody_pnft.c: Delegate, Lock, Unlock, Revoke, Transfer) and the local
 * NFT market (pnft.c: Transfer); each maps the TM_PNFT_* results to its own error codes.
 * Layouts: mpl-token-metadata instruction/mod.rs (Transfer, TransferArgs::V1), state/token_record.rs, pda.rs. */
#pragma once
#include "metaplex.h"
#include "spl.h"

/* MetadataInstruction */
#define TM_DELEGATE 44
#define TM_REVOKE 45
#define TM_LOCK 46
#define TM_UNLOCK 47
#define TM_TRANSFER 49
/* TokenRecord: key, bump, state (Unlocked 0, Locked 1, Listed 2), ... */
#define TM_TOKEN_RECORD_LOCKED 1

#define TM_PNFT_OK 0
#define TM_PNFT_BAD_PROGRAM 1     /* Token Metadata, sysvar instructions, system or associated token program not theirs */
#define TM_PNFT_BAD_METADATA 2    /* metadata, edition or token record not Token Metadata's at its PDA; a rule set
                                     (or Token Auth Rules) other than the one the metadata names */
#define TM_PNFT_NOT_PROGRAMMABLE 3 /* the token standard is not ProgrammableNonFungible */
#define TM_PNFT_NOT_WRITABLE 4
#define TM_PNFT_BAD_TOKEN 5       /* not a token account of the mint, of that owner, holding the one token */
#define TM_PNFT_BAD_ADDRESS 6     /* not the associated token account or its token record */

static const SolPubkey TM_AUTH_RULES_ID = {{
  0x08, 0xaf, 0xf8, 0x94, 0xc3, 0xfa, 0x67, 0xc0, 0x16, 0x3a, 0x30, 0xf2, 0x34, 0xa3, 0x3d, 0x34,
  0x67, 0xf0, 0x3a, 0xa1, 0x64, 0x17, 0x31, 0x5e, 0xb4, 0xb8, 0x14, 0x27, 0xbd, 0x9b, 0xa6, 0xed}};
static const SolPubkey TM_SYSVAR_INSTRUCTIONS_ID = {{
  0x06, 0xa7, 0xd5, 0x17, 0x18, 0x7b, 0xd1, 0x66, 0x35, 0xda, 0xd4, 0x04, 0x55, 0xfd, 0xc2, 0xc0,
  0xc1, 0x24, 0xc6, 0x8f, 0x21, 0x56, 0x75, 0xa5, 0xdb, 0xba, 0xcb, 0x5f, 0x08, 0x00, 0x00, 0x00}};
static const SolPubkey TM_ATA_PROGRAM_ID = {{
  0x8c, 0x97, 0x25, 0x8f, 0x4e, 0x24, 0x89, 0xf1, 0xbb, 0x3d, 0x10, 0x29, 0x14, 0x8e, 0x0d, 0x83,
  0x0b, 0x5a, 0x13, 0x99, 0xda, 0xff, 0x10, 0x84, 0x04, 0x8e, 0x7b, 0xd8, 0xdb, 0xe9, 0xf8, 0x59}};
static const u8 TM_METADATA_SEED[] = "metadata";
static const u8 TM_EDITION_SEED[] = "edition";
static const u8 TM_TOKEN_RECORD_SEED[] = "token_record";

/* The accounts of one pNFT that Token Metadata's instructions name (ata_program: Transfer only, NULL otherwise).
 * rules_program and rule_set are Token Metadata's own id when the metadata names no rule set. */
typedef struct {
  const SolAccountInfo *tm, *mint, *metadata, *edition, *rules_program, *rule_set, *sysvar_ix, *system, *token;
  const SolAccountInfo *ata_program;
} TmPnft;

/* Every account of `a` but the token records: the programs by id, the metadata (writable) and master edition owned
 * by Token Metadata at their PDAs of the mint (`metadata_bump`, `edition_bump`), the metadata naming the mint with
 * the token standard ProgrammableNonFungible, the rule set it names (and Token Auth Rules) or none. */
static inline int tm_pnft_check(const TmPnft *a, u8 metadata_bump, u8 edition_bump) {
  const SolPubkey *mint = a->mint->key;
  if (!pubkey_eq(a->tm->key, &METAPLEX_PROGRAM_ID) || !pubkey_eq(a->sysvar_ix->key, &TM_SYSVAR_INSTRUCTIONS_ID) ||
      !is_zero_key(a->system->key) || !pubkey_eq(a->token->key, &TOKEN_PROGRAM_ID) ||
      (a->ata_program && !pubkey_eq(a->ata_program->key, &TM_ATA_PROGRAM_ID)))
    return TM_PNFT_BAD_PROGRAM;
  if (!pubkey_eq(a->metadata->owner, &METAPLEX_PROGRAM_ID) || !pubkey_eq(a->edition->owner, &METAPLEX_PROGRAM_ID))
    return TM_PNFT_BAD_METADATA;
  if (!a->metadata->is_writable) return TM_PNFT_NOT_WRITABLE;
  SolSignerSeed seeds[5] = {{TM_METADATA_SEED, sizeof(TM_METADATA_SEED) - 1}, {METAPLEX_PROGRAM_ID.x, 32},
                            {mint->x, 32}, {&metadata_bump, 1}};
  if (!pda_matches(seeds, 4, &METAPLEX_PROGRAM_ID, a->metadata->key)) return TM_PNFT_BAD_METADATA;
  seeds[3] = (SolSignerSeed){TM_EDITION_SEED, sizeof(TM_EDITION_SEED) - 1};
  seeds[4] = (SolSignerSeed){&edition_bump, 1};
  if (!pda_matches(seeds, 5, &METAPLEX_PROGRAM_ID, a->edition->key)) return TM_PNFT_BAD_METADATA;
  if (a->metadata->data_len < 65 || a->metadata->data[0] != METAPLEX_KEY_METADATA_V1 ||
      !pubkey_eq((const SolPubkey *)(a->metadata->data + 33), mint))
    return TM_PNFT_BAD_METADATA;
  bool has_rule_set;
  SolPubkey rule_set;
  if (metaplex_programmable(a->metadata, &has_rule_set, &rule_set) != METAPLEX_OK) return TM_PNFT_NOT_PROGRAMMABLE;
  if (has_rule_set ? !pubkey_eq(a->rules_program->key, &TM_AUTH_RULES_ID) || !pubkey_eq(a->rule_set->key, &rule_set)
                   : !pubkey_eq(a->rules_program->key, &METAPLEX_PROGRAM_ID) ||
                       !pubkey_eq(a->rule_set->key, &METAPLEX_PROGRAM_ID))
    return TM_PNFT_BAD_METADATA;
  return TM_PNFT_OK;
}

/* `record` is Token Metadata's token record of `token` (PDA ["metadata", TM, mint, "token_record", token, bump]) */
static inline int tm_token_record_check(const TmPnft *a, const SolAccountInfo *token, const SolAccountInfo *record,
                                        u8 bump) {
  if (!pubkey_eq(record->owner, &METAPLEX_PROGRAM_ID)) return TM_PNFT_BAD_METADATA;
  if (!record->is_writable) return TM_PNFT_NOT_WRITABLE;
  SolSignerSeed seeds[6] = {{TM_METADATA_SEED, sizeof(TM_METADATA_SEED) - 1}, {METAPLEX_PROGRAM_ID.x, 32},
                            {a->mint->key->x, 32}, {TM_TOKEN_RECORD_SEED, sizeof(TM_TOKEN_RECORD_SEED) - 1},
                            {token->key->x, 32}, {&bump, 1}};
  return pda_matches(seeds, 6, &METAPLEX_PROGRAM_ID, record->key) ? TM_PNFT_OK : TM_PNFT_BAD_METADATA;
}

/* `token` holds the pNFT: an initialized token account (Token Metadata keeps it frozen) of the mint, of `owner`,
 * holding 1; its data read live (a Token Metadata call in this instruction may have created it) */
static inline int tm_holds_pnft(const TmPnft *a, const SolAccountInfo *token, const SolPubkey *owner) {
  if (!pubkey_eq(token->owner, &TOKEN_PROGRAM_ID) || *(const u64 *)(token->data - 8) != TOKEN_ACCOUNT_SIZE ||
      token->data[108] == 0 || !pubkey_eq((const SolPubkey *)token->data, a->mint->key) ||
      !pubkey_eq((const SolPubkey *)(token->data + 32), owner) || rd64(token->data + 64) != 1)
    return TM_PNFT_BAD_TOKEN;
  return TM_PNFT_OK;
}

/* `ata` is `who`'s associated token account of the mint and `record` its token record (both writable; either may
 * not exist yet: Transfer v1 creates them) */
static inline int tm_ata_and_record(const TmPnft *a, const SolPubkey *who, const SolAccountInfo *ata,
                                    const SolAccountInfo *record) {
  const SolPubkey *mint = a->mint->key;
  SolSignerSeed ata_seeds[3] = {{who->x, 32}, {TOKEN_PROGRAM_ID.x, 32}, {mint->x, 32}};
  SolPubkey expected;
  u8 bump;
  if (sol_try_find_program_address(ata_seeds, 3, &TM_ATA_PROGRAM_ID, &expected, &bump) ||
      !pubkey_eq(&expected, ata->key))
    return TM_PNFT_BAD_ADDRESS;
  SolSignerSeed seeds[5] = {{TM_METADATA_SEED, sizeof(TM_METADATA_SEED) - 1}, {METAPLEX_PROGRAM_ID.x, 32},
                            {mint->x, 32}, {TM_TOKEN_RECORD_SEED, sizeof(TM_TOKEN_RECORD_SEED) - 1},
                            {ata->key->x, 32}};
  if (sol_try_find_program_address(seeds, 5, &METAPLEX_PROGRAM_ID, &expected, &bump) ||
      !pubkey_eq(&expected, record->key))
    return TM_PNFT_BAD_ADDRESS;
  if (!ata->is_writable || !record->is_writable) return TM_PNFT_NOT_WRITABLE;
  return TM_PNFT_OK;
}

/* One Token Metadata instruction: its accounts with their flags (TM_W writable, TM_S signer), its data, and the
 * seeds of the caller's PDA that signs (NULL: none). Each account is passed with the data length it has now. */
#define TM_W 1
#define TM_S 2
#define TM_MAX_ACCOUNTS 17
typedef struct {
  const SolAccountInfo *tm;
  const SolAccountInfo *acc[TM_MAX_ACCOUNTS];
  u8 flags[TM_MAX_ACCOUNTS];
  u64 n;
  const u8 *data;
  u64 data_len;
  const SolSignerSeeds *signer;
} TmCall;

static inline void tm_call_accounts(TmCall *t, const SolAccountInfo *const *acc, const u8 *flags, u64 n) {
  for (u64 i = 0; i < n; i++) {
    t->acc[i] = acc[i];
    t->flags[i] = flags[i];
  }
  t->n = n;
}

static inline u64 tm_invoke(const TmCall *t) {
  SolAccountMeta metas[TM_MAX_ACCOUNTS];
  SolAccountInfo infos[TM_MAX_ACCOUNTS + 1];
  for (u64 i = 0; i < t->n; i++) {
    metas[i].pubkey = t->acc[i]->key;
    metas[i].is_writable = (t->flags[i] & TM_W) != 0;
    metas[i].is_signer = (t->flags[i] & TM_S) != 0;
    infos[i] = *t->acc[i];
    infos[i].data_len = *(const u64 *)(infos[i].data - 8);
  }
  infos[t->n] = *t->tm;
  SolInstruction ix = {t->tm->key, metas, t->n, (u8 *)t->data, t->data_len};
  return sol_invoke_signed_c(&ix, infos, (int)t->n + 1, t->signer, t->signer ? 1 : 0);
}

/* One Transfer v1 of the pNFT: `from` (owned by `from_owner`, token record `from_record`) to `to` (`to_owner`'s
 * associated token account, token record `to_record`; Token Metadata creates both when missing, `payer` paying),
 * `authority` (the owner of `from`, or its delegate) signing; `signer`: the seeds when the authority is the caller's
 * PDA. */
typedef struct {
  const SolAccountInfo *from, *from_owner, *from_record, *to, *to_owner, *to_record, *authority, *payer;
  const SolSignerSeeds *signer;
} TmTransfer;

/* Transfer v1 accounts: token, token owner, destination token, destination owner, mint, metadata (w), edition,
 * owner token record (w), destination token record (w), authority (s), payer (w, s), system, sysvar instructions,
 * token program, associated token program, auth rules program, rule set; data [49, TransferArgs::V1, amount 1,
 * authorization data None]. */
static inline u64 tm_transfer_v1(const TmPnft *a, const TmTransfer *h) {
  const SolAccountInfo *acc[17] = {h->from,          h->from_owner, h->to,        h->to_owner,     a->mint,
                                   a->metadata,      a->edition,    h->from_record, h->to_record,  h->authority,
                                   h->payer,         a->system,     a->sysvar_ix, a->token,        a->ata_program,
                                   a->rules_program, a->rule_set};
  static const u8 flags[17] = {TM_W, 0, TM_W, 0, 0, TM_W, 0, TM_W, TM_W, TM_S, TM_W | TM_S, 0, 0, 0, 0, 0, 0};
  TmCall t;
  tm_call_accounts(&t, acc, flags, 17);
  u8 data[11];
  data[0] = TM_TRANSFER;
  data[1] = 0; /* TransferArgs::V1 */
  sol_write_u64(data + 2, 1);
  data[10] = 0; /* authorization data: none */
  t.tm = a->tm;
  t.data = data;
  t.data_len = 11;
  t.signer = h->signer;
  return tm_invoke(&t);
}
