import { invalidParams, LocalnetRpcError, RPC_ERROR } from "../errors.ts";
import type { RpcHandler } from "./context.ts";
import { asParams, config, uint } from "./params.ts";
import { checkTransactionVersion, metaJson, transactionJson } from "./transaction-methods.ts";

/** agave's limit on a getBlocks range. */
export const MAX_GET_BLOCKS_RANGE = 500_000;
const ENCODINGS = ["json", "jsonParsed", "base64", "base58"];
const DETAILS = ["full", "signatures", "none"];

/** getBlock and getBlocks: every slot this node produced is a block; its transactions are the ones it ran. */
export const blockMethods: Record<string, RpcHandler> = {
  getBlocks: (params, ctx) => {
    const p = asParams(params);
    const start = uint(p, 0, "start_slot");
    const end = typeof p[1] === "number" ? uint(p, 1, "end_slot") : ctx.chain.slot;
    const c = config(p, typeof p[1] === "number" ? 2 : 1);
    if (c.commitment === "processed")
      throw invalidParams("Method does not support commitment below `confirmed`");
    if (end - start > MAX_GET_BLOCKS_RANGE)
      throw invalidParams(`Slot range too large; max ${MAX_GET_BLOCKS_RANGE}`);
    const slots: number[] = [];
    for (let slot = Math.max(start, 1); slot <= Math.min(end, ctx.chain.slot); slot++)
      if (ctx.chain.block(slot) !== null) slots.push(slot);
    return slots;
  },
  getBlock: (params, ctx) => {
    const p = asParams(params);
    const slot = uint(p, 0, "slot");
    const c = typeof p[1] === "string" ? { encoding: p[1] } : config(p, 1);
    if (c.commitment === "processed")
      throw invalidParams("Method does not support commitment below `confirmed`");
    const encoding = (c.encoding ?? "json") as string;
    if (!ENCODINGS.includes(encoding)) throw invalidParams(`Invalid params: unknown variant \`${encoding}\``);
    const details = (c.transactionDetails ?? "full") as string;
    if (!DETAILS.includes(details)) throw invalidParams(`Invalid params: unknown variant \`${details}\``);
    const block = ctx.chain.block(slot);
    if (block === null)
      throw new LocalnetRpcError(RPC_ERROR.BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
    const records = ctx.chain.history.inSlot(slot);
    const out: Record<string, unknown> = { ...block };
    if (details === "full") {
      const maxVersion = c.maxSupportedTransactionVersion;
      for (const r of records) checkTransactionVersion(r, maxVersion);
      out.transactions = records.map((r) => ({
        transaction: transactionJson(r, encoding),
        meta: metaJson(r, encoding),
        ...(maxVersion !== undefined && maxVersion !== null ? { version: r.version } : {}),
      }));
    } else if (details === "signatures") {
      out.signatures = records.map((r) => r.signature);
    }
    if (c.rewards !== false) out.rewards = [];
    return out;
  },
};
