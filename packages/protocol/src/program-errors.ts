/**
 * The lending program's custom error codes (programs/lending/LAYOUT.md, "Errors"): the one TypeScript
 * table of them. The program owns 6000-6999; codes are on chain, so never reuse or renumber one.
 * `packages/sdk` decodes transaction results into these codes; the rule-book (offer-rules.ts)
 * refuses offers with them, so an offer refused off chain and on chain carries the same code.
 */
export const PROGRAM_ERRORS = {
  6000: { name: "InvalidInstruction", message: "unknown tag or wrong data length" },
  6001: { name: "NotEnoughAccounts", message: "fewer accounts than the instruction needs" },
  6002: { name: "MissingSigner", message: "a required signer did not sign" },
  6003: { name: "NotWritable", message: "a required writable account is read-only" },
  6004: { name: "InvalidOwner", message: "account not owned by the expected program" },
  6005: { name: "InvalidDiscriminator", message: "wrong account tag/version/size" },
  6006: { name: "InvalidPda", message: "address does not match the PDA seeds and bump" },
  6007: { name: "AlreadyInitialized", message: "account to create already exists" },
  6008: { name: "Unauthorized", message: "signer is not the admin / bank owner / pool owner / borrower" },
  6009: { name: "InvalidTokenProgram", message: "token program is not the classic SPL Token program" },
  6010: { name: "InvalidSystemProgram", message: "system program account is wrong" },
  6011: { name: "InvalidMint", message: "mint mismatch or not a valid mint account" },
  6012: {
    name: "InvalidTokenAccount",
    message: "token account has the wrong owner, mint or is not an SPL token account",
  },
  6013: {
    name: "AccountMismatch",
    message: "stored link mismatch (pool.bank, bank.vault, loan.pool, loan.bank, loan.escrow)",
  },
  6014: { name: "MathOverflow", message: "arithmetic overflow" },
  6015: { name: "InvalidAmount", message: "zero or out of range amount" },
  6016: { name: "InsufficientLiquidity", message: "amount exceeds the bank's available liquidity" },
  6017: { name: "InvalidPoolParams", message: "pool parameters out of range" },
  6018: { name: "PoolNotOpen", message: "pool is Frozen" },
  6019: { name: "PoolHasOngoingLoans", message: "pool cannot close while loans are ongoing" },
  6020: { name: "ProtocolPaused", message: "new loans are paused by the admin" },
  6021: { name: "WrongOracle", message: "oracle account is not config.oracle" },
  6022: { name: "StaleAttestation", message: "attestation older than 150 slots" },
  6023: { name: "FutureAttestation", message: "attestation slot is after the current slot" },
  6024: { name: "InvalidDuration", message: "duration outside 86400..pool.maxDuration" },
  6025: { name: "BelowMinAmountUsd", message: "principal below the pool's minimum USD amount" },
  6026: { name: "AboveMaxAmountUsd", message: "principal above the pool's maximum USD amount" },
  6027: { name: "LtvExceeded", message: "principal > collateral value x LTV" },
  6028: { name: "ExposureExceeded", message: "collection exposure limit exceeded" },
  6029: {
    name: "CollectionNotInPool",
    message: "attested collection / collateral mint is not accepted by the pool",
  },
  6030: { name: "ConditionsNotMet", message: "borrower facts below the pool conditions" },
  6031: { name: "NotWhitelisted", message: "borrower is not in the pool whitelist" },
  6032: {
    name: "InvalidWhitelist",
    message: "whitelist account missing or not the pool's Address Lookup Table",
  },
  6033: { name: "LoanNotOngoing", message: "loan is not Ongoing (already repaid / liquidated)" },
  6034: { name: "NotLiquidatable", message: "loan is not past expiry + grace" },
  6035: { name: "AprMismatch", message: "expectedAprBps differs from the pool's rate" },
  6036: {
    name: "InvalidCollateral",
    message: "NFT collateral mint is not decimals 0 / supply 1, or amount is not 1",
  },
  6037: { name: "InvalidTreasury", message: "treasury token account owner is not config.treasury" },
  6038: { name: "InvalidFee", message: "protocol fee bps out of range" },
  6039: { name: "CollectionInUse", message: "update removes a collection that has ongoing loans" },
  6040: {
    name: "InvalidProgramAccount",
    message: "program account is not this program's BPF Upgradeable Loader Program account",
  },
  6041: {
    name: "InvalidProgramData",
    message: "ProgramData account is not the one the program account names, or not a ProgramData account",
  },
  6042: { name: "NotUpgradeAuthority", message: "admin signer is not the program's upgrade authority" },
  6043: {
    name: "ProgramImmutable",
    message: "program has no upgrade authority, so nobody can initialize the config",
  },
  6044: {
    name: "InvalidMetadata",
    message:
      "metadata account is not owned by Token Metadata, not the PDA of the mint, names another mint, or is malformed",
  },
  6045: {
    name: "CollectionNotVerified",
    message: "the NFT has no collection or its collection is not verified",
  },
  6046: {
    name: "LoanLiquidatable",
    message: "the loan is past expiry + grace: it can be repaid or liquidated, not extended",
  },
  6047: {
    name: "InconsistentCounters",
    message: "releasing the loan would take a pool, collection or bank counter below zero",
  },
  6048: {
    name: "InvalidVenue",
    message: "the venue program is not the one the admin pinned (or none is pinned)",
  },
  6049: {
    name: "SaleShort",
    message: "the sale took no collateral or its proceeds do not cover principal + owed interest",
  },
  6050: {
    name: "AutoSellDisabled",
    message: "LiquidateSell on a pool without auto-sell (liquidate it the classic way)",
  },
  6051: {
    name: "RequestNotOpen",
    message: "the loan request was already filled or cancelled",
  },
  6052: {
    name: "RequestTermsMismatch",
    message:
      "the fill's principal or duration differs from the request, or its APR is 0 or above the request's maximum",
  },
  6053: {
    name: "SelfFill",
    message: "a borrower cannot fill their own loan request",
  },
  6054: {
    name: "MortgageDisabled",
    message: "TakeMortgage on a pool that does not offer mortgages (its mortgage flag is off)",
  },
  6055: {
    name: "AccountNeedsMigration",
    message: "the pool or loan is at an older account layout than this program version; send Migrate first",
  },
  6056: {
    name: "NothingToMigrate",
    message: "Migrate found the pool and every loan given already at the current layout",
  },
  6057: {
    name: "SameAccount",
    message:
      "a token transfer whose source and destination are the same account (e.g. Withdraw into the bank's own vault)",
  },
  6058: {
    name: "NoFeesOwed",
    message: "CollectFees on a bank whose vault holds no protocol fees for the treasury",
  },
  6059: {
    name: "CollateralFrozen",
    message: "the NFT is frozen by a freeze delegate, so it cannot move into the loan's custody",
  },
  6060: {
    name: "UnsafeCollateral",
    message:
      "the NFT or its collection lets someone other than its owner move, burn or freeze it (a permanent delegate or a transfer hook)",
  },
  6061: {
    name: "VenuePaused",
    message:
      "the lending venue's (marginfi's) bank is paused: it takes no deposits and pays no withdrawals now",
  },
  6062: {
    name: "VenueReduceOnly",
    message:
      "the lending venue's (marginfi's) bank is reduce-only: it pays withdrawals but takes no new deposits",
  },
  6063: {
    name: "VenueBankrupt",
    message: "the lending venue's (marginfi's) bank was killed by bankruptcy: it takes and pays nothing",
  },
  6064: {
    name: "VenueDepositLimit",
    message: "the deposit would take the lending venue's (marginfi's) bank to its deposit limit",
  },
  6065: {
    name: "VenueStateUnknown",
    message: "the lending venue's (marginfi's) bank is in a state this program does not know: no deposits",
  },
} as const satisfies Record<number, { name: string; message: string }>;

/** First and last code of the program's range. */
export const PROGRAM_ERROR_RANGE = { first: 6000, last: 6999 } as const;

/** A lending program error code. */
export type ProgramErrorCode = keyof typeof PROGRAM_ERRORS;
/** A lending program error name (`"LtvExceeded"`...). */
export type ProgramErrorName = (typeof PROGRAM_ERRORS)[ProgramErrorCode]["name"];

/** Program error codes by name, e.g. `PROGRAM_ERROR_CODE.LtvExceeded === 6027`. */
export const PROGRAM_ERROR_CODE = Object.fromEntries(
  Object.entries(PROGRAM_ERRORS).map(([code, entry]) => [entry.name, Number(code)]),
) as { [K in ProgramErrorName]: ProgramErrorCode };

/** The table entry of a program error code, or undefined for a code the program does not define. */
export function getProgramErrorEntry(code: number): { name: ProgramErrorName; message: string } | undefined {
  return (PROGRAM_ERRORS as Record<number, { name: ProgramErrorName; message: string }>)[code];
}
