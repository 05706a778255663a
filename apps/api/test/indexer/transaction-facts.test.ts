import { createHash } from "node:crypto";
import { INSTRUCTION_TAG } from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { readTransactionFacts } from "../../src/indexer/transaction-facts.ts";
import type { RpcClient } from "../../src/solana/rpc-client.ts";
import { randomAddress } from "../helpers/fixtures.ts";

const PROGRAM = randomAddress();

/** A node answering getTransaction with `wire` (base64) and the lookup tables' resolved addresses. */
function nodeWith(wire: string, loaded: { writable: string[]; readonly: string[] }): RpcClient {
  return {
    call: async (method: string) => {
      expect(method).toBe("getTransaction");
      return { slot: 77, transaction: [wire, "base64"], meta: { logMessages: [], loadedAddresses: loaded } };
    },
  } as unknown as RpcClient;
}

function build(version: "legacy" | 0, lookup?: { table: Address; addresses: Address[] }) {
  const feePayer = randomAddress();
  const loan = randomAddress();
  const accounts = Array.from({ length: 9 }, () => randomAddress());
  const role = (i: number) =>
    i === 6 || i === 2 ? AccountRole.WRITABLE : i === 1 ? AccountRole.READONLY_SIGNER : AccountRole.READONLY;
  const takeLoan = {
    programAddress: PROGRAM,
    accounts: accounts.map((a, i) => ({ address: i === 6 ? loan : a, role: role(i) })),
    data: new Uint8Array([INSTRUCTION_TAG.TakeLoan, 1, 2, 3]),
  };
  const other = {
    programAddress: randomAddress(),
    accounts: [{ address: lookup?.addresses[0] ?? randomAddress(), role: AccountRole.WRITABLE }],
    data: new Uint8Array(300).fill(7),
  };
  let message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: randomAddress() as unknown as Blockhash, lastValidBlockHeight: 1n },
        m,
      ),
    (m) => appendTransactionMessageInstructions([other, takeLoan], m),
  );
  if (lookup !== undefined)
    message = compressTransactionMessageUsingAddressLookupTables(message as never, {
      [lookup.table]: lookup.addresses,
    }) as typeof message;
  const tx = compileTransaction(message);
  return { feePayer, loan, wire: getBase64EncodedWireTransaction(tx) };
}

/** What kit's own decoders say of the same bytes. */
function kitView(wire: string, loadedWritable: string[]) {
  const tx = getTransactionDecoder().decode(Buffer.from(wire, "base64"));
  const m = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  const { numSignerAccounts: s, numReadonlySignerAccounts: rs, numReadonlyNonSignerAccounts: rn } = m.header;
  const n = m.staticAccounts.length;
  return {
    messageHash: createHash("sha256").update(new Uint8Array(tx.messageBytes)).digest("hex"),
    writableAccounts: m.staticAccounts
      .filter((_, i) => i < s - rs || (i >= s && i < n - rn))
      .map(String)
      .concat(loadedWritable),
  };
}

describe("a landed transaction read for the indexer", () => {
  it.each(["legacy", 0] as const)(
    "reads the fee payer, message hash, writable accounts and opened loan as kit does (%s message)",
    async (version) => {
      const { feePayer, loan, wire } = build(version);
      const facts = await readTransactionFacts(
        nodeWith(wire, { writable: [], readonly: [] }),
        "sig",
        PROGRAM,
      );
      expect(facts).toMatchObject({ signature: "sig", feePayer, slot: 77, ...kitView(wire, []) });
      expect(facts!.loans).toEqual([{ loan, role: "opened", sale: null, margin: null }]);
    },
  );

  it("reads a v0 message with an address lookup table (the loaded writable addresses follow the static ones)", async () => {
    const loaded = randomAddress();
    const { loan, wire } = build(0, { table: randomAddress(), addresses: [loaded] });
    const facts = await readTransactionFacts(
      nodeWith(wire, { writable: [loaded], readonly: [] }),
      "s",
      PROGRAM,
    );
    expect(facts!.writableAccounts).toEqual(kitView(wire, [loaded]).writableAccounts);
    expect(facts!.writableAccounts).toContain(loaded);
    expect(facts!.loans.map((l) => l.loan)).toEqual([loan]);
  });

  it("refuses bytes that end early", async () => {
    const { wire } = build(0);
    const cut = Buffer.from(wire, "base64").subarray(0, 150).toString("base64");
    await expect(
      readTransactionFacts(nodeWith(cut, { writable: [], readonly: [] }), "s", PROGRAM),
    ).rejects.toThrow(/end early/);
  });
});
