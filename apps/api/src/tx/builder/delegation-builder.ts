import { marginfiBankRefusal } from "@cistern/protocol";
import {
  findBankPda,
  getDelegateInstruction,
  getSetDelegationInstruction,
  getWithdrawDelegatedInstruction,
  INDEX_ONE,
  NO_VENUE,
} from "@cistern/sdk";
import type { Address, Instruction } from "@solana/kit";
import type { BankDelegation } from "../../venues/lending/lending-venue.ts";
import {
  getMarginfiDelegateInstruction,
  getMarginfiWithdrawDelegatedInstruction,
} from "../../venues/lending/marginfi-delegation-instructions.ts";
import { loadServiceKeypair } from "../oracle/oracle-keypair.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, marginfiRefused, unprocessable } from "../tx-errors.ts";

/** The owner's bank for `mint` and its delegation (the pinned venue's reserve of that mint and the bank's position). */
async function loadBankDelegation(tx: TxContext, owner: Address, mint: Address) {
  const [bank] = await findBankPda(tx.programId, owner, mint);
  const account = await tx.state.getBank(bank);
  if (account === null) throw badRequest(`owner ${owner} has no bank for mint ${mint}`);
  const delegation = await tx.lendingVenue.delegation(bank, mint, await tx.clock.recentUnixTime());
  if (delegation === null)
    throw unprocessable("No lending venue takes this currency on this cluster: delegation is unavailable");
  return { bank, account, delegation };
}

const accountsOf = (tx: TxContext, bank: Address, d: BankDelegation) => ({
  programAddress: tx.programId,
  bank,
  venueProgram: d.venueProgram,
  reserve: d.reserve,
  venueVault: d.venueVault,
  position: d.position,
});

/**
 * The Delegate instruction for the bank's venue: marginfi v2 or the local lending venue. Through marginfi the
 * lender is told plainly, before anything is signed, when marginfi's bank takes no deposits now (paused) or
 * would pass its deposit limit.
 */
export async function delegateInstructionFor(
  tx: TxContext,
  input: { bank: Address; delegation: BankDelegation; authority: Address; amount: bigint },
): Promise<Instruction> {
  const { bank, delegation: d, authority, amount } = input;
  if (d.venue === "marginfi") {
    const m = d.marginfi;
    const refusal = m !== undefined && amount > 0n ? marginfiBankRefusal(m.state, "deposit") : null;
    if (refusal !== null) throw marginfiRefused(refusal, "it takes no deposits right now");
    if (m?.depositRoom != null && amount > m.depositRoom)
      throw marginfiRefused(
        "VenueDepositLimit",
        `marginfi's bank for this currency takes at most ${m.depositRoom} base units more`,
      );
    return getMarginfiDelegateInstruction({
      programAddress: tx.programId,
      bank,
      authority,
      payer: authority,
      amount,
      delegation: d,
    });
  }
  return getDelegateInstruction({
    ...accountsOf(tx, bank, d),
    authority,
    payer: authority,
    amount,
    positionBump: d.positionBump,
  });
}

/** The delegation keeper's address (its key is generated into the data dir on localnet). */
export async function getDelegationKeeperAddress(tx: TxContext): Promise<Address> {
  const signer = await loadServiceKeypair(
    tx.config.delegationKeeper.keypairPath,
    tx.app.config.cluster === "localnet",
    "delegation keeper",
  );
  return signer.address;
}

/**
 * Delegate: `amount` of the bank's idle liquidity into the lending venue (the owner signs and pays the
 * position's rent on first use). `autoDelegate` sets the owner's standing choice in the same transaction: true
 * lets the delegation keeper delegate idle funds every hour, false stops it.
 */
export async function delegateInstructions(
  tx: TxContext,
  input: { owner: Address; mint: Address; amount: bigint; autoDelegate?: boolean },
): Promise<{ bank: Address; instructions: Instruction[] }> {
  const { bank, account, delegation } = await loadBankDelegation(tx, input.owner, input.mint);
  if (input.amount > account.availableLiquidity)
    throw unprocessable(
      `amount ${input.amount} exceeds the bank's available liquidity ${account.availableLiquidity}`,
    );
  const instructions: Instruction[] = [];
  if (input.autoDelegate !== undefined)
    instructions.push(
      getSetDelegationInstruction({
        programAddress: tx.programId,
        owner: input.owner,
        bank,
        keeper: input.autoDelegate ? await getDelegationKeeperAddress(tx) : NO_VENUE,
      }),
    );
  if (input.amount > 0n)
    instructions.push(
      await delegateInstructionFor(tx, { bank, delegation, authority: input.owner, amount: input.amount }),
    );
  if (instructions.length === 0) throw badRequest("amount must be positive (or autoDelegate given)");
  return { bank, instructions };
}

/**
 * WithdrawDelegated: `amount` (base units, worth of shares rounded up so at least that comes back; capped at the
 * position) or everything when absent, back into the bank's vault with its yield. Through marginfi, `amount`
 * base units (everything when absent); `shares` is then the whole shares the position held.
 */
export async function withdrawDelegatedInstructions(
  tx: TxContext,
  input: { owner: Address; mint: Address; amount?: bigint },
): Promise<{ bank: Address; shares: bigint; instructions: Instruction[] }> {
  const { bank, delegation } = await loadBankDelegation(tx, input.owner, input.mint);
  if (delegation.shares === 0n) throw unprocessable("This bank has nothing delegated to withdraw");
  if (delegation.venue === "marginfi") {
    const refusal =
      delegation.marginfi === undefined ? null : marginfiBankRefusal(delegation.marginfi.state, "withdraw");
    if (refusal !== null) throw marginfiRefused(refusal, "delegated funds cannot come back right now");
    // marginfi takes base units: `amount` (everything when absent or at least the position's value)
    const amount = input.amount === undefined || input.amount >= delegation.positionValue ? 0n : input.amount;
    const ix = await getMarginfiWithdrawDelegatedInstruction({
      programAddress: tx.programId,
      bank,
      owner: input.owner,
      amount,
      delegation,
    });
    return { bank, shares: delegation.shares, instructions: [ix] };
  }
  let shares = 0n;
  if (input.amount !== undefined) {
    const wanted = (input.amount * INDEX_ONE + delegation.index - 1n) / delegation.index;
    shares = wanted >= delegation.shares ? 0n : wanted;
  }
  const ix = await getWithdrawDelegatedInstruction({
    ...accountsOf(tx, bank, delegation),
    owner: input.owner,
    shares,
  });
  return { bank, shares: shares === 0n ? delegation.shares : shares, instructions: [ix] };
}
