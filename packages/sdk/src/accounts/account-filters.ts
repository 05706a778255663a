import { type Address, type Base58EncodedBytes, getBase58Decoder } from "@solana/kit";
import { ACCOUNT_TAG } from "../constants.ts";

/** A getProgramAccounts filter (kit's RPC shape). */
export type ProgramAccountsFilter =
  | { dataSize: bigint }
  | { memcmp: { offset: bigint; bytes: Base58EncodedBytes; encoding: "base58" } };

const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes) as Base58EncodedBytes;

/** The account type's tag byte (every layout version of it: a Pool or Loan may still be at layout v1). */
function header(type: keyof typeof ACCOUNT_TAG): ProgramAccountsFilter[] {
  return [{ memcmp: { offset: 0n, bytes: base58(new Uint8Array([ACCOUNT_TAG[type]])), encoding: "base58" } }];
}

function pubkeyAt(offset: number, value: Address): ProgramAccountsFilter {
  return {
    memcmp: { offset: BigInt(offset), bytes: value as string as Base58EncodedBytes, encoding: "base58" },
  };
}

/** getProgramAccounts filters selecting Bank accounts, optionally of one owner and/or currency mint. */
export function getBankFilters(input: { owner?: Address; mint?: Address } = {}): ProgramAccountsFilter[] {
  const filters = header("Bank");
  if (input.owner) filters.push(pubkeyAt(8, input.owner));
  if (input.mint) filters.push(pubkeyAt(40, input.mint));
  return filters;
}

/** getProgramAccounts filters selecting Pool accounts, optionally of one owner and/or bank. */
export function getPoolFilters(input: { owner?: Address; bank?: Address } = {}): ProgramAccountsFilter[] {
  const filters = header("Pool");
  if (input.owner) filters.push(pubkeyAt(8, input.owner));
  if (input.bank) filters.push(pubkeyAt(40, input.bank));
  return filters;
}

const LOAN_STATUS_BYTE = { Ongoing: 0, Repaid: 1, Liquidated: 2, Sold: 3 } as const;

/** getProgramAccounts filters selecting Loan accounts, optionally by borrower, pool, bank and/or status. */
export function getLoanFilters(
  input: { borrower?: Address; pool?: Address; bank?: Address; status?: keyof typeof LOAN_STATUS_BYTE } = {},
): ProgramAccountsFilter[] {
  const filters = header("Loan");
  if (input.status !== undefined) {
    filters.push({
      memcmp: {
        offset: 4n,
        bytes: base58(new Uint8Array([LOAN_STATUS_BYTE[input.status]])),
        encoding: "base58",
      },
    });
  }
  if (input.borrower) filters.push(pubkeyAt(8, input.borrower));
  if (input.pool) filters.push(pubkeyAt(40, input.pool));
  if (input.bank) filters.push(pubkeyAt(72, input.bank));
  return filters;
}

const REQUEST_STATUS_BYTE = { Open: 0, Filled: 1, Cancelled: 2 } as const;

/** getProgramAccounts filters selecting loan Request accounts, optionally by borrower and/or status. */
export function getRequestFilters(
  input: { borrower?: Address; status?: keyof typeof REQUEST_STATUS_BYTE } = {},
): ProgramAccountsFilter[] {
  const filters = header("Request");
  if (input.status !== undefined) {
    filters.push({
      memcmp: {
        offset: 4n,
        bytes: base58(new Uint8Array([REQUEST_STATUS_BYTE[input.status]])),
        encoding: "base58",
      },
    });
  }
  if (input.borrower) filters.push(pubkeyAt(8, input.borrower));
  return filters;
}
