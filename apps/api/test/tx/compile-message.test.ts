import { AccountRole, type Address, generateKeyPairSigner, type Instruction } from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compiledByKit, compileV0Transaction } from "../../src/tx/builder/compile-message.ts";

const ROLES = [
  AccountRole.READONLY,
  AccountRole.WRITABLE,
  AccountRole.READONLY_SIGNER,
  AccountRole.WRITABLE_SIGNER,
];

describe("compileV0Transaction", () => {
  it("produces kit's bytes for any mix of programs, accounts, roles and repeats", async () => {
    // a pool of addresses (mixed case and leading characters, so the collation order matters)
    const pool: Address[] = [];
    for (let i = 0; i < 24; i++) pool.push((await generateKeyPairSigner()).address);
    const blockhash = (await generateKeyPairSigner()).address;
    const instruction = fc.record({
      program: fc.integer({ min: 0, max: 5 }),
      accounts: fc.array(
        fc.record({ at: fc.integer({ min: 6, max: pool.length - 1 }), role: fc.constantFrom(...ROLES) }),
        { maxLength: 8 },
      ),
      data: fc.uint8Array({ maxLength: 140 }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 6, max: pool.length - 1 }),
        fc.array(instruction, { minLength: 1, maxLength: 5 }),
        (payerAt, list) => {
          const feePayer = pool[payerAt]!;
          const instructions: Instruction[] = list.map((ix) => ({
            programAddress: pool[ix.program]!,
            accounts: ix.accounts.map((a) => ({ address: pool[a.at]!, role: a.role })),
            data: ix.data,
          }));
          // kit refuses more than 12 signers (they would not fit a transaction); the builders never ask for that
          const signers = new Set([feePayer]);
          for (const ix of instructions)
            for (const a of ix.accounts ?? [])
              if (a.role >= AccountRole.READONLY_SIGNER) signers.add(a.address);
          fc.pre(signers.size <= 12);
          const ours = compileV0Transaction(feePayer, blockhash, 100, instructions);
          const kit = compiledByKit(feePayer, blockhash, 100, instructions);
          expect([...ours.messageBytes]).toEqual([...kit.messageBytes]);
          expect(ours.wireBase64).toBe(kit.wireBase64);
          expect(ours.size).toBe(kit.size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses more accounts than a message can index", async () => {
    const payer = (await generateKeyPairSigner()).address;
    const program = (await generateKeyPairSigner()).address;
    const many = await Promise.all(Array.from({ length: 256 }, () => generateKeyPairSigner()));
    const ix: Instruction = {
      programAddress: program,
      accounts: many.map((k) => ({ address: k.address, role: AccountRole.READONLY })),
    };
    expect(() => compileV0Transaction(payer, program, 1, [ix])).toThrow(/at most 256 accounts/);
  });
});
