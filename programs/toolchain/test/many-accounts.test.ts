// 24 distinct accounts plus duplicates in one instruction: deserialised, read and written correctly.
import { AccountRole, type Address, generateKeyPairSigner, getAddressEncoder, lamports } from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import { describe, expect, it } from "vitest";
import { buildFixture } from "./helpers/build-fixture.ts";
import { addProgram, createHarness, readU64s, send } from "./helpers/svm.ts";

describe("many accounts", () => {
  it("handles 24 accounts with 3 duplicate entries (27 in the instruction)", async () => {
    const { so } = await buildFixture(["many-accounts"]);
    const h = await createHarness();
    const programId = await addProgram(h, so);
    const owned: Address[] = [];
    for (let i = 0; i < 12; i++) {
      const kp = await generateKeyPairSigner();
      await send(h, [
        getCreateAccountInstruction({
          payer: h.payer,
          newAccount: kp,
          lamports: h.svm.minimumBalanceForRentExemption(8n),
          space: 8n,
          programAddress: programId,
        }),
      ]);
      owned.push(kp.address);
    }
    const plain: Address[] = [];
    for (let i = 0; i < 12; i++) {
      const kp = await generateKeyPairSigner();
      h.svm.airdrop(kp.address, lamports(1_000_000n + BigInt(i)));
      plain.push(kp.address);
    }
    const accounts = [
      ...owned.map((address) => ({ address, role: AccountRole.WRITABLE })),
      ...plain.map((address) => ({ address, role: AccountRole.READONLY })),
      { address: owned[3]!, role: AccountRole.WRITABLE },
      { address: plain[0]!, role: AccountRole.READONLY },
      { address: owned[0]!, role: AccountRole.WRITABLE },
    ];
    const res = await send(h, [{ programAddress: programId, accounts, data: new Uint8Array() }]);
    const [count, lamportSum, signers, writables, dups, keyXor] = readU64s(res.returnData().data());
    const unique = [...owned, ...plain];
    expect(count).toBe(27n);
    expect(dups).toBe(3n);
    expect(signers).toBe(0n);
    expect(writables).toBe(12n);
    expect(lamportSum).toBe(unique.reduce((s, a) => s + h.svm.getBalance(a)!, 0n));
    const enc = getAddressEncoder();
    expect(keyXor).toBe(
      unique.reduce((x, a) => {
        const k = enc.encode(a);
        return x ^ BigInt(k[0]! | (k[31]! << 8));
      }, 0n),
    );
    owned.forEach((a, i) => {
      const acc = h.svm.getAccount(a);
      expect(acc.exists && Buffer.from(acc.data).readBigUInt64LE(0)).toBe(BigInt(i + 1));
    });
  });
});
