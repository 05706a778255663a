import { type Address, type FixedSizeCodec, getStructCodec, type Instruction } from "@solana/kit";
import { u8, u64 } from "../codecs/primitives.ts";
import { INSTRUCTION_TAG, TOKEN_PROGRAM_ADDRESS } from "../constants.ts";
import { SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import { findBankPda, findConfigPda, findVaultPda } from "../pda.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import { readonly, type SignerInput, signer, signerAddress, writable } from "./account-metas.ts";

/** Decoded CreateBank data. */
export interface CreateBankData {
  tag: number;
  bankBump: number;
  vaultBump: number;
}

/** Codec of CreateBank data (3 bytes). */
export function getCreateBankDataCodec(): FixedSizeCodec<CreateBankData, CreateBankData> {
  return getStructCodec([
    ["tag", u8()],
    ["bankBump", u8()],
    ["vaultBump", u8()],
  ]) as FixedSizeCodec<CreateBankData, CreateBankData>;
}

/**
 * CreateBank (tag 2): creates the owner's bank for `mint` and its vault token account (both PDAs).
 */
export async function getCreateBankInstruction(input: {
  programAddress: Address;
  owner: SignerInput;
  mint: Address;
}): Promise<Instruction> {
  const [bank, bankBump] = await findBankPda(input.programAddress, signerAddress(input.owner), input.mint);
  const [vault, vaultBump] = await findVaultPda(input.programAddress, bank);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.owner, true),
      writable(bank),
      writable(vault),
      readonly(input.mint),
      readonly(TOKEN_PROGRAM_ADDRESS),
      readonly(SYSTEM_PROGRAM_ADDRESS),
    ],
    data: getCreateBankDataCodec().encode({ tag: INSTRUCTION_TAG.CreateBank, bankBump, vaultBump }),
  };
}

/** Decoded Deposit / Withdraw data. */
export interface AmountData {
  tag: number;
  amountBaseUnits: bigint;
}

/** Codec of Deposit / Withdraw data (9 bytes: tag, amount u64). */
export function getAmountDataCodec(): FixedSizeCodec<AmountData, AmountData> {
  return getStructCodec([
    ["tag", u8()],
    ["amountBaseUnits", u64()],
  ]) as FixedSizeCodec<AmountData, AmountData>;
}

function checkAmount(amountBaseUnits: bigint): void {
  if (amountBaseUnits <= 0n || amountBaseUnits > 0xffff_ffff_ffff_ffffn) {
    throw new SdkError(
      SDK_ERROR.INVALID_ARGUMENT,
      `amount must be 1..2^64-1 base units, got ${amountBaseUnits}`,
    );
  }
}

async function bankTransfer(
  tag: number,
  input: {
    programAddress: Address;
    owner: SignerInput;
    mint: Address;
    tokenAccount: Address;
    amountBaseUnits: bigint;
  },
): Promise<Instruction> {
  checkAmount(input.amountBaseUnits);
  const [bank] = await findBankPda(input.programAddress, signerAddress(input.owner), input.mint);
  const [vault] = await findVaultPda(input.programAddress, bank);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.owner, false),
      writable(bank),
      writable(vault),
      writable(input.tokenAccount),
      readonly(TOKEN_PROGRAM_ADDRESS),
    ],
    data: getAmountDataCodec().encode({ tag, amountBaseUnits: input.amountBaseUnits }),
  };
}

/**
 * Deposit (tag 3, bank owner only): moves `amountBaseUnits` from the owner's token account into the vault.
 * @param input.mint - the bank's currency mint (bank and vault PDAs are derived from owner + mint)
 * @param input.sourceTokenAccount - owner's token account of `mint`
 */
export function getDepositInstruction(input: {
  programAddress: Address;
  owner: SignerInput;
  mint: Address;
  sourceTokenAccount: Address;
  amountBaseUnits: bigint;
}): Promise<Instruction> {
  return bankTransfer(INSTRUCTION_TAG.Deposit, { ...input, tokenAccount: input.sourceTokenAccount });
}

/**
 * Withdraw (tag 4, bank owner only): moves `amountBaseUnits` (<= available liquidity) from the vault to the
 * owner's token account.
 */
export function getWithdrawInstruction(input: {
  programAddress: Address;
  owner: SignerInput;
  mint: Address;
  destinationTokenAccount: Address;
  amountBaseUnits: bigint;
}): Promise<Instruction> {
  return bankTransfer(INSTRUCTION_TAG.Withdraw, { ...input, tokenAccount: input.destinationTokenAccount });
}

/**
 * CollectFees (tag 25, anyone): moves the protocol fees the bank's vault holds (bank.feesOwed) to the treasury's
 * token account of the bank's currency. Refused with NoFeesOwed (6058) when there are none.
 * @param input.treasuryCurrencyTokenAccount - token account of the bank's mint owned by config.treasury
 */
export async function getCollectFeesInstruction(input: {
  programAddress: Address;
  bank: Address;
  treasuryCurrencyTokenAccount: Address;
}): Promise<Instruction> {
  const [config] = await findConfigPda(input.programAddress);
  const [vault] = await findVaultPda(input.programAddress, input.bank);
  return {
    programAddress: input.programAddress,
    accounts: [
      readonly(config),
      writable(input.bank),
      writable(vault),
      writable(input.treasuryCurrencyTokenAccount),
      readonly(TOKEN_PROGRAM_ADDRESS),
    ],
    data: new Uint8Array([INSTRUCTION_TAG.CollectFees]),
  };
}
