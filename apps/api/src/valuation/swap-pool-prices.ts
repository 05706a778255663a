import { decodeSwapPool, decodeVenuesAccount, findSwapPoolPda, findVenuesPda, NO_VENUE } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import type { RpcClient } from "../solana/rpc-client.ts";
import { SlotTwap } from "./slot-twap.ts";
import type { CatalogTokenRef, TokenPriceSource, TokenReading } from "./valuation-types.ts";

/** USDC: the unit prices are counted in on the localnet (1 USDC = 1 USD there; no other dollar exists on it). */
export const LOCAL_USD_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const USDC_DECIMALS = 6;
const NANOS = 1_000_000_000n;
/** Default TWAP window: 150 slots (about a minute at 400 ms). */
export const DEFAULT_TWAP_WINDOW_SLOTS = 150;

/** How often pools still missing are looked up again, milliseconds. */
const POOL_LOOKUP_MS = 1_000;

interface PoolRef {
  mint: string;
  decimals: number;
  /** The token's vault and USDC's vault of its pool. */
  tokenVault: Address;
  usdVault: Address;
}

/**
 * Token prices on the localnet from the local swap venue the lending program pins: each token's pool against
 * USDC, read every slot (`refreshMs`, the slot time) and averaged over `windowSlots` (slot-twap.ts: a one-slot
 * swap moves the price by at most 10% / window). USDC is the unit (price 1). A token without a USDC pool has
 * no price. Reads one getMultipleAccounts of every pool's two vaults per refresh.
 */
export function createSwapPoolPriceSource(
  rpc: RpcClient,
  lendingProgramId: Address,
  options: { windowSlots?: number; refreshMs?: number; now?: () => number } = {},
): TokenPriceSource {
  const windowSlots = options.windowSlots ?? DEFAULT_TWAP_WINDOW_SLOTS;
  const now = options.now ?? (() => Date.now() / 1000);
  const twaps = new Map<string, SlotTwap>();
  let pools: Promise<PoolRef[]> | undefined;
  let poolKey = "";
  let lookedAt = 0;

  async function findPools(tokens: readonly CatalogTokenRef[]): Promise<PoolRef[]> {
    const [venues] = await findVenuesPda(lendingProgramId);
    const [account] = (await rpc.getMultipleAccounts([venues])).accounts;
    const program = account ? decodeVenuesAccount(account.data).swapProgram : NO_VENUE;
    if (program === NO_VENUE) return [];
    const priced = tokens.filter((t) => t.mint !== LOCAL_USD_MINT);
    const addresses = await Promise.all(
      priced.map(
        async (t) => (await findSwapPoolPda(program, t.mint as Address, LOCAL_USD_MINT as Address))[0],
      ),
    );
    const { accounts } = await rpc.getMultipleAccounts(addresses);
    const found: PoolRef[] = [];
    priced.forEach((t, i) => {
      const a = accounts[i];
      if (!a || a.owner !== program) return;
      const pool = decodeSwapPool(a.data);
      const tokenIsA = pool.mintA === t.mint;
      found.push({
        mint: t.mint,
        decimals: t.decimals,
        tokenVault: tokenIsA ? pool.vaultA : pool.vaultB,
        usdVault: tokenIsA ? pool.vaultB : pool.vaultA,
      });
    });
    return found;
  }

  return {
    name: "swap-pools",
    refreshMs: options.refreshMs ?? 400,
    async fetchTokens(tokens) {
      const key = tokens.map((t) => t.mint).join(",");
      const missing = (await pools)?.length !== tokens.filter((t) => t.mint !== LOCAL_USD_MINT).length;
      // the pools are looked up once, and again every second while some token has none (a pool created later)
      if (pools === undefined || key !== poolKey || (missing && Date.now() - lookedAt > POOL_LOOKUP_MS)) {
        poolKey = key;
        lookedAt = Date.now();
        pools = findPools(tokens);
        pools.catch(() => {
          pools = undefined;
        });
      }
      const refs = await pools;
      const out = new Map<string, TokenReading>();
      const at = now();
      if (tokens.some((t) => t.mint === LOCAL_USD_MINT))
        out.set(LOCAL_USD_MINT, {
          mint: LOCAL_USD_MINT,
          priceNanos: NANOS,
          confidenceNanos: 0n,
          observedAt: at,
          source: "unit",
        });
      if (refs.length === 0) return out;
      const { slot, accounts } = await rpc.getMultipleAccounts(
        refs.flatMap((r) => [r.tokenVault, r.usdVault]),
      );
      refs.forEach((r, i) => {
        const tokenVault = accounts[2 * i];
        const usdVault = accounts[2 * i + 1];
        if (!tokenVault || !usdVault) return;
        const tokenReserve = Buffer.from(tokenVault.data).readBigUInt64LE(64);
        const usdReserve = Buffer.from(usdVault.data).readBigUInt64LE(64);
        if (tokenReserve === 0n || usdReserve === 0n) return;
        // USD per whole token = usd reserve / 10^6 per (token reserve / 10^decimals), in nano-USD
        const spot =
          (usdReserve * 10n ** BigInt(r.decimals) * NANOS) / (tokenReserve * 10n ** BigInt(USDC_DECIMALS));
        let twap = twaps.get(r.mint);
        if (twap === undefined) {
          twap = new SlotTwap(windowSlots);
          twaps.set(r.mint, twap);
        }
        twap.observe(slot, spot, at);
        const value = twap.value()!;
        out.set(r.mint, {
          mint: r.mint,
          priceNanos: value.priceNanos,
          confidenceNanos: value.confidenceNanos,
          observedAt: value.at,
          source: "swap-pools",
        });
      });
      return out;
    },
  };
}
