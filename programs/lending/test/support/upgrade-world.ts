/**
 * A world on the lending program 1.7 (layout v1; the build kept in test/fixtures), to upgrade in place to this
 * build and migrate: used by the upgrade test and the compute-unit table.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { getMigrateInstruction } from "@cistern/sdk";
import { deployUpgradeableProgram } from "@cistern/sdk/testing";
import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { SO_PATH } from "./harness.ts";
import { buildWorld, DAY, nftLoanIx, repayIx, tokenLoanIx, type World } from "./world.ts";

const V17 = new Uint8Array(
  readFileSync(fileURLToPath(new URL("../fixtures/lending-v1.7.so", import.meta.url))),
);

/** A world on program 1.7 with an ongoing NFT loan, a repaid token loan and an ongoing token loan. */
export async function worldOnV17() {
  const program = await generateKeyPairSigner();
  const w = await buildWorld(undefined, { programBytes: V17, program });
  const ongoingNft = await nftLoanIx(w);
  await w.h.send([ongoingNft]);
  const repaid = await tokenLoanIx(w, 10_000_000_000n);
  await w.h.send([repaid]);
  w.h.advance(DAY, 10n);
  await w.h.send([repayOnV17(w, await repayIx(w, repaid.loan, w.defiPool, w.borrowerCollateralAta))]);
  const ongoingToken = await tokenLoanIx(w, 20_000_000_000n);
  await w.h.send([ongoingToken]);
  return {
    w,
    program,
    loans: { ongoingNft: ongoingNft.loan, repaid: repaid.loan, ongoingToken: ongoingToken.loan },
  };
}

/** Repay as program 1.7 takes it: the treasury's currency account at 9 (1.10 keeps the fee in the bank). */
function repayOnV17(w: World, repay: Instruction): Instruction {
  const accounts = repay.accounts ?? [];
  const treasury = { address: w.treasuryAta, role: AccountRole.WRITABLE };
  return { ...repay, accounts: [...accounts.slice(0, 9), treasury, ...accounts.slice(9)] };
}

/** Upgrades the world's program in place to this build (same id, same upgrade authority). */
export async function upgradeToCurrent(w: World, program: KeyPairSigner): Promise<void> {
  await deployUpgradeableProgram(w.h.svm, {
    programBytes: new Uint8Array(readFileSync(SO_PATH)),
    authority: w.h.upgradeAuthority,
    program,
  });
}

export const migrateIx = (w: World, payer: KeyPairSigner, pool: Address, loans: Address[]) =>
  getMigrateInstruction({ programAddress: w.program, payer, pool, loans });
