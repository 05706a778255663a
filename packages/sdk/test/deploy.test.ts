import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generateKeyPairSigner, getAddressDecoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  BPF_LOADER_UPGRADEABLE_ADDRESS,
  type DeployTransport,
  decodeConfigAccount,
  decodeLendingError,
  deployProgram,
  findConfigPda,
  getInitializeConfigInstruction,
  getMaxWriteChunkBytes,
  getSetUpgradeAuthorityInstruction,
  isSdkError,
  MIN_EXTEND_PROGRAM_BYTES,
  PROGRAMDATA_METADATA_SIZE,
  SDK_ERROR,
  TRANSACTION_SIZE_LIMIT_BYTES,
} from "../src/index.ts";
import {
  createFundedSigner,
  createLiteSvmDeployTransport,
  createTestSvm,
  getAccountData,
  sendWithLiteSvm,
} from "../src/testing/litesvm-harness.ts";

const LENDING_SO = fileURLToPath(new URL("../../../programs/lending/build/lending.so", import.meta.url));

describe("deployProgram (BPF Upgradeable Loader) in LiteSVM", () => {
  it("has the lending program build to deploy", () => {
    expect(existsSync(LENDING_SO)).toBe(true);
  });

  it("deploys lending.so, runs InitializeConfig on it, then upgrades it with a larger program", async () => {
    const programBytes = new Uint8Array(readFileSync(LENDING_SO));
    const svm = createTestSvm();
    const transport = createLiteSvmDeployTransport(svm);
    const payer = await createFundedSigner(svm, 1000n);
    const program = await generateKeyPairSigner();

    const steps: string[] = [];
    const deployed = await deployProgram({
      transport,
      programBytes,
      program,
      payer,
      maxDataLenBytes: BigInt(programBytes.length),
      onProgress: ({ step }) => {
        if (!steps.includes(step)) steps.push(step);
      },
    });
    expect(deployed.kind).toBe("deploy");
    expect(steps).toEqual(["create-buffer", "write", "deploy"]);
    const chunk = getMaxWriteChunkBytes(payer, payer, deployed.bufferAddress);
    expect(chunk).toBeGreaterThan(900);
    expect(chunk).toBeLessThan(TRANSACTION_SIZE_LIMIT_BYTES);
    expect(deployed.writeTransactionCount).toBe(Math.ceil(programBytes.length / chunk));
    expect(deployed.signatures.length).toBe(deployed.writeTransactionCount + 2);

    const programAccount = svm.getAccount(program.address);
    expect(programAccount.exists && programAccount.executable).toBe(true);
    expect(programAccount.exists && programAccount.programAddress).toBe(BPF_LOADER_UPGRADEABLE_ADDRESS);
    const programData = getAccountData(svm, deployed.programDataAddress)!;
    expect(Array.from(programData.subarray(PROGRAMDATA_METADATA_SIZE))).toEqual(Array.from(programBytes));
    // the buffer is consumed by the deploy
    expect(svm.getAccount(deployed.bufferAddress).exists).toBe(false);

    // the deployed program runs (a program deployed in a slot is callable from the next slot)
    svm.warpToSlot(svm.getClock().slot + 1n);
    const oracle = await generateKeyPairSigner();
    const treasury = await generateKeyPairSigner();
    await sendWithLiteSvm(
      svm,
      [
        await getInitializeConfigInstruction({
          programAddress: program.address,
          admin: payer,
          oracle: oracle.address,
          treasury: treasury.address,
          protocolFeeBps: 2000,
        }),
      ],
      payer,
    );
    const [configAddress, configBump] = await findConfigPda(program.address);
    const config = decodeConfigAccount(getAccountData(svm, configAddress)!);
    expect(config).toMatchObject({
      bump: configBump,
      admin: payer.address,
      oracle: oracle.address,
      treasury: treasury.address,
      protocolFeeBps: 2000,
      paused: false,
    });

    // upgrade with a larger program: ProgramData is extended, then the bytes replaced
    const larger = new Uint8Array(programBytes.length + 700);
    larger.set(programBytes);
    const upgraded = await deployProgram({ transport, programBytes: larger, program, payer });
    expect(upgraded.kind).toBe("upgrade");
    expect(upgraded.programDataAddress).toBe(deployed.programDataAddress);
    const upgradedData = getAccountData(svm, deployed.programDataAddress)!;
    // the loader extends by at least MIN_EXTEND_PROGRAM_BYTES; the tail past the program is zero
    expect(upgradedData.length).toBe(
      PROGRAMDATA_METADATA_SIZE + programBytes.length + MIN_EXTEND_PROGRAM_BYTES,
    );
    const body = upgradedData.subarray(PROGRAMDATA_METADATA_SIZE);
    expect(Array.from(body.subarray(0, larger.length))).toEqual(Array.from(larger));
    expect(body.subarray(larger.length).every((b) => b === 0)).toBe(true);
    // and the upgraded program still runs
    svm.warpToSlot(svm.getClock().slot + 1n);
    await expect(
      sendWithLiteSvm(
        svm,
        [
          await getInitializeConfigInstruction({
            programAddress: program.address,
            admin: payer,
            oracle: oracle.address,
            treasury: treasury.address,
            protocolFeeBps: 2000,
          }),
        ],
        payer,
      ),
    ).rejects.toSatisfy((error) => decodeLendingError(error, { programAddress: program.address }) !== null);

    // a different authority cannot upgrade
    const stranger = await createFundedSigner(svm, 100n);
    await expect(deployProgram({ transport, programBytes, program, payer: stranger })).rejects.toSatisfy(
      (error) => isSdkError(error, SDK_ERROR.DEPLOY_AUTHORITY_MISMATCH),
    );

    // SetAuthority: hand the upgrade authority to the stranger, then remove it (immutable)
    const programDataAddress = deployed.programDataAddress;
    await sendWithLiteSvm(
      svm,
      [
        getSetUpgradeAuthorityInstruction({
          programData: programDataAddress,
          authority: payer,
          newAuthority: stranger.address,
        }),
      ],
      payer,
    );
    let header = getAccountData(svm, programDataAddress)!;
    expect(header[12]).toBe(1);
    expect(getAddressDecoder().decode(header.subarray(13, 45))).toBe(stranger.address);
    await expect(deployProgram({ transport, programBytes, program, payer })).rejects.toSatisfy((error) =>
      isSdkError(error, SDK_ERROR.DEPLOY_AUTHORITY_MISMATCH),
    );
    await sendWithLiteSvm(
      svm,
      [
        getSetUpgradeAuthorityInstruction({
          programData: programDataAddress,
          authority: stranger,
          newAuthority: null,
        }),
      ],
      stranger,
    );
    header = getAccountData(svm, programDataAddress)!;
    expect(header[12]).toBe(0);
    await expect(deployProgram({ transport, programBytes, program, payer: stranger })).rejects.toThrow(
      /immutable/,
    );
  }, 60_000);

  it("refuses to deploy over an account that is not an upgradeable program, and empty programs", async () => {
    const svm = createTestSvm();
    const transport = createLiteSvmDeployTransport(svm);
    const payer = await createFundedSigner(svm);
    const walletAsProgram = await createFundedSigner(svm, 1n);
    await expect(
      deployProgram({ transport, programBytes: new Uint8Array(10), program: walletAsProgram, payer }),
    ).rejects.toSatisfy((error) => isSdkError(error, SDK_ERROR.DEPLOY_PROGRAM_ACCOUNT_MISMATCH));
    await expect(
      deployProgram({
        transport,
        programBytes: new Uint8Array(0),
        program: await generateKeyPairSigner(),
        payer,
      }),
    ).rejects.toSatisfy((error) => isSdkError(error, SDK_ERROR.DEPLOY_EMPTY_PROGRAM));
  }, 30_000);

  it("closes the buffer and returns its lamports when a write fails midway", async () => {
    const programBytes = new Uint8Array(readFileSync(LENDING_SO));
    const svm = createTestSvm();
    const inner = createLiteSvmDeployTransport(svm);
    const payer = await createFundedSigner(svm, 1000n);
    let writes = 0;
    let bufferAddress: string | undefined;
    // the chain is real; the link drops the 5th Write transaction
    const flaky: DeployTransport = {
      ...inner,
      async sendInstructions(instructions, feePayer) {
        const data = instructions[0]?.data;
        if (instructions[0]?.programAddress === BPF_LOADER_UPGRADEABLE_ADDRESS && data?.[0] === 1) {
          bufferAddress = instructions[0].accounts![0]!.address;
          if (++writes === 5) throw new Error("connection reset");
        }
        return inner.sendInstructions(instructions, feePayer);
      },
    };
    const before = svm.getBalance(payer.address)!;
    const failure = await deployProgram({
      transport: flaky,
      programBytes,
      program: await generateKeyPairSigner(),
      payer,
      writeConcurrency: 1,
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isSdkError(failure, SDK_ERROR.DEPLOY_FAILED)).toBe(true);
    expect((failure as Error).message).toMatch(/connection reset.*closed/);
    expect(writes).toBe(5);
    expect(svm.getAccount(bufferAddress as never).exists).toBe(false);
    // only fees were spent: create-buffer (2 signatures) + 4 writes + close = 7 signatures of 5000 lamports
    expect(before - svm.getBalance(payer.address)!).toBe(7n * 5000n);
  }, 30_000);

  it("validates maxDataLenBytes before sending anything", async () => {
    const svm = createTestSvm();
    const payer = await createFundedSigner(svm);
    const before = svm.getBalance(payer.address);
    await expect(
      deployProgram({
        transport: createLiteSvmDeployTransport(svm),
        programBytes: new Uint8Array(100),
        program: await generateKeyPairSigner(),
        payer,
        maxDataLenBytes: 99n,
      }),
    ).rejects.toSatisfy((error) => isSdkError(error, SDK_ERROR.INVALID_ARGUMENT));
    expect(svm.getBalance(payer.address)).toBe(before);
  });
});
