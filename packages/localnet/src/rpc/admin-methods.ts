import { decodeAddress } from "../base58.ts";
import { DEMO_WORLD } from "../demo-world.ts";
import { invalidParams } from "../errors.ts";
import type { RpcHandler } from "./context.ts";
import { asParams, config, str, uint } from "./params.ts";

function baseUnits(v: unknown, what: string): bigint {
  if (typeof v !== "string" || !/^\d{1,20}$/.test(v))
    throw invalidParams(`Invalid params: ${what} must be a decimal string of base units`);
  const n = BigInt(v);
  if (n > (1n << 64n) - 1n) throw invalidParams(`Invalid params: ${what} exceeds u64`);
  return n;
}

/** Development controls (`localnet_` namespace), served only when admin is enabled. */
export const adminMethods: Record<string, RpcHandler> = {
  localnet_advanceClock: async (params, ctx) => {
    const seconds = uint(asParams(params), 0, "seconds");
    const unixTimestamp = await ctx.admin.advanceClock(seconds);
    return { unixTimestamp, offsetSeconds: ctx.chain.clockOffsetSeconds, slot: ctx.chain.slot };
  },
  localnet_setAccount: async (params, ctx) => {
    const p = asParams(params);
    const addr = str(p, 0, "address");
    const c = config(p, 1);
    const lamports =
      typeof c.lamports === "number" ? BigInt(Math.trunc(c.lamports)) : baseUnits(c.lamports, "lamports");
    const data = c.data ?? "";
    if (typeof data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(data))
      throw invalidParams("Invalid params: data must be base64");
    const owner = c.owner ?? "11111111111111111111111111111111";
    if (typeof owner !== "string") throw invalidParams("Invalid params: owner must be an address");
    await ctx.admin.setAccount(addr, {
      lamports,
      data: Buffer.from(data, "base64"),
      owner,
      executable: c.executable === true,
    });
    return true;
  },
  localnet_fundWallet: async (params, ctx) => {
    const p = asParams(params);
    const owner = str(p, 0, "address");
    const c = config(p, 1);
    const lamports = c.lamports === undefined ? undefined : baseUnits(c.lamports, "lamports");
    const tokensRaw = c.tokens ?? [];
    if (!Array.isArray(tokensRaw)) throw invalidParams("Invalid params: tokens must be an array");
    const tokens = tokensRaw.map((t: { mint?: unknown; amount?: unknown }) => {
      if (!t || typeof t.mint !== "string") throw invalidParams("Invalid params: token entries need a mint");
      return { mint: t.mint, amount: baseUnits(t.amount, "amount") };
    });
    await ctx.admin.fundWallet(owner, { lamports, tokens });
    return true;
  },
  localnet_faucet: (params, ctx) => ctx.admin.faucet(str(asParams(params), 0, "address")),
  localnet_demoWorld: () => DEMO_WORLD,
  /** The programs the demo rule set allows to hold, receive or be delegated the demo pNFTs (every other is refused). */
  localnet_setDemoRuleSetPrograms: async (params, ctx) => {
    const programs = asParams(params)[0];
    if (!Array.isArray(programs))
      throw invalidParams("Invalid params: programs must be an array of addresses");
    for (const a of programs) decodeAddress(a);
    await ctx.admin.setDemoRuleSetPrograms(programs as string[]);
    return true;
  },
};
