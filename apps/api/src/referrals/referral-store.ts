import { getTransactionDecoder } from "@solana/kit";
import type { Database } from "../db/database.ts";
import { hashMessage } from "../tx/sender/issued-messages.ts";

/** Pending referrals (never seen landing) are forgotten this long after they were built. */
export const PENDING_REFERRAL_TTL_SECONDS = 86_400;

/** What one built transaction carries when a referrer came with the builder request. */
export interface ReferralRecord {
  referrer: string;
  /** The wallet that signs and pays for the transactions (the builder's fee payer). */
  wallet: string;
  /** The builder route, e.g. "/nft/take-loan". */
  action: string;
  /** The issued transactions (base64 wire format, unsigned). */
  transactions: readonly string[];
  builtAtSeconds: number;
}

/**
 * Records a referral per issued transaction, keyed by the SHA-256 of its message bytes: the indexer links it
 * when a loan event's transaction carries exactly that message. A wallet referring itself is not recorded.
 * Pending rows older than a day are deleted on the way.
 */
export async function recordReferral(db: Database, r: ReferralRecord): Promise<number> {
  if (r.referrer === r.wallet) return 0;
  const decoder = getTransactionDecoder();
  const hashes = r.transactions.map((b64) =>
    hashMessage(decoder.decode(Buffer.from(b64, "base64")).messageBytes),
  );
  const builtAt = Math.floor(r.builtAtSeconds);
  await db.query("DELETE FROM referrals WHERE signature IS NULL AND built_at < $1", [
    builtAt - PENDING_REFERRAL_TTL_SECONDS,
  ]);
  for (const hash of hashes)
    await db.query(
      `INSERT INTO referrals (message_hash, referrer, wallet, action, built_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (message_hash) DO NOTHING`,
      [hash, r.referrer, r.wallet, r.action, builtAt],
    );
  return hashes.length;
}
