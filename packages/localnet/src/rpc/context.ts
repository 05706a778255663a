import type { Chain } from "../chain.ts";
import type { LocalKeypair } from "../keypair.ts";
import type { WorldAdmin } from "../world-admin.ts";

/** What every RPC handler may use. */
export interface RpcContext {
  chain: Chain;
  faucet: LocalKeypair;
  identity: string;
  adminEnabled: boolean;
  admin: WorldAdmin;
}

/** An RPC method: params in, JSON-able result (or a promise of one) out. */
export type RpcHandler = (params: unknown[], ctx: RpcContext) => unknown;

/** `{context:{slot,apiVersion}, value}` as agave wraps most results. */
export function withContext(
  ctx: RpcContext,
  value: unknown,
): { context: { apiVersion: string; slot: number }; value: unknown } {
  return { context: { apiVersion: API_VERSION, slot: ctx.chain.slot }, value };
}

/** The agave version localnet reports. */
export const API_VERSION = "2.3.0";
