import { createHash } from "node:crypto";
import { decodeAddress } from "../base58.ts";
import { USDC_MINT_ADDRESS, WRAPPED_SOL_MINT_ADDRESS } from "../demo-world.ts";
import { findProgramAddressSync } from "../pda.ts";

/**
 * Pyth's push-oracle price accounts (`PriceUpdateV2` of the Pyth Solana Receiver), the oracle format marginfi v2
 * accepts as `OracleSetup::PythPushOracle`. On mainnet the oracle network posts them; on the localnet the
 * localnet writes them itself (see oracle-feed.ts), at the same addresses and in the same bytes.
 */

/** Pyth Solana Receiver: owner of every PriceUpdateV2 account (marginfi checks it). */
export const PYTH_RECEIVER_PROGRAM = "rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ";
/** Pyth Push Oracle: its PDAs ([shard u16 LE, feed id]) are the sponsored price feed accounts. */
export const PYTH_PUSH_ORACLE_PROGRAM = "pythWSnswVUd12oZpeFP8e9CVaEqJg25g1Vtc2biRsT";
/** The shard Pyth itself sponsors. */
export const PYTH_SPONSORED_SHARD = 0;
/** PriceUpdateV2::LEN. */
export const PRICE_UPDATE_V2_SIZE = 134;
/** Prices are posted with this exponent (as Pyth's USD feeds are). */
export const PYTH_PRICE_EXPONENT = -8;

/** A Pyth feed marginfi banks are pointed at: its id (hex, as Pyth publishes it) and the mint it prices. */
export interface PythFeed {
  symbol: string;
  mint: string;
  /** 32-byte feed id, hex without 0x. */
  feedIdHex: string;
}

/** Pyth's mainnet feed ids of the localnet's lending currencies. */
export const PYTH_FEEDS: readonly PythFeed[] = [
  {
    symbol: "USDC",
    mint: USDC_MINT_ADDRESS,
    feedIdHex: "eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a",
  },
  {
    symbol: "SOL",
    mint: WRAPPED_SOL_MINT_ADDRESS,
    feedIdHex: "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d",
  },
];

const PRICE_UPDATE_V2_DISCRIMINATOR = createHash("sha256")
  .update("account:PriceUpdateV2")
  .digest()
  .subarray(0, 8);

export function pythFeedId(feed: PythFeed): Uint8Array {
  return Uint8Array.from(Buffer.from(feed.feedIdHex, "hex"));
}

/** The sponsored price feed account of `feed` (Pyth Push Oracle PDA [shard u16 LE, feed id]). */
export function pythPriceFeedAddress(feed: PythFeed, shard = PYTH_SPONSORED_SHARD): string {
  const shardBytes = new Uint8Array(2);
  new DataView(shardBytes.buffer).setUint16(0, shard, true);
  return findProgramAddressSync([shardBytes, pythFeedId(feed)], PYTH_PUSH_ORACLE_PROGRAM)[0];
}

/** One price as a PriceUpdateV2 carries it: price and confidence in units of 10^exponent. */
export interface PythPrice {
  price: bigint;
  conf: bigint;
  publishTime: bigint;
  postedSlot: bigint;
}

/**
 * The bytes of a fully verified (VerificationLevel::Full) PriceUpdateV2: discriminator, write authority,
 * verification level, PriceFeedMessage {feed id, price, conf, exponent, publish time, previous publish time,
 * EMA price, EMA conf}, posted slot. The EMA is the price itself.
 */
export function encodePriceUpdateV2(feed: PythFeed, p: PythPrice, writeAuthority: string): Uint8Array {
  const data = new Uint8Array(PRICE_UPDATE_V2_SIZE);
  const v = new DataView(data.buffer);
  data.set(PRICE_UPDATE_V2_DISCRIMINATOR, 0);
  data.set(decodeAddress(writeAuthority), 8);
  data[40] = 1; // VerificationLevel::Full
  data.set(pythFeedId(feed), 41);
  v.setBigInt64(73, p.price, true);
  v.setBigUint64(81, p.conf, true);
  v.setInt32(89, PYTH_PRICE_EXPONENT, true);
  v.setBigInt64(93, p.publishTime, true);
  v.setBigInt64(101, p.publishTime, true);
  v.setBigInt64(109, p.price, true);
  v.setBigUint64(117, p.conf, true);
  v.setBigUint64(125, p.postedSlot, true);
  return data;
}

/** The publish time (unix seconds) of a PriceUpdateV2's bytes. */
export function readPublishTime(data: Uint8Array): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigInt64(93, true);
}
