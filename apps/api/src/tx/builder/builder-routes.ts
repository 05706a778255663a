import { address, type PoolType } from "@cistern/sdk";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { TxContext } from "../tx-context.ts";
import { depositInstructions, withdrawInstructions } from "./bank-builder.ts";
import { Amount, body, Pubkey, parseBaseUnits } from "./builder-schemas.ts";
import { delegateInstructions, withdrawDelegatedInstructions } from "./delegation-builder.ts";
import { migratePlan } from "./migrate-builder.ts";
import {
  type ConditionsInput,
  closePoolInstructions,
  createPoolInstructions,
  type LimitsInput,
  updatePoolInstructions,
} from "./pool-builder.ts";
import { builderRoute, type CommonBody } from "./route-kit.ts";
import { MAX_WHITELIST_ADDRESSES } from "./whitelist-builder.ts";

const Bps = Type.Integer({ minimum: 0, maximum: 100_000 });
const UsdAmount = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: "^[0-9]+(\\.[0-9]+)?$" })]);
const Limits = Type.Object(
  {
    minDuration: Type.Integer({ description: "seconds; always 86400" }),
    maxDuration: Type.Integer({ minimum: 86_400, maximum: 31_536_000, description: "seconds" }),
    maxAmountUsd: UsdAmount,
    minAmountUsd: UsdAmount,
  },
  { additionalProperties: false },
);
const Collections = Type.Array(
  Type.Object({ collection: Pubkey, collectionLtv: Bps, exposure: Bps }, { additionalProperties: false }),
  { minItems: 1, maxItems: 8 },
);
const Currencies = Type.Array(
  Type.Object({ currency: Pubkey, currencyLtv: Bps, exposure: Bps }, { additionalProperties: false }),
  { minItems: 1, maxItems: 8 },
);
const Conditions = Type.Object(
  {
    minAge: Type.String({ description: "seconds" }),
    minLoan: Type.String(),
    minVolume: Type.String({ description: "USD" }),
    liquidationThreshold: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10_000,
        description:
          "0 only (400 otherwise): the lending program has no liquidation threshold; no borrower is refused for past liquidations",
      }),
    ),
    isEnabled: Type.Union([Type.Literal(0), Type.Literal(1)]),
    isWhitelistEnabled: Type.Union([Type.Literal(0), Type.Literal(1)]),
    whitelist: Type.String(),
    whitelistAddresses: Type.Optional(
      Type.Array(Pubkey, {
        maxItems: MAX_WHITELIST_ADDRESSES,
        description: `with isWhitelistEnabled 1 and at least one address: a new lookup table of these borrowers (at most ${MAX_WHITELIST_ADDRESSES}) is created and becomes the whitelist`,
      }),
    ),
  },
  { additionalProperties: false },
);
const Liquidation = Type.Object(
  {
    isAutoSellEnabled: Type.Boolean(),
    loanLiquidation: Type.Optional(
      Type.Integer({
        description:
          "the spec's fixed 1000 or absent (400 otherwise): it sets nothing; auto-sell sells only when the sale repays principal and interest owed",
      }),
    ),
    mortgageLiquidation: Type.Optional(
      Type.Integer({ description: "the spec's fixed 2000 or absent (400 otherwise): it sets nothing" }),
    ),
  },
  { additionalProperties: false },
);

/** Refused whatever its value (400 naming it): the program has no compounding switch. */
const CompoundInterest = Type.Optional(
  Type.Boolean({
    description:
      "refused (400): not a setting; a pool's share of repaid interest always goes back into its bank, lent again until withdrawn",
  }),
);

const BankBody = body({
  owner: Pubkey,
  mint: Pubkey,
  amount: Amount,
});

const DelegateBody = body({
  owner: Pubkey,
  mint: Pubkey,
  amount: Amount,
  autoDelegate: Type.Optional(
    Type.Boolean({
      description:
        "the owner's standing choice, set in the same transaction: true lets the delegation keeper delegate " +
        "this bank's idle liquidity every hour, false stops it",
    }),
  ),
});
const WithdrawDelegatedBody = body({
  owner: Pubkey,
  mint: Pubkey,
  amount: Type.Optional(Amount),
});

const createBody = (type: PoolType) =>
  body({
    bank: Pubkey,
    owner: Pubkey,
    amount: Type.String({ description: "base units deposited into the bank with the pool (may be '0')" }),
    mint: Pubkey,
    seed: Type.Optional(
      Type.String({ pattern: "^[0-9]{1,20}$", description: "pool PDA seed (random when absent)" }),
    ),
    isCompoundInterestEnabled: CompoundInterest,
    param: Type.Object(
      {
        apr: Type.Integer({ minimum: 1, maximum: 100_000, description: "basis points" }),
        isCompoundInterestEnabled: CompoundInterest,
        limits: Limits,
        ...(type === "nft-pool" ? { collections: Collections } : { currencies: Currencies }),
      },
      { additionalProperties: false },
    ),
  });

const updateBody = (type: PoolType) =>
  body({
    pool: Pubkey,
    owner: Pubkey,
    status: Type.Optional(Type.Union([Type.Literal("Open"), Type.Literal("Frozen")])),
    enableAutoSell: Type.Optional(Type.Boolean()),
    disableAutoSell: Type.Optional(Type.Boolean()),
    ...(type === "nft-pool"
      ? { enableMortgage: Type.Optional(Type.Boolean()), disableMortgage: Type.Optional(Type.Boolean()) }
      : {}),
    isCompoundInterestEnabled: CompoundInterest,
    param: Type.Object(
      {
        apr: Type.Integer({ minimum: 1, maximum: 100_000 }),
        isCompoundInterestEnabled: CompoundInterest,
        loanApr: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        ...(type === "nft-pool"
          ? { mortgageApr: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })) }
          : {}),
        limits: Limits,
        conditions: Type.Optional(Conditions),
        liquidation: Type.Optional(Liquidation),
        ...(type === "nft-pool" ? { collections: Collections } : { currencies: Currencies }),
      },
      { additionalProperties: false },
    ),
  });

const CloseBody = body({ pool: Pubkey, owner: Pubkey });

interface BankBodyT extends CommonBody {
  owner: string;
  mint: string;
  amount: string;
}
interface CreateBodyT extends CommonBody {
  bank: string;
  owner: string;
  amount: string;
  mint: string;
  seed?: string;
  isCompoundInterestEnabled?: boolean;
  param: {
    apr: number;
    isCompoundInterestEnabled?: boolean;
    limits: LimitsInput;
    collections?: { collection: string; collectionLtv: number; exposure: number }[];
    currencies?: { currency: string; currencyLtv: number; exposure: number }[];
  };
}
interface UpdateBodyT extends CommonBody {
  pool: string;
  owner: string;
  status?: "Open" | "Frozen";
  enableAutoSell?: boolean;
  disableAutoSell?: boolean;
  enableMortgage?: boolean;
  disableMortgage?: boolean;
  isCompoundInterestEnabled?: boolean;
  param: {
    apr: number;
    isCompoundInterestEnabled?: boolean;
    loanApr?: number;
    mortgageApr?: number;
    limits: LimitsInput;
    conditions?: ConditionsInput;
    liquidation?: { isAutoSellEnabled: boolean; loanLiquidation?: number; mortgageLiquidation?: number };
    collections?: { collection: string; collectionLtv: number; exposure: number }[];
    currencies?: { currency: string; currencyLtv: number; exposure: number }[];
  };
}

/** Bank and pool builder routes (the user is the fee payer and the only signer). */
export function registerBankPoolBuilderRoutes(app: FastifyInstance, tx: TxContext): void {
  builderRoute<BankBodyT>(
    app,
    tx,
    "/bank/deposit",
    "Deposit into the owner's bank for `mint` (creates the bank first when missing; wraps SOL).",
    BankBody,
    async (b) => {
      const owner = address(b.owner);
      const r = await depositInstructions(tx, owner, address(b.mint), parseBaseUnits("amount", b.amount));
      return {
        feePayer: owner,
        groups: [r.instructions],
        metadata: { bank: r.bank, bankCreated: r.created },
      };
    },
  );
  builderRoute<BankBodyT>(
    app,
    tx,
    "/bank/withdraw",
    "Withdraw available liquidity from the owner's bank for `mint` (unwraps SOL).",
    BankBody,
    async (b) => {
      const owner = address(b.owner);
      const r = await withdrawInstructions(tx, owner, address(b.mint), parseBaseUnits("amount", b.amount));
      return { feePayer: owner, groups: [r.instructions], metadata: { bank: r.bank } };
    },
  );
  builderRoute<BankBodyT & { autoDelegate?: boolean }>(
    app,
    tx,
    "/bank/marginfi-deposit",
    "Delegate Funds: `amount` of the bank's idle liquidity into the pinned lending venue (the local lending " +
      "venue on localnet), where it earns the venue's rate for the bank; 0 with `autoDelegate` only sets the " +
      "standing choice. Loans larger than the idle liquidity pull delegated funds back in their own transaction.",
    DelegateBody,
    async (b) => {
      const owner = address(b.owner);
      const r = await delegateInstructions(tx, {
        owner,
        mint: address(b.mint),
        amount: parseBaseUnits("amount", b.amount, { allowZero: true }),
        ...(b.autoDelegate !== undefined ? { autoDelegate: b.autoDelegate } : {}),
      });
      return { feePayer: owner, groups: [r.instructions], metadata: { bank: r.bank } };
    },
  );
  builderRoute<Omit<BankBodyT, "amount"> & { amount?: string }>(
    app,
    tx,
    "/bank/marginfi-withdraw",
    "Withdraw Delegated Funds: shares worth at least `amount` (everything when absent) back into the bank's " +
      "vault, with the yield they earned.",
    WithdrawDelegatedBody,
    async (b) => {
      const owner = address(b.owner);
      const r = await withdrawDelegatedInstructions(tx, {
        owner,
        mint: address(b.mint),
        ...(b.amount !== undefined ? { amount: parseBaseUnits("amount", b.amount) } : {}),
      });
      return {
        feePayer: owner,
        groups: [r.instructions],
        metadata: { bank: r.bank, shares: r.shares.toString() },
      };
    },
  );
  for (const [prefix, type] of [
    ["/nft", "nft-pool"],
    ["/defi", "defi-pool"],
  ] as const) {
    builderRoute<CreateBodyT>(
      app,
      tx,
      `${prefix}/create-pool`,
      `Create a ${type} (spec pool creation payload): bank created when missing, amount deposited, pool published.`,
      createBody(type),
      async (b) => {
        const { seed, ...rest } = b;
        const r = await createPoolInstructions(tx, type, {
          ...rest,
          amount: parseBaseUnits("amount", b.amount, { allowZero: true }),
          ...(seed !== undefined ? { seed: BigInt(seed) } : {}),
        });
        return {
          feePayer: address(b.owner),
          groups: [r.instructions],
          metadata: { pool: r.pool, bank: r.bank, seed: r.seed.toString() },
        };
      },
    );
    builderRoute<UpdateBodyT>(
      app,
      tx,
      `${prefix}/update-pool`,
      `Update a ${type} (spec pool update payload; optional status Open/Frozen). Only its owner may.`,
      updateBody(type),
      async (b) => {
        const r = await updatePoolInstructions(tx, type, b);
        return {
          feePayer: address(b.owner),
          groups: r.groups,
          metadata: { pool: r.pool, ...(r.whitelist ? { whitelist: r.whitelist } : {}) },
        };
      },
    );
    builderRoute<CommonBody & { pool: string; owner: string }>(
      app,
      tx,
      `${prefix}/close-pool`,
      `Close a ${type} without ongoing loans; its rent returns to the owner.`,
      CloseBody,
      async (b) => ({
        feePayer: address(b.owner),
        groups: [await closePoolInstructions(tx, type, b)],
        metadata: { pool: b.pool },
      }),
    );
  }
  builderRoute<CommonBody & { pool: string; owner: string }>(
    app,
    tx,
    "/nft/migrate",
    "After an upgrade of the lending program: bring a pool (nft or defi) and every loan of it still at the older " +
      "account layout to the current one, paid by the owner (the rent of the added bytes). As many loans a " +
      "transaction as fit; more than one transaction is a Bundle whose transactions stand alone. 422 " +
      "NothingToMigrate (6056) when all is current. Anyone may send Migrate; the keeper does it for every pool.",
    CloseBody,
    (b) => migratePlan(tx, b),
  );
}
