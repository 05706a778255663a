import { describe, expect, it } from "vitest";
import * as C from "../constants.ts";
import { DEFAULT_PRIORITY_FEE_SETTINGS } from "../priority-fee.ts";

describe("business constants (spec section 9)", () => {
  it("pins timeouts, intervals and cookies", () => {
    expect(C.HTTP_TIMEOUT_MS).toBe(30_000);
    expect(C.REFRESH_INTERVAL_MS).toBe(30_000);
    expect(C.UPDATE_CHECK_INTERVAL_MS).toBe(600_000);
    expect(C.REFERRAL_COOKIE_MAX_AGE_DAYS).toBe(60);
    expect(C.REFERRAL_COOKIE_MAX_AGE_SECONDS).toBe(5_184_000);
    expect(C.SESSION_RECORDING_DELAY_MS).toBe(5000);
    expect(C.WALLET_AUTH_COOKIE_MAX_AGE_DAYS).toBe(365);
    expect(C.WALLET_AUTH_COOKIE_MAX_AGE_SECONDS).toBe(31_536_000);
    expect(C.MOBILE_WALLET_TIMEOUT_MS).toBe(30_000);
    expect(C.WALLET_DETECTION_POLL_MS).toBe(1000);
    expect(C.MOBILE_WALLET_RETRY_DELAYS_MS[0]).toBe(150);
    expect(C.MOBILE_WALLET_RETRY_DELAYS_MS.at(-1)).toBe(1000);
  });

  it("pins toasts, UI and storage keys", () => {
    expect(C.TRANSACTION_TOAST_DURATION_MS).toBe(65_000);
    expect(C.TOAST_WIDTH_PX).toBe(330);
    expect(C.LINK_PREFETCH_MARGIN_PX).toBe(200);
    expect(C.DEFAULT_IMAGE_SIZE_PX).toBe(50);
    expect(C.CURRENCY_IMAGE_SIZE_PX).toBe(500);
    expect(C.MODAL_FADE_MS).toBe(150);
    expect(C.MOBILE_WIDTH_THRESHOLD_PX).toBe(480);
    expect(C.WALLET_LIST_SHADE_THRESHOLD).toBe(6);
    expect(C.ADDRESS_SHORTEN_CHARS).toBe(4);
    expect(C.STORAGE_KEY_RPC_URL).toBe("rainfi-rpc");
    expect(C.STORAGE_KEY_WALLET_NAME).toBe("walletName");
    expect(C.STORAGE_KEY_COLOR_THEME).toBe("color-theme");
    expect(C.STORAGE_KEY_PREFERRED_EXPLORER).toBe("preferred-explorer");
    expect(C.DEFAULT_COLOR_THEME).toBe("dark");
    expect(C.REFERRAL_QUERY_PARAM).toBe("referral");
    expect(C.PAGE_TITLE).toBe("Effortless Token & NFT Lending on Solana");
    expect(C.PREFERRED_WALLETS).toEqual(["Phantom", "Solflare", "Backpack"]);
  });

  it("pins signed messages", () => {
    expect(C.SIGNED_LINK_MESSAGE).toBe("Link your wallet with cistern.fi in order to update your metadata");
    expect(C.getChatSignInMessage("AbC123")).toBe("Access Cistern chat as AbC123");
  });

  it("pins pool, loan and swap numbers", () => {
    expect(C.SECONDS_PER_DAY).toBe(86_400);
    expect(C.DEFAULT_MIN_AMOUNT_USD).toBe(10);
    expect(C.RATE_SCALE).toBe(100);
    expect(C.LIQUIDATION_THRESHOLD_CAP_BPS).toBe(10_000);
    expect(C.AUTO_SELL_LOAN_LIQUIDATION).toBe(1000);
    expect(C.AUTO_SELL_MORTGAGE_LIQUIDATION).toBe(2000);
    expect(C.FEE_BASIS).toBe(10_000);
    expect(C.BPS).toBe(10_000);
    expect(C.NEAR_EXPIRY_WINDOW_SECONDS).toBe(86_400);
    expect(C.LOAN_ANALYTICS_DEFAULT_DAYS).toBe(30);
    expect(C.LIABILITIES_SCALE).toBe(10_000);
    expect(C.CHAIN_PERFORMANCE_FALLBACK).toBe(2000);
    expect(C.DEFAULT_SLIPPAGE_BPS).toBe(100);
    expect(C.SWAP_FEES_BPS).toBe(0);
    expect(C.MIN_LOAN_DURATION_SECONDS).toBe(86_400);
    expect(C.GRACE_SECONDS_PER_LOAN_DAY).toBe(3600);
    expect(C.MAX_GRACE_LOAN_DAYS).toBe(8);
    expect(C.EMPTY_WHITELIST_ADDRESS).toBe("11111111111111111111111111111111");
    expect(C.EMPTY_WHITELIST_ADDRESS).toHaveLength(32);
    expect(C.MOBILE_WALLET_ASSOCIATION_PORT_MIN).toBe(49_152);
    expect(C.MOBILE_WALLET_ASSOCIATION_PORT_MAX).toBe(65_535);
  });

  it("pins chat client defaults", () => {
    expect(C.CHAT_RETRY_ATTEMPTS).toBe(5);
    expect(C.CHAT_RETRY_BASE_DELAY_MS).toBe(1000);
    expect(C.CHAT_KEEP_ALIVE_MS).toBe(0);
    expect(C.CHAT_SOCKET_CLOSE_CODES).toEqual([
      4500, 4005, 4400, 4004, 4401, 4403, 4406, 4408, 4504, 4409, 4429,
    ]);
  });

  it("pins priority fee defaults", () => {
    expect(DEFAULT_PRIORITY_FEE_SETTINGS).toEqual({
      level: "fast",
      amountSol: "0.0005",
      type: "maxCap",
      broadcastMode: "priorityFees",
    });
  });
});
