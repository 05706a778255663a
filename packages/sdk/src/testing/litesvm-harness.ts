/**
 * Test harness over LiteSVM (in-process Solana) for the sdk's and the program's tests: a deploy transport,
 * transaction sending with readable failures, token helpers and clock control. Imported as
 * `@cistern/sdk/testing`; not part of the sdk's runtime API (needs the `litesvm` package).
 */
import {
  type Address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Decoder,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  type Signature,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type TransactionSigner,
} from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import {
  getInitializeAccount3Instruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTokenDecoder,
  getTokenSize,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { Clock, FailedTransactionMetadata, LiteSVM } from "litesvm";
import { deployProgram } from "../deploy/deploy-program.ts";
import type { DeployTransport } from "../deploy/deploy-transport.ts";
import { encodeMetadata, findMetadataPda, TOKEN_METADATA_PROGRAM_ADDRESS } from "../metaplex/metadata.ts";

/** A failed LiteSVM transaction, with its logs (readable by `decodeLendingError`). */
export class LiteSvmTransactionError extends Error {
  readonly logs: string[];
  readonly err: unknown;
  constructor(failure: FailedTransactionMetadata) {
    const logs = failure.meta().logs();
    super(`transaction failed: ${failure.err().toString()}\n${logs.join("\n")}`);
    this.name = "LiteSvmTransactionError";
    this.logs = logs;
    this.err = failure.err();
  }
}

/**
 * Signs and sends `instructions` as one transaction (fee payer `feePayer`, other signers taken from the
 * account metas). Throws {@link LiteSvmTransactionError} on failure. Expires the blockhash afterwards so the
 * same instructions can be sent again.
 */
export function sendWithLiteSvm(
  svm: LiteSVM,
  instructions: readonly Instruction[],
  feePayer: TransactionSigner,
): Promise<{ signature: Signature; logs: string[]; computeUnits: bigint }> {
  // Serialise per SVM: each transaction takes the current blockhash, which is expired after it.
  const previous = queues.get(svm) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => sendNow(svm, instructions, feePayer));
  queues.set(svm, next);
  return next;
}

const queues = new WeakMap<LiteSVM, Promise<unknown>>();

async function sendNow(
  svm: LiteSVM,
  instructions: readonly Instruction[],
  feePayer: TransactionSigner,
): Promise<{ signature: Signature; logs: string[]; computeUnits: bigint }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 0n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  const result = svm.sendTransaction(transaction);
  // a new blockhash after every attempt, so the same instructions can be sent again (e.g. after a failure)
  svm.expireBlockhash();
  if (result instanceof FailedTransactionMetadata) throw new LiteSvmTransactionError(result);
  return {
    signature: getSignatureFromTransaction(transaction),
    logs: result.logs(),
    computeUnits: result.computeUnitsConsumed(),
  };
}

/** A deploy transport over LiteSVM: the deploy module's exact instructions, executed in process. */
export function createLiteSvmDeployTransport(svm: LiteSVM): DeployTransport {
  return {
    async getMinimumBalanceForRentExemption(spaceBytes) {
      return svm.minimumBalanceForRentExemption(spaceBytes);
    },
    async getAccount(address) {
      const account = svm.getAccount(address);
      if (!account.exists) return null;
      return {
        owner: account.programAddress,
        executable: account.executable,
        lamports: account.lamports,
        data: Uint8Array.from(account.data),
      };
    },
    async waitForNextSlot() {
      svm.warpToSlot(svm.getClock().slot + 1n);
    },
    async sendInstructions(instructions, feePayer) {
      return (await sendWithLiteSvm(svm, instructions, feePayer)).signature;
    },
  };
}

/**
 * Deploys `programBytes` through the BPF Upgradeable Loader (the sdk's real deploy instructions) under a new
 * program id, with `authority` paying and holding the upgrade authority (the only key that may initialize
 * the lending config). Warps one slot so the program is callable. Returns the program address.
 */
export async function deployUpgradeableProgram(
  svm: LiteSVM,
  input: { programBytes: Uint8Array; authority: TransactionSigner; program?: TransactionSigner },
): Promise<Address> {
  const program = input.program ?? (await generateKeyPairSigner());
  await deployProgram({
    transport: createLiteSvmDeployTransport(svm),
    programBytes: input.programBytes,
    program,
    payer: input.authority,
    maxDataLenBytes: BigInt(input.programBytes.length),
  });
  svm.warpToSlot(svm.getClock().slot + 1n);
  return program.address;
}

/** A new keypair signer funded with `sol` SOL. */
export async function createFundedSigner(svm: LiteSVM, sol = 100n): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  svm.airdrop(signer.address, lamports(sol * 1_000_000_000n));
  return signer;
}

/**
 * Writes the Metaplex metadata account of `mint` (owner Token Metadata, at its PDA) naming `collection`,
 * verified or not; `collection: null` leaves the NFT without a collection. Returns the metadata address.
 */
export async function setNftMetadata(
  svm: LiteSVM,
  mint: Address,
  collection: { key: Address; verified: boolean } | null,
  overrides: { owner?: Address; address?: Address; mint?: Address } = {},
): Promise<Address> {
  const [pda] = await findMetadataPda(mint);
  const address = overrides.address ?? pda;
  const encoder = getAddressEncoder();
  const data = encodeMetadata({
    updateAuthority: new Uint8Array(32),
    mint: encoder.encode(overrides.mint ?? mint) as Uint8Array,
    name: "Test NFT",
    symbol: "TNFT",
    uri: "",
    sellerFeeBasisPoints: 0,
    creators: null,
    collection: collection && {
      verified: collection.verified,
      key: encoder.encode(collection.key) as Uint8Array,
    },
    collectionSize: null,
  });
  svm.setAccount({
    address,
    data,
    executable: false,
    lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(data.length))),
    programAddress: overrides.owner ?? TOKEN_METADATA_PROGRAM_ADDRESS,
    space: BigInt(data.length),
    exists: true,
  } as never);
  return address;
}

/** Creates an SPL Token mint with `decimals`; `authority` can mint. */
export async function createMint(svm: LiteSVM, payer: KeyPairSigner, decimals: number): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const space = BigInt(getMintSize());
  await sendWithLiteSvm(
    svm,
    [
      getCreateAccountInstruction({
        payer,
        newAccount: mint,
        lamports: svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: payer.address }),
    ],
    payer,
  );
  return mint.address;
}

/** Creates a token account of `mint` owned by `owner` (a keypair account, not an ATA). */
export async function createTokenAccount(
  svm: LiteSVM,
  payer: KeyPairSigner,
  mint: Address,
  owner: Address,
): Promise<Address> {
  const account = await generateKeyPairSigner();
  const space = BigInt(getTokenSize());
  await sendWithLiteSvm(
    svm,
    [
      getCreateAccountInstruction({
        payer,
        newAccount: account,
        lamports: svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeAccount3Instruction({ account: account.address, mint, owner }),
    ],
    payer,
  );
  return account.address;
}

/** Mints `amountBaseUnits` of `mint` (authority = `mintAuthority`) to `tokenAccount`. */
export async function mintTo(
  svm: LiteSVM,
  mintAuthority: KeyPairSigner,
  mint: Address,
  tokenAccount: Address,
  amountBaseUnits: bigint,
): Promise<void> {
  await sendWithLiteSvm(
    svm,
    [getMintToInstruction({ mint, token: tokenAccount, mintAuthority, amount: amountBaseUnits })],
    mintAuthority,
  );
}

/** Token balance of an SPL token account in base units (0 when the account does not exist). */
export function getTokenBalance(svm: LiteSVM, tokenAccount: Address): bigint {
  const account = svm.getAccount(tokenAccount);
  if (!account.exists || account.data.length < getTokenSize()) return 0n;
  return getTokenDecoder().decode(account.data).amount;
}

/** Raw data of an account, or null. */
export function getAccountData(svm: LiteSVM, address: Address): Uint8Array | null {
  const account = svm.getAccount(address);
  return account.exists ? Uint8Array.from(account.data) : null;
}

/** Sets the clock's unix time (seconds) and slot; other fields keep their values. */
export function setClock(svm: LiteSVM, input: { unixTimestamp?: bigint; slot?: bigint }): void {
  const clock = svm.getClock();
  const slot = input.slot ?? clock.slot;
  if (input.slot !== undefined && input.slot > clock.slot) svm.warpToSlot(input.slot);
  svm.setClock(
    new Clock(
      slot,
      clock.epochStartTimestamp,
      clock.epoch,
      clock.leaderScheduleEpoch,
      input.unixTimestamp ?? clock.unixTimestamp,
    ),
  );
}

/** A new LiteSVM with the standard builtins, sysvars and SPL programs. */
export function createTestSvm(): LiteSVM {
  return new LiteSVM();
}

/** Base58 of a raw signature, for messages. */
export function signatureToString(bytes: Uint8Array): string {
  return getBase58Decoder().decode(bytes);
}
