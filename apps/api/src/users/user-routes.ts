import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getTopChatUsers, searchChatUsers } from "../chat/chat-store.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Pubkey, withErrors } from "../http/schemas.ts";
import { parsePubkeyList } from "../pools/pool-routes.ts";
import { getReferralFigures, ReferralFigures } from "../referrals/referral-figures.ts";
import { getUserAddresses, registerAddressLinkRoutes, UserAddressesSchema } from "./address-links.ts";
import { computeDroplets } from "./droplets.ts";
import { getUserProfiles } from "./user-profiles.ts";

const UserSchema = Type.Object({
  pubkey: Pubkey,
  userId: Pubkey,
  profile: Type.Union([Type.Object({ username: Type.String(), image: Type.String() }), Type.Null()], {
    description: "what the wallet set with POST /user/update; null when it never set one",
  }),
});

const ChatUser = Type.Object({ userId: Pubkey, username: Type.String(), messages: Type.Integer() });

/** User routes: profiles, linked wallets, chat users, droplets and referrals. */
export function registerUserRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerAddressLinkRoutes(app, ctx);
  const getUsers = (pubkeys: string[]) => getUserProfiles(ctx, pubkeys);

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/user/user",
    {
      description:
        "A user (getUserProfile). The user id is the wallet address; `profile` is what it set with POST /user/update.",
      tags: ["users"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: UserSchema }),
    },
    async ({ pubkey }) => (await getUsers([pubkey]))[0],
  );

  const PubkeyList = Type.String({ pattern: "^[1-9A-HJ-NP-Za-km-z,]{32,4500}$" });
  getRoute<{ pubkeys: string | string[] }, unknown>(
    app,
    "/user/multiple-users",
    {
      description:
        "Users for a list of wallet addresses: `pubkeys` comma separated or repeated (at most 100; invalid " +
        "entries dropped).",
      tags: ["users"],
      querystring: Type.Object(
        { pubkeys: Type.Union([PubkeyList, Type.Array(PubkeyList, { minItems: 1, maxItems: 100 })]) },
        { additionalProperties: false },
      ),
      response: withErrors({ 200: Type.Array(UserSchema) }),
    },
    async ({ pubkeys }) => getUsers(parsePubkeyList(Array.isArray(pubkeys) ? pubkeys.join(",") : pubkeys)),
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/user/user-addresses",
    {
      description:
        "The wallets of the user `pubkey` belongs to (`user`: itself, or the user it is linked to): the user's own " +
        "wallet first, then the wallets linked with POST /user/link-address (each signed a message naming the " +
        "user, and so did the user), oldest link first. `linked` lists the links alone (empty when none).",
      tags: ["users"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: UserAddressesSchema }),
    },
    async ({ pubkey }) => getUserAddresses(ctx.db, pubkey),
  );

  getRoute<{ limit: number }, unknown>(
    app,
    "/user/top-users-chat",
    {
      description: "The wallets that sent the most chat messages, with their display names.",
      tags: ["users"],
      querystring: Type.Object(
        { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })) },
        { additionalProperties: false },
      ),
      response: withErrors({ 200: Type.Array(ChatUser) }),
    },
    async ({ limit }) => getTopChatUsers(ctx.db, limit),
  );

  getRoute<{ query: string }, unknown>(
    app,
    "/user/search-users-chat",
    {
      description:
        "Chat users whose display name contains `query` (any case) or whose wallet address starts with it, " +
        "most active first (at most 20).",
      tags: ["users"],
      querystring: Type.Object({ query: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
      response: withErrors({ 200: Type.Array(ChatUser) }),
    },
    async ({ query }) => searchChatUsers(ctx.db, query),
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/user/user-droplets",
    {
      description:
        "Droplets, the points programme: 1 droplet per USD-day of principal the wallet had outstanding as " +
        "borrower or as lender, from the indexed on-chain loan history (each loan from creation to its " +
        "repayment, extension, sale or liquidation; ongoing loans up to now), principal valued at today's prices.",
      tags: ["users"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          pubkey: Pubkey,
          droplets: Type.Integer({
            description: "whole droplets: floor(borrowedUsdDays) + floor(lentUsdDays)",
          }),
          borrowedUsdDays: Type.Number({ description: "USD-days of principal borrowed" }),
          lentUsdDays: Type.Number({ description: "USD-days of principal lent from the wallet's pools" }),
        }),
      }),
    },
    async ({ pubkey }) => computeDroplets(ctx, pubkey, await ctx.chainNow()),
  );

  getRoute<{ referrer: string }, unknown>(
    app,
    "/user/referrals",
    {
      description:
        "What a referrer brought: wallets whose referred transactions landed, loans they took through a " +
        "referred transaction and that principal per currency (base units and USD at today's prices).",
      tags: ["users"],
      querystring: Type.Object({ referrer: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: ReferralFigures }),
    },
    async ({ referrer }) => getReferralFigures(ctx, referrer),
  );
}
