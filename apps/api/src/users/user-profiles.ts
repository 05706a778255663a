import type { AppContext } from "../app-context.ts";

/** A user as the spec's getUserProfile answers it: the user id is the wallet address. */
export interface UserView {
  pubkey: string;
  userId: string;
  profile: { username: string; image: string } | null;
}

/** Users for wallet addresses, in the order asked, with the profile each set through POST /user/update. */
export async function getUserProfiles(ctx: AppContext, pubkeys: readonly string[]): Promise<UserView[]> {
  if (pubkeys.length === 0) return [];
  const rows = await ctx.db.query<{ pubkey: string; username: string; image: string }>(
    "SELECT pubkey, username, image FROM user_profiles WHERE pubkey = ANY($1::text[])",
    [[...pubkeys]],
  );
  const byPubkey = new Map(rows.map((r) => [r.pubkey, { username: r.username, image: r.image }]));
  return pubkeys.map((pubkey) => ({ pubkey, userId: pubkey, profile: byPubkey.get(pubkey) ?? null }));
}
