import { randomBytes } from "node:crypto";
import {
  buildCalendar,
  formatAmount,
  formatMoney,
  getCalendarFeedMessage,
  getLoanCalendarEvents,
  LOAN_STATUS_ONGOING,
} from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { readBigInt } from "../db/database.ts";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { Pubkey, withErrors } from "../http/schemas.ts";
import { createSignedMessageStore } from "../tx/auth/signed-message-store.ts";
import { acceptSignedMessage } from "../tx/auth/wallet-message.ts";

const Signed = {
  signature: Type.String({ maxLength: 100, description: "wallet signature of `message` (base58 or base64)" }),
  message: Type.String({
    maxLength: 400,
    description: "the calendar message exactly as issued (single use, expires)",
  }),
};

/** The feed's address for a token (relative to the API). */
export const calendarFeedPath = (token: string) => `/calendar/${token}.ics`;

/**
 * The per-wallet calendar feed: POST /calendar/feed-message issues the message a wallet signs, POST
 * /calendar/feed accepts its signature once and answers the wallet's private feed URL (a new one revokes the
 * old), GET /calendar/{token}.ics answers the wallet's ongoing loans' due dates and grace ends (RFC 5545, the
 * same events as each loan row's download), read-only and refreshed by calendar apps on their own schedule.
 */
export function registerCalendarRoutes(app: FastifyInstance, ctx: AppContext): void {
  const store = createSignedMessageStore(ctx.db);

  app.post(
    "/calendar/feed-message",
    {
      schema: {
        description:
          "Issues the message a wallet signs to get its private calendar feed (10 minutes to sign).",
        tags: ["users"],
        body: Type.Object({ wallet: Pubkey }, { additionalProperties: false }),
        response: withErrors({
          200: Type.Object({ message: Type.String(), nonce: Type.String(), expiresAt: Type.Integer() }),
        }),
      },
    },
    async (request) => {
      const { wallet } = request.body as { wallet: string };
      const issued = await store.issue({
        wallet,
        purpose: "calendar-feed",
        firstLine: getCalendarFeedMessage(wallet),
        nowSeconds: ctx.now(),
      });
      return { message: issued.message, nonce: issued.nonce, expiresAt: issued.expiresAt };
    },
  );

  app.post(
    "/calendar/feed",
    {
      schema: {
        description:
          "Accepts the wallet's signature of the calendar message once and answers its private feed URL; " +
          "asking again issues a new URL and the old one stops working.",
        tags: ["users"],
        body: Type.Object({ wallet: Pubkey, ...Signed }, { additionalProperties: false }),
        response: withErrors({
          200: Type.Object({ wallet: Pubkey, path: Type.String(), token: Type.String() }),
        }),
      },
    },
    async (request) => {
      const b = request.body as { wallet: string; message: string; signature: string };
      await acceptSignedMessage(store, {
        wallet: b.wallet,
        purpose: "calendar-feed",
        message: b.message,
        signature: b.signature,
        nowSeconds: ctx.now(),
      });
      const token = randomBytes(24).toString("base64url");
      await ctx.db.query(
        `INSERT INTO calendar_feeds (wallet, token, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (wallet) DO UPDATE SET token = EXCLUDED.token, created_at = EXCLUDED.created_at`,
        [b.wallet, token, Math.floor(ctx.now())],
      );
      return { wallet: b.wallet, path: calendarFeedPath(token), token };
    },
  );

  app.get(
    "/calendar/:file",
    {
      schema: {
        description:
          "A wallet's private calendar feed (text/calendar): its ongoing loans' due dates and grace ends.",
        tags: ["users"],
        params: Type.Object({ file: Type.String({ pattern: "^[A-Za-z0-9_-]{32}\\.ics$" }) }),
        response: withErrors({ 200: Type.String() }),
      },
    },
    async (request, reply) => {
      const token = (request.params as { file: string }).file.slice(0, -4);
      const [feed] = await ctx.db.query<{ wallet: string }>(
        "SELECT wallet FROM calendar_feeds WHERE token = $1",
        [token],
      );
      if (feed === undefined)
        throw new ApiError(ERROR_CODES.NOT_FOUND, "This calendar feed does not exist (or was replaced).");
      const rows = await ctx.db.query<{
        pubkey: string;
        created_at: unknown;
        duration: unknown;
        principal: unknown;
        currency: string;
        collateral_amount: unknown;
        collateral_mint: string;
        is_defi: boolean;
        name: string | null;
      }>(
        `SELECT l.pubkey, l.created_at, l.duration, l.principal, l.currency, l.collateral_amount, l.collateral_mint,
           l.is_defi, c.name
         FROM loans l LEFT JOIN collections c ON c.collection_id = l.collection
         WHERE l.borrower = $1 AND l.status = $2 ORDER BY l.expired_at LIMIT 200`,
        [feed.wallet, LOAN_STATUS_ONGOING],
      );
      const tokens = new Map((await ctx.catalog.getCatalog()).tokens.map((t) => [t.mint, t]));
      const events = rows.flatMap((r) => {
        const token = tokens.get(r.collateral_mint);
        const collateral = r.is_defi
          ? `${formatAmount(readBigInt(r.collateral_amount), token?.decimals ?? 0)} ${token?.symbol ?? "tokens"}`
          : (r.name ?? "an NFT");
        return getLoanCalendarEvents({
          pubkey: r.pubkey,
          createdAt: Number(r.created_at),
          duration: Number(r.duration),
          collateral,
          principal: formatMoney(readBigInt(r.principal), r.currency),
        });
      });
      reply.header("content-type", "text/calendar; charset=utf-8");
      reply.header("cache-control", "private, max-age=300");
      return buildCalendar(events, Math.floor(await ctx.chainNow()));
    },
  );
}
