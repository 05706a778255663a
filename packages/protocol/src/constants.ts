/**
 * Business constants of the product spec (sections 4, 5, 9) and the shared protocol contract.
 * Every name carries its unit. Times in seconds are plain numbers; money is bigint base units elsewhere.
 */

// Time
export const SECONDS_PER_MINUTE = 60;
export const SECONDS_PER_HOUR = 3600;
export const SECONDS_PER_DAY = 86_400;
/** A "month" for time-ago display: 30 days. */
export const SECONDS_PER_MONTH = 30 * SECONDS_PER_DAY;
export const SECONDS_PER_YEAR = 365 * SECONDS_PER_DAY;
export const HOURS_PER_YEAR = 8760;

// Basis points and fees
/** Fee and rate basis: 10000 = 100%. */
export const BPS = 10_000;
/** Alias of {@link BPS} under the spec's name ("fee basis 10000"). */
export const FEE_BASIS = BPS;
/** Protocol's share of interest paid: 2000 / 10000 = 20%, to the treasury. */
export const PROTOCOL_FEE_BPS = 2000;
/** Interest shown to lenders is net of a 5% deduction: 9500 / 10000. */
export const INTEREST_NET_OF_FEES_BPS = 9500;
/** Repaying before expiry owes at least 30% of the total interest. */
export const MIN_INTEREST_BPS = 3000;
/** Overdue interest accrues at twice the rate. */
export const OVERDUE_RATE_MULTIPLIER = 2;
/** Denominator of hourly interest: HOURS_PER_YEAR * BPS = 87_600_000. */
export const INTEREST_DENOMINATOR = HOURS_PER_YEAR * BPS;
/** Rates are stored times 100 (percent -> basis points). */
export const RATE_SCALE = 100;
/** Liquidation threshold cap after scaling by 100. */
export const LIQUIDATION_THRESHOLD_CAP_BPS = 10_000;

// Loans
/** Minimum loan duration: 1 day. */
export const MIN_LOAN_DURATION_SECONDS = SECONDS_PER_DAY;
/** Grace period: 1 hour per loan day ... */
export const GRACE_SECONDS_PER_LOAN_DAY = SECONDS_PER_HOUR;
/** ... for at most 8 loan days (8 hours). */
export const MAX_GRACE_LOAN_DAYS = 8;
/** A borrower's ongoing loan expiring within this window is "near expiry". */
export const NEAR_EXPIRY_WINDOW_SECONDS = SECONDS_PER_DAY;
/** Loan-analytics default window. */
export const LOAN_ANALYTICS_DEFAULT_DAYS = 30;

// Pools
/** Minimum USD amount of a pool when the form leaves it empty. */
export const DEFAULT_MIN_AMOUNT_USD = 10;
/** Auto-sell liquidation values sent on pool update. */
export const AUTO_SELL_LOAN_LIQUIDATION = 1000;
export const AUTO_SELL_MORTGAGE_LIQUIDATION = 2000;
/** The all-ones 32-character address: a whitelist equal to it means "no whitelist". */
export const EMPTY_WHITELIST_ADDRESS = "11111111111111111111111111111111";

// Network and refresh
export const HTTP_TIMEOUT_MS = 30_000;
/** Chain performance and price refresh interval (only while the page is visible). */
export const REFRESH_INTERVAL_MS = 30_000;
/** Website update (build id) check interval: 10 minutes. */
export const UPDATE_CHECK_INTERVAL_MS = 10 * 60_000;
/** Chain performance value used when its fetch fails. */
export const CHAIN_PERFORMANCE_FALLBACK = 2000;
/** Liability and asset values of the liabilities series are scaled by this. */
export const LIABILITIES_SCALE = 10_000;

// Cookies, scripts, storage
export const REFERRAL_COOKIE_MAX_AGE_DAYS = 60;
export const REFERRAL_COOKIE_MAX_AGE_SECONDS = REFERRAL_COOKIE_MAX_AGE_DAYS * SECONDS_PER_DAY;
export const WALLET_AUTH_COOKIE_MAX_AGE_DAYS = 365;
export const WALLET_AUTH_COOKIE_MAX_AGE_SECONDS = WALLET_AUTH_COOKIE_MAX_AGE_DAYS * SECONDS_PER_DAY;
export const SESSION_RECORDING_DELAY_MS = 5000;
export const REFERRAL_QUERY_PARAM = "referral";
export const STORAGE_KEY_RPC_URL = "rainfi-rpc";
export const STORAGE_KEY_WALLET_NAME = "walletName";
export const STORAGE_KEY_COLOR_THEME = "color-theme";
export const STORAGE_KEY_PREFERRED_EXPLORER = "preferred-explorer";
export const DEFAULT_COLOR_THEME = "dark";

// Product texts
export const PRODUCT_NAME = "cistern";
/** The product's name as a sentence shows it. */
export const PRODUCT_DISPLAY_NAME = "Cistern";
export const PAGE_TITLE = "Effortless Token & NFT Lending on Solana";
/** Message a wallet signs to link itself before updating pool metadata. */
export const SIGNED_LINK_MESSAGE = `Link your wallet with ${PRODUCT_NAME}.fi in order to update your metadata`;
/** Message a wallet signs to get its private calendar feed of loan dates. */
export function getCalendarFeedMessage(walletAddress: string): string {
  return `Create the ${PRODUCT_DISPLAY_NAME} loan calendar of ${walletAddress}`;
}
/** Message a wallet signs to sign in to the chat. */
export function getChatSignInMessage(walletAddress: string): string {
  return `Access ${PRODUCT_DISPLAY_NAME} chat as ${walletAddress}`;
}

// Swaps
export const DEFAULT_SLIPPAGE_BPS = 100;
export const SWAP_FEES_BPS = 0;

// Toasts and UI
/** Transaction progress toasts last 65 s while loading. */
export const TRANSACTION_TOAST_DURATION_MS = 65_000;
export const TOAST_WIDTH_PX = 330;
export const LINK_PREFETCH_MARGIN_PX = 200;
export const DEFAULT_IMAGE_SIZE_PX = 50;
export const CURRENCY_IMAGE_SIZE_PX = 500;
export const MODAL_FADE_MS = 150;
export const ADDRESS_SHORTEN_CHARS = 4;

// Wallets
export const MOBILE_WALLET_TIMEOUT_MS = 30_000;
export const MOBILE_WALLET_RETRY_DELAYS_MS = [150, 150, 200, 500, 500, 750, 750, 1000] as const;
export const MOBILE_WALLET_ASSOCIATION_PORT_MIN = 49_152;
export const MOBILE_WALLET_ASSOCIATION_PORT_MAX = 65_535;
export const WALLET_DETECTION_POLL_MS = 1000;
export const MOBILE_WIDTH_THRESHOLD_PX = 480;
/** The wallet list is shaded when more than this many other wallets are expanded. */
export const WALLET_LIST_SHADE_THRESHOLD = 6;
export const PREFERRED_WALLETS = ["Phantom", "Solflare", "Backpack"] as const;

// Chat websocket client
export const CHAT_RETRY_ATTEMPTS = 5;
export const CHAT_RETRY_BASE_DELAY_MS = 1000;
export const CHAT_KEEP_ALIVE_MS = 0;
/** Longest chat message, characters (Unicode code points, after trimming). */
export const CHAT_MESSAGE_MAX_CHARS = 1000;
/** A wallet may send at most this many messages per window. */
export const CHAT_RATE_LIMIT_MESSAGES = 5;
export const CHAT_RATE_LIMIT_WINDOW_SECONDS = 10;
/** How long a chat sign-in (the signed login message) stays valid. */
export const CHAT_SESSION_SECONDS = 30 * SECONDS_PER_DAY;
/** Messages a history page holds at most. */
export const CHAT_PAGE_MAX_MESSAGES = 100;
/** Close codes the chat socket defines (meanings not given by the spec). */
export const CHAT_SOCKET_CLOSE_CODES = [
  4500, 4005, 4400, 4004, 4401, 4403, 4406, 4408, 4504, 4409, 4429,
] as const;

// Chain
export const LAMPORTS_PER_SOL = 1_000_000_000n;
/** Largest SPL token amount (u64). */
export const U64_MAX = 0xffff_ffff_ffff_ffffn;
