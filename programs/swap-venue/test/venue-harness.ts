/** LiteSVM harness for the venue programs' tests: a program at a fresh id, a funded payer, mints and accounts. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
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
} from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import {
  getInitializeAccount3Instruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTokenSize,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";

const SO_PATH = fileURLToPath(new URL("../build/swap-venue.so", import.meta.url));

export interface Outcome {
  ok: boolean;
  computeUnits: bigint;
  customCode: number | null;
  logs: string[];
}

export class VenueHarness {
  private constructor(
    readonly svm: LiteSVM,
    readonly programId: Address,
    readonly payer: KeyPairSigner,
  ) {}

  /** A fresh LiteSVM with the program at `soPath` (the swap venue by default) at a new id. */
  static async create(soPath: string = SO_PATH): Promise<VenueHarness> {
    const svm = new LiteSVM();
    const programId = (await generateKeyPairSigner()).address;
    svm.addProgram(programId, new Uint8Array(readFileSync(soPath)));
    const payer = await generateKeyPairSigner();
    svm.airdrop(payer.address, lamports(100_000_000_000n));
    return new VenueHarness(svm, programId, payer);
  }

  async wallet(): Promise<KeyPairSigner> {
    const w = await generateKeyPairSigner();
    this.svm.airdrop(w.address, lamports(10_000_000_000n));
    return w;
  }

  /** Sends the instructions (signers in the metas sign); never throws. */
  async trySend(ixs: Instruction[], feePayer: KeyPairSigner = this.payer): Promise<Outcome> {
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
      let customCode: number | null = null;
      for (const line of logs) {
        const m = /custom program error: 0x([0-9a-f]+)/i.exec(line);
        if (m?.[1]) customCode = Number.parseInt(m[1], 16);
      }
      return { ok: false, computeUnits: res.meta().computeUnitsConsumed(), customCode, logs };
    }
    return { ok: true, computeUnits: res.computeUnitsConsumed(), customCode: null, logs: res.logs() };
  }

  async send(ixs: Instruction[], feePayer?: KeyPairSigner): Promise<Outcome> {
    const out = await this.trySend(ixs, feePayer);
    if (!out.ok) throw new Error(`transaction failed (${out.customCode})\n${out.logs.join("\n")}`);
    return out;
  }

  async createMint(decimals: number): Promise<Address> {
    const mint = await generateKeyPairSigner();
    const space = BigInt(getMintSize());
    await this.send([
      getCreateAccountInstruction({
        payer: this.payer,
        newAccount: mint,
        lamports: this.svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: this.payer.address }),
    ]);
    return mint.address;
  }

  /** A token account of `mint` owned by `owner`, holding `amount`. */
  async tokenAccount(mint: Address, owner: Address, amount = 0n): Promise<Address> {
    const acct = await generateKeyPairSigner();
    const space = BigInt(getTokenSize());
    const ixs: Instruction[] = [
      getCreateAccountInstruction({
        payer: this.payer,
        newAccount: acct,
        lamports: this.svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeAccount3Instruction({ account: acct.address, mint, owner }),
    ];
    if (amount > 0n)
      ixs.push(getMintToInstruction({ mint, token: acct.address, mintAuthority: this.payer, amount }));
    await this.send(ixs);
    return acct.address;
  }

  balance(account: Address): bigint {
    const a = this.svm.getAccount(account);
    if (!a.exists) throw new Error(`no account ${account}`);
    return new DataView(a.data.buffer, a.data.byteOffset, a.data.byteLength).getBigUint64(64, true);
  }

  data(address: Address): Uint8Array {
    const a = this.svm.getAccount(address);
    if (!a.exists) throw new Error(`no account ${address}`);
    return a.data;
  }
}
