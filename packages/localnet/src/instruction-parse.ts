import { encodeBase58 } from "./base58.ts";
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, uiTokenAmount } from "./token-layout.ts";

const SYSTEM = "11111111111111111111111111111111";
const ATA = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const MEMO = new Set([
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
]);

/** A parsed (agave jsonParsed) instruction, or null when localnet leaves it partially decoded. */
export type ParsedInstruction = {
  program: string;
  programId: string;
  parsed: unknown;
  stackHeight: number | null;
};

const u64 = (d: Uint8Array, at: number) =>
  new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(at, true);
const u32 = (d: Uint8Array, at: number) =>
  new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(at, true);

function system(data: Uint8Array, a: string[]): unknown {
  if (data.length < 4) return null;
  const tag = u32(data, 0);
  if (tag === 2 && data.length >= 12 && a.length >= 2)
    return { type: "transfer", info: { destination: a[1], lamports: Number(u64(data, 4)), source: a[0] } };
  if (tag === 0 && data.length >= 52 && a.length >= 2)
    return {
      type: "createAccount",
      info: {
        lamports: Number(u64(data, 4)),
        newAccount: a[1],
        owner: encodeBase58(data.subarray(20, 52)),
        source: a[0],
        space: Number(u64(data, 12)),
      },
    };
  if (tag === 1 && data.length >= 36 && a.length >= 1)
    return { type: "assign", info: { account: a[0], owner: encodeBase58(data.subarray(4, 36)) } };
  if (tag === 8 && data.length >= 12 && a.length >= 1)
    return { type: "allocate", info: { account: a[0], space: Number(u64(data, 4)) } };
  return null;
}

function token(data: Uint8Array, a: string[]): unknown {
  if (data.length < 1) return null;
  const amount = () => u64(data, 1).toString();
  switch (data[0]) {
    case 3:
      return data.length >= 9 && a.length >= 3
        ? { type: "transfer", info: { amount: amount(), authority: a[2], destination: a[1], source: a[0] } }
        : null;
    case 7:
      return data.length >= 9 && a.length >= 3
        ? { type: "mintTo", info: { account: a[1], amount: amount(), mint: a[0], mintAuthority: a[2] } }
        : null;
    case 8:
      return data.length >= 9 && a.length >= 3
        ? { type: "burn", info: { account: a[0], amount: amount(), authority: a[2], mint: a[1] } }
        : null;
    case 9:
      return a.length >= 3
        ? { type: "closeAccount", info: { account: a[0], destination: a[1], owner: a[2] } }
        : null;
    case 12:
      return data.length >= 10 && a.length >= 4
        ? {
            type: "transferChecked",
            info: {
              authority: a[3],
              destination: a[2],
              mint: a[1],
              source: a[0],
              tokenAmount: uiTokenAmount(u64(data, 1), data[9]!),
            },
          }
        : null;
    default:
      return null;
  }
}

function ata(data: Uint8Array, a: string[]): unknown {
  if (a.length < 6) return null;
  const kind = data.length === 0 || data[0] === 0 ? "create" : data[0] === 1 ? "createIdempotent" : null;
  if (!kind) return null;
  return {
    type: kind,
    info: { account: a[1], mint: a[3], source: a[0], systemProgram: a[4], tokenProgram: a[5], wallet: a[2] },
  };
}

/**
 * agave's jsonParsed form of an instruction for the programs localnet knows (System transfer,
 * createAccount, assign, allocate; SPL Token / Token-2022 transfer, transferChecked, mintTo, burn,
 * closeAccount; associated token account create; Memo), or null for the partially decoded form.
 */
export function parseInstruction(
  programId: string,
  data: Uint8Array,
  accounts: string[],
): ParsedInstruction | null {
  let program: string | null = null;
  let parsed: unknown = null;
  if (programId === SYSTEM) [program, parsed] = ["system", system(data, accounts)];
  else if (programId === TOKEN_PROGRAM) [program, parsed] = ["spl-token", token(data, accounts)];
  else if (programId === TOKEN_2022_PROGRAM) [program, parsed] = ["spl-token-2022", token(data, accounts)];
  else if (programId === ATA) [program, parsed] = ["spl-associated-token-account", ata(data, accounts)];
  else if (MEMO.has(programId)) [program, parsed] = ["spl-memo", Buffer.from(data).toString("utf8")];
  if (!program || parsed === null) return null;
  return { program, programId, parsed, stackHeight: null };
}
