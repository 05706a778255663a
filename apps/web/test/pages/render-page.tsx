import { ConnectionContext, WalletContext, type WalletContextState } from "@solana/wallet-adapter-react";
import { type Connection, Keypair, type VersionedTransaction } from "@solana/web3.js";
import { QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { vi } from "vitest";
import { createAnalytics } from "../../src/analytics/analytics.ts";
import { createQueryClient } from "../../src/app.tsx";
import { AppContext } from "../../src/app-context.ts";
import { ChatProvider } from "../../src/chat/chat-context.tsx";
import { DEFAULT_RUNTIME_CONFIG } from "../../src/config/runtime-config.ts";
import { FakeAdapter } from "../fake-adapter.ts";

export const API = "http://api.test";

/** One request the page made. */
export interface Exchange {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | null;
}

/** Answers a request: a JSON body with status 200, or {status, body}. */
export type Responder = (request: Exchange) => { status?: number; body: unknown } | undefined;

/** Stubs fetch; unknown routes answer 404 (prices: empty). Returns the recorded requests. */
export function installApi(respond: Responder): Exchange[] {
  const exchanges: Exchange[] = [];
  vi.stubGlobal("fetch", async (input: string, init?: RequestInit) => {
    const url = new URL(input);
    const exchange: Exchange = {
      method: init?.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      body: init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : null,
    };
    exchanges.push(exchange);
    const answer = respond(exchange) ??
      // The shell polls prices on every page; tests that do not care get an empty price list.
      (exchange.path === "/prices" ? { body: { prices: {} } } : undefined) ??
      // ... and the Loans page's chain throughput: the spec's fallback figure (not degraded).
      (exchange.path === "/dirty/chain-performance"
        ? { body: { tps: 2000, source: "fallback" } }
        : undefined) ?? {
        status: 404,
        body: { code: 11000, message: "Not found" },
      };
    return new Response(JSON.stringify(answer.body), {
      status: answer.status ?? 200,
      headers: { "content-type": "application/json" },
    });
  });
  return exchanges;
}

/** A connected test wallet signing with `keypair`. */
export function makeWallet(keypair: Keypair): WalletContextState {
  const adapter = new FakeAdapter("Test Wallet");
  return {
    autoConnect: false,
    wallets: [],
    wallet: { adapter, readyState: adapter.readyState },
    publicKey: keypair.publicKey,
    connecting: false,
    connected: true,
    disconnecting: false,
    select: () => undefined,
    connect: async () => undefined,
    disconnect: async () => undefined,
    sendTransaction: async () => "",
    signTransaction: undefined,
    signAllTransactions: async <T,>(txs: T[]) => {
      for (const tx of txs) (tx as VersionedTransaction).sign([keypair]);
      return txs;
    },
    signMessage: undefined,
    signIn: undefined,
  } as WalletContextState;
}

const disconnected = {
  ...makeWallet(Keypair.generate()),
  publicKey: null,
  connected: false,
  wallet: null,
} as WalletContextState;

/** Accounts of a fake chain: read by address, and followed (accountSubscribe) as the app does over the RPC socket. */
export interface FakeChainAccounts {
  /** Writes an account's bytes and tells its subscribers, as a validator does when a transaction changes it. */
  set(address: string, data: Uint8Array): void;
  /** Writes an account's bytes without telling anyone (a notification the socket lost). */
  setSilently(address: string, data: Uint8Array): void;
  /** Addresses with a live subscription. */
  subscribed(): string[];
  connection: Pick<
    Connection,
    "onAccountChange" | "removeAccountChangeListener" | "getMultipleAccountsInfo" | "getAccountInfo"
  >;
}

export function createFakeChainAccounts(): FakeChainAccounts {
  const accounts = new Map<string, Uint8Array>();
  const listeners = new Map<number, { address: string; callback: (info: never) => void }>();
  let nextId = 0;
  const info = (address: string) => {
    const data = accounts.get(address);
    return data === undefined
      ? null
      : { data: Buffer.from(data), executable: false, lamports: 1, owner: Keypair.generate().publicKey };
  };
  return {
    set(address, data) {
      accounts.set(address, data);
      for (const l of listeners.values()) if (l.address === address) l.callback(info(address) as never);
    },
    setSilently(address, data) {
      accounts.set(address, data);
    },
    subscribed: () => [...listeners.values()].map((l) => l.address),
    connection: {
      onAccountChange: ((key: { toBase58(): string }, callback: (info: never) => void) => {
        listeners.set(++nextId, { address: key.toBase58(), callback });
        return nextId;
      }) as never,
      removeAccountChangeListener: async (id: number) => {
        listeners.delete(id);
      },
      getMultipleAccountsInfo: (async (keys: { toBase58(): string }[]) =>
        keys.map((k) => info(k.toBase58()))) as never,
      getAccountInfo: (async (key: { toBase58(): string }) => info(key.toBase58())) as never,
    },
  };
}

/**
 * Renders a page with the app's providers: a stubbed API (see installApi), a fake connection whose
 * chain clock is `nowSeconds` and whose accounts are `accounts` (none by default), and a wallet (or none).
 */
export function renderPage(
  ui: ReactNode,
  options: {
    wallet?: WalletContextState | null;
    nowSeconds?: number;
    lamports?: bigint;
    tokens?: { mint: string; amount: bigint; decimals: number }[];
    accounts?: FakeChainAccounts;
  } = {},
) {
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } });
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const connection = {
    ...(options.accounts ?? createFakeChainAccounts()).connection,
    rpcEndpoint: "http://rpc.test",
    getSlot: async () => 100,
    getBlockTime: async () => now,
    getBalance: async () => Number(options.lamports ?? 0n),
    getParsedTokenAccountsByOwner: async () => ({
      value: (options.tokens ?? []).map((t) => ({
        account: {
          data: {
            parsed: {
              info: { mint: t.mint, tokenAmount: { amount: t.amount.toString(), decimals: t.decimals } },
            },
          },
        },
      })),
    }),
    getLatestBlockhash: async () => ({
      blockhash: Keypair.generate().publicKey.toBase58(),
      lastValidBlockHeight: 1,
    }),
  } as unknown as Connection;
  const context = {
    config: { ...DEFAULT_RUNTIME_CONFIG, apiUrl: API },
    rpcUrl: "http://rpc.test",
    analytics: createAnalytics(null),
    buildId: "test",
  };
  const wallet = options.wallet === undefined || options.wallet === null ? disconnected : options.wallet;
  return render(
    <AppContext.Provider value={context}>
      <QueryClientProvider client={queryClient}>
        <ConnectionContext.Provider value={{ connection }}>
          <WalletContext.Provider value={wallet}>
            <ChatProvider>{ui}</ChatProvider>
          </WalletContext.Provider>
        </ConnectionContext.Provider>
      </QueryClientProvider>
    </AppContext.Provider>,
  );
}
