import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { readCursor } from "../indexer/store.ts";

/** Indexer lag in slots: the confirmed slot minus the indexer's cursor (null without a program). */
export async function readIndexerLagSlots(ctx: AppContext): Promise<number | null> {
  const programId = ctx.config.lendingProgramId;
  if (programId === undefined || !ctx.config.indexerEnabled) return null;
  const [cursor, slot] = await Promise.all([readCursor(ctx.db, programId), ctx.rpc.getSlot()]);
  return cursor === null ? slot : Math.max(0, slot - cursor.slot);
}

/**
 * `GET /health`: the process answers. `GET /ready`: the database answers and the indexer is within
 * `readyMaxLagSlots` of the chain (the indexer saves its cursor at least every reconcile interval, so an
 * idle program does not look stale); 503 otherwise, with the reason.
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/health", { schema: { hide: true } }, async () => ({ ok: true }));
  app.get("/ready", { schema: { hide: true } }, async (_request, reply) => {
    const database = await ctx.db.query("SELECT 1 AS ok").then(
      () => "ok",
      (e: unknown) => `unreachable: ${e instanceof Error ? e.message : String(e)}`,
    );
    const lag = await readIndexerLagSlots(ctx).then(
      (slots) => ({ slots, error: null as string | null }),
      (e: unknown) => ({ slots: null, error: e instanceof Error ? e.message : String(e) }),
    );
    const maxLag = ctx.config.readyMaxLagSlots;
    const indexer =
      lag.error !== null
        ? `chain unreachable: ${lag.error}`
        : lag.slots === null
          ? "not running"
          : lag.slots <= maxLag
            ? "ok"
            : `behind by ${lag.slots} slots (more than ${maxLag})`;
    const ready = database === "ok" && (indexer === "ok" || indexer === "not running");
    reply.code(ready ? 200 : 503);
    return { ready, database, indexer, indexerLagSlots: lag.slots };
  });
}
