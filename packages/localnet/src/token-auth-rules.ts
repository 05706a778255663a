/**
 * Metaplex Token Auth Rules (loaded at its mainnet id): the rule sets that govern programmable NFTs. Rule sets
 * are written in the program's RuleSet V2 binary layout (lib version 2) and created with its CreateOrUpdate.
 */
import { decodeAddress } from "./base58.ts";
import { findProgramAddressSync } from "./pda.ts";
import type { BuildInstruction } from "./tx-builder.ts";
import { TOKEN_AUTH_RULES_PROGRAM } from "./vendored-programs.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";

/** A rule of RuleSet V2 (the subset the demo world uses). */
export type RuleV2 =
  | { type: "Pass" }
  | { type: "Any"; rules: RuleV2[] }
  | { type: "All"; rules: RuleV2[] }
  /** The account named by payload `field` (e.g. "Destination", "Delegate") is owned by one of `programs`. */
  | { type: "ProgramOwnedList"; field: string; programs: string[] };

const RULE_TYPE = { All: 2, Any: 4, Pass: 9, ProgramOwnedList: 12 } as const;

/** A UTF-8 string NUL-padded to 32 bytes, as RuleSet V2 stores names, operations and payload fields. */
function fixed32(s: string): Uint8Array {
  const b = Buffer.from(s, "utf8");
  if (b.length > 32) throw new Error(`"${s}" exceeds 32 bytes`);
  const out = new Uint8Array(32);
  out.set(b);
  return out;
}

const u32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};
const u64 = (v: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
};

/** A rule: header (type u32, body length u32) then its body. */
function encodeRule(rule: RuleV2): Uint8Array {
  let body: Uint8Array;
  if (rule.type === "Pass") body = new Uint8Array();
  else if (rule.type === "Any" || rule.type === "All")
    body = Buffer.concat([u64(rule.rules.length), ...rule.rules.map(encodeRule)]);
  else body = Buffer.concat([fixed32(rule.field), ...rule.programs.map(decodeAddress)]);
  return Buffer.concat([u32(RULE_TYPE[rule.type]), u32(body.length), body]);
}

/** RuleSet V2: lib version, operation count, owner, name, the operation names, then one rule per operation. */
export function encodeRuleSetV2(r: { name: string; owner: string; operations: Record<string, RuleV2> }) {
  const entries = Object.entries(r.operations);
  return Buffer.concat([
    u32(2),
    u32(entries.length),
    decodeAddress(r.owner),
    fixed32(r.name),
    ...entries.map(([op]) => fixed32(op)),
    ...entries.map(([, rule]) => encodeRule(rule)),
  ]);
}

/** The rule set PDA ["rule_set", owner, name]. */
export function getRuleSetAddress(owner: string, name: string): string {
  return findProgramAddressSync(
    [Buffer.from("rule_set"), decodeAddress(owner), Buffer.from(name)],
    TOKEN_AUTH_RULES_PROGRAM,
  )[0];
}

/** The buffer PDA ["rule_set", payer] a large rule set is written to before CreateOrUpdate reads it. */
export function getRuleSetBufferAddress(payer: string): string {
  return findProgramAddressSync([Buffer.from("rule_set"), decodeAddress(payer)], TOKEN_AUTH_RULES_PROGRAM)[0];
}

/** Bytes of a rule set written per WriteToBuffer transaction (a transaction holds at most 1,232 bytes). */
const BUFFER_CHUNK_BYTES = 800;

/**
 * The transactions (one instruction list each) that create or update a rule set: WriteToBuffer chunks of the
 * serialized rule set (the first overwriting the owner's buffer PDA), then CreateOrUpdate reading the buffer, as
 * Metaplex's clients do for rule sets that do not fit one transaction.
 */
export function createOrUpdateRuleSetTransactions(p: {
  owner: string;
  name: string;
  operations: Record<string, RuleV2>;
}): BuildInstruction[][] {
  const ruleSet = encodeRuleSetV2(p);
  const program = decodeAddress(TOKEN_AUTH_RULES_PROGRAM);
  const owner = { pubkey: decodeAddress(p.owner), isSigner: true, isWritable: true };
  const buffer = {
    pubkey: decodeAddress(getRuleSetBufferAddress(p.owner)),
    isSigner: false,
    isWritable: true,
  };
  const system = { pubkey: decodeAddress(SYSTEM_PROGRAM), isSigner: false, isWritable: false };
  const txs: BuildInstruction[][] = [];
  for (let at = 0; at < ruleSet.length; at += BUFFER_CHUNK_BYTES) {
    const chunk = ruleSet.subarray(at, at + BUFFER_CHUNK_BYTES);
    // WriteToBuffer, WriteToBufferArgs::V1 { serialized_rule_set, overwrite }
    const data = Buffer.concat([
      Uint8Array.of(2, 0),
      u32(chunk.length),
      chunk,
      Uint8Array.of(at === 0 ? 1 : 0),
    ]);
    txs.push([{ programId: program, keys: [owner, buffer, system], data }]);
  }
  // CreateOrUpdate, CreateOrUpdateArgs::V1 { serialized_rule_set: empty }: the rule set is read from the buffer.
  const data = Buffer.concat([Uint8Array.of(0, 0), u32(0)]);
  const ruleSetPda = {
    pubkey: decodeAddress(getRuleSetAddress(p.owner, p.name)),
    isSigner: false,
    isWritable: true,
  };
  txs.push([{ programId: program, keys: [owner, ruleSetPda, system, buffer], data }]);
  return txs;
}
