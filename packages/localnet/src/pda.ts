import { deriveProgramAddress } from "@cistern/sdk";
import type { Address } from "@solana/kit";

/** Derivations remembered per process (the demo world's PDAs recur on every start and every faucet call). */
const PDA_CACHE_LIMIT = 50_000;
const cache = new Map<string, [string, number]>();

/**
 * Synchronous find_program_address (the SDK's derivation, the one the API and the web use), memoised. Synchronous
 * so admin writes can read-modify-write without yielding.
 */
export function findProgramAddressSync(seeds: Uint8Array[], programAddress: string): [string, number] {
  const key = `${programAddress}:${seeds.map((s) => Buffer.from(s).toString("hex")).join(":")}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const [pda, bump] = deriveProgramAddress({ programAddress: programAddress as Address, seeds });
  if (cache.size >= PDA_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, [pda, bump]);
  return [pda, bump];
}
