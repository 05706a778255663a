import { CisternError, ERROR_CODES } from "@cistern/protocol";
import { type Adapter, WalletError, WalletNotReadyError } from "@solana/wallet-adapter-base";

const WALLET_ERROR_CODES: Record<string, (typeof ERROR_CODES)[keyof typeof ERROR_CODES]> = {
  WalletNotReadyError: ERROR_CODES.WALLET_NOT_READY,
  WalletLoadError: ERROR_CODES.WALLET_LOAD,
  WalletConfigError: ERROR_CODES.WALLET_CONFIG,
  WalletConnectionError: ERROR_CODES.WALLET_CONNECTION,
  WalletDisconnectedError: ERROR_CODES.WALLET_DISCONNECTED,
  WalletDisconnectionError: ERROR_CODES.WALLET_DISCONNECTION,
  WalletAccountError: ERROR_CODES.WALLET_ACCOUNT,
  WalletPublicKeyError: ERROR_CODES.WALLET_PUBLIC_KEY,
  WalletNotConnectedError: ERROR_CODES.WALLET_NOT_CONNECTED,
  WalletSendTransactionError: ERROR_CODES.WALLET_SEND_TRANSACTION,
  WalletSignTransactionError: ERROR_CODES.WALLET_SIGN_TRANSACTION,
  WalletSignMessageError: ERROR_CODES.WALLET_SIGN_MESSAGE,
  WalletSignInError: ERROR_CODES.WALLET_SIGN_IN,
  WalletNotSelectedError: ERROR_CODES.WALLET_NOT_SELECTED,
};

/** Mobile wallet protocol error codes (SolanaMobileWalletAdapterError.code) to Cistern codes. */
const MOBILE_ERROR_CODES: Record<string, (typeof ERROR_CODES)[keyof typeof ERROR_CODES]> = {
  ERROR_ASSOCIATION_PORT_OUT_OF_RANGE: ERROR_CODES.MOBILE_WALLET_PORT_OUT_OF_RANGE,
  ERROR_FORBIDDEN_WALLET_BASE_URL: ERROR_CODES.MOBILE_WALLET_FORBIDDEN_BASE_URL,
  ERROR_SECURE_CONTEXT_REQUIRED: ERROR_CODES.MOBILE_WALLET_SECURE_CONTEXT_REQUIRED,
  ERROR_SESSION_CLOSED: ERROR_CODES.MOBILE_WALLET_SESSION_CLOSED,
  ERROR_SESSION_TIMEOUT: ERROR_CODES.MOBILE_WALLET_SESSION_TIMEOUT,
  ERROR_WALLET_NOT_FOUND: ERROR_CODES.MOBILE_WALLET_NOT_FOUND,
};

function findMobileCode(error: unknown, depth = 0): { code: string; data: Record<string, unknown> } | null {
  if (typeof error !== "object" || error === null || depth > 3) return null;
  const record = error as { code?: unknown; data?: unknown; error?: unknown; cause?: unknown };
  if (typeof record.code === "string" && record.code in MOBILE_ERROR_CODES) {
    return { code: record.code, data: (record.data ?? {}) as Record<string, unknown> };
  }
  return findMobileCode(record.error, depth + 1) ?? findMobileCode(record.cause, depth + 1);
}

/**
 * Maps a wallet-adapter or mobile-wallet-protocol error to a CisternError with a stable code,
 * keeping the original as `cause`. Unknown errors map to WALLET_CONNECTION.
 */
export function toCisternWalletError(error: unknown): CisternError {
  const mobile = findMobileCode(error);
  if (mobile) {
    const code = MOBILE_ERROR_CODES[mobile.code]!;
    if (code === ERROR_CODES.MOBILE_WALLET_PORT_OUT_OF_RANGE) {
      return new CisternError(code, { port: String(mobile.data.port ?? "?") }, { cause: error });
    }
    if (code === ERROR_CODES.MOBILE_WALLET_SESSION_CLOSED) {
      return new CisternError(
        code,
        {
          closeCode: String(mobile.data.closeEvent && (mobile.data.closeEvent as CloseEvent).code),
          reason: String(mobile.data.closeEvent && (mobile.data.closeEvent as CloseEvent).reason),
        },
        { cause: error },
      );
    }
    return new CisternError(code as typeof ERROR_CODES.MOBILE_WALLET_NOT_FOUND, undefined, { cause: error });
  }
  const name = error instanceof WalletError ? error.name : "";
  const code = WALLET_ERROR_CODES[name] ?? ERROR_CODES.WALLET_CONNECTION;
  return new CisternError(code as typeof ERROR_CODES.WALLET_CONNECTION, undefined, { cause: error });
}

/**
 * The WalletProvider error handler: adapter errors are only logged (with their Cistern code);
 * a not-ready wallet opens its page in a new tab.
 */
export function handleWalletError(error: WalletError, adapter?: Adapter): void {
  const mapped = toCisternWalletError(error);
  console.error(`[wallet ${mapped.code}] ${mapped.message}`, error);
  if (error instanceof WalletNotReadyError && adapter && typeof window !== "undefined") {
    window.open(adapter.url, "_blank", "noopener");
  }
}

/** Wallet names that cannot sign messages (Ledger hardware wallets). */
export function isLedgerWallet(walletName: string | undefined | null): boolean {
  return typeof walletName === "string" && /ledger/i.test(walletName);
}

/**
 * Signs a message with the connected wallet, or throws WALLET_SIGN_MESSAGE_UNSUPPORTED with the
 * spec's text when the wallet cannot sign messages (e.g. Ledger).
 */
export async function signMessageOrThrow(
  wallet: {
    walletName: string | null;
    signMessage?: ((message: Uint8Array) => Promise<Uint8Array>) | undefined;
  },
  message: Uint8Array,
): Promise<Uint8Array> {
  if (!wallet.signMessage || isLedgerWallet(wallet.walletName)) {
    throw new CisternError(ERROR_CODES.WALLET_SIGN_MESSAGE_UNSUPPORTED);
  }
  return wallet.signMessage(message);
}
