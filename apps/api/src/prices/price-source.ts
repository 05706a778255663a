/** USD price of one whole token (not a base unit), as a decimal string with up to 9 decimals. */
export type UsdPrice = string;

const USD_DECIMALS = 9;
const USD_SCALE = 10n ** BigInt(USD_DECIMALS);

/** Parses a USD decimal string ("12.5") into nano-USD (bigint); throws on anything else. */
export function parseUsdNanos(text: string): bigint {
  const match = /^(\d{1,15})(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (match === null) throw new Error(`Invalid USD price '${text}'`);
  return BigInt(match[1]!) * USD_SCALE + BigInt((match[2] ?? "").padEnd(USD_DECIMALS, "0"));
}

/** Formats nano-USD as a decimal string without trailing zeros ("12.5", "3"). */
export function formatUsdNanos(nanos: bigint): UsdPrice {
  const whole = nanos / USD_SCALE;
  const fraction = (nanos % USD_SCALE).toString().padStart(USD_DECIMALS, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}
