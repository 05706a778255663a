/* Programmable NFT custody, escrowless: the pNFT stays in the borrower's token account. At the loan's start the
 * borrower delegates it to the loan PDA (Token Metadata Delegate v1, LockedTransfer, locked to the pool owner) and
 * the loan PDA locks it (Lock v1): from then on Token Metadata refuses the borrower any transfer, burn, unlock,
 * revoke or other delegate. Repay: the loan PDA unlocks it and the borrower revokes the delegate. Liquidate: the
 * loan PDA unlocks it and transfers it (Transfer v1 as the delegate) to the pool owner. Every step is Token
 * Metadata's own instruction with the rule set the metadata names, so the rule set decides each of them: one that
 * refuses the loan PDA as a delegate refuses the loan at TakeLoan. */
#include "custody.h"
#include "metaplex.h"

#define TM_DELEGATE 44
#define TM_REVOKE 45
#define TM_LOCK 46
#define TM_UNLOCK 47
#define TM_TRANSFER 49
#define TM_LOCKED_TRANSFER_V1 7 /* DelegateArgs / RevokeArgs::LockedTransferV1 */
#define TOKEN_RECORD_LOCKED 1

static const SolPubkey AUTH_RULES_ID = {{
  0x08, 0xaf, 0xf8, 0x94, 0xc3, 0xfa, 0x67, 0xc0, 0x16, 0x3a, 0x30, 0xf2, 0x34, 0xa3, 0x3d, 0x34,
  0x67, 0xf0, 0x3a, 0xa1, 0x64, 0x17, 0x31, 0x5e, 0xb4, 0xb8, 0x14, 0x27, 0xbd, 0x9b, 0xa6, 0xed}};
static const SolPubkey SYSVAR_INSTRUCTIONS_ID = {{
  0x06, 0xa7, 0xd5, 0x17, 0x18, 0x7b, 0xd1, 0x66, 0x35, 0xda, 0xd4, 0x04, 0x55, 0xfd, 0xc2, 0xc0,
  0xc1, 0x24, 0xc6, 0x8f, 0x21, 0x56, 0x75, 0xa5, 0xdb, 0xba, 0xcb, 0x5f, 0x08, 0x00, 0x00, 0x00}};
static const SolPubkey ATA_PROGRAM_ID = {{
  0x8c, 0x97, 0x25, 0x8f, 0x4e, 0x24, 0x89, 0xf1, 0xbb, 0x3d, 0x10, 0x29, 0x14, 0x8e, 0x0d, 0x83,
  0x0b, 0x5a, 0x13, 0x99, 0xda, 0xff, 0x10, 0x84, 0x04, 0x8e, 0x7b, 0xd8, 0xdb, 0xe9, 0xf8, 0x59}};
static const u8 METADATA_SEED[] = "metadata";
static const u8 EDITION_SEED[] = "edition";
static const u8 TOKEN_RECORD_SEED[] = "token_record";

u64 pnft_block(const SolParameters *p, u64 first, PnftAccounts *out) {
  if (p->ka_num < first + PNFT_BLOCK_LEN) return E_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *ka = p->ka + first;
  out->mint = &ka[0];
  out->metadata = &ka[1];
  out->edition = &ka[2];
  out->token_record = &ka[3];
  out->sysvar_ix = &ka[4];
  out->tm = &ka[5];
  out->rules_program = &ka[6];
  out->rule_set = &ka[7];
  out->system = &ka[8];
  out->dest_owner = out->dest_token = out->dest_record = out->ata_program = NULL;
  out->via_token = out->via_record = NULL;
  out->locked_address = NULL;
  return SUCCESS;
}

/* Every account of the block: the programs by id, the metadata, edition and token record at their PDAs for this
 * mint and token account (owned by Token Metadata), the token standard ProgrammableNonFungible and the rule set
 * the metadata names (Token Metadata's id standing for none). */
static u64 pnft_check(const Custody *c) {
  const PnftAccounts *a = c->pnft;
  const SolPubkey *mint = a->mint->key;
  if (!pubkey_eq(a->tm->key, &METAPLEX_PROGRAM_ID) || !pubkey_eq(a->sysvar_ix->key, &SYSVAR_INSTRUCTIONS_ID) ||
      !is_zero_key(a->system->key))
    return E_INVALID_PROGRAM_ACCOUNT;
  if (!pubkey_eq(a->metadata->owner, &METAPLEX_PROGRAM_ID) || !pubkey_eq(a->edition->owner, &METAPLEX_PROGRAM_ID) ||
      !pubkey_eq(a->token_record->owner, &METAPLEX_PROGRAM_ID))
    return E_INVALID_METADATA;
  if (!a->metadata->is_writable || !a->token_record->is_writable || !c->escrow->is_writable) return E_NOT_WRITABLE;
  SolSignerSeed seeds[6] = {{METADATA_SEED, sizeof(METADATA_SEED) - 1}, {METAPLEX_PROGRAM_ID.x, 32}, {mint->x, 32},
                            {&a->bumps[0], 1}};
  if (!pda_matches(seeds, 4, &METAPLEX_PROGRAM_ID, a->metadata->key)) return E_INVALID_METADATA;
  seeds[3].addr = EDITION_SEED;
  seeds[3].len = sizeof(EDITION_SEED) - 1;
  seeds[4].addr = &a->bumps[1];
  seeds[4].len = 1;
  if (!pda_matches(seeds, 5, &METAPLEX_PROGRAM_ID, a->edition->key)) return E_INVALID_METADATA;
  seeds[3].addr = TOKEN_RECORD_SEED;
  seeds[3].len = sizeof(TOKEN_RECORD_SEED) - 1;
  seeds[4].addr = c->escrow->key->x;
  seeds[4].len = 32;
  seeds[5].addr = &a->bumps[2];
  seeds[5].len = 1;
  if (!pda_matches(seeds, 6, &METAPLEX_PROGRAM_ID, a->token_record->key)) return E_INVALID_METADATA;
  if (a->metadata->data_len < 65 || !pubkey_eq((const SolPubkey *)(a->metadata->data + 33), mint))
    return E_INVALID_METADATA;
  bool has_rule_set;
  SolPubkey rule_set;
  if (metaplex_programmable(a->metadata, &has_rule_set, &rule_set) != METAPLEX_OK) return E_INVALID_COLLATERAL;
  if (has_rule_set ? !pubkey_eq(a->rules_program->key, &AUTH_RULES_ID) || !pubkey_eq(a->rule_set->key, &rule_set)
                   : !pubkey_eq(a->rules_program->key, &METAPLEX_PROGRAM_ID) ||
                       !pubkey_eq(a->rule_set->key, &METAPLEX_PROGRAM_ID))
    return E_INVALID_METADATA;
  /* the asset: the owner's token account of this mint holding it (Token Metadata keeps a pNFT's account frozen) */
  const SolAccountInfo *t = c->escrow;
  if (!pubkey_eq(t->owner, &TOKEN_PROGRAM_ID) || t->data_len != TOKEN_ACCOUNT_SIZE || t->data[108] == 0 ||
      !pubkey_eq((const SolPubkey *)t->data, mint) || !pubkey_eq((const SolPubkey *)(t->data + 32), a->owner->key) ||
      rd64(t->data + 64) != 1)
    return E_INVALID_TOKEN_ACCOUNT;
  return SUCCESS;
}

/* one Token Metadata instruction: accounts with their flags (W writable, S signer); `seeds` sign for the holder */
#define W 1
#define S 2
#define MAX_TM_ACCOUNTS 17
typedef struct {
  const Custody *c;
  const SolAccountInfo *acc[MAX_TM_ACCOUNTS];
  u8 flags[MAX_TM_ACCOUNTS];
  u64 n;
  const u8 *data;
  u64 data_len;
  bool holder_signs;
} TmCall;

static u64 tm_invoke(const TmCall *t) {
  SolAccountMeta metas[MAX_TM_ACCOUNTS];
  SolAccountInfo infos[MAX_TM_ACCOUNTS + 1];
  for (u64 i = 0; i < t->n; i++) {
    metas[i].pubkey = t->acc[i]->key;
    metas[i].is_writable = (t->flags[i] & W) != 0;
    metas[i].is_signer = (t->flags[i] & S) != 0;
    infos[i] = *t->acc[i];
    infos[i].data_len = *(const u64 *)(infos[i].data - 8);
  }
  infos[t->n] = *t->c->pnft->tm;
  SolInstruction ix = {t->c->pnft->tm->key, metas, t->n, (u8 *)t->data, t->data_len};
  return sol_invoke_signed_c(&ix, infos, (int)t->n + 1, t->c->signer, t->holder_signs && t->c->signer ? 1 : 0);
}

/* Delegate v1 / Revoke v1 accounts: delegate record (none), delegate, metadata, edition, token record, mint,
 * token, authority (the owner), payer, system, sysvar instructions, token program, auth rules program, rule set */
static void delegate_accounts(TmCall *t, const Custody *c) {
  const PnftAccounts *a = c->pnft;
  const SolAccountInfo *acc[14] = {a->tm, c->holder, a->metadata, a->edition, a->token_record, a->mint, c->escrow,
                                   a->owner, a->payer, a->system, a->sysvar_ix, c->token, a->rules_program,
                                   a->rule_set};
  const u8 flags[14] = {0, 0, W, 0, W, 0, W, S, W | S, 0, 0, 0, 0, 0};
  for (int i = 0; i < 14; i++) {
    t->acc[i] = acc[i];
    t->flags[i] = flags[i];
  }
  t->n = 14;
  t->c = c;
}

/* Lock v1 / Unlock v1 accounts: authority (the holder, the delegate), token owner, token, mint, metadata, edition,
 * token record, payer, system, sysvar instructions, token program, auth rules program, rule set */
static void lock_accounts(TmCall *t, const Custody *c) {
  const PnftAccounts *a = c->pnft;
  const SolAccountInfo *acc[13] = {c->holder, a->owner, c->escrow, a->mint, a->metadata, a->edition,
                                   a->token_record, a->payer, a->system, a->sysvar_ix, c->token,
                                   a->rules_program, a->rule_set};
  const u8 flags[13] = {S, 0, W, 0, W, 0, W, W | S, 0, 0, 0, 0, 0};
  for (int i = 0; i < 13; i++) {
    t->acc[i] = acc[i];
    t->flags[i] = flags[i];
  }
  t->n = 13;
  t->c = c;
  t->holder_signs = true;
}

/* Token Auth Rules Validate (instruction 1, ValidateArgs::V1) of one transfer Liquidate would make, exactly as Token
 * Metadata's Transfer v1 asks it (mpl-token-metadata utils/programmable_asset.rs auth_rules_validate): the operation
 * "Transfer:<scenario>", the payload {Amount: 1, Authority: the holder, Source and Destination: the token's owner
 * before and after}, the rule set revision the transfer will use (NULL: the latest), accounts rule set, mint, system
 * program, three "none" (payer, rule authority, state), then source, destination, authority. A rule set that
 * refuses fails the instruction there: the loan is never made. */
#define AUTH_RULES_VALIDATE 1
#define PAYLOAD_PUBKEY 0
#define PAYLOAD_NUMBER 3
typedef struct {
  const char *operation;
  u64 operation_len;
  const SolAccountInfo *source, *destination;
  const u8 *revision; /* the token record's Option<u64> rule_set_revision, or NULL for the latest */
} TransferQuestion;

static u8 *put_str(u8 *at, const char *s, u64 len) {
  *(u32 *)at = (u32)len;
  sol_memcpy_(at + 4, s, len);
  return at + 4 + len;
}

static u8 *put_key(u8 *at, const char *name, u64 len, const SolPubkey *key) {
  at = put_str(at, name, len);
  *at = PAYLOAD_PUBKEY;
  copy_key((SolPubkey *)(at + 1), key);
  return at + 33;
}

static u64 rules_validate(const Custody *c, const TransferQuestion *q) {
  const PnftAccounts *a = c->pnft;
  u8 data[256];
  u8 *at = data;
  *at++ = AUTH_RULES_VALIDATE;
  *at++ = 0; /* V1 */
  at = put_str(at, q->operation, q->operation_len);
  *(u32 *)at = 4; /* the payload's entries, by key in order */
  at += 4;
  at = put_str(at, "Amount", 6);
  *at = PAYLOAD_NUMBER;
  sol_write_u64(at + 1, 1);
  at += 9;
  at = put_key(at, "Authority", 9, c->holder->key);
  at = put_key(at, "Destination", 11, q->destination->key);
  at = put_key(at, "Source", 6, q->source->key);
  *at++ = 0; /* update_rule_state: false */
  if (q->revision && q->revision[0] == 1) {
    *at = 1;
    sol_memcpy_(at + 1, q->revision + 1, 8);
    at += 9;
  } else {
    *at++ = 0; /* the latest revision */
  }
  const SolAccountInfo *acc[9] = {a->rule_set,      a->mint,         a->system,         a->rules_program,
                                  a->rules_program, a->rules_program, q->source, q->destination, c->holder};
  SolAccountMeta metas[9];
  SolAccountInfo infos[9];
  for (int i = 0; i < 9; i++) {
    metas[i].pubkey = acc[i]->key;
    metas[i].is_writable = false;
    metas[i].is_signer = false;
    infos[i] = *acc[i];
    infos[i].data_len = *(const u64 *)(infos[i].data - 8);
  }
  SolInstruction ix = {a->rules_program->key, metas, 9, data, (u64)(at - data)};
  return sol_invoke_signed_c(&ix, infos, 9, NULL, 0);
}

/* the two transfers of Liquidate (pnft_transfer_out): the holder as the LockedTransfer delegate moves it from the
 * owner to itself ("Transfer:TransferDelegate", at the revision the owner's token record holds since the Delegate),
 * then as its owner to the pool owner ("Transfer:Owner", at the latest revision: that token record is new then) */
static u64 validate_liquidation(const Custody *c) {
  const PnftAccounts *a = c->pnft;
  if (pubkey_eq(a->rules_program->key, &METAPLEX_PROGRAM_ID)) return SUCCESS; /* no rule set: nothing to ask */
  if (!a->dest_owner) return E_ACCOUNT_MISMATCH; /* the pool owner the second transfer pays */
  const u8 *record = a->token_record->data; /* key, bump, state, rule_set_revision Option<u64>, ... */
  if (*(const u64 *)(record - 8) < 12) return E_INVALID_COLLATERAL;
  static const char DELEGATE_OP[] = "Transfer:TransferDelegate";
  static const char OWNER_OP[] = "Transfer:Owner";
  TransferQuestion in = {DELEGATE_OP, sizeof(DELEGATE_OP) - 1, a->owner, c->holder, record + 3};
  u64 r = rules_validate(c, &in);
  if (r) return r;
  TransferQuestion out = {OWNER_OP, sizeof(OWNER_OP) - 1, c->holder, a->dest_owner, NULL};
  return rules_validate(c, &out);
}

u64 pnft_lock(const Custody *c) {
  u64 r = pnft_check(c);
  if (r) return r;
  const PnftAccounts *a = c->pnft;
  if (!a->locked_address) return E_INVALID_COLLATERAL;
  TmCall t;
  delegate_accounts(&t, c);
  t.holder_signs = false;
  u8 data[43];
  data[0] = TM_DELEGATE;
  data[1] = TM_LOCKED_TRANSFER_V1;
  sol_write_u64(data + 2, 1);
  copy_key((SolPubkey *)(data + 10), a->locked_address);
  data[42] = 0; /* authorization data: none */
  t.data = data;
  t.data_len = 43;
  if ((r = tm_invoke(&t))) return r;
  lock_accounts(&t, c);
  u8 lock[3] = {TM_LOCK, 0, 0}; /* LockArgs::V1 { authorization data: none } */
  t.data = lock;
  t.data_len = 3;
  if ((r = tm_invoke(&t))) return r;
  /* what the chain holds now: the token record Locked */
  if (a->token_record->data_len < 3 || a->token_record->data[2] != TOKEN_RECORD_LOCKED) return E_INVALID_COLLATERAL;
  return validate_liquidation(c);
}

static u64 pnft_unlock(const Custody *c) {
  TmCall t;
  lock_accounts(&t, c);
  u8 unlock[3] = {TM_UNLOCK, 0, 0};
  t.data = unlock;
  t.data_len = 3;
  return tm_invoke(&t);
}

u64 pnft_release_to_owner(const Custody *c) {
  u64 r = pnft_check(c);
  if (r || (r = pnft_unlock(c))) return r;
  TmCall t;
  delegate_accounts(&t, c);
  t.holder_signs = false;
  u8 revoke[2] = {TM_REVOKE, TM_LOCKED_TRANSFER_V1};
  t.data = revoke;
  t.data_len = 2;
  return tm_invoke(&t);
}

/* Transfer v1, the holder signing as `authority` (the delegate, or the owner of `from`): token, token owner,
 * destination token, destination owner, mint, metadata, edition, owner token record, destination token record,
 * authority, payer, system, sysvar instructions, token program, associated token program, auth rules program,
 * rule set */
typedef struct {
  const SolAccountInfo *from, *from_owner, *from_record, *to, *to_owner, *to_record;
} Hop;

static u64 tm_transfer(const Custody *c, const Hop *h) {
  const PnftAccounts *a = c->pnft;
  TmCall t;
  const SolAccountInfo *acc[17] = {h->from, h->from_owner, h->to, h->to_owner, a->mint, a->metadata, a->edition,
                                   h->from_record, h->to_record, c->holder, a->payer, a->system, a->sysvar_ix,
                                   c->token, a->ata_program, a->rules_program, a->rule_set};
  const u8 flags[17] = {W, 0, W, 0, 0, W, 0, W, W, S, W | S, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 17; i++) {
    t.acc[i] = acc[i];
    t.flags[i] = flags[i];
  }
  t.n = 17;
  t.c = c;
  t.holder_signs = true;
  u8 data[11];
  data[0] = TM_TRANSFER;
  data[1] = 0; /* TransferArgs::V1 */
  sol_write_u64(data + 2, 1);
  data[10] = 0; /* authorization data: none */
  t.data = data;
  t.data_len = 11;
  return tm_invoke(&t);
}

/* `who`'s associated token account of the mint and its token record, at their addresses */
static u64 check_ata_and_record(const Custody *c, const SolPubkey *who, const SolAccountInfo *ata,
                                const SolAccountInfo *record) {
  const SolPubkey *mint = c->pnft->mint->key;
  SolSignerSeed ata_seeds[3] = {{who->x, 32}, {TOKEN_PROGRAM_ID.x, 32}, {mint->x, 32}};
  SolPubkey expected;
  u8 bump;
  if (sol_try_find_program_address(ata_seeds, 3, &ATA_PROGRAM_ID, &expected, &bump) || !pubkey_eq(&expected, ata->key))
    return E_INVALID_PDA;
  SolSignerSeed seeds[5] = {{METADATA_SEED, sizeof(METADATA_SEED) - 1}, {METAPLEX_PROGRAM_ID.x, 32}, {mint->x, 32},
                            {TOKEN_RECORD_SEED, sizeof(TOKEN_RECORD_SEED) - 1}, {ata->key->x, 32}};
  if (sol_try_find_program_address(seeds, 5, &METAPLEX_PROGRAM_ID, &expected, &bump) ||
      !pubkey_eq(&expected, record->key))
    return E_INVALID_PDA;
  if (!ata->is_writable || !record->is_writable) return E_NOT_WRITABLE;
  return SUCCESS;
}

u64 pnft_transfer_out(const Custody *c, const SolAccountInfo *to) {
  const PnftAccounts *a = c->pnft;
  if (!a->dest_owner || !a->via_token || !pubkey_eq(to->key, a->dest_token->key)) return E_ACCOUNT_MISMATCH;
  if (!pubkey_eq(a->ata_program->key, &ATA_PROGRAM_ID)) return E_INVALID_PROGRAM_ACCOUNT;
  u64 r = pnft_check(c);
  if (r || (r = check_ata_and_record(c, a->dest_owner->key, to, a->dest_record)) ||
      (r = check_ata_and_record(c, c->holder->key, a->via_token, a->via_record)) || (r = pnft_unlock(c)))
    return r;
  /* the delegate moves it to the holder's own account, then the holder (its owner now) to the receiver */
  Hop in = {c->escrow, a->owner, a->token_record, a->via_token, c->holder, a->via_record};
  if ((r = tm_transfer(c, &in))) return r;
  Hop out = {a->via_token, c->holder, a->via_record, to, a->dest_owner, a->dest_record};
  if ((r = tm_transfer(c, &out))) return r;
  /* what the chain holds now: the destination is the pool owner's token account of this mint, holding it */
  u64 len = *(const u64 *)(to->data - 8); /* live: Token Metadata may have just created it */
  if (!pubkey_eq(to->owner, &TOKEN_PROGRAM_ID) || len != TOKEN_ACCOUNT_SIZE ||
      !pubkey_eq((const SolPubkey *)to->data, a->mint->key) ||
      !pubkey_eq((const SolPubkey *)(to->data + 32), a->dest_owner->key) || rd64(to->data + 64) != 1)
    return E_INVALID_TOKEN_ACCOUNT;
  return SUCCESS;
}
