/* Cistern lending program: shared definitions. The binary layout is the contract in ../LAYOUT.md. */
#pragma once
#include "sol.h"
#include "u128.h"
#include "spl.h"

/* ---- error codes (LAYOUT.md "Errors") ---- */
#define E_INVALID_INSTRUCTION 6000ULL
#define E_NOT_ENOUGH_ACCOUNTS 6001ULL
#define E_MISSING_SIGNER 6002ULL
#define E_NOT_WRITABLE 6003ULL
#define E_INVALID_OWNER 6004ULL
#define E_INVALID_DISCRIMINATOR 6005ULL
#define E_INVALID_PDA 6006ULL
#define E_ALREADY_INITIALIZED 6007ULL
#define E_UNAUTHORIZED 6008ULL
#define E_INVALID_TOKEN_PROGRAM 6009ULL
#define E_INVALID_SYSTEM_PROGRAM 6010ULL
#define E_INVALID_MINT 6011ULL
#define E_INVALID_TOKEN_ACCOUNT 6012ULL
#define E_ACCOUNT_MISMATCH 6013ULL
#define E_MATH_OVERFLOW 6014ULL
#define E_INVALID_AMOUNT 6015ULL
#define E_INSUFFICIENT_LIQUIDITY 6016ULL
#define E_INVALID_POOL_PARAMS 6017ULL
#define E_POOL_NOT_OPEN 6018ULL
#define E_POOL_HAS_ONGOING_LOANS 6019ULL
#define E_PROTOCOL_PAUSED 6020ULL
#define E_WRONG_ORACLE 6021ULL
#define E_STALE_ATTESTATION 6022ULL
#define E_FUTURE_ATTESTATION 6023ULL
#define E_INVALID_DURATION 6024ULL
#define E_BELOW_MIN_AMOUNT_USD 6025ULL
#define E_ABOVE_MAX_AMOUNT_USD 6026ULL
#define E_LTV_EXCEEDED 6027ULL
#define E_EXPOSURE_EXCEEDED 6028ULL
#define E_COLLECTION_NOT_IN_POOL 6029ULL
#define E_CONDITIONS_NOT_MET 6030ULL
#define E_NOT_WHITELISTED 6031ULL
#define E_INVALID_WHITELIST 6032ULL
#define E_LOAN_NOT_ONGOING 6033ULL
#define E_NOT_LIQUIDATABLE 6034ULL
#define E_APR_MISMATCH 6035ULL
#define E_INVALID_COLLATERAL 6036ULL
#define E_INVALID_TREASURY 6037ULL
#define E_INVALID_FEE 6038ULL
#define E_COLLECTION_IN_USE 6039ULL
#define E_INVALID_PROGRAM_ACCOUNT 6040ULL
#define E_INVALID_PROGRAM_DATA 6041ULL
#define E_NOT_UPGRADE_AUTHORITY 6042ULL
#define E_PROGRAM_IMMUTABLE 6043ULL
#define E_INVALID_METADATA 6044ULL
#define E_COLLECTION_NOT_VERIFIED 6045ULL
#define E_LOAN_LIQUIDATABLE 6046ULL
#define E_INCONSISTENT_COUNTERS 6047ULL
#define E_INVALID_VENUE 6048ULL
#define E_SALE_SHORT 6049ULL
#define E_AUTO_SELL_DISABLED 6050ULL
#define E_REQUEST_NOT_OPEN 6051ULL
#define E_REQUEST_TERMS_MISMATCH 6052ULL
#define E_SELF_FILL 6053ULL
#define E_MORTGAGE_DISABLED 6054ULL
#define E_ACCOUNT_NEEDS_MIGRATION 6055ULL
#define E_NOTHING_TO_MIGRATE 6056ULL
#define E_SAME_ACCOUNT 6057ULL
#define E_NO_FEES_OWED 6058ULL
#define E_COLLATERAL_FROZEN 6059ULL
#define E_UNSAFE_COLLATERAL 6060ULL
/* the pinned lending venue (marginfi) refuses the move in its bank's state now (LAYOUT.md "Delegate through marginfi") */
#define E_VENUE_PAUSED 6061ULL
#define E_VENUE_REDUCE_ONLY 6062ULL
#define E_VENUE_BANKRUPT 6063ULL
#define E_VENUE_DEPOSIT_LIMIT 6064ULL
#define E_VENUE_STATE_UNKNOWN 6065ULL

/* ---- constants ---- */
#define ACCOUNT_VERSION 1 /* Config, Bank, Venues, Request */
/* Layout v2 of Pool and Loan (program 1.8): both grew; Migrate brings v1 accounts up. */
#define POOL_VERSION 2
#define LOAN_VERSION 2
#define POOL_V1_SIZE 768ULL
#define LOAN_V1_SIZE 384ULL
#define TAG_CONFIG 1
#define TAG_BANK 2
#define TAG_POOL 3
#define TAG_LOAN 4
#define TAG_VENUES 5
#define TAG_REQUEST 6
#define MAX_ATTESTATION_AGE_SLOTS 150ULL
#define MAX_COLLECTIONS 8
#define MIN_DURATION 86400ULL
#define MAX_POOL_DURATION 31536000ULL
#define MAX_APR_BPS 100000ULL
#define MAX_FEE_BPS 5000
#define BPS 10000ULL
#define HOUR 3600ULL
#define DAY 86400ULL
#define INTEREST_DENOMINATOR 87600000ULL /* 8760 hours x 10000 bps */
#define MIN_INTEREST_BPS 3000ULL
#define MAX_GRACE_HOURS 8ULL

#define POOL_OPEN 1
#define POOL_FROZEN 2
#define POOL_NFT 0
#define POOL_DEFI 1
#define LOAN_ONGOING 0
#define LOAN_REPAID 1
#define LOAN_LIQUIDATED 2
#define LOAN_SOLD 3
#define LOAN_CLASSIC 0
#define LOAN_MARGIN_SWAP 1
#define LOAN_REQUEST 2
#define LOAN_MORTGAGE 3
/* how a loan ended (Loan.closed_by, layout v2) */
#define CLOSED_OPEN 0
#define CLOSED_REPAID 1
#define CLOSED_EXTENDED 2
#define CLOSED_REFINANCED 3
#define CLOSED_LIQUIDATED 4
#define CLOSED_SOLD 5
#define CLOSED_AUTO_SOLD 6
/* pool flags */
#define FLAG_AUTO_SELL 1
#define FLAG_MORTGAGE 2
#define FLAG_COMPOUNDING 4
#define REQUEST_OPEN 0
#define REQUEST_FILLED 1
#define REQUEST_CANCELLED 2

#define ALT_HEADER_SIZE 56ULL
/* BPF Upgradeable Loader account states (bincode: u32 enum tag first) */
#define LOADER_STATE_PROGRAM 2
#define LOADER_STATE_PROGRAM_DATA 3
#define LOADER_PROGRAM_SIZE 36ULL          /* tag + programdata address */
#define LOADER_PROGRAM_DATA_HEADER 45ULL   /* tag + slot u64 + Option<Pubkey> (1 + 32) */

/* ---- account layouts (sizes and offsets asserted below) ---- */
typedef struct {
  u8 tag, version, bump, paused;
  u16 fee_bps, reserved0;
  SolPubkey admin, oracle, treasury;
  i64 created_at, updated_at;
  u64 reserved1;
} Config;

typedef struct {
  u8 tag, version, bump, vault_bump, bank_type, decimals;
  u16 reserved0;
  SolPubkey owner, mint, vault;
  u64 total, available, delegated, cooldown, cooldown_period;
  i64 created_at, deposited_at, withdrawn_at, borrowed_at, repaid_at, frozen_until;
  u64 ongoing_loans;
  /* who besides the owner may delegate idle liquidity to the pinned lending venue (zero: nobody; the bank
   * owner's standing choice, SetDelegation) */
  SolPubkey delegation_keeper;
  /* protocol fees paid into the vault by Repay, MarketSell, Extend and Refinance and not yet collected to the
   * treasury (CollectFees): in the vault, never lent (not in `available`) */
  u64 fees_owed;
  u8 reserved1[16];
} Bank;

typedef struct {
  SolPubkey id;
  u16 ltv_bps, exposure_bps;
  u32 reserved;
  u64 borrowed, ongoing;
} Entry;

typedef struct {
  u8 tag, version, bump, pool_type, status, flags, count, reserved0;
  SolPubkey owner, bank, currency;
  u64 seed;
  u32 loan_apr_bps, mortgage_apr_bps;
  u64 min_duration, max_duration, min_usd, max_usd;
  u8 cond_enabled, whitelist_enabled;
  u16 liq_threshold_bps;
  u32 reserved1;
  u64 min_age, min_loan, min_volume;
  SolPubkey whitelist;
  u64 total_loans, total_liquidations, total_interest, current_loans, total_mortgages;
  i64 created_at, updated_at, last_loan_at, collections_updated_at, last_mortgage_at;
  u64 borrowed;
  u8 reserved2[16];
  Entry entries[MAX_COLLECTIONS];
  /* layout v2 */
  i64 migrated_at; /* when Migrate brought it from layout v1; 0 for a pool created at v2 */
  u8 reserved3[24];
} Pool;

typedef struct {
  u8 tag, version, bump, escrow_bump, status, kind, is_defi;
  u8 nft_type; /* NFT_TYPE_* (custody.h): the standard of the collateral and so its custody; 0 classic */
  SolPubkey borrower, pool, bank, currency, collateral_mint, collection, escrow;
  u64 nonce, collateral_amount, principal, interest;
  u32 apr_bps, reserved1;
  u64 duration;
  i64 created_at, expired_at, repaid_at, liquidated_at, sold_at;
  u64 repaid_amount, fee_paid, collateral_value, attestation_slot;
  SolPubkey extended_to;
  /* layout v2 */
  u8 closed_by; /* CLOSED_*: how the loan ended */
  u8 custody_bumps[3]; /* pNFT: the metadata, master edition and token record PDA bumps (0 for classic) */
  u32 leaf_nonce; /* CompressedNft: the leaf's nonce (= its index in the tree); 0 otherwise */
  SolPubkey previous_loan; /* the loan an Extend or Refinance replaced with this one; zero otherwise */
} Loan;

/* A borrower's loan request (PostRequest): the collateral waits in the request's escrow until a lender fills it
 * or the borrower cancels. */
typedef struct {
  u8 tag, version, bump, escrow_bump, status, is_defi;
  u8 nft_type; /* NFT_TYPE_* (custody.h): the collateral's standard and so its custody; 0 the classic escrow */
  u8 reserved0;
  SolPubkey borrower, currency, collateral_mint, collection, escrow;
  u64 nonce, collateral_amount, principal, duration;
  u32 max_apr_bps, reserved1;
  i64 created_at, closed_at;
  SolPubkey loan;
  u8 custody_bumps[3]; /* CompressedNft: the asset id's bump, the tree config's bump, 0; 0 otherwise */
  u8 reserved2;
  u32 leaf_nonce;      /* CompressedNft: the leaf's nonce (= its index in the tree); 0 otherwise */
  u8 reserved3[24];    /* (also keeps the size apart from Bank's for dataSize filters) */
} Request;

/* The outside programs the lending program composes with (SetVenues, admin only). */
typedef struct {
  u8 tag, version, bump, reserved0[5];
  SolPubkey swap_program, market_program, lending_program;
  i64 updated_at;
  u8 reserved1[16];
} Venues;

#define OFFSET_OF(t, f) __builtin_offsetof(t, f)
_Static_assert(sizeof(Venues) == 128, "Venues size");
_Static_assert(sizeof(Request) == 288, "Request size");
_Static_assert(OFFSET_OF(Request, nonce) == 168, "Request.nonce");
_Static_assert(OFFSET_OF(Request, created_at) == 208, "Request.created_at");
_Static_assert(OFFSET_OF(Request, nft_type) == 6 && OFFSET_OF(Request, custody_bumps) == 256 &&
                 OFFSET_OF(Request, leaf_nonce) == 260,
               "Request custody fields");
_Static_assert(sizeof(Config) == 128, "Config size");
_Static_assert(OFFSET_OF(Config, created_at) == 104, "Config.created_at");
_Static_assert(sizeof(Bank) == 256, "Bank size");
_Static_assert(OFFSET_OF(Bank, total) == 104, "Bank.total");
_Static_assert(OFFSET_OF(Bank, ongoing_loans) == 192, "Bank.ongoing_loans");
_Static_assert(OFFSET_OF(Bank, delegation_keeper) == 200, "Bank.delegation_keeper");
_Static_assert(OFFSET_OF(Bank, fees_owed) == 232, "Bank.fees_owed");
_Static_assert(sizeof(Entry) == 56, "Entry size");
_Static_assert(sizeof(Pool) == 800, "Pool size");
_Static_assert(OFFSET_OF(Pool, migrated_at) == POOL_V1_SIZE, "Pool.migrated_at");
_Static_assert(OFFSET_OF(Pool, loan_apr_bps) == 112, "Pool.loan_apr_bps");
_Static_assert(OFFSET_OF(Pool, cond_enabled) == 152, "Pool.cond_enabled");
_Static_assert(OFFSET_OF(Pool, whitelist) == 184, "Pool.whitelist");
_Static_assert(OFFSET_OF(Pool, total_loans) == 216, "Pool.total_loans");
_Static_assert(OFFSET_OF(Pool, borrowed) == 296, "Pool.borrowed");
_Static_assert(OFFSET_OF(Pool, entries) == 320, "Pool.entries");
_Static_assert(sizeof(Loan) == 424, "Loan size");
_Static_assert(OFFSET_OF(Loan, closed_by) == LOAN_V1_SIZE, "Loan.closed_by");
_Static_assert(OFFSET_OF(Loan, previous_loan) == 392, "Loan.previous_loan");
_Static_assert(OFFSET_OF(Loan, nft_type) == 7, "Loan.nft_type");
_Static_assert(OFFSET_OF(Loan, nonce) == 232, "Loan.nonce");
_Static_assert(OFFSET_OF(Loan, apr_bps) == 264, "Loan.apr_bps");
_Static_assert(OFFSET_OF(Loan, duration) == 272, "Loan.duration");
_Static_assert(OFFSET_OF(Loan, repaid_amount) == 320, "Loan.repaid_amount");
_Static_assert(OFFSET_OF(Loan, extended_to) == 352, "Loan.extended_to");

/* ---- well-known program ids ---- */
static const SolPubkey ALT_PROGRAM_ID = {{
  0x02, 0x77, 0xa6, 0xaf, 0x97, 0x33, 0x9b, 0x7a, 0xc8, 0x8d, 0x18, 0x92, 0xc9, 0x04, 0x46, 0xf5,
  0x00, 0x02, 0x30, 0x92, 0x66, 0xf6, 0x2e, 0x53, 0xc1, 0x18, 0x24, 0x49, 0x82, 0x00, 0x00, 0x00}};

static const SolPubkey BPF_LOADER_UPGRADEABLE_ID = {{
  0x02, 0xa8, 0xf6, 0x91, 0x4e, 0x88, 0xa1, 0xb0, 0xe2, 0x10, 0x15, 0x3e, 0xf7, 0x63, 0xae, 0x2b,
  0x00, 0xc2, 0xb9, 0x3d, 0x16, 0xc1, 0x24, 0xd2, 0xc0, 0x53, 0x7a, 0x10, 0x04, 0x80, 0x00, 0x00}};

/* ---- unaligned little-endian reads of instruction data (SBPF v0 allows unaligned loads) ---- */
static inline u32 rd32(const u8 *p) { return *(const u32 *)p; }
static inline u16 rd16(const u8 *p) { return *(const u16 *)p; }

/* ---- account checks (util.c) ---- */
u64 check_signer(const SolAccountInfo *a, bool writable);
/* owner == program, data_len == size, tag and version; writable when asked. */
/* The layout version programs of this build write for an account tag. */
u8 current_version(u8 tag);
u64 check_state(const SolAccountInfo *a, const SolPubkey *program_id, u8 tag, u64 size, bool writable);
/* The one check of a wallet's currency account that a loan instruction pays from or into: a token account of
 * the bank's mint owned by `wallet`, and not the bank's vault. */
u64 check_wallet_currency_account(const SolAccountInfo *a, const SolPubkey *mint, const SolPubkey *wallet,
                                  const SolAccountInfo *vault);
/* the program's Config account at its canonical PDA ["config", bump] (bump stored in the account) */
u64 check_config(const SolAccountInfo *a, const SolPubkey *program_id, bool writable);
/* Reads an NFT's verified collection from its Metaplex metadata account: owner Token Metadata, address the
 * PDA ["metadata", Token Metadata id, mint] with `bump`, key MetadataV1, mint field == mint, collection Some
 * and verified. Errors: InvalidMetadata, CollectionNotVerified. */
u64 read_verified_collection(const SolAccountInfo *metadata, const SolPubkey *mint, u8 bump, SolPubkey *out);
/* create_program_address(seeds) == expected */
u64 verify_pda(const SolSignerSeed *seeds, int n, const SolPubkey *program_id, const SolPubkey *expected);
/* `expected` is the canonical PDA of `seeds` (no bump among them; find_program_address's highest bump) and `bump`
 * is its bump: what creates an account meant to be the only one of its seeds (LAYOUT.md "Bumps the program takes
 * from callers") */
u64 verify_canonical_pda(const SolSignerSeed *seeds, int n, const SolPubkey *program_id, const SolPubkey *expected,
                         u8 bump);
u64 clock_now(SolClock *clock);
/* the Venues account at its PDA ["venues", bump] (venues.c) */
u64 check_venues(const SolAccountInfo *a, const SolPubkey *program_id);

/* ---- CPIs (util.c; the System Program and SPL Token ones are spl.h's) ---- */
/* SPL Token Transfer, refusing from == to (SPL Token moves nothing then: books written after it would lie) */
u64 token_transfer(const TransferArgs *a);

/* ---- maths (math.c), shared contract with packages/protocol ---- */
/* ceilDiv(apr * principal * ceilDiv(duration, 3600), 87_600_000); false on overflow */
bool total_interest(u64 apr_bps, u64 principal, u64 duration, u64 *out);
/* owed interest of an ongoing loan at `now` */
bool owed_interest(const Loan *loan, i64 now, u64 *out);
/* floor(owed * fee_bps / 10000) */
u64 protocol_fee(u64 owed, u64 fee_bps);
u64 grace_seconds(u64 duration);
/* floor(amount * price / 10^decimals); false on overflow */
bool usd_value(u64 amount, u64 price_micro_usd, u8 decimals, u64 *out);
/* a * b <= c * d with 128-bit products */
bool mul_le(u64 a, u64 b, u64 c, u64 d);
static inline bool add_ok(u64 a, u64 b, u64 *out) { *out = a + b; return *out >= a; }
static inline bool sub_ok(u64 a, u64 b, u64 *out) { *out = a - b; return a >= b; }

/* ---- pool helpers (pool.c) ---- */
Entry *pool_find_entry(Pool *pool, const SolPubkey *id);

/* ---- instruction handlers ---- */
u64 ix_initialize_config(const SolParameters *p);
u64 ix_update_config(const SolParameters *p);
u64 ix_create_bank(const SolParameters *p);
u64 ix_deposit(const SolParameters *p);
u64 ix_withdraw(const SolParameters *p);
u64 ix_create_pool(const SolParameters *p);
u64 ix_update_pool(const SolParameters *p);
u64 ix_close_pool(const SolParameters *p);
u64 ix_take_loan(const SolParameters *p);
u64 ix_repay(const SolParameters *p);
u64 ix_extend(const SolParameters *p);
u64 ix_liquidate(const SolParameters *p);
u64 ix_set_venues(const SolParameters *p);
u64 ix_market_sell(const SolParameters *p);
u64 ix_liquidate_sell(const SolParameters *p);
u64 ix_margin_swap(const SolParameters *p);
u64 ix_set_delegation(const SolParameters *p);
u64 ix_delegate(const SolParameters *p);
u64 ix_withdraw_delegated(const SolParameters *p);
u64 ix_refinance(const SolParameters *p);
u64 ix_post_request(const SolParameters *p);
u64 ix_cancel_request(const SolParameters *p);
u64 ix_fill_request(const SolParameters *p);
u64 ix_take_mortgage(const SolParameters *p);
u64 ix_migrate(const SolParameters *p);
u64 ix_collect_fees(const SolParameters *p);
/* Withdraws from the bank's position in the pinned lending venue the fewest shares worth at least `needed`
 * (all of them when they are worth less), into the vault, with WithdrawDelegated's accounting. Accounts from
 * `first`: venues, lending venue program, reserve (w), position (w), venue vault (w). */
typedef struct {
  u64 first;
  const SolAccountInfo *bank, *vault, *token;
  u64 needed;
} Pull;
u64 delegation_pull(const SolParameters *p, const Pull *pull);
