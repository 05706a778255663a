// A program that owns state and moves SPL tokens out of a PDA-owned vault by a signed CPI, time-locked by the clock.
import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  getProgramDerivedAddress,
  lamports,
} from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import { getMintToInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { Clock } from "litesvm";
import { beforeAll, describe, expect, it } from "vitest";
import { buildFixture } from "./helpers/build-fixture.ts";
import { addProgram, createHarness, type Harness, send, sendExpectingFailure, u64le } from "./helpers/svm.ts";
import { createMint, createTokenAccount, tokenAmount } from "./helpers/token.ts";

let so: Buffer;
beforeAll(async () => {
  so = (await buildFixture(["escrow"])).so;
});

async function setup(): Promise<Harness & { programId: Address }> {
  const h = await createHarness();
  return { ...h, programId: await addProgram(h, so) };
}

describe("escrow fixture", () => {
  it("writes a u64 into an account it owns, and refuses one it does not own", async () => {
    const h = await setup();
    const state = await generateKeyPairSigner();
    await send(h, [
      getCreateAccountInstruction({
        payer: h.payer,
        newAccount: state,
        lamports: h.svm.minimumBalanceForRentExemption(16n),
        space: 16n,
        programAddress: h.programId,
      }),
    ]);
    const value = 0xdead_beef_1234_5678n;
    await send(h, [
      {
        programAddress: h.programId,
        accounts: [{ address: state.address, role: AccountRole.WRITABLE }],
        data: Buffer.concat([Buffer.from([0]), u64le(value)]),
      },
    ]);
    const acc = h.svm.getAccount(state.address);
    expect(acc.exists && Buffer.from(acc.data).readBigUInt64LE(0)).toBe(value);
    expect(acc.exists && Buffer.from(acc.data).readBigUInt64LE(8)).toBe(0n);

    const other = await generateKeyPairSigner();
    h.svm.airdrop(other.address, lamports(1_000_000n));
    const fail = await sendExpectingFailure(h, [
      {
        programAddress: h.programId,
        accounts: [{ address: other.address, role: AccountRole.WRITABLE }],
        data: Buffer.concat([Buffer.from([0]), u64le(1n)]),
      },
    ]);
    expect(fail.errText).toContain("code: 100");
  });

  it("transfers tokens out of the PDA vault once unlocked, signing with the PDA seeds", async () => {
    const h = await setup();
    const [pda] = await getProgramDerivedAddress({ programAddress: h.programId, seeds: ["vault"] });
    const mint = await createMint(h);
    const vault = await createTokenAccount(h, mint, pda);
    const user = await generateKeyPairSigner();
    const dest = await createTokenAccount(h, mint, user.address);
    await send(h, [getMintToInstruction({ mint, token: vault, mintAuthority: h.payer, amount: 1000n })]);
    const c = h.svm.getClock();
    h.svm.setClock(new Clock(c.slot, c.epochStartTimestamp, c.epoch, c.leaderScheduleEpoch, 1_700_000_000n));
    const ix = (amount: bigint, unlockAt: bigint, authority: Address = pda) => ({
      programAddress: h.programId,
      accounts: [
        { address: vault, role: AccountRole.WRITABLE },
        { address: dest, role: AccountRole.WRITABLE },
        { address: authority, role: AccountRole.READONLY },
        { address: TOKEN_PROGRAM_ADDRESS, role: AccountRole.READONLY },
      ],
      data: Buffer.concat([Buffer.from([1]), u64le(amount), u64le(unlockAt)]),
    });

    const locked = await sendExpectingFailure(h, [ix(400n, 1_800_000_000n)]);
    expect(locked.errText).toContain("code: 102");
    expect(tokenAmount(h, vault)).toBe(1000n);

    const res = await send(h, [ix(400n, 1_600_000_000n)]);
    expect(res.logs().some((l) => l.includes(`Program ${TOKEN_PROGRAM_ADDRESS} success`))).toBe(true);
    expect(tokenAmount(h, vault)).toBe(600n);
    expect(tokenAmount(h, dest)).toBe(400n);

    const wrongPda = await sendExpectingFailure(h, [ix(1n, 0n, h.payer.address)]);
    expect(wrongPda.errText).toContain("code: 101");
    const tooMuch = await sendExpectingFailure(h, [ix(601n, 0n)]);
    expect(tooMuch.logs.join("\n")).toContain("insufficient funds");
    expect(tokenAmount(h, vault)).toBe(600n);
  });
});
