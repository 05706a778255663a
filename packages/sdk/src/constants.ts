import { address } from "./address-text.ts";

/** Classic SPL Token program (the only token program the lending program accepts). */
export const TOKEN_PROGRAM_ADDRESS = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
/** Address Lookup Table program (pool whitelists are ALTs). */
export const ADDRESS_LOOKUP_TABLE_PROGRAM_ADDRESS = address("AddressLookupTab1e1111111111111111111111111");

/** Attestation must satisfy clock.slot - 150 <= slot <= clock.slot. */
export const MAX_ATTESTATION_AGE_SLOTS = 150n;
/** Collections of an nft-pool, or collateral currencies of a defi-pool. */
export const MAX_COLLECTIONS = 8;
/** Shortest loan, seconds. */
export const MIN_DURATION_SECONDS = 86_400n;
/** Upper bound of pool.maxDurationSeconds (365 days). */
export const MAX_POOL_DURATION_SECONDS = 31_536_000n;
/** Highest APR, basis points (1000%). */
export const MAX_APR_BPS = 100_000;
/** Highest protocol fee InitializeConfig accepts, basis points. */
export const MAX_PROTOCOL_FEE_BPS = 5_000;

/** Account type tags (byte 0 of every program account). */
export const ACCOUNT_TAG = { Config: 1, Bank: 2, Pool: 3, Loan: 4, Request: 6 } as const;
/** Layout version each account type is written at (byte 1); Pool and Loan grew in layout v2 (program 1.8). */
export const ACCOUNT_VERSION = { Config: 1, Bank: 1, Pool: 2, Loan: 2, Request: 1 } as const;
/** Byte sizes of the program accounts at their current layout. */
export const ACCOUNT_SIZE = { Config: 128, Bank: 256, Pool: 800, Loan: 424, Request: 288 } as const;
/** Sizes of Pool and Loan accounts still at layout v1 (written before the upgrade, until Migrate). */
export const V1_ACCOUNT_SIZE = { Pool: 768, Loan: 384 } as const;

/** Instruction tags (byte 0 of instruction data). */
export const INSTRUCTION_TAG = {
  InitializeConfig: 0,
  UpdateConfig: 1,
  CreateBank: 2,
  Deposit: 3,
  Withdraw: 4,
  CreatePool: 5,
  UpdatePool: 6,
  ClosePool: 7,
  TakeLoan: 8,
  Repay: 9,
  Extend: 10,
  Liquidate: 11,
  SetVenues: 12,
  MarketSell: 13,
  LiquidateSell: 14,
  MarginSwap: 15,
  SetDelegation: 16,
  Delegate: 17,
  WithdrawDelegated: 18,
  Refinance: 19,
  PostRequest: 20,
  CancelRequest: 21,
  FillRequest: 22,
  TakeMortgage: 23,
  Migrate: 24,
  CollectFees: 25,
} as const;

/** Most loans one Migrate carries (the program reads 32 accounts: payer, System Program, pool and the loans). */
export const MAX_MIGRATE_LOANS = 29;
