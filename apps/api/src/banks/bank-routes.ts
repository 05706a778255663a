import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { readBigInt } from "../db/database.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Nullable, NullableString, Pubkey, withErrors } from "../http/schemas.ts";
import { BANK_COLUMNS, type BankRow, toBankView } from "./bank-view.ts";

/** Bank routes: one bank, a wallet's banks, authorization and the delegation (marginfi) view. */
export function registerBankRoutes(app: FastifyInstance, ctx: AppContext): void {
  async function findBank(pubkey: string) {
    const [row] = await ctx.db.query<BankRow>(`SELECT ${BANK_COLUMNS} FROM banks WHERE pubkey = $1`, [
      pubkey,
    ]);
    return row;
  }

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/bank/bank",
    {
      description: "One bank by address; an unknown bank answers 200 with a null body (client rule: null).",
      tags: ["banks"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: Nullable(Type.Ref("Bank")) }),
    },
    async ({ pubkey }) => {
      const row = await findBank(pubkey);
      return row === undefined ? null : toBankView(row);
    },
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/bank/user",
    {
      description: "Banks owned by a wallet (one per currency).",
      tags: ["banks"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: Type.Array(Type.Ref("Bank")) }),
    },
    async ({ pubkey }) => {
      const rows = await ctx.db.query<BankRow>(
        `SELECT ${BANK_COLUMNS} FROM banks WHERE owner = $1 ORDER BY created_at, pubkey`,
        [pubkey],
      );
      return rows.map(toBankView);
    },
  );

  getRoute<{ authority: string; bank: string }, unknown>(
    app,
    "/dirty/authorization",
    {
      description:
        "Whether `authority` may manage `bank` (deposit, withdraw, create or update its pools): only the bank " +
        "owner can. Unknown bank: isAuthorized false and owner null.",
      tags: ["banks"],
      querystring: Type.Object({ authority: Pubkey, bank: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          authority: Pubkey,
          bank: Pubkey,
          owner: NullableString(),
          isAuthorized: Type.Boolean(),
        }),
      }),
    },
    async ({ authority, bank }) => {
      const row = await findBank(bank);
      return { authority, bank, owner: row?.owner ?? null, isAuthorized: row?.owner === authority };
    },
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/marginfi/bank",
    {
      description:
        "Delegation of a bank's idle liquidity to an external lending protocol (marginfi). The Cistern program " +
        "does not delegate yet, so `delegatedLiquidity` is the bank's on-chain figure (always 0 today), " +
        "`isDelegationSupported` is false and there is no external account. Unknown bank: null.",
      tags: ["banks"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Nullable(
          Type.Object({
            bank: Pubkey,
            mint: Pubkey,
            delegatedLiquidity: Type.String(),
            isDelegationSupported: Type.Boolean(),
            externalAccount: Type.Null(),
          }),
        ),
      }),
    },
    async ({ pubkey }) => {
      const row = await findBank(pubkey);
      if (row === undefined) return null;
      return {
        bank: row.pubkey,
        mint: row.mint,
        delegatedLiquidity: readBigInt(row.delegated_liquidity).toString(),
        isDelegationSupported: false,
        externalAccount: null,
      };
    },
  );
}
