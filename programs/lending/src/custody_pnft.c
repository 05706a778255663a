/* Programmable NFT custody, escrowless: the pNFT stays in the borrower's token account. At the loan's start the
 * borrower delegates it to the loan PDA (Token Metadata Delegate v1, LockedTransfer, locked to the pool owner) and
 * the loan PDA locks it (Lock v1): from then on Token Metadata refuses the borrower any transfer, burn, unlock,
 * revoke or other delegate. Repay: the loan PDA unlocks it and the borrower revokes the delegate. Liquidate: the
 * loan PDA unlocks it and transfers it (Transfer v1 as the delegate) to the pool owner. Every step is Token
 * Metadata's own instruction with the rule set the metadata names, so the rule set decides each of them: one that
 * refuses the loan PDA as a delegate refuses the loan at TakeLoan. */
#include "custody_pnft.h"

#define TM_LOCKED_TRANSFER_V1 7 /* DelegateArgs / RevokeArgs::LockedTransferV1 */

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

/* the block as the shared Token Metadata accounts (programs/toolchain/c/tm_pnft.h) */
void tm_pnft_of(const Custody *c, TmPnft *out) {
  const PnftAccounts *a = c->pnft;
  *out = (TmPnft){a->tm,          a->mint,      a->metadata, a->edition, a->rules_program,
                  a->rule_set,    a->sysvar_ix, a->system,   c->token,   a->ata_program};
}

u64 tm_error(int r) {
  switch (r) {
    case TM_PNFT_OK: return SUCCESS;
    case TM_PNFT_BAD_PROGRAM: return E_INVALID_PROGRAM_ACCOUNT;
    case TM_PNFT_NOT_PROGRAMMABLE: return E_INVALID_COLLATERAL;
    case TM_PNFT_NOT_WRITABLE: return E_NOT_WRITABLE;
    case TM_PNFT_BAD_TOKEN: return E_INVALID_TOKEN_ACCOUNT;
    case TM_PNFT_BAD_ADDRESS: return E_INVALID_PDA;
    default: return E_INVALID_METADATA;
  }
}

/* Every account of the block (tm_pnft_check: the programs by id, the metadata and edition at their PDAs for this
 * mint, the token standard ProgrammableNonFungible and the rule set the metadata names), the token record at its
 * PDA for the token account, and the token account: the owner's, of this mint, holding it. */
static u64 pnft_check(const Custody *c) {
  const PnftAccounts *a = c->pnft;
  TmPnft tp;
  tm_pnft_of(c, &tp);
  if (!c->escrow->is_writable) return E_NOT_WRITABLE;
  int r = tm_pnft_check(&tp, a->bumps[0], a->bumps[1]);
  if (r == TM_PNFT_OK) r = tm_token_record_check(&tp, c->escrow, a->token_record, a->bumps[2]);
  if (r == TM_PNFT_OK) r = tm_holds_pnft(&tp, c->escrow, a->owner->key);
  return tm_error(r);
}

/* Delegate v1 / Revoke v1 accounts: delegate record (none), delegate, metadata, edition, token record, mint,
 * token, authority (the owner), payer, system, sysvar instructions, token program, auth rules program, rule set;
 * the owner signs (no PDA) */
static void delegate_accounts(TmCall *t, const Custody *c) {
  const PnftAccounts *a = c->pnft;
  const SolAccountInfo *acc[14] = {a->tm, c->holder, a->metadata, a->edition, a->token_record, a->mint, c->escrow,
                                   a->owner, a->payer, a->system, a->sysvar_ix, c->token, a->rules_program,
                                   a->rule_set};
  static const u8 flags[14] = {0, 0, TM_W, 0, TM_W, 0, TM_W, TM_S, TM_W | TM_S, 0, 0, 0, 0, 0};
  tm_call_accounts(t, acc, flags, 14);
  t->tm = a->tm;
  t->signer = NULL;
}

/* Lock v1 / Unlock v1 accounts: authority (the holder, the delegate), token owner, token, mint, metadata, edition,
 * token record, payer, system, sysvar instructions, token program, auth rules program, rule set; the holder signs */
static void lock_accounts(TmCall *t, const Custody *c) {
  const PnftAccounts *a = c->pnft;
  const SolAccountInfo *acc[13] = {c->holder, a->owner, c->escrow, a->mint, a->metadata, a->edition,
                                   a->token_record, a->payer, a->system, a->sysvar_ix, c->token,
                                   a->rules_program, a->rule_set};
  static const u8 flags[13] = {TM_S, 0, TM_W, 0, TM_W, 0, TM_W, TM_W | TM_S, 0, 0, 0, 0, 0};
  tm_call_accounts(t, acc, flags, 13);
  t->tm = a->tm;
  t->signer = c->signer;
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
  TransferQuestion in = {DELEGATE_OP, sizeof(DELEGATE_OP) - 1, a->owner, c->holder, record + 3};
  u64 r = rules_validate(c, &in);
  return r ? r : pnft_validate_owner_transfer(c, a->dest_owner);
}

u64 pnft_validate_owner_transfer(const Custody *c, const SolAccountInfo *destination) {
  if (pubkey_eq(c->pnft->rules_program->key, &METAPLEX_PROGRAM_ID)) return SUCCESS; /* no rule set */
  static const char OWNER_OP[] = "Transfer:Owner";
  TransferQuestion q = {OWNER_OP, sizeof(OWNER_OP) - 1, c->holder, destination, NULL};
  return rules_validate(c, &q);
}

u64 pnft_lock(const Custody *c) {
  u64 r = pnft_check(c);
  if (r) return r;
  const PnftAccounts *a = c->pnft;
  if (!a->locked_address) return E_INVALID_COLLATERAL;
  TmCall t;
  delegate_accounts(&t, c);
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
  /* what the chain holds now: the token record Locked (its length read live: a purchase in this instruction may
   * have created it) */
  if (*(const u64 *)(a->token_record->data - 8) < 3 || a->token_record->data[2] != TM_TOKEN_RECORD_LOCKED)
    return E_INVALID_COLLATERAL;
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
  u8 revoke[2] = {TM_REVOKE, TM_LOCKED_TRANSFER_V1};
  t.data = revoke;
  t.data_len = 2;
  return tm_invoke(&t);
}

u64 pnft_transfer_out(const Custody *c, const SolAccountInfo *to) {
  const PnftAccounts *a = c->pnft;
  if (!a->dest_owner || !a->via_token || !a->ata_program || !pubkey_eq(to->key, a->dest_token->key))
    return E_ACCOUNT_MISMATCH;
  if (!pubkey_eq(a->ata_program->key, &TM_ATA_PROGRAM_ID)) return E_INVALID_PROGRAM_ACCOUNT;
  u64 r = pnft_check(c);
  if (r) return r;
  TmPnft tp;
  tm_pnft_of(c, &tp);
  if ((r = tm_error(tm_ata_and_record(&tp, a->dest_owner->key, to, a->dest_record))) ||
      (r = tm_error(tm_ata_and_record(&tp, c->holder->key, a->via_token, a->via_record))) || (r = pnft_unlock(c)))
    return r;
  /* the delegate moves it to the holder's own account, then the holder (its owner now) to the receiver */
  TmTransfer in = {c->escrow, a->owner, a->token_record, a->via_token, c->holder, a->via_record, c->holder,
                   a->payer, c->signer};
  if ((r = tm_transfer_v1(&tp, &in)) || (r = pnft_transfer_as_owner(c, a->via_token, a->via_record, to, a->dest_owner)))
    return r;
  /* the holder's own account, empty again, closes to the payer (the liquidator, who paid it when Token Metadata
   * created it in the first hop) */
  TransferArgs close = {c->token, a->via_token, a->payer, c->holder, 0, c->signer};
  return token_close(&close);
}

u64 pnft_transfer_as_owner(const Custody *c, const SolAccountInfo *from, const SolAccountInfo *from_record,
                           const SolAccountInfo *to, const SolAccountInfo *to_owner) {
  TmPnft tp;
  tm_pnft_of(c, &tp);
  TmTransfer out = {from,     c->holder,      from_record,    to,       to_owner, c->pnft->dest_record,
                    c->holder, c->pnft->payer, c->signer};
  u64 r = tm_transfer_v1(&tp, &out);
  if (r) return r;
  /* what the chain holds now: the destination is `to_owner`'s token account of this mint, holding it */
  return tm_error(tm_holds_pnft(&tp, to, to_owner->key));
}

/* SPL token account: state (1 initialized, 2 frozen) at 108, close authority COption<Pubkey> at 129 */
#define TOKEN_STATE_AT 108
#define TOKEN_STATE_INITIALIZED 1
#define TOKEN_CLOSE_AUTHORITY_AT 129

/* A sale emptied the owner's token account (c->escrow; the borrower's, opened by them or, for a mortgage, by Token
 * Metadata in TakeMortgage with them paying): when the owner signs the instruction (MarketSell) it closes, the owner
 * its authority, its rent to the owner. Left open when the owner does not sign (LiquidateSell), or when it is not
 * empty, frozen, or has another close authority the owner set (their choice; the sale is not refused for it). */
static u64 close_owner_emptied(const Custody *c) {
  const SolAccountInfo *t = c->escrow, *owner = c->pnft->owner;
  if (!owner->is_signer || !owner->is_writable || *(const u64 *)(t->data - 8) < 165) return SUCCESS;
  const u8 *d = t->data;
  if (!pubkey_eq(t->owner, &TOKEN_PROGRAM_ID) || !pubkey_eq((const SolPubkey *)(d + 32), owner->key) ||
      rd64(d + 64) != 0 || d[TOKEN_STATE_AT] != TOKEN_STATE_INITIALIZED)
    return SUCCESS;
  if (rd32(d + TOKEN_CLOSE_AUTHORITY_AT) != 0 &&
      !pubkey_eq((const SolPubkey *)(d + TOKEN_CLOSE_AUTHORITY_AT + 4), owner->key))
    return SUCCESS;
  TransferArgs close = {c->token, t, owner, owner, 0, NULL};
  return token_close(&close);
}

u64 pnft_sell(const Custody *c, const SwapCall *venue) {
  const PnftAccounts *a = c->pnft;
  if (!a->via_token || !a->via_record || !a->ata_program) return E_ACCOUNT_MISMATCH;
  if (!pubkey_eq(a->ata_program->key, &TM_ATA_PROGRAM_ID)) return E_INVALID_PROGRAM_ACCOUNT;
  u64 r = pnft_check(c);
  if (r) return r;
  TmPnft tp;
  tm_pnft_of(c, &tp);
  if ((r = tm_error(tm_ata_and_record(&tp, c->holder->key, a->via_token, a->via_record))) || (r = pnft_unlock(c)))
    return r;
  /* the delegate moves it to the holder's own account (as Liquidate's first hop), which the venue sells from, the
   * holder signing as its owner */
  TmTransfer in = {c->escrow, a->owner, a->token_record, a->via_token, c->holder, a->via_record, c->holder,
                   a->payer, c->signer};
  if ((r = tm_transfer_v1(&tp, &in)) || (r = pnft_sell_from(c, a->via_token, venue))) return r;
  return close_owner_emptied(c);
}

u64 pnft_sell_from(const Custody *c, const SolAccountInfo *held, const SwapCall *venue) {
  TmPnft tp;
  tm_pnft_of(c, &tp);
  /* both ends: before, the holder's account holds it (what the sale takes is custody's) */
  if (tm_holds_pnft(&tp, held, c->holder->key) != TM_PNFT_OK) return E_INVALID_COLLATERAL;
  u64 r = invoke_loan_swap(venue);
  if (r) return r;
  /* the chain, not the venue: the holder's account no longer holds it */
  if (tm_holds_pnft(&tp, held, c->holder->key) == TM_PNFT_OK) return E_SALE_SHORT;
  /* that account, empty now, closes to the payer (who paid it when Token Metadata created it): the sale leaves the
   * holder nothing */
  TransferArgs close = {c->token, held, c->pnft->payer, c->holder, 0, c->signer};
  return token_close(&close);
}

u64 pnft_receive(const Custody *c, const SwapCall *venue, const SolPubkey *collection) {
  const PnftAccounts *a = c->pnft;
  TmPnft tp;
  tm_pnft_of(c, &tp);
  /* the owner's associated token account and its record (Token Metadata creates them in the purchase), not holding
   * it yet: the purchase must be what delivers it */
  u64 r = tm_error(tm_ata_and_record(&tp, a->owner->key, c->escrow, a->token_record));
  if (r) return r;
  if (tm_holds_pnft(&tp, c->escrow, a->owner->key) == TM_PNFT_OK) return E_SALE_SHORT;
  if ((r = invoke_loan_swap(venue))) return r;
  if (tm_holds_pnft(&tp, c->escrow, a->owner->key) != TM_PNFT_OK) return E_SALE_SHORT;
  /* the metadata as read before the purchase: the same verified collection */
  SolPubkey now;
  if ((r = read_verified_collection(a->metadata, a->mint->key, a->bumps[0], &now))) return r;
  return pubkey_eq(&now, collection) ? pnft_lock(c) : E_COLLECTION_NOT_IN_POOL;
}
