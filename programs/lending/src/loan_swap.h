/* The venue call of a loan (or a request) PDA: one instruction of a pinned venue with the loan PDA signing. Below
 * custody (custody_*.c: a sale's or a purchase's venue call) and the instructions (MarketSell, LiquidateSell,
 * TakeMortgage, MarginSwap), and calling neither: the one place the program signs a venue's instruction
 * (issue #45 section 5: it was in market_sell.c, which custody called back into). */
#pragma once
#include "lending.h"

/* Most accounts a venue swap may take (after the instruction's own accounts). */
#define MAX_SWAP_ACCOUNTS 22 /* the NFT market's SellPnftToBid */

/* signer seeds of an existing loan PDA ["loan", pool, borrower, nonce, bump]: out must hold 5 seeds */
void loan_signer_seeds(const Loan *loan, SolSignerSeed *out);

/* A venue's instruction for a holder (a sale: MarketSell, LiquidateSell; a purchase: TakeMortgage; a swap: MarginSwap):
 * the accounts from `first` on, in order, with the loan PDA signing (the escrow's authority, a Core asset's owner);
 * the instruction data after the tag, as given (loan_swap.c). */
typedef struct {
  const SolParameters *p;
  u64 first;
  const SolAccountInfo *program, *loan;
  const Loan *l;
  u64 skip; /* bytes between the tag and the venue's data (a leaf's sale: its hashes, CNFT_SALE_HASHES_LEN); 0 */
} SwapCall;
u64 invoke_loan_swap(const SwapCall *c);
