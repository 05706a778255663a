import type { PriorityFeeOptions } from "@cistern/protocol";
import { isValidPublicKey } from "@cistern/protocol";
import type { TSchema } from "@sinclair/typebox";
import type { Address, Instruction } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { withErrors } from "../../http/schemas.ts";
import { recordReferral } from "../../referrals/referral-store.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, toRequestError } from "../tx-errors.ts";
import { BuildResponseSchema } from "./builder-schemas.ts";
import { type BuildOptionsInput, parseBuildOptions } from "./priority-fees.ts";
import type { BuildResponse } from "./transaction-factory.ts";

/** What a builder handler returns: who pays, the instruction groups and extra metadata. */
export interface BuildPlan {
  feePayer: Address;
  groups: Instruction[][];
  needsOracle?: boolean;
  metadata?: Record<string, unknown>;
  /**
   * Simulate before answering whatever the client asked: what only the chain can tell (a pNFT's rule set refusing
   * the loan) is refused before anything is signed, and the compute-unit limit comes from the simulation.
   */
  simulate?: boolean;
  /** The builder's words for accounts its transactions open or close ("the loan"), for the costs it answers. */
  accountNames?: Record<string, string>;
  /** What fills its transactions, told if one is over 1,232 bytes (TransactionFactory.build's tooLargeReason). */
  tooLargeReason?: string;
}

/** Body fields every builder route accepts. */
export interface CommonBody {
  referrer?: string | null;
  options?: BuildOptionsInput;
}

/**
 * Declares a builder POST route: validates the body with `schema`, runs `plan` and turns its instructions
 * into issued transactions. sdk argument errors become 400s, and so does a plan whose fee payer is the
 * oracle (it would co-sign and pay). The referrer, when a valid address, is echoed in metadata and recorded
 * with each issued transaction, for the indexer to link when the transaction lands.
 */
export function builderRoute<B extends CommonBody>(
  app: FastifyInstance,
  tx: TxContext,
  path: string,
  description: string,
  schema: TSchema,
  plan: (body: B, options: PriorityFeeOptions) => Promise<BuildPlan>,
): void {
  app.post(
    path,
    {
      schema: {
        description,
        tags: ["transactions"],
        body: schema,
        response: withErrors({ 200: BuildResponseSchema }),
      },
    },
    async (request): Promise<BuildResponse> => {
      const body = request.body as B;
      try {
        const options = parseBuildOptions(body.options, tx.config.maxPriorityFeeLamports);
        const p = await plan(body, options);
        if (p.feePayer === tx.oracle.address)
          throw badRequest("The oracle's address cannot pay for or sign a user transaction");
        const referrer = isValidPublicKey(body.referrer) ? body.referrer : undefined;
        const built = await tx.factory.build({
          feePayer: p.feePayer,
          groups: p.groups,
          options,
          needsOracle: p.needsOracle ?? false,
          simulate: body.options?.simulate === true || p.simulate === true,
          ...(p.tooLargeReason !== undefined ? { tooLargeReason: p.tooLargeReason } : {}),
          metadata: { ...p.metadata, ...(referrer ? { referrer } : {}) },
          ...(p.accountNames ? { accountNames: p.accountNames } : {}),
        });
        if (referrer !== undefined)
          // a referral that cannot be recorded costs the referrer its credit, not the user the transaction
          await recordReferral(tx.app.db, {
            referrer,
            wallet: p.feePayer,
            action: path,
            transactions: built.transactions,
            builtAtSeconds: tx.app.now(),
          }).catch((error: unknown) => request.log.warn({ err: error, referrer }, "referral not recorded"));
        return built;
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );
}

/**
 * What the transactions of `plan` cost the wallet (fee, tip, rent of what they open, rent that comes back),
 * measured on the transactions `builderRoute` would issue for it: a quote's costs, one per transaction.
 */
export function measurePlanCosts(tx: TxContext, plan: BuildPlan, options: PriorityFeeOptions) {
  return tx.factory.costs({
    feePayer: plan.feePayer,
    groups: plan.groups,
    options,
    simulate: plan.simulate === true,
    ...(plan.accountNames ? { accountNames: plan.accountNames } : {}),
  });
}
