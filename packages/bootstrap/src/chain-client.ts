import { decodeProgramFailure } from "@cistern/protocol";
import { createRpcDeployTransport, type DeployTransport, decodeLendingError } from "@cistern/sdk";
import {
  type Address,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  getBase64Encoder,
  type Instruction,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type TransactionSigner,
} from "@solana/kit";
import { BOOTSTRAP_ERROR, BootstrapError } from "./bootstrap-error.ts";
import type { Cluster } from "./cluster-info.ts";

/** An account as the bootstrap reads it. */
export interface ChainAccount {
  owner: Address;
  lamports: bigint;
  executable: boolean;
  data: Uint8Array;
}

/** Chain access of the bootstrap: kit rpc + subscriptions, signed transactions confirmed over PubSub (at its commitment). */
export interface ChainClient {
  rpcUrl: string;
  rpc: Rpc<SolanaRpcApi>;
  /** The sdk deploy transport over the same rpc (used by the program deploy). */
  transport: DeployTransport;
  /** Throws RPC_UNREACHABLE unless the node answers getVersion within `timeoutMs`. */
  assertReachable(timeoutMs?: number): Promise<void>;
  /** The account at `address` (at the client's commitment), or null. */
  fetchAccount(address: Address): Promise<ChainAccount | null>;
  /** Lamports of `address` (at the client's commitment). */
  fetchBalance(address: Address): Promise<bigint>;
  /** Token amount (base units) of an SPL token account, 0 when it does not exist. */
  fetchTokenBalance(tokenAccount: Address): Promise<bigint>;
  /**
   * Signs, sends and confirms one transaction; a failure becomes TRANSACTION_FAILED naming `what` and the
   * lending program error when there is one.
   */
  send(what: string, instructions: readonly Instruction[], feePayer: TransactionSigner): Promise<Signature>;
  /** Resolves once the cluster is past the current slot. */
  waitForNextSlot(): Promise<void>;
  /** Calls a `localnet_` admin JSON-RPC method; LOCALNET_ADMIN_UNAVAILABLE when the node refuses it. */
  callLocalnetAdmin(method: string, params: unknown[]): Promise<unknown>;
}

/**
 * Creates the chain client for one cluster.
 * @param input.rpcUrl - HTTP JSON-RPC URL
 * @param input.wsUrl - PubSub URL (localnet also serves PubSub on the HTTP port)
 * @param input.cluster - sets what each transaction waits for and reads see: "confirmed" on a cluster; on the
 *   localnet "processed", as it is one node with no forks (what it processed is never rolled back), so a
 *   transaction need not wait for its slot to end
 */
export function createChainClient(input: {
  rpcUrl: string;
  wsUrl: string;
  cluster: Cluster;
  /**
   * The lending program's id once known: a failed transaction names a lending error only when the logs show that
   * program failing (another program's custom code, marginfi's 6017 say, is described as it is).
   */
  lendingProgramId?: () => Address | undefined;
}): ChainClient {
  const commitment = input.cluster === "localnet" ? "processed" : "confirmed";
  const rpc = createSolanaRpc(input.rpcUrl);
  const rpcSubscriptions = createSolanaRpcSubscriptions(input.wsUrl);
  const transport = createRpcDeployTransport({ rpc, rpcSubscriptions, commitment });
  const fetchAccount = async (address: Address): Promise<ChainAccount | null> => {
    const { value } = await rpc.getAccountInfo(address, { encoding: "base64", commitment }).send();
    if (!value) return null;
    return {
      owner: value.owner,
      lamports: value.lamports,
      executable: value.executable,
      data: new Uint8Array(getBase64Encoder().encode(value.data[0])),
    };
  };
  return {
    rpcUrl: input.rpcUrl,
    rpc,
    transport,
    async assertReachable(timeoutMs = 10_000): Promise<void> {
      try {
        await rpc.getVersion().send({ abortSignal: AbortSignal.timeout(timeoutMs) });
      } catch (cause) {
        throw new BootstrapError(
          BOOTSTRAP_ERROR.RPC_UNREACHABLE,
          `cannot reach the cluster RPC at ${input.rpcUrl} (getVersion failed: ${describe(cause)})`,
          { cause },
        );
      }
    },
    fetchAccount,
    async fetchBalance(address: Address): Promise<bigint> {
      return (await rpc.getBalance(address, { commitment }).send()).value;
    },
    async fetchTokenBalance(tokenAccount: Address): Promise<bigint> {
      const account = await fetchAccount(tokenAccount);
      if (!account || account.data.length < 72) return 0n;
      // SPL token account: mint (32) owner (32) amount u64 LE at 64.
      return new DataView(account.data.buffer, account.data.byteOffset).getBigUint64(64, true);
    },
    async send(what, instructions, feePayer): Promise<Signature> {
      try {
        return await transport.sendInstructions(instructions, feePayer);
      } catch (cause) {
        const programAddress = instructions[0]?.programAddress;
        const lendingProgram = input.lendingProgramId?.();
        const lending =
          lendingProgram === undefined ? null : decodeLendingError(cause, { programAddress: lendingProgram });
        const reason = lending
          ? `${lending.name} (${lending.code}): ${lending.message}`
          : (describeProgramFailure(
              cause,
              instructions.map((ix) => ix.programAddress),
              lendingProgram,
            ) ?? describe(cause));
        throw new BootstrapError(
          BOOTSTRAP_ERROR.TRANSACTION_FAILED,
          `${what} failed (program ${programAddress}): ${reason}`,
          { cause },
        );
      }
    },
    waitForNextSlot: () => transport.waitForNextSlot(),
    async callLocalnetAdmin(method: string, params: unknown[]): Promise<unknown> {
      let body: { result?: unknown; error?: { code: number; message: string } };
      try {
        const response = await fetch(input.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
          signal: AbortSignal.timeout(30_000),
        });
        body = (await response.json()) as typeof body;
      } catch (cause) {
        throw new BootstrapError(
          BOOTSTRAP_ERROR.LOCALNET_ADMIN_UNAVAILABLE,
          `${method} at ${input.rpcUrl} failed: ${describe(cause)}`,
          { cause },
        );
      }
      if (body.error) {
        throw new BootstrapError(
          BOOTSTRAP_ERROR.LOCALNET_ADMIN_UNAVAILABLE,
          `${method} at ${input.rpcUrl} was refused (${body.error.code}: ${body.error.message}); ` +
            "is this a Cistern localnet with admin methods enabled?",
        );
      }
      return body.result;
    },
  };
}

/**
 * Another program's custom error in a failed transaction (a preflight failure's logs and result), decoded with the
 * program that raised it (@cistern/protocol decodeProgramFailure): "custom program error 6017 of program MFv2...
 * (marginfi, StaleOracle)", never as a lending error. Null without a custom code.
 */
function describeProgramFailure(
  error: unknown,
  instructionProgramIds: readonly string[],
  lendingProgramId: string | undefined,
): string | null {
  const context = (
    error as { context?: { logs?: unknown; err?: unknown; index?: unknown; code?: unknown } } | null
  )?.context;
  const logs = Array.isArray(context?.logs)
    ? (context.logs as unknown[]).filter((l) => typeof l === "string")
    : [];
  const cause = (error as { cause?: { context?: unknown } } | null)?.cause?.context;
  const failed = decodeProgramFailure({
    err: context?.err ?? cause ?? context,
    logs: logs as string[],
    instructionProgramIds,
    lendingProgramId,
  });
  if (failed === null || failed.programId === "") return null;
  const what = failed.name ? `${failed.programName}, ${failed.name}` : failed.programName;
  return `custom program error ${failed.code} of program ${failed.programId} (${what})`;
}

/** A short, readable description of a thrown value (message plus the cause's message). */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
