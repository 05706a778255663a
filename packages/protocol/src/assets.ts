/**
 * Wallet assets and liability series as the product shows them.
 */
import { LIABILITIES_SCALE } from "./constants.ts";
import { readNumber, readRecord, readString } from "./server-fields.ts";

/**
 * Sort NFTs by floor price: descending, NaN (or missing) first, infinite values last.
 * Returns a new array; equal prices keep their input order.
 */
export function sortAssetsByFloorPrice<T extends { floorPrice?: number | null }>(assets: readonly T[]): T[] {
  const rank = (price: number) => (Number.isNaN(price) ? 0 : Number.isFinite(price) ? 1 : 2);
  return [...assets].sort((a, b) => {
    const pa = typeof a.floorPrice === "number" ? a.floorPrice : Number.NaN;
    const pb = typeof b.floorPrice === "number" ? b.floorPrice : Number.NaN;
    const ra = rank(pa);
    const rb = rank(pb);
    if (ra !== rb) return ra - rb;
    return ra === 1 ? pb - pa : 0;
  });
}

/** One point of the liabilities series. */
export interface LiabilitiesPoint {
  date: string;
  liabilities: number;
  assets: number;
}

/** Parse the liabilities series; liability and asset values are divided by 10000. */
export function parseLiabilitiesSeries(input: unknown): LiabilitiesPoint[] {
  if (!Array.isArray(input)) return [];
  return input.map((item, i) => {
    const raw = readRecord("liabilities", `[${i}]`, item);
    return {
      date: readString("liabilities", `[${i}].date`, raw.date),
      liabilities: readNumber("liabilities", `[${i}].liabilities`, raw.liabilities) / LIABILITIES_SCALE,
      assets: readNumber("liabilities", `[${i}].assets`, raw.assets) / LIABILITIES_SCALE,
    };
  });
}
