import { PRODUCT_DISPLAY_NAME } from "@cistern/protocol";
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import type { Queryable } from "../db/database.ts";
import { readNumber } from "../db/database.ts";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { EpochSeconds, Pubkey, withErrors } from "../http/schemas.ts";
import {
  createSignedMessageStore,
  type IssuedSignedMessage,
  type SignedMessagePurpose,
} from "../tx/auth/signed-message-store.ts";
import { acceptSignedMessage, isWalletSignature } from "../tx/auth/wallet-message.ts";

/** Most wallets one user may link (besides its own). */
export const MAX_LINKED_ADDRESSES = 32;

/** Serialises link writes across API processes (the checks span several rows). */
const LINK_LOCK_KEY = 7_401_012;

/** First line of the message both wallets sign to link `address` to `user`. */
export function getAddressLinkMessage(user: string, address: string): string {
  return `Link the wallet ${address} to the ${PRODUCT_DISPLAY_NAME} user ${user}`;
}

/** First line of the message a wallet signs to end the link of `address` to `user`. */
export function getAddressUnlinkMessage(user: string, address: string): string {
  return `Unlink the wallet ${address} from the ${PRODUCT_DISPLAY_NAME} user ${user}`;
}

/** What GET /user/user-addresses answers. */
export const UserAddressesSchema = Type.Object({
  pubkey: Pubkey,
  /** the user `pubkey` belongs to: itself, or the user it is linked to */
  user: Pubkey,
  addresses: Type.Array(Pubkey, {
    description: "every wallet of that user: the user's own first, then the linked ones, oldest link first",
  }),
  linked: Type.Array(Type.Object({ address: Pubkey, linkedAt: EpochSeconds }), {
    description: "the wallets linked to the user with POST /user/link-address (empty when none)",
  }),
});

type UserAddresses = Static<typeof UserAddressesSchema>;

/** The wallets of the user `pubkey` belongs to, from the stored links. */
export async function getUserAddresses(db: Queryable, pubkey: string): Promise<UserAddresses> {
  const [owner] = await db.query<{ user_pubkey: string }>(
    "SELECT user_pubkey FROM user_addresses WHERE address = $1",
    [pubkey],
  );
  const user = owner?.user_pubkey ?? pubkey;
  const rows = await db.query<{ address: string; linked_at: unknown }>(
    "SELECT address, linked_at FROM user_addresses WHERE user_pubkey = $1 ORDER BY linked_at, address",
    [user],
  );
  const linked = rows.map((r) => ({ address: r.address, linkedAt: readNumber(r.linked_at) }));
  return { pubkey, user, addresses: [user, ...linked.map((l) => l.address)], linked };
}

function unprocessable(message: string): ApiError {
  return new ApiError(ERROR_CODES.UNPROCESSABLE, message);
}

function badRequest(message: string, field: string): ApiError {
  return new ApiError(ERROR_CODES.INVALID_INPUT, message, { params: { field } });
}

/** Why `address` cannot be linked to `user` now, or null. */
async function findLinkRefusal(db: Queryable, user: string, address: string): Promise<string | null> {
  const rows = await db.query<{ address: string; user_pubkey: string }>(
    "SELECT address, user_pubkey FROM user_addresses WHERE address = ANY($1::text[]) OR user_pubkey = ANY($1::text[])",
    [[user, address]],
  );
  const addressLink = rows.find((r) => r.address === address);
  if (addressLink !== undefined) {
    return addressLink.user_pubkey === user
      ? `${address} is already linked to ${user}`
      : `${address} is linked to the user ${addressLink.user_pubkey}: unlink it there first`;
  }
  const userLink = rows.find((r) => r.address === user);
  if (userLink !== undefined)
    return `${user} is itself a wallet linked to the user ${userLink.user_pubkey}: link ${address} to that user`;
  if (rows.some((r) => r.user_pubkey === address))
    return `${address} has wallets linked to it: a linked wallet cannot have links of its own`;
  if (rows.filter((r) => r.user_pubkey === user).length >= MAX_LINKED_ADDRESSES)
    return `${user} already has ${MAX_LINKED_ADDRESSES} linked wallets: unlink one first`;
  return null;
}

const Issued = Type.Object({ message: Type.String(), nonce: Type.String(), expiresAt: Type.Integer() });
const signature = (who: string) =>
  Type.String({ maxLength: 100, description: `${who}'s signature of its message (base58 or base64)` });
const message = (who: string, route: string) =>
  Type.String({ maxLength: 400, description: `${who}'s message exactly as ${route} issued it (single use)` });

const issuedView = (m: IssuedSignedMessage) => ({
  message: m.message,
  nonce: m.nonce,
  expiresAt: m.expiresAt,
});

/**
 * Linked wallets: POST /user/address-link-message issues one message for the user and one for the wallet to link
 * (both name the two wallets), POST /user/link-address stores the link when both signatures verify; POST
 * /user/address-unlink-message and /user/unlink-address end a link on the signature of either wallet.
 */
export function registerAddressLinkRoutes(app: FastifyInstance, ctx: AppContext): void {
  const store = createSignedMessageStore(ctx.db);
  const now = () => ctx.now();

  /** Checks a presented message is the one for this action and pair (the store checks it was issued to that wallet). */
  function assertFirstLine(text: string, expected: string, field: string): void {
    if (text.split("\n")[0] !== expected)
      throw badRequest(`${field} is not the message for this pair: it must start with "${expected}"`, field);
  }

  const accept = (
    wallet: string,
    purpose: SignedMessagePurpose,
    signed: { message: string; signature: string },
  ) => acceptSignedMessage(store, { wallet, purpose, ...signed, nowSeconds: now() });

  app.post(
    "/user/address-link-message",
    {
      schema: {
        description:
          "Issues the two messages that link `address` to the user `user`: `userMessage` for the user's wallet and " +
          "`addressMessage` for the wallet to link, each naming both wallets (10 minutes to sign, single use). " +
          "Refused (422) when the link could not be made.",
        tags: ["users"],
        body: Type.Object({ user: Pubkey, address: Pubkey }, { additionalProperties: false }),
        response: withErrors({
          200: Type.Object({ user: Pubkey, address: Pubkey, userMessage: Issued, addressMessage: Issued }),
        }),
      },
    },
    async (request) => {
      const { user, address } = request.body as { user: string; address: string };
      if (user === address) throw badRequest("address must be another wallet than user", "body.address");
      const refusal = await findLinkRefusal(ctx.db, user, address);
      if (refusal !== null) throw unprocessable(refusal);
      const firstLine = getAddressLinkMessage(user, address);
      const [userMessage, addressMessage] = await Promise.all(
        [user, address].map((wallet) =>
          store.issue({ wallet, purpose: "address-link", firstLine, nowSeconds: now() }),
        ),
      );
      return {
        user,
        address,
        userMessage: issuedView(userMessage!),
        addressMessage: issuedView(addressMessage!),
      };
    },
  );

  app.post(
    "/user/link-address",
    {
      schema: {
        description:
          "Links `address` to the user `user` when both wallets signed their message from " +
          "POST /user/address-link-message; answers the user's wallets.",
        tags: ["users"],
        body: Type.Object(
          {
            user: Pubkey,
            address: Pubkey,
            userMessage: message("the user", "POST /user/address-link-message"),
            userSignature: signature("the user"),
            addressMessage: message("the linked wallet", "POST /user/address-link-message"),
            addressSignature: signature("the linked wallet"),
          },
          { additionalProperties: false },
        ),
        response: withErrors({ 200: UserAddressesSchema }),
      },
    },
    async (request) => {
      const b = request.body as {
        user: string;
        address: string;
        userMessage: string;
        userSignature: string;
        addressMessage: string;
        addressSignature: string;
      };
      if (b.user === b.address) throw badRequest("address must be another wallet than user", "body.address");
      const firstLine = getAddressLinkMessage(b.user, b.address);
      assertFirstLine(b.userMessage, firstLine, "body.userMessage");
      assertFirstLine(b.addressMessage, firstLine, "body.addressMessage");
      // both signatures are checked before either message is used up
      if (!(await isWalletSignature(b.address, b.addressMessage, b.addressSignature)))
        throw new ApiError(
          ERROR_CODES.SIGNATURE_INVALID,
          `addressSignature is not ${b.address}'s signature of addressMessage`,
        );
      const refusal = await findLinkRefusal(ctx.db, b.user, b.address);
      if (refusal !== null) throw unprocessable(refusal);
      await accept(b.user, "address-link", { message: b.userMessage, signature: b.userSignature });
      await accept(b.address, "address-link", { message: b.addressMessage, signature: b.addressSignature });
      await ctx.db.transaction(async (q) => {
        await q.query("SELECT pg_advisory_xact_lock($1)", [LINK_LOCK_KEY]);
        const late = await findLinkRefusal(q, b.user, b.address);
        if (late !== null) throw unprocessable(late);
        await q.query("INSERT INTO user_addresses (address, user_pubkey, linked_at) VALUES ($1, $2, $3)", [
          b.address,
          b.user,
          Math.floor(now()),
        ]);
      });
      return getUserAddresses(ctx.db, b.user);
    },
  );

  const UnlinkPair = { user: Pubkey, address: Pubkey, signer: Pubkey };

  /** The stored link of `address` to `user` and a signer that may end it (either wallet), or a 4xx. */
  async function requireLink(user: string, address: string, signer: string): Promise<void> {
    if (signer !== user && signer !== address)
      throw badRequest("signer must be the user or the linked wallet", "body.signer");
    const [row] = await ctx.db.query<{ user_pubkey: string }>(
      "SELECT user_pubkey FROM user_addresses WHERE address = $1",
      [address],
    );
    if (row?.user_pubkey !== user) throw unprocessable(`${address} is not linked to the user ${user}`);
  }

  app.post(
    "/user/address-unlink-message",
    {
      schema: {
        description:
          "Issues the message that ends the link of `address` to `user`, for `signer` to sign: the user or the " +
          "linked wallet itself (10 minutes, single use).",
        tags: ["users"],
        body: Type.Object(UnlinkPair, { additionalProperties: false }),
        response: withErrors({ 200: Issued }),
      },
    },
    async (request) => {
      const { user, address, signer } = request.body as { user: string; address: string; signer: string };
      await requireLink(user, address, signer);
      const issued = await store.issue({
        wallet: signer,
        purpose: "address-unlink",
        firstLine: getAddressUnlinkMessage(user, address),
        nowSeconds: now(),
      });
      return issuedView(issued);
    },
  );

  app.post(
    "/user/unlink-address",
    {
      schema: {
        description:
          "Ends the link of `address` to `user` on `signer`'s signature of the message from " +
          "POST /user/address-unlink-message; answers the user's wallets.",
        tags: ["users"],
        body: Type.Object(
          {
            ...UnlinkPair,
            message: message("the signer", "POST /user/address-unlink-message"),
            signature: signature("the signer"),
          },
          { additionalProperties: false },
        ),
        response: withErrors({ 200: UserAddressesSchema }),
      },
    },
    async (request) => {
      const b = request.body as {
        user: string;
        address: string;
        signer: string;
        message: string;
        signature: string;
      };
      await requireLink(b.user, b.address, b.signer);
      assertFirstLine(b.message, getAddressUnlinkMessage(b.user, b.address), "body.message");
      await accept(b.signer, "address-unlink", { message: b.message, signature: b.signature });
      await ctx.db.query("DELETE FROM user_addresses WHERE address = $1 AND user_pubkey = $2", [
        b.address,
        b.user,
      ]);
      return getUserAddresses(ctx.db, b.user);
    },
  );
}
