/**
 * In-process LiteSVM harness for the lending program tests: deploys build/lending.so through the BPF
 * Upgradeable Loader under a fresh program id (a funded wallet holds the upgrade authority), sends
 * transactions and reports compute units or the program's custom error code.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deployUpgradeableProgram } from "@cistern/sdk/testing";
import {
  type Address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type TransactionSigner,
} from "@solana/kit";
import { Clock, FailedTransactionMetadata, LiteSVM } from "litesvm";

export const SO_PATH = fileURLToPath(new URL("../../build/lending.so", import.meta.url));

/** Outcome of a transaction: compute units and logs on success, the custom code on failure. */
export interface TxOutcome {
  ok: boolean;
  computeUnits: bigint;
  logs: string[];
  /** Custom program error code of the failing instruction (null when none). */
  customCode: number | null;
  error: string;
}

/** The custom code of the transaction's error itself ("InstructionError(i, Custom(n))"): never truncated, unlike the
 * logs (a long transaction's logs end in "Log truncated" before the failing program's line). */
export function customCodeFromError(error: string): number | null {
  const m = /InstructionError\(\s*\d+\s*,\s*Custom\(\s*(\d+)\s*\)/.exec(error);
  return m?.[1] ? Number(m[1]) : null;
}

/** Reads the last "custom program error: 0x.." from the logs. */
export function customCodeFromLogs(logs: string[]): number | null {
  for (let i = logs.length - 1; i >= 0; i--) {
    const m = /custom program error: 0x([0-9a-f]+)/i.exec(logs[i] ?? "");
    if (m?.[1]) return Number.parseInt(m[1], 16);
  }
  return null;
}

/** The program's bytes, read once per test file. */
let programBytes: Uint8Array | null = null;

/** Which program a harness deploys (default: this build's lending.so under a generated id). */
export interface HarnessDeploy {
  programBytes?: Uint8Array;
  program?: TransactionSigner;
}

/** A LiteSVM with the lending program deployed and a funded fee payer. */
export class Harness {
  readonly svm: LiteSVM;
  readonly programId: Address;
  readonly payer: KeyPairSigner;
  /** Deployed the program and holds its upgrade authority: the only key InitializeConfig accepts as admin. */
  readonly upgradeAuthority: KeyPairSigner;

  private constructor(
    svm: LiteSVM,
    programId: Address,
    payer: KeyPairSigner,
    upgradeAuthority: KeyPairSigner,
  ) {
    this.svm = svm;
    this.programId = programId;
    this.payer = payer;
    this.upgradeAuthority = upgradeAuthority;
  }

  /**
   * Fresh SVM with the program deployed through the upgradeable loader under a generated id; clock at
   * `unixTime`, slot 1000.
   */
  static async create(unixTime = 1_750_000_000n, deploy: HarnessDeploy = {}): Promise<Harness> {
    const svm = new LiteSVM();
    const upgradeAuthority = await generateKeyPairSigner();
    svm.airdrop(upgradeAuthority.address, lamports(10_000_000_000n));
    programBytes ??= new Uint8Array(readFileSync(SO_PATH));
    const programId = await deployUpgradeableProgram(svm, {
      programBytes: deploy.programBytes ?? programBytes,
      authority: upgradeAuthority,
      program: deploy.program,
    });
    const payer = await generateKeyPairSigner();
    svm.airdrop(payer.address, lamports(100_000_000_000n));
    const h = new Harness(svm, programId, payer, upgradeAuthority);
    h.setClock(1000n, unixTime);
    return h;
  }

  /** A new funded wallet. */
  async wallet(sol = 10_000_000_000n): Promise<KeyPairSigner> {
    const w = await generateKeyPairSigner();
    this.svm.airdrop(w.address, lamports(sol));
    return w;
  }

  setClock(slot: bigint, unixTime: bigint): void {
    const c = this.svm.getClock();
    this.svm.setClock(new Clock(slot, c.epochStartTimestamp, c.epoch, c.leaderScheduleEpoch, unixTime));
  }

  get now(): bigint {
    return this.svm.getClock().unixTimestamp;
  }

  get slot(): bigint {
    return this.svm.getClock().slot;
  }

  /** Moves time forward by `seconds` (and the slot by `slots`). */
  advance(seconds: bigint, slots = 0n): void {
    this.setClock(this.slot + slots, this.now + seconds);
  }

  /** Sends the instructions (signers embedded in the account metas sign); never throws. */
  async trySend(ixs: Instruction[], feePayer: KeyPairSigner = this.payer): Promise<TxOutcome> {
    const tx = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(ixs, m),
      (m) => signTransactionMessageWithSigners(m),
    );
    const res = this.svm.sendTransaction(tx);
    this.svm.expireBlockhash();
    if (res instanceof FailedTransactionMetadata) {
      const logs = res.meta().logs();
      const error = res.toString();
      return {
        ok: false,
        computeUnits: res.meta().computeUnitsConsumed(),
        logs,
        customCode: customCodeFromError(error) ?? customCodeFromLogs(logs),
        error,
      };
    }
    return {
      ok: true,
      computeUnits: res.computeUnitsConsumed(),
      logs: res.logs(),
      customCode: null,
      error: "",
    };
  }

  /** Sends and throws with the logs when the transaction fails. */
  async send(ixs: Instruction[], feePayer?: KeyPairSigner): Promise<TxOutcome> {
    const out = await this.trySend(ixs, feePayer);
    if (!out.ok) throw new Error(`transaction failed: ${out.error}\n${out.logs.join("\n")}`);
    return out;
  }

  /** Sends expecting the program to fail with `code`; returns the outcome (throws otherwise). */
  async expectCode(ixs: Instruction[], code: number, feePayer?: KeyPairSigner): Promise<TxOutcome> {
    const out = await this.trySend(ixs, feePayer);
    if (out.ok || out.customCode !== code) {
      throw new Error(
        `expected custom error ${code}, got ${out.ok ? "success" : `${out.customCode} (${out.error})`}\n${out.logs.join("\n")}`,
      );
    }
    return out;
  }

  /** Raw account data (throws when the account does not exist). */
  data(address: Address): Uint8Array {
    const a = this.svm.getAccount(address);
    if (!a.exists) throw new Error(`no account ${address}`);
    return a.data;
  }

  exists(address: Address): boolean {
    return this.svm.getAccount(address).exists;
  }

  lamports(address: Address): bigint {
    const a = this.svm.getAccount(address);
    return a.exists ? a.lamports : 0n;
  }
}
