import type { KeyPairSigner } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { ensureProtocolLookupTable } from "../builder/ensure-protocol-lookup-table.ts";
import { loadServiceKeypair } from "../oracle/oracle-keypair.ts";
import type { TxContext } from "../tx-context.ts";
import { createDelegationKeeper, type DelegationKeeper } from "./delegation-keeper.ts";
import { createLiquidationKeeper, type LiquidationKeeper } from "./liquidation-keeper.ts";

/** On localnet the keeper is airdropped this much SOL when it holds less than a tenth of it. */
const LOCALNET_KEEPER_LAMPORTS = 2_000_000_000;
/** Below this balance a keeper on a real cluster logs a warning each start (fees and ATA rent). */
const LOW_KEEPER_LAMPORTS = 50_000_000;

/** On localnet a service key is airdropped SOL when low; elsewhere a low balance is a warning at each start. */
async function fundServiceKey(app: FastifyInstance, tx: TxContext, signer: KeyPairSigner, role: string) {
  const localnet = tx.app.config.cluster === "localnet";
  const { value: balance } = await tx.app.rpc.call<{ value: number }>("getBalance", [
    signer.address,
    { commitment: "confirmed" },
  ]);
  if (localnet && balance < LOCALNET_KEEPER_LAMPORTS / 10)
    await tx.app.rpc.call("requestAirdrop", [signer.address, LOCALNET_KEEPER_LAMPORTS]);
  else if (!localnet && balance < LOW_KEEPER_LAMPORTS)
    app.log.warn(
      { [role]: signer.address, lamports: balance },
      `the ${role}'s fee payer is low on SOL: fund it or its transactions will fail`,
    );
}

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
  const signer = await loadServiceKeypair(
    settings.keypairPath,
    tx.app.config.cluster === "localnet",
    "keeper",
  );
  await fundServiceKey(app, tx, signer, "liquidation keeper");
  // the accounts long loan transactions load (a pNFT take-loan with a venue pull): created once per deployment,
  // extended when it lacks some (a lending venue configured since)
  await ensureProtocolLookupTable(tx, signer).then(
    (table) => {
      if (table !== null)
        app.log.info({ table }, "the protocol's address lookup table was created or extended");
    },
    (error: unknown) =>
      app.log.warn(
        { err: error },
        "the protocol's address lookup table could not be created or extended; next start retries",
      ),
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

/**
 * Starts the delegation keeper when DELEGATION_KEEPER is on: loads its key (generated into the data dir on
 * localnet), funds it on localnet, and every interval delegates the idle liquidity of the banks that chose it.
 */
export async function startDelegationKeeper(
  app: FastifyInstance,
  tx: TxContext,
): Promise<DelegationKeeper | undefined> {
  const settings = tx.config.delegationKeeper;
  if (!settings.enabled) return undefined;
  const signer = await loadServiceKeypair(
    settings.keypairPath,
    tx.app.config.cluster === "localnet",
    "delegation keeper",
  );
  await fundServiceKey(app, tx, signer, "delegation keeper");
  const keeper = createDelegationKeeper(tx, signer, app.log);
  keeper.start(settings.intervalMs);
  app.addHook("onClose", async () => keeper.stop());
  app.log.info(
    { keeper: signer.address, everyMs: settings.intervalMs },
    "delegation keeper on: banks that opted in have their idle liquidity delegated to the lending venue",
  );
  return keeper;
}
