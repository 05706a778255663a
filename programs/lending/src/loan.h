/* Shared pieces of TakeLoan (8), Repay (9), Extend (10), Liquidate (11). */
#pragma once
#include "lending.h"
#include "custody.h"

#define LOAN_DATA_LEN 124
#define ATTESTATION_OFFSET 40
/* TakeLoan of a compressed NFT: after the terms, root (32), nonce u64, proof length u8, MetadataArgs (Borsh) */
#define CNFT_LEAF_OFFSET LOAN_DATA_LEN

/* A loan being opened (TakeLoan, or the new loan of Extend). */
typedef struct {
  const SolParameters *p;
  const SolAccountInfo *borrower, *oracle, *config, *pool, *bank, *vault;
  const SolAccountInfo *loan, *escrow, *mint, *token, *sys;
  const SolAccountInfo *payer;   /* pays the rent of the loan and its escrow (the borrower, FillRequest: the lender) */
  const SolPubkey *borrower_key; /* the loan's borrower (a loan PDA seed) */
  const u8 *nonce_bytes;         /* the loan PDA's nonce seed (8 bytes of instruction data) */
  bool custody_data;             /* TakeLoan: data bytes 121-123 may name a standard and its PDA bumps (TakeMortgage:
                                    byte 121 may name CoreNft, custody_bytes_valid) */
  u8 nft_type;                   /* NFT_TYPE_*: the collateral's standard (Extend, Refinance: the old loan's) */
  u8 kind;                       /* LOAN_CLASSIC, LOAN_MARGIN_SWAP, LOAN_REQUEST, LOAN_MORTGAGE */
  u32 apr_bps;                   /* the loan's rate: the pool's loan curve, FillRequest: the lender's */
  u64 whitelist_index; /* account index of the optional whitelist ALT */
  const u8 *pnft_bumps; /* a moving pNFT loan: the old loan's custodyBumps, which the new loan records (else NULL) */
  MovingCustody moving; /* Extend, Refinance of a pNFT or Core loan: its custody's accounts and the new PDA's seeds */
  Config *cfg;
  Pool *pl;
  Bank *bk;
  Entry *entry;
  SolClock clock;
  u8 loan_bump, escrow_bump;
  u64 nonce, principal, duration, collateral_amount, interest;
  const u8 *att;
  u64 available;  /* bank liquidity available to this loan */
  u64 bank_total; /* bank total liquidity used for exposure */
  u64 released;   /* principal released from the same entry in the same instruction (Extend) */
  SolPubkey collection; /* nft: the verified collection; defi: the collateral mint; Extend: the old loan's */
  bool trailing_data;   /* MarginSwap, TakeMortgage: data goes on after the 124 bytes of terms (the venue's) */
  bool mortgage;        /* TakeMortgage: the pool's mortgage curve (expectedAprBps = mortgageAprBps) */
  u8 pull_index;        /* TakeLoan data byte 120: first of the 5 venue accounts to pull delegated liquidity
                           back from (0: none; Extend and MarginSwap refuse any other value) */
} NewLoan;

/* TakeLoan, MarginSwap and TakeMortgage share accounts 0-8, 11 and 12 (borrower, oracle, config, pool, bank, vault,
 * loan, escrow, collateral mint, token program, system program): points c at them; the caller checks ka_num */
void new_loan_accounts(NewLoan *c, const SolParameters *p, bool trailing_data, bool mortgage);
/* parses TakeLoan/Extend data and checks config, oracle, pool, bank, vault, programs, attestation age */
u64 new_loan_parse(NewLoan *c);
/* attestation names c->collection, collection entry, USD limits, LTV, exposure, conditions, whitelist,
 * liquidity; computes interest. The caller sets c->collection and c->whitelist_index first. */
u64 new_loan_limits(NewLoan *c);
/* Extend and Refinance: accounts 0-14 and the checks they share (loan.c); `old_out` is the old loan */
u64 moving_loan_parse(NewLoan *c, const SolParameters *p, u64 whitelist_index, Loan **old_out);
/* moves the old loan's collateral into c's new escrow and closes the old escrow to the borrower */
u64 move_collateral(const NewLoan *c, const SolAccountInfo *old_loan, const SolAccountInfo *old_escrow);
/* derives and creates the loan PDA and its escrow token account */
u64 new_loan_create(NewLoan *c);
/* writes the Loan account and the pool/bank counters for the new loan (the caller adjusts
 * bank.available for the principal itself); a loan without a pool entry (c->entry NULL: a filled request)
 * moves no collection counters */
void new_loan_record(NewLoan *c, bool is_defi);

/* releases an ended loan from the pool and bank counters (not bank liquidity); InconsistentCounters when a
 * counter would go below zero (never clamped). A filled request (LOAN_REQUEST) holds no collection entry. */
u64 release_loan(Pool *pool, Bank *bank, const Loan *loan);

/* pool, bank, loan (Ongoing) and escrow links of an existing loan (Repay, MarketSell, Liquidate) */
u64 check_loan_accounts(const SolParameters *p, const SolAccountInfo *pool, const SolAccountInfo *bank,
                        const SolAccountInfo *loan, const SolAccountInfo *escrow);

/* Paying off an Ongoing loan at `now` (Repay, MarketSell): accounts already checked by the caller. */
typedef struct {
  const SolAccountInfo *borrower, *token, *currency, *vault, *loan, *escrow, *collateral;
  const Config *cfg;
  Pool *pl;
  Bank *bk;
  Loan *l;
  i64 now;
  union { /* the standard's own custody accounts (NULL for a classic loan) */
    const PnftAccounts *pnft;
    const CoreAccounts *core;
  };
} Settlement;
/* The borrower pays principal + owed interest from `currency` into the vault (the protocol fee stays there as
 * the bank's fees_owed until CollectFees); what the escrow still holds goes to `collateral` and the escrow closes to the borrower; bank, pool
 * and loan (repaid_at, repaid_amount, fee_paid) are updated. The caller sets the loan's status. */
u64 settle_loan(const Settlement *s);
/* MarketSell, after custody_sell: settle_loan, but only what the sale left in custody goes back (custody_release_rest) */
u64 settle_sold_loan(const Settlement *s);
/* Paying off a loan records its protocol fee on the bank that received it: fees_owed += fee. */
u64 accrue_fee(Bank *bank, u64 fee);

/* MarketSell and LiquidateSell of a loan whose collateral is not in a classic escrow: its standard is one sold
 * through a venue (Core: InvalidCollateral otherwise) and `other` (their account 8) is the asset (AccountMismatch) */
u64 check_sale_custody(const Loan *l, const SolAccountInfo *asset, const SolAccountInfo *other);
/* MarketSell and LiquidateSell of a pNFT loan: the venue (the market's SellPnftToBid, 22 accounts) from account 12,
 * account 8 the borrower's token record; `owner` the borrower's wallet, `payer` the signer paying Token Metadata */
#define SALE_PNFT_FIRST_ACCOUNT 12
u64 sale_pnft_accounts(const SolParameters *p, const Loan *l, const SolAccountInfo *owner,
                       const SolAccountInfo *payer, PnftAccounts *a);
/* the Venues account and that `swap` is its pinned, executable swap program (InvalidVenue) */
u64 check_swap_venue(const SolAccountInfo *venues, const SolAccountInfo *swap, const SolPubkey *program_id);
/* the Venues account and that `market` is its pinned, executable NFT market program (InvalidVenue) */
u64 check_market_venue(const SolAccountInfo *venues, const SolAccountInfo *market, const SolPubkey *program_id);
/* MarketSell and LiquidateSell: `venue` is the pinned swap program or the pinned NFT market (InvalidVenue) */
u64 check_sale_venue(const SolAccountInfo *venues, const SolAccountInfo *venue, const SolPubkey *program_id);
/* A venue swap for a loan: SwapCall and invoke_loan_swap (loan_swap.h, through custody.h). */
