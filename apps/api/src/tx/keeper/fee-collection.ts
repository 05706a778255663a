import { address, getCollectFeesInstruction } from "@cistern/sdk";
import type { KeyPairSigner } from "@solana/kit";
import type { FastifyBaseLogger } from "fastify";
import { createAssociatedTokenIdempotent, findAssociatedTokenAddress } from "../builder/wire-instructions.ts";
import type { TxContext } from "../tx-context.ts";
import { sendAsKeeper } from "./keeper-send.ts";

/** A bank's fees are collected at most once an hour (each collection is a transaction the keeper pays for). */
export const FEE_COLLECTION_INTERVAL_MS = 60 * 60 * 1000;

/** What one pass collected, bank by bank (amounts in base units of the bank's currency). */
export interface FeeCollectionPass {
  collected: { bank: string; amount: string; signature: string }[];
  failed: { bank: string; error: string }[];
}

/**
 * Protocol fees wait in each bank's vault (Bank.feesOwed) after Repay, MarketSell, Extend and Refinance; the
 * keeper moves them to the treasury with CollectFees. `lastCollectedMs` (bank -> time) spaces collections out; a
 * restart collects at once, which is harmless (the program moves exactly what the books owe, and refuses when
 * nothing is owed).
 */
export async function collectProtocolFees(
  tx: TxContext,
  signer: KeyPairSigner,
  log: Pick<FastifyBaseLogger, "info" | "warn">,
  lastCollectedMs: Map<string, number>,
  nowMs = Date.now(),
): Promise<FeeCollectionPass> {
  const out: FeeCollectionPass = { collected: [], failed: [] };
  const config = await tx.state.getConfig();
  if (config === null) return out;
  const { banks } = await tx.state.snapshot();
  for (const [bank, cached] of banks) {
    if (cached.feesOwed === 0n) continue;
    if (nowMs - (lastCollectedMs.get(bank) ?? 0) < FEE_COLLECTION_INTERVAL_MS) continue;
    try {
      // the snapshot may be a few seconds old: the amount (and whether there is one) is read now
      const account = await tx.state.getBank(bank);
      if (account === null || account.feesOwed === 0n) continue;
      const treasuryAccount = await findAssociatedTokenAddress(config.treasury, account.mint);
      const signature = await sendAsKeeper(tx, signer, [
        createAssociatedTokenIdempotent(signer.address, treasuryAccount, config.treasury, account.mint),
        await getCollectFeesInstruction({
          programAddress: tx.programId,
          bank: address(bank),
          treasuryCurrencyTokenAccount: treasuryAccount,
        }),
      ]);
      lastCollectedMs.set(bank, nowMs);
      out.collected.push({ bank, amount: account.feesOwed.toString(), signature });
      log.info(
        { bank, amount: account.feesOwed.toString(), signature },
        "keeper collected a bank's protocol fees to the treasury",
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      out.failed.push({ bank, error: message });
      log.warn(
        { bank, error: message },
        "keeper could not collect a bank's protocol fees; a later round retries",
      );
    }
  }
  return out;
}
