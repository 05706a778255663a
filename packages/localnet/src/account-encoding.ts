import type { Account, LiteSvm } from "litesvm/dist/internal";
import { encodeBase58 } from "./base58.ts";
import { invalidParams } from "./errors.ts";
import {
  decodeMint,
  decodeTokenAccount,
  isMintData,
  isTokenAccountData,
  MINT_SIZE,
  TOKEN_2022_PROGRAM,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM,
  uiTokenAmount,
} from "./token-layout.ts";

/** Encodings accepted for account data. */
export type AccountEncoding = "base64" | "base58" | "jsonParsed" | "base64+zstd";

/** Account-data options shared by the account methods. */
export interface AccountConfig {
  encoding: AccountEncoding;
  dataSlice: { offset: number; length: number } | null;
}

/** u64::MAX: the rentEpoch of every rent-exempt account (patched into the JSON text verbatim). */
export const RENT_EPOCH_SENTINEL = 2 ** 64;

/** Reads and validates `{encoding, dataSlice}` from a config object. */
export function parseAccountConfig(cfg: unknown, defaultEncoding: AccountEncoding = "base64"): AccountConfig {
  const c = (cfg ?? {}) as { encoding?: unknown; dataSlice?: unknown };
  if (typeof c !== "object") throw invalidParams("Invalid params: expected a config object");
  const encoding = (c.encoding ?? defaultEncoding) as AccountEncoding;
  if (!["base64", "base58", "jsonParsed", "base64+zstd"].includes(encoding as string))
    throw invalidParams(`Invalid params: unknown variant \`${String(c.encoding)}\``);
  if (encoding === "base64+zstd")
    throw invalidParams("Invalid params: base64+zstd is not supported by localnet");
  let dataSlice: AccountConfig["dataSlice"] = null;
  if (c.dataSlice !== undefined && c.dataSlice !== null) {
    const ds = c.dataSlice as { offset?: unknown; length?: unknown };
    if (
      !Number.isInteger(ds.offset) ||
      !Number.isInteger(ds.length) ||
      (ds.offset as number) < 0 ||
      (ds.length as number) < 0
    )
      throw invalidParams("Invalid params: dataSlice needs integer offset and length");
    dataSlice = { offset: ds.offset as number, length: ds.length as number };
    if (encoding === "jsonParsed") dataSlice = null;
  }
  return { encoding, dataSlice };
}

function extensionsOf(data: Uint8Array): { extension: string }[] {
  const names: Record<number, string> = {
    1: "transferFeeConfig",
    2: "transferFeeAmount",
    3: "mintCloseAuthority",
    6: "defaultAccountState",
    7: "immutableOwner",
    8: "memoTransfer",
    9: "nonTransferable",
    12: "permanentDelegate",
    13: "nonTransferableAccount",
    18: "metadataPointer",
    19: "tokenMetadata",
  };
  const out: { extension: string }[] = [];
  let at = TOKEN_ACCOUNT_SIZE + 1;
  while (at + 4 <= data.length) {
    const type = data[at]! | (data[at + 1]! << 8);
    const len = data[at + 2]! | (data[at + 3]! << 8);
    if (type === 0) break;
    out.push({ extension: names[type] ?? "unparseableExtension" });
    at += 4 + len;
  }
  return out;
}

/** agave's jsonParsed form of a token account or mint, or null when not parseable. */
export function parseTokenData(
  svm: LiteSvm,
  owner: string,
  data: Uint8Array,
): Record<string, unknown> | null {
  if (owner !== TOKEN_PROGRAM && owner !== TOKEN_2022_PROGRAM) return null;
  const program = owner === TOKEN_PROGRAM ? "spl-token" : "spl-token-2022";
  const ext =
    owner === TOKEN_2022_PROGRAM && data.length > TOKEN_ACCOUNT_SIZE
      ? { extensions: extensionsOf(data) }
      : {};
  if (isTokenAccountData(data, owner)) {
    const t = decodeTokenAccount(data);
    const mintData = svm.getAccount(data.subarray(0, 32))?.data();
    if (!mintData || mintData.length < MINT_SIZE) return null;
    const decimals = decodeMint(mintData).decimals;
    const info: Record<string, unknown> = {
      isNative: t.isNative !== null,
      mint: t.mint,
      owner: t.owner,
      state: t.state,
      tokenAmount: uiTokenAmount(t.amount, decimals),
    };
    if (t.delegate) {
      info.delegate = t.delegate;
      info.delegatedAmount = uiTokenAmount(t.delegatedAmount, decimals);
    }
    if (t.isNative !== null) info.rentExemptReserve = uiTokenAmount(t.isNative, decimals);
    if (t.closeAuthority) info.closeAuthority = t.closeAuthority;
    return { program, parsed: { info: { ...info, ...ext }, type: "account" }, space: data.length };
  }
  if (isMintData(data, owner)) {
    const m = decodeMint(data);
    return {
      program,
      parsed: {
        info: {
          decimals: m.decimals,
          freezeAuthority: m.freezeAuthority,
          isInitialized: m.isInitialized,
          mintAuthority: m.mintAuthority,
          supply: m.supply.toString(),
          ...ext,
        },
        type: "mint",
      },
      space: data.length,
    };
  }
  return null;
}

/** Encodes an account the way getAccountInfo answers it (data per encoding and slice). */
export function encodeAccount(svm: LiteSvm, acct: Account, cfg: AccountConfig): Record<string, unknown> {
  const full = acct.data();
  const owner = encodeBase58(acct.owner());
  let data: unknown;
  const parsed = cfg.encoding === "jsonParsed" ? parseTokenData(svm, owner, full) : null;
  if (parsed) data = parsed;
  else {
    const slice = cfg.dataSlice
      ? full.subarray(
          Math.min(cfg.dataSlice.offset, full.length),
          Math.min(cfg.dataSlice.offset + cfg.dataSlice.length, full.length),
        )
      : full;
    if (cfg.encoding === "base58") {
      if (slice.length > 128)
        throw invalidParams(
          "Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.",
        );
      data = [encodeBase58(slice), "base58"];
    } else data = [Buffer.from(slice).toString("base64"), "base64"];
  }
  return {
    data,
    executable: acct.executable(),
    lamports: Number(acct.lamports()),
    owner,
    rentEpoch: RENT_EPOCH_SENTINEL,
    space: full.length,
  };
}
