import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { type JsonAnswer, postJson } from "../http/post-json.ts";

/** An account as the JSON-RPC returns it with base64 encoding, data decoded to bytes. */
export interface RpcAccount {
  pubkey: string;
  owner: string;
  lamports: bigint;
  executable: boolean;
  data: Uint8Array;
}

export interface RpcPerformanceSample {
  slot: number;
  numTransactions: number;
  numSlots: number;
  samplePeriodSecs: number;
}

export interface RpcSignatureInfo {
  signature: string;
  slot: number;
  blockTime: number | null;
  err: unknown;
}

/** Minimal Solana JSON-RPC client (kept-alive HTTP, 30 s timeout). Errors become ApiError UPSTREAM_FAILED. */
export interface RpcClient {
  readonly url: string;
  call<T>(method: string, params?: unknown[]): Promise<T>;
  getSlot(): Promise<number>;
  getProgramAccounts(programId: string): Promise<{ slot: number; accounts: RpcAccount[] }>;
  getMultipleAccounts(pubkeys: string[]): Promise<{ slot: number; accounts: (RpcAccount | null)[] }>;
  getTokenAccountsByOwner(owner: string, programId: string): Promise<RpcAccount[]>;
  getRecentPerformanceSamples(limit: number): Promise<RpcPerformanceSample[]>;
  getSignaturesForAddress(address: string, limit: number): Promise<RpcSignatureInfo[]>;
}

type WireAccount = { data: [string, string]; owner: string; lamports: number; executable: boolean };

function toAccount(pubkey: string, wire: WireAccount): RpcAccount {
  return {
    pubkey,
    owner: wire.owner,
    lamports: BigInt(wire.lamports),
    executable: wire.executable,
    data: new Uint8Array(Buffer.from(wire.data[0], "base64")),
  };
}

/** Creates an RPC client for `url`. */
export function createRpcClient(url: string, timeoutMs = 30_000): RpcClient {
  let nextId = 1;
  async function call<T>(method: string, params: unknown[] = []): Promise<T> {
    let answer: JsonAnswer;
    try {
      answer = await postJson(
        url,
        JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
        timeoutMs,
      );
    } catch (error) {
      throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `RPC ${method} unreachable`, { cause: error });
    }
    if (answer.status < 200 || answer.status > 299)
      throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `RPC ${method} answered ${answer.status}`);
    const body = answer.body as { result?: T; error?: { message?: string } } | null;
    if (body === null || typeof body !== "object" || body.error !== undefined || !("result" in body)) {
      throw new ApiError(
        ERROR_CODES.UPSTREAM_FAILED,
        `RPC ${method} failed: ${body?.error?.message ?? "bad answer"}`,
      );
    }
    return body.result as T;
  }
  return {
    url,
    call,
    getSlot: () => call<number>("getSlot", [{ commitment: "confirmed" }]),
    async getProgramAccounts(programId) {
      const result = await call<
        | { context: { slot: number }; value: { pubkey: string; account: WireAccount }[] }
        | { pubkey: string; account: WireAccount }[]
      >("getProgramAccounts", [
        programId,
        { encoding: "base64", commitment: "confirmed", withContext: true },
      ]);
      // Some servers ignore withContext; then the slot is read separately (never newer than the data).
      if (Array.isArray(result)) {
        const slot = await call<number>("getSlot", [{ commitment: "confirmed" }]).catch(() => 0);
        return { slot, accounts: result.map((r) => toAccount(r.pubkey, r.account)) };
      }
      return { slot: result.context.slot, accounts: result.value.map((r) => toAccount(r.pubkey, r.account)) };
    },
    async getMultipleAccounts(pubkeys) {
      const result = await call<{ context: { slot: number }; value: (WireAccount | null)[] }>(
        "getMultipleAccounts",
        [pubkeys, { encoding: "base64", commitment: "confirmed" }],
      );
      return {
        slot: result.context.slot,
        accounts: result.value.map((a, i) => (a === null ? null : toAccount(pubkeys[i]!, a))),
      };
    },
    async getTokenAccountsByOwner(owner, programId) {
      const result = await call<{ value: { pubkey: string; account: WireAccount }[] }>(
        "getTokenAccountsByOwner",
        [owner, { programId }, { encoding: "base64", commitment: "confirmed" }],
      );
      return result.value.map((r) => toAccount(r.pubkey, r.account));
    },
    getRecentPerformanceSamples: (limit) =>
      call<RpcPerformanceSample[]>("getRecentPerformanceSamples", [limit]),
    getSignaturesForAddress: (address, limit) =>
      call<RpcSignatureInfo[]>("getSignaturesForAddress", [address, { limit, commitment: "confirmed" }]),
  };
}
