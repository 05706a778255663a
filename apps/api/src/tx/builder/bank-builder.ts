import {
  findBankPda,
  getCreateBankInstruction,
  getDepositInstruction,
  getWithdrawInstruction,
} from "@cistern/sdk";
import type { Address, Instruction } from "@solana/kit";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { currencyFlow } from "./currency-flows.ts";

/**
 * Deposit instructions: CreateBank first when the owner has no bank for `mint`, then the deposit from the
 * owner's associated token account (SOL is wrapped before and the account closed after).
 */
export async function depositInstructions(
  tx: TxContext,
  owner: Address,
  mint: Address,
  amount: bigint,
): Promise<{ bank: Address; created: boolean; instructions: Instruction[] }> {
  const [bank] = await findBankPda(tx.programId, owner, mint);
  const [existing] = await tx.state.getAccounts([bank]);
  const instructions: Instruction[] = [];
  const created = existing === null || existing === undefined;
  if (created)
    instructions.push(await getCreateBankInstruction({ programAddress: tx.programId, owner, mint }));
  if (amount > 0n) {
    const flow = await currencyFlow(owner, mint, amount);
    instructions.push(
      ...flow.before,
      await getDepositInstruction({
        programAddress: tx.programId,
        owner,
        mint,
        sourceTokenAccount: flow.tokenAccount,
        amountBaseUnits: amount,
      }),
      ...flow.after,
    );
  }
  return { bank, created, instructions };
}

/** Withdraw instructions; the bank must exist and belong to `owner`, and hold `amount` available. */
export async function withdrawInstructions(
  tx: TxContext,
  owner: Address,
  mint: Address,
  amount: bigint,
): Promise<{ bank: Address; instructions: Instruction[] }> {
  const [bank] = await findBankPda(tx.programId, owner, mint);
  const account = await tx.state.getBank(bank);
  if (account === null) throw badRequest(`owner ${owner} has no bank for mint ${mint}`);
  if (amount > account.availableLiquidity)
    throw unprocessable(
      `amount ${amount} exceeds the bank's available liquidity ${account.availableLiquidity}`,
    );
  const flow = await currencyFlow(owner, mint);
  return {
    bank,
    instructions: [
      ...flow.before,
      await getWithdrawInstruction({
        programAddress: tx.programId,
        owner,
        mint,
        destinationTokenAccount: flow.tokenAccount,
        amountBaseUnits: amount,
      }),
      ...flow.after,
    ],
  };
}
