import { rpc } from "./stack.ts";

/** What a wallet holds of `mint` on the chain now (every token account of it), base units. */
export async function getTokenBalance(rpcUrl: string, owner: string, mint: string): Promise<bigint> {
  const result = await rpc<{
    value: { account: { data: { parsed: { info: { tokenAmount: { amount: string } } } } } }[];
  }>(rpcUrl, "getTokenAccountsByOwner", [owner, { mint }, { encoding: "jsonParsed" }]);
  return result.value.reduce((s, a) => s + BigInt(a.account.data.parsed.info.tokenAmount.amount), 0n);
}

/** An account's data as the chain holds it now (confirmed). */
export async function getAccountData(rpcUrl: string, address: string): Promise<Uint8Array> {
  const result = await rpc<{ value: { data: [string, string] } | null }>(rpcUrl, "getAccountInfo", [
    address,
    { encoding: "base64", commitment: "confirmed" },
  ]);
  return new Uint8Array(Buffer.from(result.value!.data[0], "base64"));
}

/** A USDC amount as a page shows it ("1,000.21 USDC ≈ $1,000") -> base units. */
export function parseShownUsdc(text: string): bigint {
  const [whole = "0", fraction = ""] = text
    .split("≈")[0]!
    .replace(/[^0-9.]/g, "")
    .split(".");
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6));
}
