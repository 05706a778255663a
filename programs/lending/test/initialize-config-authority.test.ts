/**
 * InitializeConfig accepts only the program's upgrade authority as admin: the program account and its
 * ProgramData account (BPF Upgradeable Loader) travel with the instruction and are checked on chain.
 */

import { readFileSync } from "node:fs";
import {
  BPF_LOADER_UPGRADEABLE_ADDRESS,
  decodeConfigAccount,
  decodeLendingError,
  findConfigPda,
  findProgramDataAddress,
  getInitializeConfigInstruction,
  getSetUpgradeAuthorityInstruction,
  LENDING_ERROR_CODE,
  parseLendingInstruction,
} from "@cistern/sdk";
import { deployUpgradeableProgram, LiteSvmTransactionError, sendWithLiteSvm } from "@cistern/sdk/testing";
import {
  type Address,
  address,
  generateKeyPairSigner,
  getAddressEncoder,
  type KeyPairSigner,
  lamports,
} from "@solana/kit";
import { LiteSVM } from "litesvm";
import { describe, expect, it } from "vitest";
import { Harness, SO_PATH } from "./support/harness.ts";
import { swapAccount, truncateAccounts } from "./support/mutate.ts";

const E = LENDING_ERROR_CODE;
const BPF_LOADER_2 = address("BPFLoader2111111111111111111111111111111111");

function initIx(program: Address, admin: KeyPairSigner, oracle: Address, treasury: Address) {
  return getInitializeConfigInstruction({
    programAddress: program,
    admin,
    oracle,
    treasury,
    protocolFeeBps: 2000,
  });
}

/** The config PDA of the harness program does not exist (a refused initialize wrote nothing). */
async function expectNoConfig(h: Harness): Promise<void> {
  const [config] = await findConfigPda(h.programId);
  expect(h.exists(config)).toBe(false);
}

describe("InitializeConfig: only the upgrade authority", () => {
  it("carries the program and its ProgramData account, derived from the program id", async () => {
    const h = await Harness.create();
    const ix = await initIx(h.programId, h.upgradeAuthority, h.payer.address, h.payer.address);
    const parsed = parseLendingInstruction(ix);
    if (parsed.type !== "InitializeConfig") throw new Error(`parsed as ${parsed.type}`);
    expect(parsed.accounts).toMatchObject({
      admin: h.upgradeAuthority.address,
      program: h.programId,
      programData: await findProgramDataAddress(h.programId),
    });
    // the derived address is the loader-owned ProgramData the deploy created
    const programData = h.svm.getAccount(parsed.accounts.programData);
    expect(programData.exists && programData.programAddress).toBe(BPF_LOADER_UPGRADEABLE_ADDRESS);
  });

  it("refuses a signer that is not the upgrade authority, then accepts the authority", async () => {
    const h = await Harness.create();
    const stranger = await h.wallet();
    const oracle = await h.wallet();
    await h.expectCode(
      [await initIx(h.programId, stranger, oracle.address, stranger.address)],
      E.NotUpgradeAuthority,
    );
    await expectNoConfig(h);
    // the stranger paying the fee and naming the authority's key without its signature does not help
    await h.send([await initIx(h.programId, h.upgradeAuthority, oracle.address, oracle.address)], stranger);
    const [config] = await findConfigPda(h.programId);
    expect(decodeConfigAccount(h.data(config)).admin).toBe(h.upgradeAuthority.address);
  });

  it("refuses a wrong program account and missing loader accounts", async () => {
    const h = await Harness.create();
    const other = await deployUpgradeableProgram(h.svm, {
      programBytes: new Uint8Array(readFileSync(SO_PATH)),
      authority: h.upgradeAuthority,
    });
    const ix = await initIx(h.programId, h.upgradeAuthority, h.payer.address, h.payer.address);
    // another upgradeable program (same authority), a wallet, the ProgramData in the program's place
    await h.expectCode([swapAccount(ix, 3, other)], E.InvalidProgramAccount);
    await h.expectCode([swapAccount(ix, 3, h.payer.address)], E.InvalidProgramAccount);
    await h.expectCode(
      [swapAccount(ix, 3, await findProgramDataAddress(h.programId))],
      E.InvalidProgramAccount,
    );
    await h.expectCode([truncateAccounts(ix, 3)], E.NotEnoughAccounts);
    await h.expectCode([truncateAccounts(ix, 4)], E.NotEnoughAccounts);
    await expectNoConfig(h);
  });

  it("refuses a foreign ProgramData, even one whose authority is the signer", async () => {
    const h = await Harness.create();
    const bytes = new Uint8Array(readFileSync(SO_PATH));
    // the attacker deploys its own copy of the program, so it is the upgrade authority of that ProgramData
    const attacker = await h.wallet();
    const attackerProgram = await deployUpgradeableProgram(h.svm, {
      programBytes: bytes,
      authority: attacker,
    });
    const foreign = await findProgramDataAddress(attackerProgram);
    const byAttacker = await initIx(h.programId, attacker, attacker.address, attacker.address);
    await h.expectCode([swapAccount(byAttacker, 4, foreign)], E.InvalidProgramData);
    await h.expectCode([byAttacker], E.NotUpgradeAuthority);
    // a forged ProgramData-shaped account (tag 3, authority = attacker) not owned by the loader
    const forged = (await generateKeyPairSigner()).address;
    const data = new Uint8Array(45);
    const view = new DataView(data.buffer);
    view.setUint32(0, 3, true);
    data[12] = 1;
    data.set(getAddressEncoder().encode(attacker.address), 13);
    h.svm.setAccount({
      address: forged,
      data,
      executable: false,
      lamports: lamports(1_000_000_000n),
      programAddress: h.programId,
      space: 45n,
    });
    await h.expectCode([swapAccount(byAttacker, 4, forged)], E.InvalidProgramData);
    // the program's own ProgramData with the authority's signature is accepted
    const ok = await initIx(h.programId, h.upgradeAuthority, h.payer.address, h.payer.address);
    await h.expectCode([swapAccount(ok, 4, foreign)], E.InvalidProgramData);
    await expectNoConfig(h);
    await h.send([ok]);
  });

  it("follows the upgrade authority when it is handed over", async () => {
    const h = await Harness.create();
    const next = await h.wallet();
    const programData = await findProgramDataAddress(h.programId);
    await h.send([
      getSetUpgradeAuthorityInstruction({
        programData,
        authority: h.upgradeAuthority,
        newAuthority: next.address,
      }),
    ]);
    await h.expectCode(
      [await initIx(h.programId, h.upgradeAuthority, next.address, next.address)],
      E.NotUpgradeAuthority,
    );
    await h.send([await initIx(h.programId, next, next.address, next.address)]);
    const [config] = await findConfigPda(h.programId);
    expect(decodeConfigAccount(h.data(config)).admin).toBe(next.address);
  });

  it("refuses everyone once the program is immutable (upgrade authority None)", async () => {
    const h = await Harness.create();
    const programData = await findProgramDataAddress(h.programId);
    await h.send([
      getSetUpgradeAuthorityInstruction({ programData, authority: h.upgradeAuthority, newAuthority: null }),
    ]);
    expect(h.data(programData)[12]).toBe(0);
    await h.expectCode(
      [await initIx(h.programId, h.upgradeAuthority, h.payer.address, h.payer.address)],
      E.ProgramImmutable,
    );
    const someone = await h.wallet();
    await h.expectCode(
      [await initIx(h.programId, someone, someone.address, someone.address)],
      E.ProgramImmutable,
    );
    await expectNoConfig(h);
  });

  it("refuses a program loaded without an upgrade authority or by another loader", async () => {
    const bytes = readFileSync(SO_PATH);
    const cases = [
      // LiteSVM's addProgram: an upgradeable program whose ProgramData has no authority
      { load: (svm: LiteSVM, id: Address) => svm.addProgram(id, bytes), code: E.ProgramImmutable },
      // the non-upgradeable BPF loader: no Program / ProgramData accounts at all
      {
        load: (svm: LiteSVM, id: Address) => svm.addProgramWithLoader(id, bytes, BPF_LOADER_2),
        code: E.InvalidProgramAccount,
      },
    ];
    for (const { load, code } of cases) {
      const svm = new LiteSVM();
      const program = (await generateKeyPairSigner()).address;
      load(svm, program);
      const admin = await generateKeyPairSigner();
      svm.airdrop(admin.address, lamports(10_000_000_000n));
      const failure = await sendWithLiteSvm(
        svm,
        [await initIx(program, admin, admin.address, admin.address)],
        admin,
      ).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(LiteSvmTransactionError);
      expect(
        decodeLendingError((failure as LiteSvmTransactionError).logs, { programAddress: program })?.code,
      ).toBe(code);
      const [config] = await findConfigPda(program);
      expect(svm.getAccount(config).exists).toBe(false);
    }
  });
});
