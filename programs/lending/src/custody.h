/* Custody of a loan's (or a request's) collateral: one interface that every beginning and ending of a loan calls,
 * one file per NFT standard behind it (custody_classic.c: the escrow token account). The standard is recorded in
 * Loan.nft_type (LAYOUT.md); a loan written before it existed reads 0, the classic escrow.
 *
 *   lock                  TakeLoan, PostRequest: the collateral goes into the holder's custody
 *   move                  Extend, Refinance, FillRequest: from one holder's custody to a new one's
 *   release to borrower   Repay, MarketSell, CancelRequest: what custody holds back to the borrower
 *   release to a receiver Liquidate, LiquidateSell: what custody holds to the pool owner
 *   sell                  MarketSell, LiquidateSell: a venue takes it, the holder signing (then release the rest)
 *   receive               TakeMortgage: a venue delivers it into the new holder's custody
 */
#pragma once
#include "lending.h"
#include "bubblegum.h"
#include "loan_swap.h"

/* Loan.nft_type */
#define NFT_TYPE_CLASSIC 0 /* SPL token (an NFT or a token) in an escrow token account of the loan PDA */
#define NFT_TYPE_PNFT 1    /* a programmable NFT left in the borrower's token account, delegated to the loan and locked */
#define NFT_TYPE_CORE 2    /* a Metaplex Core asset, owned by the loan PDA for the loan's life (Core TransferV1) */
#define NFT_TYPE_CNFT 3    /* a compressed NFT (Bubblegum V1 leaf), owned by the loan PDA for the loan's life */
#define NFT_TYPE_PNFT_HELD 4 /* a programmable NFT owned by the holder PDA in its associated token account (a loan
                                request's, then the loan's that fills it; custody_pnft_held.c) */

/* The accounts a programmable NFT's custody goes through: Token Metadata's own instructions, with the rule set the
 * metadata names (the pNFT block of TakeLoan, Repay and Liquidate; LAYOUT.md). Liquidate adds the destination. */
typedef struct {
  const SolAccountInfo *mint, *metadata, *edition, *token_record, *sysvar_ix, *tm, *rules_program, *rule_set;
  const SolAccountInfo *system;
  const SolAccountInfo *payer; /* signs and pays what Token Metadata may charge (the borrower, the liquidator) */
  const SolAccountInfo *owner; /* the borrower's wallet (the token's owner) */
  const SolPubkey *locked_address; /* TakeLoan: where the delegate may move it (the pool owner) */
  /* Liquidate: the pool owner's wallet and associated token account (created by Token Metadata if need be), its
   * token record, the associated token account program (TakeLoan: dest_owner, the wallet Liquidate would pay) */
  const SolAccountInfo *dest_owner, *dest_token, *dest_record, *ata_program;
  /* Liquidate: the holder's own associated token account and token record, which the pNFT passes through (a
   * delegate's transfer to a program's account, then the program's own transfer: what rule sets that allow the
   * program's delegates allow) */
  const SolAccountInfo *via_token, *via_record;
  const u8 *bumps; /* metadata, master edition, token record PDA bumps */
  /* A held pNFT (NFT_TYPE_PNFT_HELD): token_record is the holder's associated token account's; dest_record the
   * token record of the transfer's other end (PostRequest: the owner's account it comes from; an ending: the
   * associated token account it goes to); dest_owner the wallet an ending pays (a move: the new pool's owner, whom
   * the new holder's liquidation would pay); ata_program the associated token program */
} PnftAccounts;
#define PNFT_BLOCK_LEN 9 /* mint, metadata, edition, token record, sysvar instructions, Token Metadata, Token Auth
                            Rules, rule set (Token Metadata's id when none), system program */

/* The accounts a Core asset's custody goes through (TakeLoan 7-9, 13, 14; Repay 6, 10, 11; Liquidate 4, 7, 8). */
typedef struct {
  const SolAccountInfo *asset;      /* the asset (== the custody's `escrow`) */
  const SolAccountInfo *collection; /* the collection the asset names (the Core program's account when none) */
  const SolAccountInfo *core;       /* the Core program */
  const SolAccountInfo *payer;      /* signs and pays what Core may charge (the borrower, the liquidator) */
  const SolAccountInfo *owner;      /* the borrower's wallet */
} CoreAccounts;

/* The accounts and leaf a compressed NFT's custody goes through (Bubblegum Transfer; the shared
 * programs/toolchain/c/bubblegum.h): `owner` is TakeLoan's borrower (the leaf's owner and delegate), Repay's borrower. */
typedef BubblegumAccounts CnftAccounts;
/* Bytes of instruction data that name a leaf after its holder has it: the root the proof was taken against, the
 * leaf's data hash, its creator hash (Repay, Liquidate, CancelRequest after the tag; Extend, Refinance after the
 * terms; FillRequest after its 32 bytes) */
#define CNFT_LEAF_HASHES_LEN 96

/* The custody of one holder (a Loan or Request PDA; it signs with `signer`). */
typedef struct {
  u8 nft_type;
  const SolAccountInfo *token;  /* SPL Token program */
  const SolAccountInfo *holder; /* the loan or request PDA */
  const SolSignerSeeds *signer; /* the holder's seeds */
  const SolAccountInfo *escrow; /* classic: the escrow token account (authority = holder); pNFT: the borrower's
                                   token account that holds it; Core: the asset; compressed: the tree */
  union {                       /* the standard's own accounts (NULL for classic) */
    const PnftAccounts *pnft;   /* pNFT */
    const CoreAccounts *core;   /* Core */
    const CnftAccounts *cnft;   /* compressed NFT */
  };
} Custody;

/* A moving loan's (Extend, Refinance) pNFT, Core or compressed NFT custody: the standard's accounts (first, so the
 * union's address is any one's) and the new loan PDA's signer seeds (it becomes the delegate, or the owner). */
typedef struct {
  union {
    PnftAccounts pnft;
    CoreAccounts core;
    CnftAccounts cnft;
  };
  SolSignerSeed new_seeds[5];
  SolSignerSeeds new_signer;
} MovingCustody;


/* reads the pNFT block at `first` (PNFT_BLOCK_LEN accounts) into `out` (custody_pnft.c) */
u64 pnft_block(const SolParameters *p, u64 first, PnftAccounts *out);

/* ---- custody_classic.c ---- */
/* sweeps the escrow (what it holds now: the collateral and anything paid into it) to `to`, the holder signing, and
 * closes it to `rent_to` */
u64 classic_release(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to);

/* ---- custody_pnft.c ---- */
/* checks the pNFT accounts, then Delegate (LockedTransfer, to the holder) and Lock (by the holder); then asks Token
 * Auth Rules (Validate) about the two transfers Liquidate would make to `dest_owner` (the pool owner) */
u64 pnft_lock(const Custody *c);
/* Unlock (by the holder) and Revoke (by the owner): the asset is the borrower's again */
u64 pnft_release_to_owner(const Custody *c);
/* Unlock and Transfer v1 by the holder (the delegate) to `to` (the pool owner's associated token account) */
u64 pnft_transfer_out(const Custody *c, const SolAccountInfo *to);
/* a sale: Unlock and Transfer v1 by the holder (the delegate) into its own associated token account (`via_token`),
 * then the venue sells it from there, the holder signing as its owner; afterwards that account must not hold it, and
 * it closes to `payer` */
u64 pnft_sell(const Custody *c, const SwapCall *venue);
/* a purchase: the venue delivers it into the owner's associated token account (`escrow`, not holding it before), in
 * `collection` (verified), then pnft_lock */
u64 pnft_receive(const Custody *c, const SwapCall *venue, const SolPubkey *collection);

/* ---- custody_pnft_held.c ---- */
/* a held pNFT's accounts at `first`: the pNFT block (PNFT_BLOCK_LEN; its token record the holder's associated token
 * account's), the associated token program, the token record of the other end's associated token account (w); the
 * mint must be `mint`; `bumps` the metadata and master edition bumps the holder recorded. The caller sets out->payer
 * (pays Token Metadata; also `owner`) and out->dest_owner (the wallet an ending pays; a move: the new pool's owner)
 * first; they are kept. */
#define PNFT_HELD_ACCOUNTS (PNFT_BLOCK_LEN + 2)
u64 pnft_held_accounts(const SolParameters *p, u64 first, const SolPubkey *mint, const u8 *bumps, PnftAccounts *out);
/* PostRequest: the owner (signing) transfers it from `from` into the holder's associated token account (Transfer
 * v1), then Token Auth Rules is asked about the endings' transfers */
u64 pnft_held_lock(const Custody *c, const SolAccountInfo *from);
/* the holder transfers it to `to`, dest_owner's associated token account; its emptied account closes to `rent_to` */
u64 pnft_held_release(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to);
/* the holder `from` transfers it to the new holder's associated token account (`to`'s escrow) and its emptied account
 * closes to `rent_to`; then Token Auth Rules is asked about the new holder's liquidation (to dest_owner) */
u64 pnft_held_move(const Custody *from, const Custody *to, const SolAccountInfo *rent_to);
/* a sale: the venue sells it from the holder's associated token account, the holder signing as its owner; the
 * emptied account closes to the payer (the borrower) */
u64 pnft_held_sell(const Custody *c, const SwapCall *venue);

/* ---- custody_core.c ---- */
/* TakeLoan: the Core program, the asset (Core's, the owner's, naming `a->collection`), the collection (Core's) and
 * the plugins of both (none that lets another move, burn or freeze it; not frozen); *collection the collection */
u64 core_collateral(const CoreAccounts *a, SolPubkey *collection);
/* TakeMortgage, before its purchase: core_collateral's checks but the owner's (the asset is a listing's) */
u64 core_collection(const CoreAccounts *a, SolPubkey *collection);
/* the owner transfers the asset to the holder (Core TransferV1) */
u64 core_lock(const Custody *c);
/* a sale: the venue takes the asset, the holder signing as its owner; afterwards the holder must not own it */
u64 core_sell(const Custody *c, const SwapCall *venue);
/* a purchase: the venue delivers the asset; afterwards the holder must own it, naming `collection`, with
 * core_collateral's checks of the asset and the collection */
u64 core_receive(const Custody *c, const SwapCall *venue, const SolPubkey *collection);
/* the holder transfers the asset to `new_owner` (Core TransferV1, the holder signing) */
u64 core_transfer_out(const Custody *c, const SolAccountInfo *new_owner);

/* ---- custody_cnft.c ---- */
/* the shared checks of bubblegum.h in the lending program's codes: InvalidProgramAccount, InvalidOwner, NotWritable,
 * NotEnoughAccounts (a proof too long), InvalidPda */
u64 cnft_check_accounts(const CnftAccounts *a);
/* bubblegum_read_metadata in the lending program's codes (InvalidMetadata; CollectionNotVerified) */
u64 cnft_read_metadata(const u8 *args, u64 len, SolPubkey *collection, u8 *data_hash, u8 *creator_hash);
/* a held leaf's accounts at `first`: the tree config, Bubblegum, SPL Account Compression, SPL Noop, then (with_system)
 * the system program, then the proof to the end of the accounts; `leaf` the CNFT_LEAF_HASHES_LEN bytes of data. The
 * caller sets tree, system (when not here), owner, nonce and config_bump. */
u64 cnft_block(const SolParameters *p, u64 first, bool with_system, const u8 *leaf, CnftAccounts *a);
/* A leaf's beginning (TakeLoan, PostRequest): the data from `tail_at` on is the root (32), the nonce u64 (< 2^32), the
 * proof length u8 and the MetadataArgs to the end; the caller set tree, tree_config, the programs, system, owner and
 * config_bump. cnft_begin checks the accounts (cnft_check_accounts), that `asset` is the leaf's asset id with
 * `asset_bump`, takes the proof at `proof_first`, and reads the verified collection and the leaf's hashes. */
#define CNFT_TAIL_HEADER_LEN 41
typedef struct {
  u64 tail_at, proof_first;
  u8 asset_bump;
  const SolPubkey *asset;
  SolPubkey collection; /* out: the collection the metadata names verified */
  u8 hashes[64];        /* out: the leaf's data hash and creator hash (a->data_hash, a->creator_hash point here) */
} CnftBeginning;
u64 cnft_begin(const SolParameters *p, CnftAccounts *a, CnftBeginning *b);
/* the owner transfers the leaf to the holder (Bubblegum Transfer) */
u64 cnft_lock(const Custody *c);
/* the holder transfers the leaf to `new_owner`, signing with its seeds */
u64 cnft_transfer_out(const Custody *c, const SolAccountInfo *new_owner);
/* MarketSell and LiquidateSell of a leaf: the data after the tag starts with the leaf's data hash and creator hash
 * (then the venue's data, at least its tag); `a` gets the tree (`tree`, their account 7) and the two hashes */
#define CNFT_SALE_HASHES_LEN 64
u64 cnft_sale_leaf(const SolParameters *p, const SolAccountInfo *tree, CnftAccounts *a);
/* a sale: the venue (its instruction with the holder signing as the leaf's owner) must replace the leaf. Read from the
 * tree after the call, not from the venue: the tree's sequence number grew and its latest change (the changelog entry
 * at the active index) is at the leaf's index (Loan.leaf_nonce) with a leaf node other than the one the holder owns and
 * delegates (Bubblegum's LeafSchema V1 hash of the asset id Loan.collateral_mint, the nonce and the hashes given);
 * SaleShort otherwise. LAYOUT.md "Sales of a compressed NFT". */
u64 cnft_sell(const Custody *c, const SwapCall *venue);

/* ---- custody.c: the other standards ---- */
u64 custody_lock_other(const Custody *c, const SolAccountInfo *owner, const SolAccountInfo *from, u64 amount);
u64 custody_release_other(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to, bool to_borrower);
u64 custody_move_other(const Custody *from, const Custody *to, const SolAccountInfo *rent_to);
u64 custody_sell_other(const Custody *c, const SwapCall *venue);
u64 custody_receive_other(const Custody *c, const SwapCall *venue, const SolPubkey *collection);

/* ---- the interface ----
 * Inline, the classic escrow's lock in the caller's frame (the Custody is copied only on the other standards'
 * branch), so a classic loan's custody costs what the escrow's token calls cost. */
#define CUSTODY_INLINE __attribute__((always_inline)) static inline

/* The owner (signing) puts `amount` of `from` (their token account) in custody. */
CUSTODY_INLINE u64 custody_lock(const Custody *c, const SolAccountInfo *owner, const SolAccountInfo *from, u64 amount) {
  if (c->nft_type != NFT_TYPE_CLASSIC) {
    Custody other = *c;
    return custody_lock_other(&other, owner, from, amount);
  }
  /* classic: one token transfer into the escrow, the owner signing */
  TransferArgs t = {c->token, from, c->escrow, owner, amount, NULL};
  return token_transfer(&t);
}

CUSTODY_INLINE u64 custody_release(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to,
                                   bool to_borrower) {
  return c->nft_type == NFT_TYPE_CLASSIC ? classic_release(c, to, rent_to)
                                         : custody_release_other(c, to, rent_to, to_borrower);
}

/* All that custody holds goes back to the borrower (`to`: their account); the escrow's rent to `rent_to`. */
CUSTODY_INLINE u64 custody_release_to_borrower(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to) {
  return custody_release(c, to, rent_to, true);
}
/* All that custody holds goes to the pool owner (`to`: their account); the escrow's rent to `rent_to`. */
CUSTODY_INLINE u64 custody_release_to_receiver(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to) {
  return custody_release(c, to, rent_to, false);
}
/* All that custody `from` holds goes into custody `to` (the same standard); `from`'s escrow rent to `rent_to`. */
CUSTODY_INLINE u64 custody_move(const Custody *from, const Custody *to, const SolAccountInfo *rent_to) {
  if (from->nft_type != NFT_TYPE_CLASSIC || to->nft_type != NFT_TYPE_CLASSIC) {
    Custody other = *to;
    return custody_move_other(from, &other, rent_to);
  }
  return classic_release(from, to->escrow, rent_to);
}

/* The holder sells what custody holds through the venue (`venue`, the holder signing; MarketSell, LiquidateSell).
 * Nothing the venue says is trusted: `*sold` is what left custody (classic: the escrow's tokens; an NFT standard: 1,
 * the holder no longer owning it); SaleShort when nothing left. The caller measures the proceeds. */
CUSTODY_INLINE u64 custody_sell(const Custody *c, const SwapCall *venue, u64 *sold) {
  if (c->nft_type != NFT_TYPE_CLASSIC) {
    Custody other = *c;
    *sold = 1;
    return custody_sell_other(&other, venue);
  }
  u64 before = rd64(c->escrow->data + 64);
  u64 r = invoke_loan_swap(venue);
  if (r) return r;
  u64 after = rd64(c->escrow->data + 64);
  if (after >= before) return E_SALE_SHORT;
  *sold = before - after;
  return SUCCESS;
}

/* What a sale left in custody goes to `to`, the escrow's rent to `rent_to`: classic, the escrow swept (tokens a swap
 * did not take) and closed; the other standards hold nothing after custody_sell (the NFT is the buyer's). */
CUSTODY_INLINE u64 custody_release_rest(const Custody *c, const SolAccountInfo *to, const SolAccountInfo *rent_to) {
  return c->nft_type == NFT_TYPE_CLASSIC ? classic_release(c, to, rent_to) : SUCCESS;
}

/* The venue delivers one NFT into the holder's custody (`venue`, TakeMortgage's purchase): classic, the escrow gains
 * exactly 1; a Core asset, the holder owns it afterwards and it names `collection`; a pNFT, the owner's account
 * holds it afterwards (SaleShort when not delivered), then it is locked as at TakeLoan. */
CUSTODY_INLINE u64 custody_receive(const Custody *c, const SwapCall *venue, const SolPubkey *collection) {
  if (c->nft_type != NFT_TYPE_CLASSIC) {
    Custody other = *c;
    return custody_receive_other(&other, venue, collection);
  }
  u64 before = rd64(c->escrow->data + 64);
  u64 r = invoke_loan_swap(venue);
  if (r) return r;
  return rd64(c->escrow->data + 64) == before + 1 ? SUCCESS : E_SALE_SHORT;
}
