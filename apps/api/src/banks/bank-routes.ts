import { address } from "@cistern/sdk";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { readBigInt } from "../db/database.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Nullable, NullableString, Pubkey, withErrors } from "../http/schemas.ts";
import type { BankDelegation } from "../venues/lending/lending-venue.ts";
import { createLendingVenueReader } from "../venues/lending/lending-venue-reader.ts";
import { BANK_COLUMNS, type BankRow, toBankView } from "./bank-view.ts";

const VenueName = Type.Union([Type.Literal("local"), Type.Literal("marginfi"), Type.Null()], {
  description: "which lending venue answered: the local lending venue (embedded default) or marginfi",
});

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

  const venue = createLendingVenueReader(
    ctx.rpc,
    ctx.config,
    ctx.config.lendingProgramId === undefined ? undefined : address(ctx.config.lendingProgramId),
  );
  const Amount = (description: string) => Type.String({ description: `${description}, base units` });
  getRoute<{ mint: string }, unknown>(
    app,
    "/marginfi/reserve",
    {
      description:
        "The pinned lending venue's reserve of a currency and its yearly rate: what a bank's delegated idle " +
        "liquidity earns. `isDelegationSupported` false when no venue or reserve takes the currency (or the venue " +
        "could not be read: `venueError`).",
      tags: ["banks"],
      querystring: Type.Object({ mint: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          mint: Pubkey,
          isDelegationSupported: Type.Boolean(),
          venue: VenueName,
          reserve: NullableString(),
          rateBps: Type.Integer({ description: "yearly rate, basis points (0 without a reserve)" }),
          venueError: NullableString(),
        }),
      }),
    },
    async ({ mint }) => {
      try {
        const r = venue === null ? null : await venue.reserve(address(mint));
        return {
          mint,
          isDelegationSupported: r !== null,
          venue: r === null || venue === null ? null : venue.name,
          reserve: r?.reserve ?? null,
          rateBps: r?.rateBps ?? 0,
          venueError: null,
        };
      } catch {
        return {
          mint,
          isDelegationSupported: false,
          venue: null,
          reserve: null,
          rateBps: 0,
          venueError: "The lending venue could not be read just now; try again in a moment.",
        };
      }
    },
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/marginfi/bank",
    {
      description:
        "A bank's delegation of idle liquidity to the lending venue (marginfi v2 when MARGINFI_GROUP is configured: " +
        "the bank's marginfi account, at the lending program's PDA, owned by the bank's PDA, valued at marginfi's " +
        "last accrual; else the local lending venue the program pins): what the bank's books hold delegated (at " +
        "cost for the local venue; marginfi's value at the bank's last delegation move for marginfi), what the position is worth at the venue's " +
        "share price now, the yield earned (the bank's), the venue's rate and whether the hourly re-delegation " +
        "is on. Neither venue has a withdrawal cooldown (cooldownLiquidity 0, cooldownPeriod 0). Unknown bank: null.",
      tags: ["banks"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Nullable(
          Type.Object({
            bank: Pubkey,
            mint: Pubkey,
            isDelegationSupported: Type.Boolean({
              description: "a lending venue is pinned with a reserve of this mint",
            }),
            venue: VenueName,
            venueError: NullableString({
              description: "why the venue's figures are missing, when it could not be read",
            }),
            venueProgram: NullableString(),
            reserve: NullableString(),
            externalAccount: NullableString({ description: "the bank's position in the venue" }),
            rateBps: Type.Integer({
              description: "the venue's yearly rate, basis points (0 without a venue)",
            }),
            delegatedLiquidity: Amount(
              "delegated in the bank's books (local venue: principal at cost; marginfi: its value at the last move)",
            ),
            positionShares: Type.String(),
            positionValue: Amount("what the position is worth now"),
            earnedYield: Amount("positionValue - delegatedLiquidity (never below 0)"),
            cooldownLiquidity: Type.String(),
            cooldownPeriod: Type.Integer(),
            autoDelegate: Type.Boolean({
              description: "the delegation keeper re-delegates idle funds hourly",
            }),
          }),
        ),
      }),
    },
    async ({ pubkey }) => {
      const row = await findBank(pubkey);
      if (row === undefined) return null;
      const delegated = readBigInt(row.delegated_liquidity);
      let d: BankDelegation | null = null;
      let venueError: string | null = null;
      try {
        d =
          venue === null
            ? null
            : await venue.delegation(address(pubkey), address(row.mint), await ctx.chainNow());
      } catch {
        // a degraded answer rather than a 5xx: the indexed figures stand, the venue's part says why it is missing
        venueError = "The lending venue could not be read just now; try again in a moment.";
      }
      const value = d?.positionValue ?? 0n;
      return {
        bank: pubkey,
        mint: row.mint,
        isDelegationSupported: d !== null,
        venue: d === null || venue === null ? null : venue.name,
        venueError,
        venueProgram: d?.venueProgram ?? null,
        reserve: d?.reserve ?? null,
        externalAccount: d === null || d.shares === 0n ? null : d.position,
        rateBps: d?.rateBps ?? 0,
        delegatedLiquidity: delegated.toString(),
        positionShares: (d?.shares ?? 0n).toString(),
        positionValue: value.toString(),
        earnedYield: (value > delegated ? value - delegated : 0n).toString(),
        cooldownLiquidity: "0",
        cooldownPeriod: 0,
        autoDelegate: (row.delegators ?? []).length > 0,
      };
    },
  );
}
