/**
 * The least amount (base units, >= 1) that `probe` accepts, for a monotone probe (if x is accepted, so is every
 * larger x): from `start`, doubling until accepted (giving up above `start` x `maxMultiple`), then bisecting.
 * `probe` answers what it found for an accepted amount, null otherwise.
 */
export async function findLeastAmount<T>(
  start: bigint,
  maxMultiple: bigint,
  probe: (amount: bigint) => Promise<T | null>,
): Promise<{ amount: bigint; found: T } | null> {
  if (start <= 0n) return null;
  let hi = start;
  let found = await probe(hi);
  while (found === null) {
    if (hi > start * maxMultiple) return null;
    hi *= 2n;
    found = await probe(hi);
  }
  let lo = 0n; // never accepted; hi always is
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    const r = await probe(mid);
    if (r === null) lo = mid;
    else [hi, found] = [mid, r];
  }
  return { amount: hi, found };
}
