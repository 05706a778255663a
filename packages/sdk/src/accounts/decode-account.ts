import type { ReadonlyUint8Array } from "@solana/kit";
import { ACCOUNT_TAG } from "../constants.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import { type BankAccount, decodeBankAccount } from "./bank.ts";
import { type ConfigAccount, decodeConfigAccount } from "./config.ts";
import { decodeLoanAccount, type LoanAccount } from "./loan.ts";
import { decodePoolAccount, type PoolAccount } from "./pool.ts";
import { decodeRequestAccount, type RequestAccount } from "./request.ts";

/** Any lending program account, tagged by its type. */
export type LendingAccount =
  | { type: "Config"; account: ConfigAccount }
  | { type: "Bank"; account: BankAccount }
  | { type: "Pool"; account: PoolAccount }
  | { type: "Loan"; account: LoanAccount }
  | { type: "Request"; account: RequestAccount };

/**
 * Decodes a lending program account, recognising its type by the tag byte (1 Config, 2 Bank, 3 Pool, 4 Loan, 6 Request).
 * Throws an {@link SdkError} for an unknown tag, wrong version or wrong size.
 */
export function decodeAccount(data: ReadonlyUint8Array): LendingAccount {
  if (data.length < 2) {
    throw new SdkError(SDK_ERROR.ACCOUNT_DATA_TOO_SHORT, `account data is ${data.length} bytes`);
  }
  switch (data[0]) {
    case ACCOUNT_TAG.Config:
      return { type: "Config", account: decodeConfigAccount(data) };
    case ACCOUNT_TAG.Bank:
      return { type: "Bank", account: decodeBankAccount(data) };
    case ACCOUNT_TAG.Pool:
      return { type: "Pool", account: decodePoolAccount(data) };
    case ACCOUNT_TAG.Loan:
      return { type: "Loan", account: decodeLoanAccount(data) };
    case ACCOUNT_TAG.Request:
      return { type: "Request", account: decodeRequestAccount(data) };
    default:
      throw new SdkError(SDK_ERROR.UNKNOWN_ACCOUNT_DISCRIMINATOR, `unknown account tag ${data[0]}`);
  }
}
