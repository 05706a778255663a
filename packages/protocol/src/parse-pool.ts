/**
 * Pool server view -> parsed pool, for both pool types (spec section 3 "Pool (server view)" and
 * "Pool (parsed)"). Amounts become bigint base units, rates stay basis points, times epoch seconds.
 */
import { EMPTY_WHITELIST_ADDRESS } from "./constants.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";
import { computeBorrowedLiquidity } from "./parse-bank.ts";
import { assertPoolType } from "./pool-payload.ts";
import {
  isRecord,
  type JsonRecord,
  readAmount,
  readBoolean,
  readEnumTag,
  readOptionalAmount,
  readOptionalNumber,
  readOptionalString,
  readRecord,
  readSeconds,
  readString,
} from "./server-fields.ts";

/** Borrower conditions of a pool. */
export interface PoolConditions {
  isEnabled: boolean;
  /** Minimum wallet age, seconds. */
  minAge: number;
  /** Minimum number of past loans. */
  minLoan: number;
  /** Minimum traded volume. */
  minVolume: number;
  /** Basis points (0..10000). */
  liquidationThreshold: number;
  /** Whitelist address; the all-ones address means none. */
  whitelist: string;
}

/** One collateral a pool accepts. For defi pools `collection` is the collateral currency mint. */
export interface PoolCollateral {
  collection: string;
  /** Basis points. */
  collectionLtv: number;
  /** Basis points of the pool's liquidity this collateral may use. */
  exposure: number;
  /** Currently lent against it, base units. */
  borrowedAmount: bigint;
}

/** Loan limits. Durations in seconds, USD amounts in dollars. */
export interface PoolLimits {
  minDuration: number;
  maxDuration: number;
  minAmountUsd: number;
  maxAmountUsd: number;
}

interface ParsedPoolBase {
  pubkey: string;
  owner: string;
  seed: string;
  status: string;
  bump: number;
  /** `banks[0]` is the pool's bank. */
  metadata: { name: string; thumbnail: string; banks: string[] };
  /** The pool's bank (metadata.banks[0]). */
  bank: string;
  totalLiquidations: number;
  totalLoans: number;
  /** Interest earned so far, base units. */
  totalInterest: bigint;
  createdAt: number;
  updatedAt: number;
  lastLoanAt: number;
  totalLiquidity: bigint;
  availableLiquidity: bigint;
  delegatedLiquidity: bigint;
  borrowedLiquidity: bigint;
  /** The bank's mint. */
  currency: string;
  loanCurve: { apr: number };
  limits: PoolLimits;
  conditions: PoolConditions;
  collections: PoolCollateral[];
  isAutoSellEnabled: boolean;
  isCompoundingEnabled: boolean;
  /** The pool is at an account layout older than the program's: its owner upgrades it (POST /nft/migrate). */
  needsMigration: boolean;
}

/** A token-collateral pool. */
export interface ParsedDefiPool extends ParsedPoolBase {
  type: "defi-pool";
  /** Ongoing loans. */
  currentLoan: number;
  currenciesUpdatedAt: number;
}

/** An NFT-collateral pool. `nftLocked` is also its currentLoan and totalLoans. */
export interface ParsedNftPool extends ParsedPoolBase {
  type: "nft-pool";
  nftLocked: number;
  currentLoan: number;
  totalMortgages: number;
  isMortgageEnabled: boolean;
  collectionsUpdatedAt: number;
  lastMortgageAt: number;
  mortgageCurve: { apr: number };
}

export type ParsedPool = ParsedDefiPool | ParsedNftPool;

const E = "pool";

function readCurve(raw: unknown, field: string): { apr: number } {
  if (raw === undefined || raw === null) return { apr: 0 };
  if (typeof raw === "number" || typeof raw === "string") return { apr: readOptionalNumber(E, field, raw) };
  const curve = readRecord(E, field, raw);
  return { apr: readOptionalNumber(E, `${field}.apr`, curve.apr ?? curve.aprBps) };
}

function readConditions(raw: unknown): PoolConditions {
  const c = isRecord(raw) ? raw : {};
  return {
    isEnabled: readBoolean(E, "conditions.isEnabled", c.isEnabled),
    minAge: readSeconds(E, "conditions.minAge", c.minAge),
    minLoan: readOptionalNumber(E, "conditions.minLoan", c.minLoan),
    minVolume: readOptionalNumber(E, "conditions.minVolume", c.minVolume),
    liquidationThreshold: readOptionalNumber(E, "conditions.liquidationThreshold", c.liquidationThreshold),
    whitelist: readOptionalString(E, "conditions.whitelist", c.whitelist, EMPTY_WHITELIST_ADDRESS),
  };
}

function readCollaterals(raw: JsonRecord, type: "defi-pool" | "nft-pool"): PoolCollateral[] {
  const list = type === "defi-pool" ? (raw.currencies ?? raw.collections) : raw.collections;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    throw new CisternError(ERROR_CODES.INVALID_SERVER_FIELD, {
      entity: E,
      field: "collections",
      value: String(list),
    });
  }
  return list.map((item, i) => {
    const entry = readRecord(E, `collections[${i}]`, item);
    return {
      collection: readString(E, `collections[${i}].collection`, entry.collection ?? entry.currency),
      collectionLtv: readOptionalNumber(
        E,
        `collections[${i}].collectionLtv`,
        entry.collectionLtv ?? entry.currencyLtv,
      ),
      exposure: readOptionalNumber(E, `collections[${i}].exposure`, entry.exposure),
      borrowedAmount: readOptionalAmount(E, `collections[${i}].borrowedAmount`, entry.borrowedAmount),
    };
  });
}

function readBanks(raw: JsonRecord, metadata: JsonRecord): string[] {
  const list = metadata.banks ?? raw.banks;
  const banks = Array.isArray(list)
    ? list.map((b, i) =>
        isRecord(b) ? readString(E, `banks[${i}].pubkey`, b.pubkey) : readString(E, `banks[${i}]`, b),
      )
    : [];
  const bank = isRecord(raw.bank) ? raw.bank.pubkey : raw.bank;
  if (typeof bank === "string" && bank.length > 0 && !banks.includes(bank)) banks.unshift(bank);
  if (banks.length === 0) {
    throw new CisternError(ERROR_CODES.INVALID_SERVER_FIELD, { entity: E, field: "bank", value: "missing" });
  }
  return banks;
}

/**
 * Parse a pool from the API. Unknown `type` throws 'Unknown pool type' (3000). Liquidity that the
 * server leaves out is derived: borrowed = total - available - delegated, or available = total -
 * borrowed - delegated. `currency` is the bank's mint (from `currency`, `mint` or `bank.mint`).
 */
export function parsePool(input: unknown): ParsedPool {
  const raw = readRecord(E, "pool", input);
  const type = assertPoolType(raw.type);
  const metadata = isRecord(raw.metadata) ? raw.metadata : {};
  const banks = readBanks(raw, metadata);
  const bankRecord = isRecord(raw.bank) ? raw.bank : {};
  const totalLiquidity = readAmount(E, "totalLiquidity", raw.totalLiquidity ?? bankRecord.totalLiquidity);
  const delegatedLiquidity = readOptionalAmount(
    E,
    "delegatedLiquidity",
    raw.delegatedLiquidity ?? bankRecord.delegatedLiquidity,
  );
  const availableRaw = raw.availableLiquidity ?? bankRecord.availableLiquidity;
  const borrowedRaw = raw.borrowedLiquidity;
  let availableLiquidity: bigint;
  let borrowedLiquidity: bigint;
  if (availableRaw !== undefined && availableRaw !== null) {
    availableLiquidity = readAmount(E, "availableLiquidity", availableRaw);
    borrowedLiquidity =
      borrowedRaw === undefined || borrowedRaw === null
        ? computeBorrowedLiquidity(totalLiquidity, availableLiquidity, delegatedLiquidity)
        : readAmount(E, "borrowedLiquidity", borrowedRaw);
  } else {
    borrowedLiquidity = readOptionalAmount(E, "borrowedLiquidity", borrowedRaw);
    const rest = totalLiquidity - borrowedLiquidity - delegatedLiquidity;
    availableLiquidity = rest > 0n ? rest : 0n;
  }
  const limits = isRecord(raw.limits) ? raw.limits : {};
  const liquidation = isRecord(raw.liquidation) ? raw.liquidation : {};
  const base: Omit<ParsedPoolBase, never> = {
    pubkey: readString(E, "pubkey", raw.pubkey),
    owner: readString(E, "owner", raw.owner),
    seed: raw.seed === undefined || raw.seed === null ? "" : String(raw.seed),
    status: raw.status === undefined || raw.status === null ? "" : readEnumTag(E, "status", raw.status).tag,
    bump: readOptionalNumber(E, "bump", raw.bump),
    metadata: {
      name: readOptionalString(E, "metadata.name", metadata.name),
      thumbnail: readOptionalString(E, "metadata.thumbnail", metadata.thumbnail),
      banks,
    },
    bank: banks[0]!,
    totalLiquidations: readOptionalNumber(E, "totalLiquidations", raw.totalLiquidations),
    totalLoans: readOptionalNumber(E, "totalLoans", raw.totalLoans),
    totalInterest: readOptionalAmount(E, "totalInterest", raw.totalInterest),
    createdAt: readSeconds(E, "createdAt", raw.createdAt),
    updatedAt: readSeconds(E, "updatedAt", raw.updatedAt),
    lastLoanAt: readSeconds(E, "lastLoanAt", raw.lastLoanAt),
    totalLiquidity,
    availableLiquidity,
    delegatedLiquidity,
    borrowedLiquidity,
    currency: readString(E, "currency", raw.currency ?? raw.mint ?? bankRecord.mint),
    loanCurve: readCurve(raw.loanCurve, "loanCurve"),
    limits: {
      minDuration: readSeconds(E, "limits.minDuration", limits.minDuration),
      maxDuration: readSeconds(E, "limits.maxDuration", limits.maxDuration),
      minAmountUsd: readOptionalNumber(E, "limits.minAmountUsd", limits.minAmountUsd),
      maxAmountUsd: readOptionalNumber(E, "limits.maxAmountUsd", limits.maxAmountUsd),
    },
    conditions: readConditions(raw.conditions),
    collections: readCollaterals(raw, type),
    needsMigration: readBoolean(E, "needsMigration", raw.needsMigration),
    isAutoSellEnabled: readBoolean(
      E,
      "liquidation.isAutoSellEnabled",
      liquidation.isAutoSellEnabled ?? raw.isAutoSellEnabled,
    ),
    isCompoundingEnabled: readBoolean(E, "isCompoundingEnabled", raw.isCompoundingEnabled),
  };
  if (type === "defi-pool") {
    return {
      ...base,
      type,
      currentLoan: readOptionalNumber(E, "currentLoan", raw.currentLoan),
      currenciesUpdatedAt: readSeconds(E, "currenciesUpdatedAt", raw.currenciesUpdatedAt),
    };
  }
  const nftLocked = readOptionalNumber(E, "nftLocked", raw.nftLocked ?? raw.currentLoan);
  return {
    ...base,
    type,
    nftLocked,
    currentLoan: nftLocked,
    totalLoans: nftLocked,
    totalMortgages: readOptionalNumber(E, "totalMortgages", raw.totalMortgages),
    isMortgageEnabled: readBoolean(E, "isMortgageEnabled", raw.isMortgageEnabled),
    collectionsUpdatedAt: readSeconds(E, "collectionsUpdatedAt", raw.collectionsUpdatedAt),
    lastMortgageAt: readSeconds(E, "lastMortgageAt", raw.lastMortgageAt),
    mortgageCurve: readCurve(raw.mortgageCurve, "mortgageCurve"),
  };
}
