import { PROGRAM_ERROR_CODE } from "@cistern/protocol";
import { address, getMigrateInstruction, MAX_MIGRATE_LOANS } from "@cistern/sdk";
import type { Address, Instruction } from "@solana/kit";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import type { BuildPlan } from "./route-kit.ts";

/**
 * Migrate for a pool owner after the program's 1.8 upgrade: the pool and every loan of it still at layout v1,
 * as many loans a transaction as fit (more than one transaction: kind Bundle, each independent of the others).
 * The owner pays the rent of the bytes the accounts grow by. 422 NothingToMigrate (6056) when all is current.
 */
export async function migratePlan(tx: TxContext, input: { pool: string; owner: string }): Promise<BuildPlan> {
  const pool = await tx.state.getPool(input.pool);
  if (pool === null) throw badRequest(`unknown pool ${input.pool}`);
  if (pool.owner !== input.owner) throw badRequest(`${input.owner} is not the owner of pool ${input.pool}`);
  const loans = (await tx.state.getV1Loans(input.pool)).map((l) => address(l.pubkey));
  if (pool.layoutVersion !== 1 && loans.length === 0) {
    const error = unprocessable(
      `pool ${input.pool} and its loans are already at the program's current layout`,
    );
    throw Object.assign(error, {
      refusal: { code: PROGRAM_ERROR_CODE.NothingToMigrate, name: "NothingToMigrate", params: {} },
    });
  }
  const payer = address(input.owner);
  const groups = migrateGroups(tx, payer, address(input.pool), loans);
  return { feePayer: payer, groups, metadata: { pool: input.pool, loans: loans.length } };
}

/** One Migrate per group, each with as many loans as fit one transaction (at least the pool alone). */
export function migrateGroups(
  tx: TxContext,
  payer: Address,
  pool: Address,
  loans: Address[],
): Instruction[][] {
  const migrate = (chunk: Address[]) =>
    getMigrateInstruction({ programAddress: tx.programId, payer, pool, loans: chunk });
  const groups: Instruction[][] = [];
  let rest = loans;
  do {
    let take = Math.min(rest.length, MAX_MIGRATE_LOANS);
    while (take > 1 && !tx.factory.fits(payer, [migrate(rest.slice(0, take))])) take--;
    groups.push([migrate(rest.slice(0, take))]);
    rest = rest.slice(take);
  } while (rest.length > 0);
  return groups;
}
