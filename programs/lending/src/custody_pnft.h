/* The pieces of a programmable NFT's custody shared by its two arrangements: escrowless (custody_pnft.c: delegated
 * and locked in the borrower's token account) and held (custody_pnft_held.c: owned by the holder PDA in its
 * associated token account). */
#pragma once
#include "custody.h"
#include "tm_pnft.h"

/* the custody's pNFT accounts as the shared Token Metadata accounts (programs/toolchain/c/tm_pnft.h) */
void tm_pnft_of(const Custody *c, TmPnft *out);
/* a TM_PNFT_* result in the lending program's codes */
u64 tm_error(int r);
/* Token Auth Rules Validate of "Transfer:Owner" by the holder (authority and source) to `destination`, at the rule
 * set's latest revision, as Token Metadata's Transfer v1 will ask it; SUCCESS without asking when the metadata names
 * no rule set. A refusal fails the instruction inside Token Auth Rules (its own error code). */
u64 pnft_validate_owner_transfer(const Custody *c, const SolAccountInfo *destination);
/* Transfer v1 by the holder as the owner of `from` (its own associated token account, token record `from_record`)
 * to `to` (`to_owner`'s associated token account, token record c->pnft->dest_record; created by Token Metadata when missing,
 * the pNFT accounts' payer paying), then what the chain holds: `to` holds it. The caller checked the addresses. */
u64 pnft_transfer_as_owner(const Custody *c, const SolAccountInfo *from, const SolAccountInfo *from_record,
                           const SolAccountInfo *to, const SolAccountInfo *to_owner);
/* a sale from the holder's own associated token account `held`: the venue sells it, the holder signing as its
 * owner; afterwards `held` must no longer hold it (SaleShort), and, empty, it closes to the pNFT accounts' payer */
u64 pnft_sell_from(const Custody *c, const SolAccountInfo *held, const SwapCall *venue);
