import { address } from "@cistern/sdk";
import type { KeyPairSigner } from "@solana/kit";
import type { FastifyBaseLogger } from "fastify";
import { migrateGroups } from "../builder/migrate-builder.ts";
import type { TxContext } from "../tx-context.ts";
import { sendAsKeeper } from "./keeper-send.ts";

/** What bringing old accounts up did, pool by pool. */
export interface MigrationPass {
  migrated: { pool: string; loans: number; signatures: string[] }[];
  failed: { pool: string; error: string }[];
}

/**
 * After an upgrade of the lending program, brings every pool and loan still at layout v1 to the current layout
 * (Migrate, paid by the keeper's key: the rent of the added bytes), so that no borrower or lender meets
 * AccountNeedsMigration. Does nothing (one filtered read) once everything is current.
 */
export async function migrateOldAccounts(
  tx: TxContext,
  signer: KeyPairSigner,
  log: Pick<FastifyBaseLogger, "info" | "warn">,
): Promise<MigrationPass> {
  const out: MigrationPass = { migrated: [], failed: [] };
  const [oldPools, oldLoans] = await Promise.all([tx.state.getV1Pools(), tx.state.getV1Loans()]);
  const byPool = new Map<string, string[]>();
  for (const pool of oldPools) byPool.set(pool, []);
  for (const { pubkey, loan } of oldLoans) byPool.set(loan.pool, [...(byPool.get(loan.pool) ?? []), pubkey]);
  for (const [pool, loans] of byPool) {
    try {
      const signatures: string[] = [];
      for (const group of migrateGroups(
        tx,
        signer.address,
        address(pool),
        loans.map((l) => address(l)),
      ))
        signatures.push(await sendAsKeeper(tx, signer, group));
      out.migrated.push({ pool, loans: loans.length, signatures });
      log.info(
        { pool, loans: loans.length, signatures },
        "keeper brought a pool and its loans to the current layout",
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      out.failed.push({ pool, error: message });
      log.warn({ pool, error: message }, "keeper could not migrate a pool; next round retries");
    }
  }
  if (out.migrated.length > 0) tx.state.invalidate();
  return out;
}
