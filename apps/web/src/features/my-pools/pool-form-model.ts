import {
  checkImageUrl,
  createPoolCreationPayload,
  createPoolUpdatePayload,
  EMPTY_WHITELIST_ADDRESS,
  getCurrencyByMint,
  getErrorText,
  isValidPublicKey,
  type ParsedPool,
  type PoolCreationPayload,
  type PoolForm,
  type PoolType,
  type PoolUpdatePayload,
  RATE_SCALE,
  SECONDS_PER_DAY,
} from "@cistern/protocol";
import { formatMoney, parseAmountInput } from "../../kit/format.ts";

/** One collateral row of the form (percent strings). */
export interface CollateralRow {
  /** Stable row key for the form list. */
  key: string;
  id: string;
  ltv: string;
  exposure: string;
}

/** Everything the pool form holds, as typed (strings), plus flags. */
export interface PoolFormState {
  type: PoolType;
  name: string;
  currency: string;
  /** Whole units to deposit at creation. */
  amount: string;
  image: string;
  apy: string;
  durationDays: string;
  isMortgageEnabled: boolean;
  /** Yearly rate of the pool's mortgages, percent (nft-pool; the loan APR when empty). */
  mortgageApy: string;
  isAutoSellEnabled: boolean;
  minAmountUsd: string;
  maxAmountUsd: string;
  withConditions: boolean;
  minAgeDays: string;
  minLoan: string;
  minVolume: string;
  isPrivate: boolean;
  whitelist: string;
  /** One address per line. */
  whitelistAddresses: string;
  collateral: CollateralRow[];
}

let rowCounter = 0;

/** A fresh key for a collateral row. */
export function newRowKey(): string {
  rowCounter += 1;
  return `row-${rowCounter}`;
}

/** A blank form for a new pool. */
export function emptyPoolForm(type: PoolType, currency: string): PoolFormState {
  return {
    type,
    name: "",
    currency,
    amount: "",
    image: "",
    apy: "",
    durationDays: "7",
    isMortgageEnabled: false,
    mortgageApy: "",
    isAutoSellEnabled: false,
    minAmountUsd: "10",
    maxAmountUsd: "",
    withConditions: false,
    minAgeDays: "",
    minLoan: "",
    minVolume: "",
    isPrivate: false,
    whitelist: "",
    whitelistAddresses: "",
    collateral: [],
  };
}

/** The form of an existing pool (for updates). */
export function poolToFormState(pool: ParsedPool): PoolFormState {
  const whitelist = pool.conditions.whitelist;
  const isPrivate = whitelist !== "" && whitelist !== EMPTY_WHITELIST_ADDRESS;
  return {
    type: pool.type,
    name: pool.metadata.name,
    currency: pool.currency,
    amount: "",
    image: pool.metadata.thumbnail,
    apy: String(pool.loanCurve.apr / RATE_SCALE),
    durationDays: String(pool.limits.maxDuration / SECONDS_PER_DAY),
    isMortgageEnabled: pool.type === "nft-pool" ? pool.isMortgageEnabled : false,
    mortgageApy:
      pool.type === "nft-pool" && pool.isMortgageEnabled ? String(pool.mortgageCurve.apr / RATE_SCALE) : "",
    isAutoSellEnabled: pool.isAutoSellEnabled,
    minAmountUsd: String(pool.limits.minAmountUsd),
    maxAmountUsd: String(pool.limits.maxAmountUsd),
    withConditions: pool.conditions.isEnabled,
    minAgeDays: pool.conditions.minAge ? String(pool.conditions.minAge / SECONDS_PER_DAY) : "",
    minLoan: pool.conditions.minLoan ? String(pool.conditions.minLoan) : "",
    minVolume: pool.conditions.minVolume ? String(pool.conditions.minVolume) : "",
    isPrivate,
    whitelist: isPrivate ? whitelist : "",
    whitelistAddresses: "",
    collateral: pool.collections.map((c) => ({
      key: newRowKey(),
      id: c.collection,
      ltv: String(c.collectionLtv / RATE_SCALE),
      exposure: String(c.exposure / RATE_SCALE),
    })),
  };
}

/** Field -> message. Empty when the form is valid. */
export type FormErrors = Partial<Record<string, string>>;

const NUMBER = /^\d+(\.\d+)?$/;

function numberField(
  errors: FormErrors,
  field: string,
  text: string,
  label: string,
  rule: { required?: boolean; min?: number; max?: number; integer?: boolean },
): number | null {
  const value = text.trim();
  if (value === "") {
    if (rule.required) errors[field] = `${label} is required.`;
    return null;
  }
  if (value.startsWith("-")) {
    errors[field] = `${label} must be positive.`;
    return null;
  }
  if (!NUMBER.test(value)) {
    errors[field] = `${label} must be a number.`;
    return null;
  }
  const n = Number(value);
  if (rule.integer && !Number.isInteger(n)) errors[field] = `${label} must be a whole number.`;
  else if (rule.min !== undefined && n < rule.min) errors[field] = `${label} must be at least ${rule.min}.`;
  else if (rule.max !== undefined && n > rule.max) errors[field] = `${label} must be at most ${rule.max}.`;
  return n;
}

/**
 * Checks every field with a message a lender understands. `mode` "create" also checks the
 * deposit against the currency minimum and the wallet balance (base units, when known).
 */
export function validatePoolForm(
  form: PoolFormState,
  mode: "create" | "update",
  options: { walletBalance?: bigint } = {},
): FormErrors {
  const errors: FormErrors = {};
  const currency = getCurrencyByMint(form.currency);
  if (!currency) errors.currency = "Choose SOL or USDC.";
  if (form.name.trim().length > 32) errors.name = "Name must be at most 32 characters.";
  else if (mode === "create" && form.name.trim() === "") errors.name = "Give the pool a name.";
  if (mode === "create" && currency) {
    const text = form.amount.trim();
    const { amount, error } = parseAmountInput(text, currency.decimals);
    const minimum = form.type === "nft-pool" ? currency.minAmountBaseUnits : currency.minDefiAmountBaseUnits;
    if (text === "") errors.amount = "Enter how much to put in the pool.";
    else if (amount === null) errors.amount = error;
    else if (amount < minimum) errors.amount = `Deposit at least ${formatMoney(minimum, currency.mint)}.`;
    else if (options.walletBalance !== undefined && amount > options.walletBalance)
      errors.amount = `Your wallet holds ${formatMoney(options.walletBalance, currency.mint)}.`;
  }
  const image = checkImageUrl(form.image);
  if (!image.ok) errors.image = "Images hosted on twimg are not supported; use another URL.";
  else if (image.needsContentTypeCheck) {
    try {
      const url = new URL(image.url);
      if (url.protocol !== "https:" && url.protocol !== "http:")
        errors.image = "Image URL must start with https://.";
    } catch {
      errors.image = "Image URL is not a valid URL.";
    }
  }
  numberField(errors, "apy", form.apy, "APR", { required: true, min: 0.01, max: 1000 });
  if (form.type === "nft-pool" && form.isMortgageEnabled)
    numberField(errors, "mortgageApy", form.mortgageApy, "Mortgage APR", { min: 0.01, max: 1000 });
  numberField(errors, "durationDays", form.durationDays, "Duration", {
    required: true,
    min: 1,
    max: 365,
    integer: true,
  });
  const minUsd = numberField(errors, "minAmountUsd", form.minAmountUsd, "Minimum loan (USD)", { min: 0 });
  const maxUsd = numberField(errors, "maxAmountUsd", form.maxAmountUsd, "Maximum loan (USD)", {
    required: true,
    min: 1,
  });
  if (maxUsd !== null && (minUsd ?? 10) > maxUsd && !errors.minAmountUsd && !errors.maxAmountUsd)
    errors.maxAmountUsd = "Maximum loan must be at least the minimum loan.";
  if (mode === "update" && form.withConditions) {
    numberField(errors, "minAgeDays", form.minAgeDays, "Minimum wallet age", { min: 0, integer: true });
    numberField(errors, "minLoan", form.minLoan, "Minimum past loans", { min: 0, integer: true });
    numberField(errors, "minVolume", form.minVolume, "Minimum volume", { min: 0 });
  }
  if (mode === "update" && form.isPrivate) {
    if (!isValidPublicKey(form.whitelist.trim()))
      errors.whitelist = "Enter the whitelist (lookup table) address.";
    const bad = whitelistAddresses(form).find((a) => !isValidPublicKey(a));
    if (bad !== undefined) errors.whitelistAddresses = `Not a wallet address: ${bad}`;
  }
  if (form.collateral.length === 0)
    errors.collateral = `Add at least one ${form.type === "nft-pool" ? "collection" : "token"}.`;
  const seen = new Set<string>();
  form.collateral.forEach((row, i) => {
    if (row.id === "") errors[`collateral.${i}.id`] = "Choose one.";
    else if (seen.has(row.id)) errors[`collateral.${i}.id`] = "Listed twice.";
    seen.add(row.id);
    numberField(errors, `collateral.${i}.ltv`, row.ltv, "LTV", { required: true, min: 1, max: 100 });
    numberField(errors, `collateral.${i}.exposure`, row.exposure, "Exposure", {
      required: true,
      min: 1,
      max: 100,
    });
  });
  return errors;
}

function whitelistAddresses(form: PoolFormState): string[] {
  return form.whitelistAddresses
    .split(/[\s,]+/)
    .map((a) => a.trim())
    .filter((a) => a !== "");
}

/** The protocol's form view of the state. */
export function toProtocolForm(form: PoolFormState, owner: string, bank: string, pubkey?: string): PoolForm {
  const rows = form.collateral.map((r) => ({ id: r.id, ltv: r.ltv, exposure: r.exposure }));
  return {
    owner,
    ...(pubkey ? { pubkey } : {}),
    type: form.type,
    bank,
    poolName: form.name.trim(),
    poolCurrency: form.currency,
    poolAmount: form.amount,
    poolImage: form.image.trim(),
    apy: form.apy,
    loanDuration: form.durationDays,
    isMortgageEnabled: form.type === "nft-pool" && form.isMortgageEnabled,
    ...(form.type === "nft-pool" && form.isMortgageEnabled && form.mortgageApy.trim() !== ""
      ? { mortgageApy: form.mortgageApy }
      : {}),
    // No compounding and no liquidation threshold: the lending program has neither (the API refuses them), so
    // the form neither offers nor sends them; the payload's threshold is then 0.
    isAutoSellEnabled: form.isAutoSellEnabled,
    maxAmountUsd: form.maxAmountUsd,
    minAmountUsd: form.minAmountUsd,
    withConditions: form.withConditions,
    minAge: form.minAgeDays,
    minLoan: form.minLoan,
    minVolume: form.minVolume,
    isPrivateLoanEnabled: form.isPrivate,
    lookupTable: form.isPrivate ? form.whitelist.trim() : EMPTY_WHITELIST_ADDRESS,
    lookupTableAddresses: whitelistAddresses(form),
    ...(form.type === "nft-pool" ? { collections: rows } : { tokens: rows }),
  };
}

/** Payloads of a valid form, or the protocol's error text (never a partial payload). */
export function buildCreation(
  form: PoolFormState,
  owner: string,
  bank: string,
): { ok: true; payload: PoolCreationPayload } | { ok: false; message: string } {
  try {
    return { ok: true, payload: createPoolCreationPayload(toProtocolForm(form, owner, bank)) };
  } catch (error) {
    return { ok: false, message: getErrorText(error) };
  }
}

export function buildUpdate(
  form: PoolFormState,
  owner: string,
  bank: string,
  pubkey: string,
): { ok: true; payload: PoolUpdatePayload } | { ok: false; message: string } {
  try {
    return { ok: true, payload: createPoolUpdatePayload(toProtocolForm(form, owner, bank, pubkey)) };
  } catch (error) {
    return { ok: false, message: getErrorText(error) };
  }
}
