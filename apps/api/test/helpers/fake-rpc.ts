import { ApiError, ERROR_CODES } from "../../src/errors/api-error.ts";
import type { RpcAccount, RpcClient } from "../../src/solana/rpc-client.ts";

/**
 * An RpcClient over an in-memory account map, for indexer tests that need a controllable chain
 * (accounts appearing, changing and closing between reconciles). Methods the indexer does not use fail.
 */
export function createFakeRpc(programId: string): {
  rpc: RpcClient;
  accounts: Map<string, Uint8Array>;
  setSlot(slot: number): void;
} {
  const accounts = new Map<string, Uint8Array>();
  let slot = 1;
  const toAccount = (pubkey: string, data: Uint8Array): RpcAccount => ({
    pubkey,
    owner: programId,
    lamports: 1_000_000n,
    executable: false,
    data,
  });
  const unsupported = async (): Promise<never> => {
    throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, "method not supported by the fake RPC");
  };
  return {
    accounts,
    setSlot: (s) => {
      slot = s;
    },
    rpc: {
      url: "fake://rpc",
      call: unsupported,
      getSlot: async () => slot,
      getProgramAccounts: async () => ({
        slot,
        accounts: [...accounts].map(([pubkey, data]) => toAccount(pubkey, data)),
      }),
      getMultipleAccounts: async (pubkeys) => ({
        slot,
        accounts: pubkeys.map((k) => {
          const data = accounts.get(k);
          return data === undefined ? null : toAccount(k, data);
        }),
      }),
      getTokenAccountsByOwner: unsupported,
      getRecentPerformanceSamples: unsupported,
      getSignaturesForAddress: unsupported,
    },
  };
}
