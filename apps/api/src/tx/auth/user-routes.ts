import { SIGNED_LINK_MESSAGE } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { Pubkey, withErrors } from "../../http/schemas.ts";
import { refreshPoolViews } from "../../pools/stored-views.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, toRequestError, unprocessable } from "../tx-errors.ts";
import { acceptSignedMessage } from "./wallet-message.ts";

const Signed = {
  signature: Type.String({
    maxLength: 100,
    description: "wallet signature of `message` (base58 or base64)",
  }),
  message: Type.String({
    maxLength: 400,
    description: "the link message exactly as POST /user/link-message issued it (single use, expires)",
  }),
};

const PoolUpdateBody = Type.Object(
  {
    pool: Pubkey,
    owner: Pubkey,
    ...Signed,
    name: Type.Optional(Type.String({ maxLength: 64 })),
    thumbnail: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);
const UserUpdateBody = Type.Object(
  {
    pubkey: Pubkey,
    ...Signed,
    username: Type.Optional(Type.String({ maxLength: 32, pattern: "^[^\\u0000-\\u001f]*$" })),
    image: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
);

async function checkImage(tx: TxContext, field: string, url: string | undefined): Promise<void> {
  if (url === undefined || url === "") return;
  const r = await tx.app.images.check(url);
  if (!r.accepted) throw badRequest(`${field} rejected: ${r.reason}`);
}

function acceptLink(tx: TxContext, wallet: string, signed: { message: string; signature: string }) {
  return acceptSignedMessage(tx.signedMessages, {
    wallet,
    purpose: "link",
    message: signed.message,
    signature: signed.signature,
    nowSeconds: tx.app.now(),
  });
}

/**
 * POST /user/link-message (issues the link message for a wallet), then POST /pool/update (pool name and
 * thumbnail; the signer must own the pool on chain) and POST /user/update (username and image), each
 * authorised by the wallet's signature of an issued link message, accepted once.
 */
export function registerUserUpdateRoutes(app: FastifyInstance, tx: TxContext): void {
  app.post(
    "/user/link-message",
    {
      schema: {
        description:
          "Issues the link message for `wallet` to sign: the spec's first line, then the wallet, a nonce and an " +
          "expiry (10 minutes). POST /pool/update and /user/update accept its signature once.",
        tags: ["users"],
        body: Type.Object({ wallet: Pubkey }, { additionalProperties: false }),
        response: withErrors({
          200: Type.Object({ message: Type.String(), nonce: Type.String(), expiresAt: Type.Integer() }),
        }),
      },
    },
    async (request) => {
      const { wallet } = request.body as { wallet: string };
      const issued = await tx.signedMessages.issue({
        wallet,
        purpose: "link",
        firstLine: SIGNED_LINK_MESSAGE,
        nowSeconds: tx.app.now(),
      });
      return { message: issued.message, nonce: issued.nonce, expiresAt: issued.expiresAt };
    },
  );

  app.post(
    "/pool/update",
    {
      schema: {
        description:
          "Sets a pool's name and thumbnail. Authorised by the pool owner's signature of the link message.",
        tags: ["users"],
        body: PoolUpdateBody,
        response: withErrors({
          200: Type.Object({ pool: Type.String(), name: Type.String(), thumbnail: Type.String() }),
        }),
      },
    },
    async (request) => {
      const b = request.body as {
        pool: string;
        owner: string;
        signature: string;
        message: string;
        name?: string;
        thumbnail?: string;
      };
      try {
        // checks that need no signature first, so a refused request does not use up the signed message
        const pool = await tx.state.getPool(b.pool);
        if (pool === null) throw badRequest(`unknown pool ${b.pool}`);
        if (pool.owner !== b.owner) throw badRequest(`${b.owner} is not the owner of pool ${b.pool}`);
        await checkImage(tx, "thumbnail", b.thumbnail);
        await acceptLink(tx, b.owner, b);
        const rows = await tx.app.db.query<{ name: string; thumbnail: string }>(
          `UPDATE pools SET name = COALESCE($2, name), thumbnail = COALESCE($3, thumbnail)
           WHERE pubkey = $1 RETURNING name, thumbnail`,
          [b.pool, b.name ?? null, b.thumbnail ?? null],
        );
        if (rows.length === 0)
          throw unprocessable(`pool ${b.pool} is not indexed yet; try again in a moment`);
        await refreshPoolViews(tx.app.db, "pubkey", b.pool);
        return { pool: b.pool, name: rows[0]!.name, thumbnail: rows[0]!.thumbnail };
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );

  app.post(
    "/user/update",
    {
      schema: {
        description:
          "Sets the wallet's username and image. Authorised by the wallet's signature of the link message.",
        tags: ["users"],
        body: UserUpdateBody,
        response: withErrors({
          200: Type.Object({ pubkey: Type.String(), username: Type.String(), image: Type.String() }),
        }),
      },
    },
    async (request) => {
      const b = request.body as {
        pubkey: string;
        signature: string;
        message: string;
        username?: string;
        image?: string;
      };
      await checkImage(tx, "image", b.image);
      await acceptLink(tx, b.pubkey, b);
      const rows = await tx.app.db.query<{ username: string; image: string }>(
        `INSERT INTO user_profiles (pubkey, username, image, updated_at) VALUES ($1, COALESCE($2, ''), COALESCE($3, ''), $4)
         ON CONFLICT (pubkey) DO UPDATE SET username = COALESCE($2, user_profiles.username),
           image = COALESCE($3, user_profiles.image), updated_at = $4
         RETURNING username, image`,
        [b.pubkey, b.username ?? null, b.image ?? null, Math.floor(tx.app.now())],
      );
      return { pubkey: b.pubkey, username: rows[0]!.username, image: rows[0]!.image };
    },
  );
}
