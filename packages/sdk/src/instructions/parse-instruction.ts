import type { AccountMeta, Address, Instruction, ReadonlyUint8Array } from "@solana/kit";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import {
  type AmountData,
  type CreateBankData,
  getAmountDataCodec,
  getCreateBankDataCodec,
} from "./bank-instructions.ts";
import {
  getInitializeConfigDataCodec,
  getUpdateConfigDataCodec,
  type InitializeConfigData,
  type UpdateConfigData,
} from "./config-instructions.ts";
import { getLoanTermsDataCodec, type LoanTermsData } from "./loan-instructions.ts";
import {
  type CreatePoolData,
  getCreatePoolDataCodec,
  getUpdatePoolDataCodec,
  type UpdatePoolData,
} from "./pool-instructions.ts";

/** Account names of each instruction, in LAYOUT.md order (a trailing `?` marks an optional account). */
const ACCOUNT_NAMES = {
  InitializeConfig: ["admin", "config", "systemProgram", "program", "programData"],
  UpdateConfig: ["admin", "config"],
  CreateBank: ["owner", "bank", "vault", "currencyMint", "tokenProgram", "systemProgram"],
  Deposit: ["owner", "bank", "vault", "ownerTokenAccount", "tokenProgram"],
  Withdraw: ["owner", "bank", "vault", "ownerTokenAccount", "tokenProgram"],
  CreatePool: ["owner", "pool", "bank", "systemProgram"],
  UpdatePool: ["owner", "pool"],
  ClosePool: ["owner", "pool"],
  TakeLoan: [
    "borrower",
    "oracle",
    "config",
    "pool",
    "bank",
    "vault",
    "loan",
    "escrow",
    "collateralMint",
    "borrowerCollateralTokenAccount",
    "borrowerCurrencyTokenAccount",
    "tokenProgram",
    "systemProgram",
    "whitelist?",
  ],
  Repay: [
    "borrower",
    "config",
    "pool",
    "bank",
    "vault",
    "loan",
    "escrow",
    "borrowerCollateralTokenAccount",
    "borrowerCurrencyTokenAccount",
    "tokenProgram",
  ],
  Extend: [
    "borrower",
    "oracle",
    "config",
    "pool",
    "bank",
    "vault",
    "oldLoan",
    "oldEscrow",
    "loan",
    "escrow",
    "collateralMint",
    "borrowerCurrencyTokenAccount",
    "tokenProgram",
    "systemProgram",
    "whitelist?",
  ],
  Liquidate: [
    "liquidator",
    "pool",
    "bank",
    "loan",
    "escrow",
    "poolOwnerCollateralTokenAccount",
    "tokenProgram",
  ],
} as const;

type Names = typeof ACCOUNT_NAMES;
type Required<N extends string> = N extends `${string}?` ? never : N;
type Optional<N extends string> = N extends `${infer B}?` ? B : never;
/** Named accounts of instruction `T`. */
export type LendingInstructionAccounts<T extends keyof Names> = {
  [K in Required<Names[T][number]>]: Address;
} & {
  [K in Optional<Names[T][number]>]?: Address;
};

type Parsed<T extends keyof Names, D> = { type: T; data: D; accounts: LendingInstructionAccounts<T> };

/** A decoded lending instruction: its type, decoded data and named accounts. */
export type ParsedLendingInstruction =
  | Parsed<"InitializeConfig", InitializeConfigData>
  | Parsed<"UpdateConfig", UpdateConfigData>
  | Parsed<"CreateBank", CreateBankData>
  | Parsed<"Deposit", AmountData>
  | Parsed<"Withdraw", AmountData>
  | Parsed<"CreatePool", CreatePoolData>
  | Parsed<"UpdatePool", UpdatePoolData>
  | Parsed<"ClosePool", { tag: number }>
  | Parsed<"TakeLoan", LoanTermsData>
  | Parsed<"Repay", { tag: number }>
  | Parsed<"Extend", LoanTermsData>
  | Parsed<"Liquidate", { tag: number }>;

const TYPES = Object.keys(ACCOUNT_NAMES) as (keyof Names)[];

function decodeData(type: keyof Names, data: ReadonlyUint8Array): unknown {
  const exact = <T>(
    codec: { decode(bytes: ReadonlyUint8Array): T; fixedSize?: number },
    size?: number,
  ): T => {
    if (size !== undefined && data.length !== size)
      throw new RangeError(`${type} data must be ${size} bytes`);
    return codec.decode(data);
  };
  switch (type) {
    case "InitializeConfig":
      return exact(getInitializeConfigDataCodec(), 68);
    case "UpdateConfig":
      return exact(getUpdateConfigDataCodec(), 100);
    case "CreateBank":
      return exact(getCreateBankDataCodec(), 3);
    case "Deposit":
    case "Withdraw":
      return exact(getAmountDataCodec(), 9);
    case "CreatePool": {
      const decoded = getCreatePoolDataCodec().decode(data);
      if (data.length !== 105 + 36 * decoded.params.collections.length)
        throw new RangeError("CreatePool data length");
      return decoded;
    }
    case "UpdatePool": {
      const decoded = getUpdatePoolDataCodec().decode(data);
      if (data.length !== 96 + 36 * decoded.params.collections.length)
        throw new RangeError("UpdatePool data length");
      return decoded;
    }
    case "TakeLoan":
    case "Extend":
      return exact(getLoanTermsDataCodec(), 124);
    default:
      if (data.length !== 1) throw new RangeError(`${type} data must be 1 byte`);
      return { tag: data[0] };
  }
}

/**
 * Decodes a lending program instruction (e.g. from a transaction to be co-signed or indexed): the type from
 * the tag byte, the data with the instruction's codec (exact length), and the accounts by name.
 * Throws an {@link SdkError} (UNKNOWN_INSTRUCTION) for an unknown tag, a wrong data length or missing accounts.
 */
export function parseLendingInstruction(
  instruction: Pick<Instruction, "data" | "accounts">,
): ParsedLendingInstruction {
  const data = instruction.data ?? new Uint8Array(0);
  const type = TYPES[data[0] ?? -1];
  if (type === undefined) {
    throw new SdkError(
      SDK_ERROR.UNKNOWN_INSTRUCTION,
      `unknown lending instruction tag ${data[0] ?? "(empty data)"}`,
    );
  }
  let decoded: unknown;
  try {
    decoded = decodeData(type, data);
  } catch (cause) {
    throw new SdkError(SDK_ERROR.UNKNOWN_INSTRUCTION, `malformed ${type} data (${data.length} bytes)`, {
      cause,
    });
  }
  const metas = (instruction.accounts ?? []) as readonly AccountMeta[];
  const accounts: Record<string, Address> = {};
  ACCOUNT_NAMES[type].forEach((name: string, index: number) => {
    const optional = name.endsWith("?");
    const meta = metas[index];
    if (!meta) {
      if (optional) return;
      throw new SdkError(SDK_ERROR.UNKNOWN_INSTRUCTION, `${type} is missing account ${index} (${name})`);
    }
    accounts[optional ? name.slice(0, -1) : name] = meta.address;
  });
  return { type, data: decoded, accounts } as ParsedLendingInstruction;
}
