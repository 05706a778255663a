import type { FastifyInstance } from "fastify";
import type { TxContext } from "../tx-context.ts";
import { body, Pubkey } from "./builder-schemas.ts";
import { liquidatePlan } from "./liquidate-builder.ts";
import { builderRoute, type CommonBody } from "./route-kit.ts";

const LiquidateBody = body({ loan: Pubkey, payer: Pubkey });

/**
 * Liquidation builder routes: POST /nft/liquidate-loan and /defi/liquidate-loan {loan, payer, referrer?,
 * options?}. Anyone may liquidate a loan past expiry + grace; the collateral goes to the pool owner.
 */
export function registerLiquidateBuilderRoutes(app: FastifyInstance, tx: TxContext): void {
  for (const [prefix, isDefi] of [
    ["/nft", false],
    ["/defi", true],
  ] as const) {
    builderRoute<CommonBody & { loan: string; payer: string }>(
      app,
      tx,
      `${prefix}/liquidate-loan`,
      "Liquidate a loan unpaid past expiry + grace: its collateral goes to the pool owner (anyone may sign and pay). Kind Normal.",
      LiquidateBody,
      (b) => liquidatePlan(tx, isDefi, b),
    );
  }
}
