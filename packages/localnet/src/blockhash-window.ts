import { decodeBase58 } from "./base58.ts";

/** Slots a blockhash stays valid (agave MAX_PROCESSING_AGE). */
export const MAX_BLOCKHASH_AGE = 150;
/** Minimum validity in wall time: web3.js v1 reuses a fetched blockhash for up to 30 s. */
export const MIN_BLOCKHASH_VALIDITY_MS = 60_000;

/**
 * Blocks a blockhash stays valid at a given slot duration: 150 (as mainnet, 60 s at 400 ms), more
 * with faster slots so that it never lasts less than `minValidityMs` (60 s unless told otherwise).
 */
export function getMaxBlockhashAge(slotMs: number, minValidityMs = MIN_BLOCKHASH_VALIDITY_MS): number {
  return Math.max(MAX_BLOCKHASH_AGE, Math.ceil(minValidityMs / slotMs));
}

/** The ring of recent blockhashes a transaction may reference. */
export class BlockhashWindow {
  private byHex = new Map<string, { hash: string; height: number }>();
  private order: string[] = [];

  /** @param maxAge - blocks a blockhash stays valid */
  constructor(readonly maxAge: number = MAX_BLOCKHASH_AGE) {}

  /** Adds the blockhash produced at `height`. */
  push(hash: string, height: number): void {
    const hex = Buffer.from(decodeBase58(hash)).toString("hex");
    if (this.byHex.has(hex)) return;
    this.byHex.set(hex, { hash, height });
    this.order.push(hex);
    while (this.order.length > this.maxAge + 1) this.byHex.delete(this.order.shift()!);
  }

  /** Whether the 32-byte blockhash is still valid at `currentHeight`. */
  isValidBytes(bytes: Uint8Array, currentHeight: number): boolean {
    const e = this.byHex.get(Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString("hex"));
    return e !== undefined && currentHeight <= e.height + this.maxAge;
  }

  /** Whether the base58 blockhash is still valid at `currentHeight`. */
  isValid(hash: string, currentHeight: number): boolean {
    try {
      const bytes = decodeBase58(hash);
      return bytes.length === 32 && this.isValidBytes(bytes, currentHeight);
    } catch {
      return false;
    }
  }

  /** The newest entry. */
  latest(): { hash: string; height: number } {
    return this.byHex.get(this.order[this.order.length - 1]!)!;
  }

  /** Entries oldest first (persisted in the snapshot). */
  entries(): [string, number][] {
    return this.order.map((h) => {
      const e = this.byHex.get(h)!;
      return [e.hash, e.height];
    });
  }
}
