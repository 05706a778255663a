import { parsePriceMicroUsd } from "@cistern/protocol";
import { decodeAddress } from "../base58.ts";
import type { ChainEvent, ChainListener } from "../chain.ts";
import { getDemoAddress } from "../demo-address.ts";
import { DEMO_TOKENS } from "../demo-world.ts";
import type { WorldAdmin } from "../world-admin.ts";
import {
  encodePriceUpdateV2,
  PRICE_UPDATE_V2_SIZE,
  PYTH_FEEDS,
  PYTH_PRICE_EXPONENT,
  PYTH_RECEIVER_PROGRAM,
  type PythFeed,
  pythPriceFeedAddress,
} from "./pyth-price-update.ts";

/** The feed is looked at every this many slots (2 s at the default 400 ms slot). */
export const ORACLE_FEED_EVERY_SLOTS = 5;
/**
 * A price is re-posted when it changed or its last post is this old (marginfi's banks accept 60 s): each post is a
 * ledger line, so an unchanged price is not rewritten every look, nor on a restart that finds it recent.
 */
export const ORACLE_REPOST_AFTER_SECONDS = 20n;
/** The write authority the localnet's price updates name (on mainnet: the Pyth receiver's poster). */
export const LOCALNET_ORACLE_WRITE_AUTHORITY = getDemoAddress("localnet-pyth-poster");
/** Confidence interval posted: price / 2000 (0.05%, a calm market). */
const CONF_DIVISOR = 2000n;

/** The localnet's price of `feed` in units of 10^PYTH_PRICE_EXPONENT USD: the demo world's seeded price. */
export function localnetOraclePrice(feed: PythFeed): bigint {
  const token = DEMO_TOKENS.find((t) => t.mint === feed.mint);
  const micro = token ? parsePriceMicroUsd(token.priceUsd) : null;
  if (micro === null || micro === undefined) throw new Error(`no localnet price for ${feed.symbol}`);
  return micro * 10n ** BigInt(-PYTH_PRICE_EXPONENT - 6);
}

/** The localnet's oracle feeder, as its handle exposes it. */
export interface MarginfiOracleFeed {
  /** Addresses of the price accounts it keeps, by currency symbol. */
  readonly accounts: Readonly<Record<string, string>>;
  /** Posts every feed now (publish time = the chain's clock). */
  refresh(): Promise<void>;
  /** Posts the feeds that are missing, changed or ORACLE_REPOST_AFTER_SECONDS old. */
  refreshIfDue(): Promise<void>;
  /** Stops posting (the feeds go stale as time passes, as when the oracle network stalls). */
  pause(): void;
  /** Posts now and every few slots again. */
  resume(): Promise<void>;
  /** Detaches from the chain. */
  stop(): void;
}

/**
 * Keeps one Pyth PriceUpdateV2 account per lending currency (at Pyth's sponsored feed address, owned by the Pyth
 * receiver) current from the localnet's price source every ORACLE_FEED_EVERY_SLOTS slots. This is the
 * localnet's doing: on mainnet those accounts are posted by the Pyth oracle network.
 */
export function startMarginfiOracleFeed(
  admin: WorldAdmin,
  everySlots = ORACLE_FEED_EVERY_SLOTS,
): MarginfiOracleFeed {
  const chain = admin.chain;
  const rent = chain.svm.minimumBalanceForRentExemption(BigInt(PRICE_UPDATE_V2_SIZE));
  let running = true;
  let inFlight: Promise<void> | null = null;
  const accounts = Object.fromEntries(PYTH_FEEDS.map((f) => [f.symbol, pythPriceFeedAddress(f)]));
  /** Whether the account of `feed` is missing, holds another price or was posted long enough ago. */
  const due = (feed: PythFeed, price: bigint, now: bigint): boolean => {
    const data = chain.svm.getAccount(decodeAddress(pythPriceFeedAddress(feed)))?.data();
    if (!data || data.length !== PRICE_UPDATE_V2_SIZE) return true;
    const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
    return v.getBigInt64(73, true) !== price || now - v.getBigInt64(93, true) >= ORACLE_REPOST_AFTER_SECONDS;
  };
  const post = (onlyDue: boolean): Promise<void> =>
    admin.batch((pending) => {
      const publishTime = BigInt(chain.unixTimestamp());
      for (const feed of PYTH_FEEDS) {
        const price = localnetOraclePrice(feed);
        if (onlyDue && !due(feed, price, publishTime)) continue;
        const address = pythPriceFeedAddress(feed);
        const data = encodePriceUpdateV2(
          feed,
          { price, conf: price / CONF_DIVISOR, publishTime, postedSlot: BigInt(chain.slot) },
          LOCALNET_ORACLE_WRITE_AUTHORITY,
        );
        pending.set(address, {
          address,
          lamports: rent.toString(),
          data: Buffer.from(data).toString("base64"),
          owner: PYTH_RECEIVER_PROGRAM,
          executable: false,
        });
      }
    });
  const listener: ChainListener = {
    onCommitted(_events: ChainEvent[], _slot: number) {},
    onSlot(slot: number) {
      if (!running || inFlight || slot % everySlots !== 0) return;
      inFlight = post(true)
        .catch((e: unknown) => console.error(`localnet: oracle feed failed: ${e}`))
        .finally(() => {
          inFlight = null;
        });
    },
  };
  chain.addListener(listener);
  return {
    accounts,
    refresh: () => post(false),
    refreshIfDue: () => post(true),
    pause() {
      running = false;
    },
    async resume() {
      running = true;
      await post(false);
    },
    stop() {
      running = false;
      chain.removeListener(listener);
    },
  };
}
