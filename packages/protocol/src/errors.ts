/**
 * Cistern's one error class, with stable numeric codes in reserved ranges per domain.
 *
 * Ranges (never reuse or renumber a code; add new ones at the end of their range):
 * - 1xxx amounts and currencies
 * - 2xxx interest and loan timing
 * - 3xxx pool form and pool payloads
 * - 4xxx HTTP (4000 + status for mapped statuses)
 * - 5xxx transaction sender
 * - 6000-6999 the lending program's own codes (program-errors.ts; they are on chain)
 * - 7xxx validation (addresses, URLs)
 * - 8xxx actions and chat
 * - 9xxx server data (views received from the API)
 * - 14000-14199 wallet (14000-14099 wallet adapter, 14100-14199 mobile wallet protocol)
 * Other layers own: sdk 10000-10999, API 11000-11999, bootstrap 12000-12999, toolchain 13000-13999
 * (ERROR_CODE_RANGES below).
 *
 * Messages are templates: `{name}` placeholders are filled from the error context.
 * Texts quoted by the product spec (section 8) are copied verbatim.
 */
export const ERROR_CODES = {
  // 1xxx amounts
  AMOUNT_INVALID_FORMAT: 1000,
  AMOUNT_TOO_MANY_DECIMALS: 1001,
  AMOUNT_NEGATIVE: 1002,
  AMOUNT_TOO_LARGE: 1003,
  INVALID_DECIMALS: 1004,
  UNKNOWN_CURRENCY: 1005,
  AMOUNT_EMPTY: 1006,
  // 2xxx interest
  MISSING_LOAN_OR_CURRENCY_DATA: 2000,
  INVALID_INTEREST_INPUT: 2001,
  DURATION_TOO_SHORT: 2002,
  DURATION_TOO_LONG: 2003,
  LOAN_AMOUNT_ZERO: 2004,
  LOAN_AMOUNT_ABOVE_LTV: 2005,
  LOAN_AMOUNT_BELOW_MIN_USD: 2006,
  LOAN_AMOUNT_ABOVE_MAX_USD: 2007,
  LOAN_EXPOSURE_EXCEEDED: 2008,
  LOAN_INSUFFICIENT_LIQUIDITY: 2009,
  /** The valuation service has no fresh, tight price for the collateral or currency (no quote, no co-signature). */
  NO_RELIABLE_PRICE: 2010,
  /**
   * The pool's idle liquidity is short but its bank's delegated liquidity would cover the loan, and this loan cannot
   * pull delegated funds back (Extend, MarginSwap, mortgages, refinancing, request fills): refused before signing.
   */
  LOAN_LIQUIDITY_DELEGATED: 2011,
  // 3xxx pool form
  UNKNOWN_POOL_TYPE: 3000,
  INVALID_POOL_FORM_FIELD: 3001,
  // 4xxx http
  HTTP_BAD_REQUEST: 4400,
  HTTP_NOT_FOUND: 4404,
  HTTP_UNPROCESSABLE_ENTITY: 4422,
  HTTP_TIMEOUT: 4000,
  HTTP_UNEXPECTED_STATUS: 4001,
  // 5xxx sender
  NO_TRANSACTIONS_PROVIDED: 5000,
  UNKNOWN_TRANSACTION_KIND: 5001,
  NO_SIGNATURE_CONFIRMATION: 5002,
  BLOCK_HEIGHT_EXCEEDED: 5003,
  TRANSACTION_SEND_FAILED: 5004,
  /**
   * A compressed NFT's proof went stale between build and landing (another leaf of its tree changed): SPL Account
   * Compression's ConcurrentMerkleTreeError 6001, told from the lending program's own 6001 by the failing program.
   */
  TRANSACTION_SEND_STALE_PROOF: 5005,
  /**
   * A programmable NFT's rule set refuses what a loan needs (the loan PDA as its delegate, or the transfers a
   * liquidation makes): Token Auth Rules is the program that failed first, at build (simulated) or at send.
   */
  TRANSACTION_SEND_RULE_SET_REFUSED: 5006,
  /**
   * One item's transaction (one loan, one repayment...) is over Solana's 1,232-byte packet even with the protocol's
   * lookup table: `reason` says what fills it (a compressed NFT's metadata and proof, a pNFT's accounts...).
   */
  TRANSACTION_TOO_LARGE: 5007,
  // 14000-14099 wallet adapter
  WALLET_SIGN_MESSAGE_UNSUPPORTED: 14000,
  WALLET_SEND_VERSIONED_UNSUPPORTED: 14001,
  WALLET_SEND_VERSION_UNSUPPORTED: 14002,
  WALLET_SIGN_VERSIONED_UNSUPPORTED: 14003,
  WALLET_SIGN_VERSION_UNSUPPORTED: 14004,
  WALLET_NOT_READY: 14010,
  WALLET_LOAD: 14011,
  WALLET_CONFIG: 14012,
  WALLET_CONNECTION: 14013,
  WALLET_DISCONNECTED: 14014,
  WALLET_DISCONNECTION: 14015,
  WALLET_ACCOUNT: 14016,
  WALLET_PUBLIC_KEY: 14017,
  WALLET_NOT_CONNECTED: 14018,
  WALLET_SEND_TRANSACTION: 14019,
  WALLET_SIGN_TRANSACTION: 14020,
  WALLET_SIGN_MESSAGE: 14021,
  WALLET_SIGN_IN: 14022,
  WALLET_NOT_SELECTED: 14023,
  // 14100-14199 mobile wallet protocol
  MOBILE_WALLET_PORT_OUT_OF_RANGE: 14100,
  MOBILE_WALLET_FORBIDDEN_BASE_URL: 14101,
  MOBILE_WALLET_SECURE_CONTEXT_REQUIRED: 14102,
  MOBILE_WALLET_SESSION_CLOSED: 14103,
  MOBILE_WALLET_SESSION_TIMEOUT: 14104,
  MOBILE_WALLET_NOT_FOUND: 14105,
  // 7xxx validation
  INVALID_PUBLIC_KEY: 7000,
  INVALID_REFERRAL_ADDRESS: 7001,
  IMAGE_URL_REJECTED: 7002,
  // 8xxx actions and chat
  ACTION_FAILED: 8000,
  CHAT_SOCKET_CLOSED: 8100,
  CHAT_NOT_SIGNED_IN: 8101,
  CHAT_CREDENTIAL_REFUSED: 8102,
  CHAT_ROOM_NOT_FOUND: 8103,
  CHAT_ROOM_FORBIDDEN: 8104,
  CHAT_MESSAGE_EMPTY: 8105,
  CHAT_MESSAGE_TOO_LONG: 8106,
  CHAT_RATE_LIMITED: 8107,
  CHAT_SELF_MESSAGE: 8108,
  CHAT_INVALID_INPUT: 8109,
  // 9xxx server data
  INVALID_SERVER_FIELD: 9000,
} as const;

/** The numeric code range each layer owns; ranges never overlap (a test walks every table). */
export const ERROR_CODE_RANGES = {
  protocol: [
    [1000, 5999],
    [7000, 9999],
    [14000, 14199],
  ],
  program: [[6000, 6999]],
  sdk: [[10000, 10999]],
  api: [[11000, 11999]],
  bootstrap: [[12000, 12999]],
  toolchain: [[13000, 13999]],
  swapVenue: [[15000, 15099]],
  lendingVenue: [[15100, 15199]],
} as const satisfies Record<string, readonly (readonly [number, number])[]>;

/** Name of an error code (`"UNKNOWN_POOL_TYPE"`...). */
export type CisternErrorName = keyof typeof ERROR_CODES;
/** Numeric error code (`3000`...). */
export type CisternErrorCode = (typeof ERROR_CODES)[CisternErrorName];

/** Message templates by code. */
export const ERROR_MESSAGES = {
  [ERROR_CODES.AMOUNT_INVALID_FORMAT]:
    'Invalid amount "{value}": use digits with an optional decimal point (no sign, no spaces)',
  [ERROR_CODES.AMOUNT_TOO_MANY_DECIMALS]: 'Amount "{value}" has more than {decimals} decimals',
  [ERROR_CODES.AMOUNT_NEGATIVE]: 'Amount "{value}" must not be negative',
  [ERROR_CODES.AMOUNT_TOO_LARGE]: 'Amount "{value}" exceeds the largest on-chain amount (u64)',
  [ERROR_CODES.INVALID_DECIMALS]: "Invalid decimals {decimals}: expected an integer from 0 to 255",
  [ERROR_CODES.UNKNOWN_CURRENCY]: "Unknown currency {mint}",
  [ERROR_CODES.AMOUNT_EMPTY]: "Amount is empty",

  [ERROR_CODES.MISSING_LOAN_OR_CURRENCY_DATA]: "Missing required loan or currency data",
  [ERROR_CODES.INVALID_INTEREST_INPUT]: "Invalid {field}: {value} (expected a non-negative integer)",
  [ERROR_CODES.DURATION_TOO_SHORT]:
    "Loan duration must be at least 86400 seconds (1 day), got {durationSeconds}",
  [ERROR_CODES.DURATION_TOO_LONG]:
    "Loan duration {durationSeconds} seconds exceeds the pool maximum of {maxDurationSeconds} seconds",
  [ERROR_CODES.LOAN_AMOUNT_ZERO]: "Loan amount must be greater than zero",
  [ERROR_CODES.LOAN_AMOUNT_ABOVE_LTV]:
    "Loan amount {amount} exceeds the collateral's borrowing limit of {maxAmount}",
  [ERROR_CODES.LOAN_AMOUNT_BELOW_MIN_USD]: "Loan amount is below the pool minimum of {minAmountUsd} USD",
  [ERROR_CODES.LOAN_AMOUNT_ABOVE_MAX_USD]: "Loan amount is above the pool maximum of {maxAmountUsd} USD",
  [ERROR_CODES.LOAN_EXPOSURE_EXCEEDED]:
    "Loan amount {amount} exceeds what the pool still lends against this collateral ({capacity})",
  [ERROR_CODES.LOAN_INSUFFICIENT_LIQUIDITY]:
    "Loan amount {amount} exceeds the pool's available liquidity ({available})",
  [ERROR_CODES.NO_RELIABLE_PRICE]: "No reliable price for {collection} right now",
  [ERROR_CODES.LOAN_LIQUIDITY_DELEGATED]:
    "The pool's idle liquidity ({maxAmount}) is short and this transaction cannot pull back the {delegatedAmount} its bank delegated to the lending venue",

  [ERROR_CODES.UNKNOWN_POOL_TYPE]: "Unknown pool type",
  [ERROR_CODES.INVALID_POOL_FORM_FIELD]: "Invalid pool form field {field}: {reason}",

  [ERROR_CODES.HTTP_BAD_REQUEST]: "{message}",
  [ERROR_CODES.HTTP_NOT_FOUND]: "{message}",
  [ERROR_CODES.HTTP_UNPROCESSABLE_ENTITY]: "{message}",
  [ERROR_CODES.HTTP_TIMEOUT]: "Request timed out after {seconds} seconds",
  [ERROR_CODES.HTTP_UNEXPECTED_STATUS]: "Request failed with status {status}",

  [ERROR_CODES.NO_TRANSACTIONS_PROVIDED]: "No transactions provided",
  [ERROR_CODES.UNKNOWN_TRANSACTION_KIND]: "Unknown transaction kind",
  [ERROR_CODES.NO_SIGNATURE_CONFIRMATION]: "No signature confirmation",
  [ERROR_CODES.BLOCK_HEIGHT_EXCEEDED]:
    "The transaction was not confirmed in time. This is due to network congestion. Please try again in few mins.",
  [ERROR_CODES.TRANSACTION_SEND_FAILED]: "{message}",
  [ERROR_CODES.TRANSACTION_SEND_STALE_PROOF]:
    "The NFT's tree changed since this transaction was built. Please try again.",
  [ERROR_CODES.TRANSACTION_SEND_RULE_SET_REFUSED]:
    "This NFT's rule set does not allow the transfers a loan needs, so it cannot be borrowed against.",
  [ERROR_CODES.TRANSACTION_TOO_LARGE]:
    "This transaction would be {bytes} bytes, over Solana's limit of {limit} bytes: {reason}.",

  [ERROR_CODES.WALLET_SIGN_MESSAGE_UNSUPPORTED]:
    "Wallet does not support signing messages. Ledger are not supported for now to update pool metadata.",
  [ERROR_CODES.WALLET_SEND_VERSIONED_UNSUPPORTED]:
    "Sending versioned transactions isn't supported by this wallet",
  [ERROR_CODES.WALLET_SEND_VERSION_UNSUPPORTED]:
    "Sending transaction version {n} isn't supported by this wallet",
  [ERROR_CODES.WALLET_SIGN_VERSIONED_UNSUPPORTED]:
    "Signing versioned transactions isn't supported by this wallet",
  [ERROR_CODES.WALLET_SIGN_VERSION_UNSUPPORTED]:
    "Signing transaction version {n} isn't supported by this wallet",
  [ERROR_CODES.WALLET_NOT_READY]: "Wallet is not ready",
  [ERROR_CODES.WALLET_LOAD]: "Wallet failed to load",
  [ERROR_CODES.WALLET_CONFIG]: "Wallet configuration error",
  [ERROR_CODES.WALLET_CONNECTION]: "Wallet connection failed",
  [ERROR_CODES.WALLET_DISCONNECTED]: "Wallet disconnected",
  [ERROR_CODES.WALLET_DISCONNECTION]: "Wallet disconnection failed",
  [ERROR_CODES.WALLET_ACCOUNT]: "Wallet account error",
  [ERROR_CODES.WALLET_PUBLIC_KEY]: "Wallet public key is invalid",
  [ERROR_CODES.WALLET_NOT_CONNECTED]: "Wallet not connected",
  [ERROR_CODES.WALLET_SEND_TRANSACTION]: "Wallet failed to send the transaction",
  [ERROR_CODES.WALLET_SIGN_TRANSACTION]: "Wallet failed to sign the transaction",
  [ERROR_CODES.WALLET_SIGN_MESSAGE]: "Wallet failed to sign the message",
  [ERROR_CODES.WALLET_SIGN_IN]: "Wallet sign-in failed",
  [ERROR_CODES.WALLET_NOT_SELECTED]: "No wallet selected",

  [ERROR_CODES.MOBILE_WALLET_PORT_OUT_OF_RANGE]:
    "Association port number must be between 49152 and 65535. {port} given.",
  [ERROR_CODES.MOBILE_WALLET_FORBIDDEN_BASE_URL]: "Base URLs supplied by wallets must be valid `https` URLs",
  [ERROR_CODES.MOBILE_WALLET_SECURE_CONTEXT_REQUIRED]:
    "The mobile wallet adapter protocol must be used in a secure context (`https`).",
  [ERROR_CODES.MOBILE_WALLET_SESSION_CLOSED]:
    "The wallet session dropped unexpectedly ({closeCode}: {reason}).",
  [ERROR_CODES.MOBILE_WALLET_SESSION_TIMEOUT]: "Failed to connect to the wallet websocket in time.",
  [ERROR_CODES.MOBILE_WALLET_NOT_FOUND]:
    "Found no installed wallet that supports the mobile wallet protocol.",

  [ERROR_CODES.INVALID_PUBLIC_KEY]: "Invalid public key: {value}",
  [ERROR_CODES.INVALID_REFERRAL_ADDRESS]: "Invalid referral address: {value}",
  [ERROR_CODES.IMAGE_URL_REJECTED]: "Image URL is not supported: {url}",

  [ERROR_CODES.ACTION_FAILED]: "Error in {action}: {message}",
  [ERROR_CODES.CHAT_SOCKET_CLOSED]: "Chat connection closed ({closeCode}: {reason})",
  [ERROR_CODES.CHAT_NOT_SIGNED_IN]: "Sign in to the chat first.",
  [ERROR_CODES.CHAT_CREDENTIAL_REFUSED]: "Your chat sign-in is not valid any more: sign in again. ({reason})",
  [ERROR_CODES.CHAT_ROOM_NOT_FOUND]: "This conversation does not exist.",
  [ERROR_CODES.CHAT_ROOM_FORBIDDEN]: "Only the two people in this conversation can read it.",
  [ERROR_CODES.CHAT_MESSAGE_EMPTY]: "Write a message first.",
  [ERROR_CODES.CHAT_MESSAGE_TOO_LONG]: "A message can have at most {max} characters.",
  [ERROR_CODES.CHAT_RATE_LIMITED]: "You are sending messages too fast: wait a few seconds.",
  [ERROR_CODES.CHAT_SELF_MESSAGE]: "You cannot message yourself.",
  [ERROR_CODES.CHAT_INVALID_INPUT]: "{field} is not valid: {why}",

  [ERROR_CODES.INVALID_SERVER_FIELD]: "Invalid {entity} field {field}: {value}",
} as const satisfies Record<CisternErrorCode, string>;

type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}`
  ? P | Placeholders<Rest>
  : never;

/** A value that can fill a message placeholder. */
export type ErrorContextValue = string | number | bigint | boolean;

/** The context an error code needs: one value per `{placeholder}` of its message. */
export type CisternErrorContext<C extends CisternErrorCode> = {
  [K in Placeholders<(typeof ERROR_MESSAGES)[C]>]: ErrorContextValue;
};

type ContextArgs<C extends CisternErrorCode> = [Placeholders<(typeof ERROR_MESSAGES)[C]>] extends [never]
  ? [context?: Record<string, never>, options?: { cause?: unknown }]
  : [context: CisternErrorContext<C>, options?: { cause?: unknown }];

/** Fill `{name}` placeholders of a template from a context object. */
export function formatErrorMessage(template: string, context: Record<string, ErrorContextValue>): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) =>
    Object.hasOwn(context, name) ? String(context[name]) : whole,
  );
}

/** Brand on every CodedError, so a second copy of this module still recognises it. */
const CODED_ERROR_BRAND = Symbol.for("@cistern/protocol/CodedError");

/**
 * The one error type of every layer: a numeric `code` in its layer's range ({@link ERROR_CODE_RANGES}),
 * the code's `codeName` and typed `params` (strings). Each layer's class extends it with its own code table:
 * CisternError (protocol), SdkError (sdk), ApiError (API), BootstrapError (bootstrap). The API answers any of
 * them as `{code, name: codeName, message, params}`.
 */
export class CodedError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly params: Readonly<Record<string, string>>;

  constructor(
    code: number,
    codeName: string,
    message: string,
    options?: { cause?: unknown; params?: Record<string, string> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.codeName = codeName;
    this.params = Object.freeze({ ...(options?.params ?? {}) });
    Object.defineProperty(this, CODED_ERROR_BRAND, { value: true });
  }
}

/** Typed guard: any layer's {@link CodedError} (also one from another copy of this module). */
export function isCodedError(e: unknown): e is CodedError {
  return (
    e instanceof CodedError ||
    (e instanceof Error && (e as unknown as Record<symbol, unknown>)[CODED_ERROR_BRAND] === true)
  );
}

/** The name of a key in a code table (`{ NAME: 1000 }` -> "NAME"), or "ERROR". */
export function getCodeName(table: Readonly<Record<string, number>>, code: number): string {
  for (const [name, value] of Object.entries(table)) if (value === code) return name;
  return "ERROR";
}

/** Brand on every CisternError, so a second copy of this module still recognises it. */
const CISTERN_ERROR_BRAND = Symbol.for("@cistern/protocol/CisternError");

/**
 * Cistern's only error class. `code` is stable; `message` is the spec's wording.
 *
 * @example
 * throw new CisternError(ERROR_CODES.ACTION_FAILED, { action: "Repay Loan", message: "boom" });
 */
export class CisternError<C extends CisternErrorCode = CisternErrorCode> extends CodedError {
  override readonly name = "CisternError";
  declare readonly code: C;
  readonly context: Readonly<Record<string, ErrorContextValue>>;

  constructor(code: C, ...[context, options]: ContextArgs<C>) {
    const ctx = (context ?? {}) as Record<string, ErrorContextValue>;
    const params = Object.fromEntries(Object.entries(ctx).map(([k, v]) => [k, String(v)]));
    super(code, getCodeName(ERROR_CODES, code), formatErrorMessage(ERROR_MESSAGES[code], ctx), {
      ...(options?.cause !== undefined ? { cause: options.cause } : {}),
      params,
    });
    this.context = Object.freeze({ ...ctx });
    Object.defineProperty(this, CISTERN_ERROR_BRAND, { value: true });
  }
}

/**
 * Typed guard: true when `e` is a {@link CisternError} (also one from another copy of this
 * module), and (when given) carries `code`.
 */
export function isCisternError<C extends CisternErrorCode>(e: unknown, code?: C): e is CisternError<C> {
  const branded =
    e instanceof CisternError ||
    (e instanceof Error && (e as unknown as Record<symbol, unknown>)[CISTERN_ERROR_BRAND] === true);
  return branded && (code === undefined || (e as CisternError).code === code);
}

/** The name of a numeric code (`3000` -> `"UNKNOWN_POOL_TYPE"`), or undefined for an unknown number. */
export function getErrorCodeName(code: number): CisternErrorName | undefined {
  for (const [name, value] of Object.entries(ERROR_CODES)) {
    if (value === code) return name as CisternErrorName;
  }
  return undefined;
}

/** Text of any thrown value: an Error's message, a string as is, otherwise its JSON or String form. */
export function getErrorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  try {
    const json = JSON.stringify(e);
    return json === undefined ? String(e) : json;
  } catch {
    return String(e);
  }
}
