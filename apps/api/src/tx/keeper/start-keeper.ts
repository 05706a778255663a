import type { FastifyInstance } from "fastify";
import { loadServiceKeypair } from "../oracle/oracle-keypair.ts";
import type { TxContext } from "../tx-context.ts";
import { createLiquidationKeeper, type LiquidationKeeper } from "./liquidation-keeper.ts";

/** On localnet the keeper is airdropped this much SOL when it holds less than a tenth of it. */
const LOCALNET_KEEPER_LAMPORTS = 2_000_000_000;
/** Below this balance a keeper on a real cluster logs a warning each start (fees and ATA rent). */
const LOW_KEEPER_LAMPORTS = 50_000_000;

/**
 * Starts the liquidation keeper when the settings enable it: loads its key (generated into the data dir on
 * localnet), funds it from the localnet faucet when low (elsewhere warns), runs a round every interval and
 * stops with the app. Returns the keeper, or undefined when it is off.
 */
export async function startLiquidationKeeper(
  app: FastifyInstance,
  tx: TxContext,
): Promise<LiquidationKeeper | undefined> {
  const settings = tx.config.keeper;
  if (!settings.enabled) return undefined;
  const localnet = tx.app.config.cluster === "localnet";
  const signer = await loadServiceKeypair(settings.keypairPath, localnet, "keeper");
  const { value: balance } = await tx.app.rpc.call<{ value: number }>("getBalance", [
    signer.address,
    { commitment: "confirmed" },
  ]);
  if (localnet && balance < LOCALNET_KEEPER_LAMPORTS / 10)
    await tx.app.rpc.call("requestAirdrop", [signer.address, LOCALNET_KEEPER_LAMPORTS]);
  else if (!localnet && balance < LOW_KEEPER_LAMPORTS)
    app.log.warn(
      { keeper: signer.address, lamports: balance },
      "the liquidation keeper's fee payer is low on SOL: fund it or liquidations will fail",
    );
  const keeper = createLiquidationKeeper(tx, signer, app.log);
  keeper.start(settings.intervalMs);
  app.addHook("onClose", async () => keeper.stop());
  app.log.info(
    { keeper: signer.address, everyMs: settings.intervalMs },
    "liquidation keeper on: loans past expiry + grace are liquidated to their pool owner",
  );
  return keeper;
}
