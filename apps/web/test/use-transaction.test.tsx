import { ConnectionContext, WalletContext, type WalletContextState } from "@solana/wallet-adapter-react";
import {
  type Connection,
  Keypair,
  SystemProgram,
  TransactionMessage,
  type TransactionVersion,
  VersionedTransaction,
} from "@solana/web3.js";
import { QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAnalytics } from "../src/analytics/analytics.ts";
import { createQueryClient } from "../src/app.tsx";
import { AppContext } from "../src/app-context.ts";
import { DEFAULT_RUNTIME_CONFIG } from "../src/config/runtime-config.ts";
import { clearToasts, type Toast, toastStore } from "../src/toasts/toast-store.ts";
import { useTransaction } from "../src/tx/use-transaction.ts";
import { FakeAdapter } from "./fake-adapter.ts";

const API = "http://api.test";
const payer = Keypair.generate();
const referrer = Keypair.generate().publicKey.toBase58();

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}

function unsignedV0(): string {
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
    instructions: [
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1,
      }),
    ],
  }).compileToV0Message();
  return toBase64(new VersionedTransaction(message).serialize());
}

interface Exchange {
  path: string;
  body: Record<string, unknown>;
}

type Responder = (path: string, body: Record<string, unknown>) => { status: number; body: unknown };

function installFetch(respond: Responder): Exchange[] {
  const exchanges: Exchange[] = [];
  vi.stubGlobal("fetch", async (input: string, init?: RequestInit) => {
    const path = new URL(input).pathname;
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};
    exchanges.push({ path, body });
    const answer = respond(path, body);
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { "content-type": "application/json" },
    });
  });
  return exchanges;
}

/** Builder answers one v0 transaction of `kind`; the sender checks the payer's signature. */
function happyResponder(kind = "Normal"): Responder {
  return (path, body) => {
    if (path === "/bank/deposit") {
      return { status: 200, body: { transactions: [unsignedV0()], kind, lastValidBlockHeight: 1234 } };
    }
    const base64 = (body.transaction as string | undefined) ?? (body.transactions as string[])[0]!;
    const tx = VersionedTransaction.deserialize(Buffer.from(base64, "base64"));
    const signed = tx.signatures[0]!.some((b) => b !== 0);
    return signed
      ? { status: 200, body: { result: `sig-${path.slice(1)}` } }
      : { status: 200, body: { error: "missing signature" } };
  };
}

function makeWallet(
  overrides: Partial<WalletContextState> = {},
  versions: TransactionVersion[] = ["legacy", 0],
) {
  const adapter = new FakeAdapter("Test Wallet");
  adapter.supportedTransactionVersions = new Set(versions);
  const wallet = {
    autoConnect: true,
    wallets: [],
    wallet: { adapter, readyState: adapter.readyState },
    publicKey: payer.publicKey,
    connecting: false,
    connected: true,
    disconnecting: false,
    select: () => undefined,
    connect: async () => undefined,
    disconnect: async () => undefined,
    sendTransaction: async () => "",
    signTransaction: undefined,
    signAllTransactions: async <T,>(txs: T[]) => {
      for (const tx of txs) (tx as VersionedTransaction).sign([payer]);
      return txs;
    },
    signMessage: undefined,
    signIn: undefined,
    ...overrides,
  } as WalletContextState;
  return wallet;
}

function setup(wallet: WalletContextState, supportUrl: string | null = "https://discord.test/invite") {
  const queryClient = createQueryClient();
  const invalidate = vi.spyOn(queryClient, "invalidateQueries");
  const connection = {
    getLatestBlockhash: async () => ({
      blockhash: Keypair.generate().publicKey.toBase58(),
      lastValidBlockHeight: 1,
    }),
  } as unknown as Connection;
  const context = {
    config: { ...DEFAULT_RUNTIME_CONFIG, apiUrl: API, supportUrl },
    rpcUrl: "http://127.0.0.1:8899",
    analytics: createAnalytics(null),
    buildId: "test",
  };
  const wrapper = ({ children }: { children: ReactNode }) => (
    <AppContext.Provider value={context}>
      <QueryClientProvider client={queryClient}>
        <ConnectionContext.Provider value={{ connection }}>
          <WalletContext.Provider value={wallet}>{children}</WalletContext.Provider>
        </ConnectionContext.Provider>
      </QueryClientProvider>
    </AppContext.Provider>
  );
  const hook = renderHook(() => useTransaction(), { wrapper });
  return { hook, invalidate };
}

/** Every toast title shown, in order (consecutive duplicates collapsed). */
function recordToastTitles(): { titles: string[]; last: () => Toast[] } {
  const titles: string[] = [];
  toastStore.subscribe(() => {
    for (const toast of toastStore.get()) {
      if (!titles.includes(toast.title)) titles.push(toast.title);
    }
  });
  return { titles, last: () => toastStore.get() };
}

beforeEach(() => {
  clearToasts();
  // biome-ignore lint/suspicious/noDocumentCookie: the test stores a referrer like the app does.
  document.cookie = `referral=${referrer}; Path=/`;
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  // biome-ignore lint/suspicious/noDocumentCookie: test cleanup of the referral cookie.
  document.cookie = "referral=; Max-Age=0; Path=/";
});

async function run(hook: ReturnType<typeof setup>["hook"], action: "Add Liquidity" = "Add Liquidity") {
  let signature: string | null = null;
  await act(async () => {
    signature = await hook.result.current.run({ action, path: "/bank/deposit", payload: { amount: "5" } });
  });
  return signature;
}

describe("useTransaction", () => {
  it("builds, signs, sends and confirms, with a toast per state and the action's refresh", async () => {
    const exchanges = installFetch(happyResponder());
    const recorder = recordToastTitles();
    const { hook, invalidate } = setup(makeWallet());
    const signature = await run(hook);

    expect(signature).toBe("sig-send-transaction");
    expect(recorder.titles).toEqual([
      "Preparing Transaction",
      "Waiting for signature approve",
      "Processing Transaction",
      "Transaction Success",
    ]);
    const success = recorder.last().find((t) => t.title === "Transaction Success")!;
    expect(success.kind).toBe("success");
    expect(success.link?.href).toBe(
      "https://explorer.solana.com/tx/sig-send-transaction?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899",
    );
    // The builder request carries the payload, the stored referrer and the priority-fee options.
    expect(exchanges[0]).toEqual({
      path: "/bank/deposit",
      body: {
        amount: "5",
        referrer,
        options: {
          priorityFeeLevel: "fast",
          amount: "0.0005",
          type: "maxCap",
          broadcastMode: "priorityFees",
        },
      },
    });
    expect(exchanges[1]!.path).toBe("/send-transaction");
    expect(exchanges[1]!.body.blockHeight).toBe(1234);
    // Add Liquidity refreshes balance, mypool and pool.
    const refreshed = invalidate.mock.calls.map(([filters]) => filters?.queryKey?.[0]);
    expect(refreshed).toEqual(["balance", "mypool", "pool"]);
    expect(hook.result.current.state).toBeNull();
  });

  it("sends each kind to its sender route", async () => {
    for (const [kind, route] of [
      ["NormalCoSigned", "/send-cos-transaction"],
      ["Bundle", "/send-bundle"],
      ["BundleCoSigned", "/send-cos-bundle"],
    ] as const) {
      const exchanges = installFetch(happyResponder(kind));
      const { hook } = setup(makeWallet());
      expect(await run(hook)).toBe(`sig-${route.slice(1)}`);
      expect(exchanges[1]!.path).toBe(route);
      cleanup();
    }
  });

  it("turns a 422 from the builder into one failure toast (the progress toast, updated)", async () => {
    installFetch(() => ({ status: 422, body: { message: ["amount too small", "pool closed"] } }));
    const recorder = recordToastTitles();
    const { hook } = setup(makeWallet());
    expect(await run(hook)).toBeNull();
    expect(recorder.titles).toEqual([
      "Preparing Transaction",
      "Error in Add Liquidity: amount too small, pool closed",
    ]);
    expect(recorder.last()).toHaveLength(1);
    const failed = recorder.last()[0]!;
    expect(failed.help).toEqual({
      text: "Please reach out to us on Discord if you need assistance.",
      link: { href: "https://discord.test/invite", label: "Discord" },
    });
    expect(failed.copyText).toContain("CisternError: amount too small, pool closed\n    at ");
  });

  it("without a configured support URL the support sentence has no link (nothing invented)", async () => {
    installFetch(() => ({ status: 422, body: { message: "pool closed" } }));
    const { hook } = setup(makeWallet(), null);
    expect(await run(hook)).toBeNull();
    const failed = toastStore.get()[0]!;
    expect(failed.help).toEqual({ text: "Please reach out to us on Discord if you need assistance." });
  });

  it("words a program refusal by its code, in the currency's units, in one toast", async () => {
    installFetch(() => ({
      status: 422,
      body: {
        code: 6027,
        name: "LtvExceeded",
        message:
          "No pool can lend against X on these terms (P: LtvExceeded (6027): principal > collateral value x LTV)",
        params: {
          amount: "2000000000",
          maxAmount: "1250000000",
          mint: "So11111111111111111111111111111111111111112",
        },
      },
    }));
    const recorder = recordToastTitles();
    const { hook } = setup(makeWallet());
    await run(hook);
    expect(recorder.last()).toHaveLength(1);
    expect(recorder.last()[0]!.title).toBe(
      "Error in Add Liquidity: This pool lends at most 1.25 SOL against this collateral.",
    );
  });

  it("shows the congestion message when the block height was exceeded", async () => {
    installFetch((path) =>
      path === "/bank/deposit"
        ? happyResponder()(path, {})
        : { status: 200, body: { error: "Signature abc has expired: block height exceeded" } },
    );
    const recorder = recordToastTitles();
    const { hook } = setup(makeWallet());
    expect(await run(hook)).toBeNull();
    expect(recorder.titles).toContain(
      "Transaction Failed (The transaction was not confirmed in time. This is due to network congestion. Please try again in few mins.)",
    );
  });

  it("fails with 'No signature confirmation' when the sender returns no result", async () => {
    installFetch((path) =>
      path === "/bank/deposit" ? happyResponder()(path, {}) : { status: 200, body: {} },
    );
    const recorder = recordToastTitles();
    const { hook } = setup(makeWallet());
    await run(hook);
    expect(recorder.titles).toContain("Transaction Failed (No signature confirmation)");
    expect(recorder.last()).toHaveLength(1);
  });

  it("rejects an unknown kind and an empty transaction list", async () => {
    installFetch(() => ({
      status: 200,
      body: { transactions: [unsignedV0()], kind: "Weird", lastValidBlockHeight: 1 },
    }));
    let recorder = recordToastTitles();
    let { hook } = setup(makeWallet());
    await run(hook);
    expect(recorder.titles).toContain("Error in Add Liquidity: Unknown transaction kind");
    cleanup();
    clearToasts();
    installFetch(() => ({
      status: 200,
      body: { transactions: [], kind: "Normal", lastValidBlockHeight: 1 },
    }));
    recorder = recordToastTitles();
    ({ hook } = setup(makeWallet()));
    await run(hook);
    expect(recorder.titles).toContain("Error in Add Liquidity: No transactions provided");
  });

  it("fails before signing when the wallet cannot sign versioned transactions", async () => {
    installFetch(happyResponder());
    const recorder = recordToastTitles();
    const { hook } = setup(makeWallet({}, ["legacy"]));
    await run(hook);
    expect(recorder.titles).toEqual([
      "Preparing Transaction",
      "Error in Add Liquidity: Signing transaction version 0 isn't supported by this wallet",
    ]);
  });

  it("reports a rejected signature", async () => {
    installFetch(happyResponder());
    const recorder = recordToastTitles();
    const { hook } = setup(
      makeWallet({
        signAllTransactions: async () => {
          throw new Error("User rejected the request.");
        },
      }),
    );
    await run(hook);
    expect(recorder.titles).toEqual([
      "Preparing Transaction",
      "Waiting for signature approve",
      "Error in Add Liquidity: User rejected the request.",
    ]);
    expect(recorder.last()).toHaveLength(1);
  });
  it("a compressed NFT's proof gone stale is built, signed and sent once more; stale twice, the user reads why", async () => {
    const STALE = "The NFT's tree changed since this transaction was built. Please try again.";
    const staleAnswer = {
      status: 200,
      body: { error: { code: 5005, name: "TRANSACTION_SEND_STALE_PROOF", message: STALE } },
    };
    let sends = 0;
    const happy = happyResponder();
    const exchanges = installFetch((path, body) => {
      if (path === "/bank/deposit") return happy(path, body);
      sends += 1;
      return sends === 1 ? staleAnswer : happy(path, body);
    });
    const { hook } = setup(makeWallet());
    expect(await run(hook)).toBe("sig-send-transaction");
    expect(exchanges.map((e) => e.path)).toEqual([
      "/bank/deposit",
      "/send-transaction",
      "/bank/deposit",
      "/send-transaction",
    ]);

    cleanup();
    clearToasts();
    const again = installFetch((path, body) => (path === "/bank/deposit" ? happy(path, body) : staleAnswer));
    const recorder = recordToastTitles();
    const second = setup(makeWallet());
    expect(await run(second.hook)).toBeNull();
    expect(again.filter((e) => e.path === "/bank/deposit")).toHaveLength(2);
    expect(JSON.stringify(recorder.last())).toContain(STALE);
  });
});
