import { findVaultPda, findVenuesPda, INSTRUCTION_TAG } from "@cistern/sdk";
import { AccountRole, type Address, type Instruction, type TransactionSigner } from "@solana/kit";
import type { BankDelegation, MarginfiDelegationAccounts } from "./lending-venue.ts";

/**
 * The lending program's delegation instructions when its lending venue is marginfi v2 (LAYOUT.md: Delegate,
 * WithdrawDelegated and TakeLoan's pull "through marginfi"): the bank's vault moves to and from the bank's
 * marginfi account by CPI, the bank's PDA signing.
 */

const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
type SignerInput = Address | TransactionSigner;
const addressOf = (s: SignerInput): Address => (typeof s === "string" ? s : s.address);
const signerMeta = (s: SignerInput, writable: boolean) => ({
  address: addressOf(s),
  role: writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER,
  ...(typeof s === "string" ? {} : { signer: s }),
});
const ro = (address: Address) => ({ address, role: AccountRole.READONLY });
const rw = (address: Address) => ({ address, role: AccountRole.WRITABLE });

/** The marginfi part of a delegation, or an error when the delegation is the local venue's. */
export function marginfiAccountsOf(d: BankDelegation): MarginfiDelegationAccounts {
  if (d.marginfi === undefined) throw new Error("not a marginfi delegation");
  return d.marginfi;
}

async function commonMetas(
  programAddress: Address,
  bank: Address,
  authority: SignerInput,
  d: BankDelegation,
) {
  const m = marginfiAccountsOf(d);
  const [venues] = await findVenuesPda(programAddress);
  const [vault] = await findVaultPda(programAddress, bank);
  return [
    signerMeta(authority, false),
    ro(venues),
    rw(bank),
    rw(vault),
    ro(d.venueProgram),
    ro(m.group),
    rw(m.bank),
    rw(d.position),
    ro(TOKEN_PROGRAM),
    rw(m.liquidityVault),
  ];
}

function u64Data(tag: number, amount: bigint, size: number): Uint8Array {
  const data = new Uint8Array(size);
  data[0] = tag;
  new DataView(data.buffer).setBigUint64(1, amount, true);
  return data;
}

/**
 * Delegate through marginfi: `amount` of the bank's available liquidity into its marginfi account (created on
 * first use, `payer` paying its rent); 0 only accrues marginfi's interest and marks the position.
 */
export async function getMarginfiDelegateInstruction(input: {
  programAddress: Address;
  bank: Address;
  authority: SignerInput;
  payer: SignerInput;
  amount: bigint;
  delegation: BankDelegation;
}): Promise<Instruction> {
  const data = u64Data(INSTRUCTION_TAG.Delegate, input.amount, 10);
  data[9] = input.delegation.positionBump;
  return {
    programAddress: input.programAddress,
    accounts: [
      ...(await commonMetas(input.programAddress, input.bank, input.authority, input.delegation)),
      signerMeta(input.payer, true),
      ro(SYSTEM_PROGRAM),
    ],
    data,
  };
}

/** WithdrawDelegated through marginfi: `amount` base units back into the vault (0: everything). */
export async function getMarginfiWithdrawDelegatedInstruction(input: {
  programAddress: Address;
  bank: Address;
  owner: SignerInput;
  amount: bigint;
  delegation: BankDelegation;
}): Promise<Instruction> {
  const m = marginfiAccountsOf(input.delegation);
  return {
    programAddress: input.programAddress,
    accounts: [
      ...(await commonMetas(input.programAddress, input.bank, input.owner, input.delegation)),
      rw(m.liquidityVaultAuthority),
      ro(m.oracle),
    ],
    data: u64Data(INSTRUCTION_TAG.WithdrawDelegated, input.amount, 9),
  };
}

/**
 * TakeLoan's pull accounts through marginfi, appended to a TakeLoan built without a pull: data byte 120 = their
 * index. venues, marginfi program, group, marginfi bank (w), the bank's marginfi account (w), liquidity vault
 * (w), liquidity vault authority (w), oracle.
 */
export async function withMarginfiPull(
  ix: Instruction,
  lendingProgram: Address,
  d: BankDelegation,
): Promise<Instruction> {
  const m = marginfiAccountsOf(d);
  const [venues] = await findVenuesPda(lendingProgram);
  const accounts = [...(ix.accounts ?? [])];
  const data = Uint8Array.from(ix.data ?? []);
  data[120] = accounts.length;
  accounts.push(
    ro(venues),
    ro(d.venueProgram),
    ro(m.group),
    rw(m.bank),
    rw(d.position),
    rw(m.liquidityVault),
    rw(m.liquidityVaultAuthority),
    ro(m.oracle),
  );
  return { ...ix, accounts, data };
}
