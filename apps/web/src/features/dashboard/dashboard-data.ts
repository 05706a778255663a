import { LIABILITIES_SCALE } from "@cistern/protocol";

const num = (v: unknown) => Number(v ?? 0);

export interface SideStats {
  totalLoans: number;
  ongoingLoans: number;
  repaidLoans: number;
  liquidatedLoans: number;
  volumeUsd: number;
}

function side(raw: unknown): SideStats {
  const r = (raw ?? {}) as Record<string, unknown>;
  return {
    totalLoans: num(r.totalLoans),
    ongoingLoans: num(r.ongoingLoans),
    repaidLoans: num(r.repaidLoans),
    liquidatedLoans: num(r.liquidatedLoans),
    volumeUsd: num(r.volumeUsd),
  };
}

/** GET /loan/stats-per-user. */
export function parseUserStats(body: unknown) {
  const r = (body ?? {}) as Record<string, unknown>;
  return { asBorrower: side(r.asBorrower), asLender: side(r.asLender) };
}

/** GET /dirty/collateralized-amount-by-user. */
export function parseCollateral(body: unknown) {
  const r = (body ?? {}) as {
    totalCollateralizedAmountUsd?: unknown;
    collateralDetails?: Record<string, unknown>[];
  };
  return {
    totalUsd: num(r.totalCollateralizedAmountUsd),
    details: (r.collateralDetails ?? []).map((d) => ({
      collateral: String(d.collateral),
      nativeAmount: BigInt(String(d.nativeAmount ?? "0")),
      usdAmount: num(d.usdAmount),
    })),
  };
}

/** GET /liquidity/liabilities: USD values come multiplied by 10000. */
export function parseLiabilities(body: unknown) {
  const list = Array.isArray(body) ? (body as Record<string, unknown>[]) : [];
  return list.map((p) => ({
    date: String(p.date),
    liabilitiesUsd: num(p.liabilities) / LIABILITIES_SCALE,
    assetsUsd: num(p.assets) / LIABILITIES_SCALE,
  }));
}

/** GET /dirty/top-users. */
export function parseTopUsers(body: unknown) {
  const list = Array.isArray(body) ? (body as Record<string, unknown>[]) : [];
  return list.map((u) => ({ user: String(u.user), loans: num(u.loans), volumeUsd: num(u.volumeUsd) }));
}

/** GET /loan/volume-stats summed per day over currencies (USD). */
export function parseVolume(body: unknown) {
  const list = Array.isArray(body) ? (body as Record<string, unknown>[]) : [];
  const byDay = new Map<number, { loans: number; volumeUsd: number }>();
  for (const row of list) {
    const day = num(row.date);
    const entry = byDay.get(day) ?? { loans: 0, volumeUsd: 0 };
    entry.loans += num(row.loans);
    entry.volumeUsd += num(row.volumeUsd);
    byDay.set(day, entry);
  }
  return [...byDay].sort((a, b) => a[0] - b[0]).map(([date, v]) => ({ date, ...v }));
}

/** GET /loan/stats-per-collection. */
export function parseCollectionStats(body: unknown) {
  const list = Array.isArray(body) ? (body as Record<string, unknown>[]) : [];
  return list.map((r) => ({
    collection: String(r.collection),
    currency: String(r.currency),
    totalLoans: num(r.totalLoans),
    ongoingLoans: num(r.ongoingLoans),
    volumeUsd: num(r.volumeUsd),
  }));
}

/** GET /tvl. */
export function parseTvl(body: unknown) {
  const r = (body ?? {}) as { tvlUsd?: unknown; byCurrency?: Record<string, unknown>[] };
  return {
    tvlUsd: num(r.tvlUsd),
    byCurrency: (r.byCurrency ?? []).map((c) => ({
      currency: String(c.currency),
      totalLiquidity: BigInt(String(c.totalLiquidity ?? "0")),
      borrowedLiquidity: BigInt(String(c.borrowedLiquidity ?? "0")),
      tvlUsd: num(c.tvlUsd),
    })),
  };
}

/** GET /loan/stats-total. */
export function parseTotals(body: unknown) {
  const r = (body ?? {}) as Record<string, unknown>;
  return { ...side(r) };
}
