import {
  createPoolCreationPayload,
  EMPTY_WHITELIST_ADDRESS,
  getMortgageAprBps,
  getPoolConditions,
  type PoolCreationPayload,
  type PoolForm,
  parseUnitsFloor,
} from "@cistern/protocol";
import type { PoolParams, PoolType } from "@cistern/sdk";
import { address } from "@solana/kit";

/** micro-USD per USD. */
const MICRO_USD_DECIMALS = 6;

/** A pool ready for CreatePool: the protocol payload (with its deposit amount) and the program params. */
export interface PoolCreationPlan {
  poolType: PoolType;
  payload: PoolCreationPayload;
  /** Base units of the pool currency the form puts in the pool (payload.amount). */
  amountBaseUnits: bigint;
  params: PoolParams;
}

/**
 * Pool form values -> CreatePool parameters, through @cistern/protocol's createPoolCreationPayload rules
 * (percent x100 floored to bps, days to seconds, USD limits with the default minimum) and its conditions
 * rules; USD limits become micro-USD (floored).
 * @param options.decimals - the pool currency's decimals (defaults to the currency table)
 */
export function getPoolCreationPlan(form: PoolForm, options: { decimals?: number } = {}): PoolCreationPlan {
  const payload = createPoolCreationPayload(form, options);
  const poolType = form.type as PoolType;
  const conditions = getPoolConditions(form);
  const entries =
    poolType === "nft-pool"
      ? (payload.param.collections ?? []).map((c) => ({
          id: address(c.collection),
          ltvBps: c.collectionLtv,
          exposureBps: c.exposure,
        }))
      : (payload.param.currencies ?? []).map((c) => ({
          id: address(c.currency),
          ltvBps: c.currencyLtv,
          exposureBps: c.exposure,
        }));
  const params: PoolParams = {
    flags: {
      autoSell: form.isAutoSellEnabled === true,
      mortgage: poolType === "nft-pool" && form.isMortgageEnabled === true,
      compounding: form.isCompoundInterestEnabled === true,
    },
    loanAprBps: payload.param.apr,
    mortgageAprBps: poolType === "nft-pool" && form.isMortgageEnabled === true ? getMortgageAprBps(form) : 0,
    maxDurationSeconds: BigInt(payload.param.limits.maxDuration),
    minAmountMicroUsd: parseUnitsFloor(String(payload.param.limits.minAmountUsd), MICRO_USD_DECIMALS),
    maxAmountMicroUsd: parseUnitsFloor(String(payload.param.limits.maxAmountUsd), MICRO_USD_DECIMALS),
    conditions: {
      isEnabled: conditions.isEnabled === 1,
      whitelistEnabled: conditions.isWhitelistEnabled === 1,
      liquidationThresholdBps: conditions.liquidationThreshold,
      minAgeSeconds: BigInt(conditions.minAge),
      minLoanCount: BigInt(conditions.minLoan),
      minVolumeMicroUsd: parseUnitsFloor(conditions.minVolume, MICRO_USD_DECIMALS),
      whitelist: conditions.whitelist === EMPTY_WHITELIST_ADDRESS ? null : address(conditions.whitelist),
    },
    collections: entries,
  };
  return { poolType, payload, amountBaseUnits: BigInt(payload.amount), params };
}
