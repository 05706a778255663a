import {
  type Address,
  getAddressEncoder,
  getProgramDerivedAddress,
  type ProgramDerivedAddress,
  type ReadonlyUint8Array,
} from "@solana/kit";

type PdaInput = Parameters<typeof getProgramDerivedAddress>[0];

/** Derivations remembered (a PDA search costs SHA-256 and a curve check per bump tried; the same seeds recur). */
const PDA_CACHE_LIMIT = 50_000;
const cache = new Map<string, Promise<ProgramDerivedAddress>>();

const seedKey = (seed: PdaInput["seeds"][number]) =>
  typeof seed === "string" ? `s${seed}` : `b${Buffer.from(seed as Uint8Array).toString("hex")}`;

/**
 * `getProgramDerivedAddress`, memoised (the oldest of at most 50,000 derivations is forgotten first). Every
 * PDA of the SDK and the API is found through it.
 */
export function findProgramDerivedAddress(input: PdaInput): Promise<ProgramDerivedAddress> {
  const key = `${input.programAddress}|${input.seeds.map(seedKey).join("|")}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const derived = getProgramDerivedAddress(input);
  if (cache.size >= PDA_CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, derived);
  derived.catch(() => cache.delete(key));
  return derived;
}

/** Address bytes remembered (decoding base58 costs a BigInt conversion; the same addresses recur). */
const ADDRESS_CACHE_LIMIT = 50_000;
const addressCache = new Map<string, ReadonlyUint8Array>();

/** The 32 bytes of an address, memoised (PDA seeds, instruction data). */
export function addressBytes(value: Address): ReadonlyUint8Array {
  let bytes = addressCache.get(value);
  if (bytes === undefined) {
    bytes = getAddressEncoder().encode(value);
    if (addressCache.size >= ADDRESS_CACHE_LIMIT) addressCache.delete(addressCache.keys().next().value!);
    addressCache.set(value, bytes);
  }
  return bytes;
}
