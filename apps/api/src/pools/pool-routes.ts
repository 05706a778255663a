import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { BANK_COLUMNS, type BankRow, toBankView } from "../banks/bank-view.ts";
import { readNumber } from "../db/database.ts";
import { createResponseCache } from "../http/response-cache.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Nullable, Pagination, Pubkey, StringEnum, withErrors } from "../http/schemas.ts";
import { POOL_COLUMNS, POOL_FROM, type PoolRow, toPoolView } from "./pool-view.ts";
import { POOL_LIST_CHANNEL } from "./stored-views.ts";

const PoolsWithBanks = Type.Object({
  pools: Type.Array(Type.Ref("Pool")),
  banks: Type.Array(Type.Ref("Bank")),
  totalCount: Type.Integer(),
});

/** Pool routes: one pool, pools by owner, the pool list, metadata and whitelists. */
export async function registerPoolRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Cached as the JSON text PostgreSQL composed: a hit is a plain write, no query, no serialisation. Dropped as
  // soon as any process writes a pool's or bank's JSON (NOTIFY); LIST_CACHE_MS bounds an answer's age if a
  // notification is lost while the listening connection reconnects.
  const poolListCache = createResponseCache<string>(ctx.config.listCacheMs);
  if (ctx.config.listCacheMs > 0) {
    const unlisten = await ctx.db.listen(POOL_LIST_CHANNEL, () => poolListCache.clear());
    app.addHook("onClose", unlisten);
  }

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/pool/pool",
    {
      description:
        "One pool by address. An unknown (or never indexed) pool answers 200 with a null body: the client's " +
        "'pool fetch failure returns null' rule, without an error round trip.",
      tags: ["pools"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: Nullable(Type.Ref("Pool")) }),
    },
    async ({ pubkey }) => {
      const [row] = await ctx.db.query<PoolRow>(
        `SELECT ${POOL_COLUMNS} FROM ${POOL_FROM} WHERE p.pubkey = $1`,
        [pubkey],
      );
      return row === undefined ? null : toPoolView(row);
    },
  );

  getRoute<{ owner: string; limit: number; offset: number }, unknown>(
    app,
    "/pool/get-by-owner",
    {
      description:
        "Pools of an owner (closed ones included, newest first) and the owner's banks (getPoolsByOwner).",
      tags: ["pools"],
      querystring: Type.Object({ owner: Pubkey, ...Pagination }, { additionalProperties: false }),
      response: withErrors({ 200: PoolsWithBanks }),
    },
    async ({ owner, limit, offset }) => {
      const [rows, count, bankRows] = await Promise.all([
        ctx.db.query<PoolRow>(
          `SELECT ${POOL_COLUMNS} FROM ${POOL_FROM} WHERE p.owner = $1 ORDER BY p.created_at DESC, p.pubkey
           LIMIT $2 OFFSET $3`,
          [owner, limit, offset],
        ),
        ctx.db.query<{ n: unknown }>("SELECT count(*) AS n FROM pools WHERE owner = $1", [owner]),
        ctx.db.query<BankRow>(
          `SELECT ${BANK_COLUMNS} FROM banks WHERE owner = $1 ORDER BY created_at, pubkey`,
          [owner],
        ),
      ]);
      return {
        pools: rows.map(toPoolView),
        banks: bankRows.map(toBankView),
        totalCount: readNumber(count[0]?.n),
      };
    },
  );

  getRoute<
    { currency?: string; type?: string; owner?: string; status?: string; limit: number; offset: number },
    unknown
  >(
    app,
    "/dirty/pools",
    {
      description:
        "Pools with their banks, newest first. Filters: currency (mint), type, owner, status " +
        "(default: open and frozen, i.e. not closed; 'all' for every pool). The same for every client, so an " +
        "answer is reused until the indexer writes a pool or bank, and for at most LIST_CACHE_MS (default 10 s).",
      tags: ["pools"],
      querystring: Type.Object(
        {
          currency: Type.Optional(Pubkey),
          type: Type.Optional(StringEnum(["nft-pool", "defi-pool"] as const)),
          owner: Type.Optional(Pubkey),
          status: Type.Optional(StringEnum(["Open", "Frozen", "Closed", "all"] as const)),
          ...Pagination,
        },
        { additionalProperties: false },
      ),
      response: withErrors({ 200: PoolsWithBanks }),
    },
    async (query, _request, reply) => {
      const body = await poolListCache.get(JSON.stringify(query), () => listPools(query));
      return reply.type("application/json; charset=utf-8").send(body);
    },
  );

  /**
   * The list's answer as JSON text, composed whole by PostgreSQL from the JSON kept with each pool and bank
   * (stored-views.ts; one prepared statement: the page's keys by an index walk, its pools and banks, the count
   * from pool_counts), so the API process only writes it out. The text is sent as it came, with no copy: a
   * joined copy and its bytes (about 90 KiB an answer) outlived the young generation under load and brought a
   * full collection every ~130 ms at 500 req/s.
   */
  async function listPools(query: {
    currency?: string;
    type?: string;
    owner?: string;
    status?: string;
    limit: number;
    offset: number;
  }): Promise<string> {
    // Only the filters present go into the SQL (fixed column names, values bound), so the planner can
    // use the partial indexes on live pools ordered by creation.
    const conditions: string[] = [];
    const params: (string | number)[] = [];
    const add = (sql: string, value: string) => {
      params.push(value);
      conditions.push(sql.replace("?", `$${params.length}`));
    };
    if (query.currency !== undefined) add("p.currency = ?", query.currency);
    if (query.type !== undefined) add("p.pool_type = ?", query.type);
    if (query.owner !== undefined) add("p.owner = ?", query.owner);
    if (query.status === undefined) conditions.push("p.status <> 'Closed'");
    else if (query.status !== "all") add("p.status = ?", query.status);
    const where = conditions.length === 0 ? "TRUE" : conditions.join(" AND ");
    // pool_counts has the currency, type and status columns the filters name; an owner's pools are few
    const count =
      query.owner === undefined
        ? `SELECT coalesce(sum(n), 0) FROM pool_counts p WHERE ${where}`
        : `SELECT count(*) FROM pools p WHERE ${where}`;
    params.push(query.limit, query.offset);
    // Each page row is looked up by key (a lateral subquery the planner keeps as an index lookup, so the
    // statement's one reusable plan stays right for any page); pools first, then their banks once each.
    const [row] = await ctx.db.queryPrepared<{ body: string }>(
      `WITH page AS (
         SELECT k.pubkey, row_number() OVER (ORDER BY k.created_at DESC, k.pubkey) AS i
         FROM (SELECT p.pubkey, p.created_at FROM pools p WHERE ${where}
               ORDER BY p.created_at DESC, p.pubkey LIMIT $${params.length - 1} OFFSET $${params.length}) k
       ), listed AS (
         SELECT page.i, x.bank, x.view_json FROM page
         CROSS JOIN LATERAL (SELECT p.bank, p.view_json FROM pools p WHERE p.pubkey = page.pubkey OFFSET 0) x
       )
       SELECT concat('{"pools":[', (SELECT string_agg(view_json, ',' ORDER BY i) FROM listed),
         '],"banks":[', (SELECT string_agg((SELECT b.view_json FROM banks b WHERE b.pubkey = f.bank), ',' ORDER BY f.i)
          FROM (SELECT bank, min(i) AS i FROM listed GROUP BY bank) f),
         '],"totalCount":', (${count}), '}') AS body`,
      params,
    );
    return row!.body;
  }

  getRoute<{ pubkeys?: string; limit: number; offset: number }, unknown>(
    app,
    "/dirty/pools-metadata",
    {
      description:
        "Pool metadata (name, thumbnail) by pool key (getPoolsMetadata). `pubkeys` (comma separated, at most " +
        "100) selects pools; without it every pool is listed, paginated.",
      tags: ["pools"],
      querystring: Type.Object(
        {
          pubkeys: Type.Optional(Type.String({ pattern: "^[1-9A-HJ-NP-Za-km-z,]{32,4500}$" })),
          ...Pagination,
        },
        { additionalProperties: false },
      ),
      response: withErrors({
        200: Type.Array(
          Type.Object({
            pubkey: Pubkey,
            metadata: Type.Object({ name: Type.String(), thumbnail: Type.String() }),
          }),
        ),
      }),
    },
    async ({ pubkeys, limit, offset }) => {
      const keys = pubkeys === undefined ? null : parsePubkeyList(pubkeys);
      const rows = await ctx.db.query<{ pubkey: string; name: string; thumbnail: string }>(
        `SELECT pubkey, name, thumbnail FROM pools WHERE ($1::text[] IS NULL OR pubkey = ANY($1::text[]))
         ORDER BY pubkey LIMIT $2 OFFSET $3`,
        [keys, limit, offset],
      );
      return rows.map((r) => ({ pubkey: r.pubkey, metadata: { name: r.name, thumbnail: r.thumbnail } }));
    },
  );

  getRoute<{ limit: number; offset: number }, unknown>(
    app,
    "/dirty/pools-whitelist",
    {
      description:
        "Pools that lend only to a whitelist (private loans): pool key and the address lookup table holding it.",
      tags: ["pools"],
      querystring: Type.Object({ ...Pagination }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Array(Type.Object({ pubkey: Pubkey, owner: Pubkey, whitelist: Pubkey })),
      }),
    },
    async ({ limit, offset }) => {
      const rows = await ctx.db.query<{ pubkey: string; owner: string; whitelist: string }>(
        `SELECT pubkey, owner, conditions->>'whitelist' AS whitelist FROM pools
         WHERE status <> 'Closed' AND (conditions->>'isWhitelistEnabled')::boolean
         ORDER BY pubkey LIMIT $1 OFFSET $2`,
        [limit, offset],
      );
      return rows;
    },
  );
}

/** Splits a comma-separated address list; throws a 400 for an invalid or too long list. */
export function parsePubkeyList(text: string, max = 100): string[] {
  const keys = text.split(",").filter((k) => k.length > 0);
  return [...new Set(keys)].slice(0, max).filter((k) => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(k));
}
