import { CisternError, ERROR_CODES } from "@cistern/protocol";
import { WalletConnectionError, WalletNotReadyError, WalletReadyState } from "@solana/wallet-adapter-base";
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { SolanaMobileWalletAdapterWalletName } from "@solana-mobile/wallet-adapter-mobile";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEEP_LINK_WALLETS, DeepLinkWalletAdapter, isIosSafari } from "../src/wallet/deep-link-wallets.ts";
import {
  DEV_WALLET_NAME,
  DEV_WALLET_STORAGE_KEY,
  DevWalletAdapter,
  requestLocalnetFaucet,
} from "../src/wallet/dev-wallet-adapter.ts";
import { getPreviouslyConnected, rememberConnectedWallet } from "../src/wallet/previously-connected.ts";
import { handleWalletError, signMessageOrThrow, toCisternWalletError } from "../src/wallet/wallet-errors.ts";
import { getWalletNotificationPayload } from "../src/wallet/wallet-notifications.ts";
import { getAppWalletAdapters } from "../src/wallet/wallet-setup.tsx";

afterEach(() => {
  localStorage.clear();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("development wallet", () => {
  it("is offered on localnet only", () => {
    const names = (cluster: "localnet" | "devnet" | "mainnet") =>
      getAppWalletAdapters(cluster, "").map((a) => a.name);
    expect(names("localnet")).toEqual([DEV_WALLET_NAME, "Phantom", "Solflare", "Backpack"]);
    expect(names("devnet")).toEqual(["Phantom", "Solflare", "Backpack"]);
    expect(names("mainnet")).toEqual(["Phantom", "Solflare", "Backpack"]);
  });

  it("keeps its keypair in local storage across connections and signs transactions and messages", async () => {
    const adapter = new DevWalletAdapter();
    await adapter.connect();
    const first = adapter.publicKey!.toBase58();
    expect(JSON.parse(localStorage.getItem(DEV_WALLET_STORAGE_KEY)!)).toHaveLength(64);
    await adapter.disconnect();
    expect(adapter.publicKey).toBeNull();
    await adapter.connect();
    expect(adapter.publicKey!.toBase58()).toBe(first);

    const message = new TransactionMessage({
      payerKey: adapter.publicKey!,
      recentBlockhash: Keypair.generate().publicKey.toBase58(),
      instructions: [
        SystemProgram.transfer({
          fromPubkey: adapter.publicKey!,
          toPubkey: Keypair.generate().publicKey,
          lamports: 5,
        }),
      ],
    }).compileToV0Message();
    const [signed] = await adapter.signAllTransactions([new VersionedTransaction(message)]);
    expect(signed!.signatures[0]!.some((b) => b !== 0)).toBe(true);

    const text = new TextEncoder().encode("hello");
    const signature = await adapter.signMessage(text);
    const key = await crypto.subtle.importKey(
      "raw",
      new Uint8Array(adapter.publicKey!.toBytes()),
      { name: "Ed25519" },
      false,
      ["verify"],
    );
    expect(await crypto.subtle.verify({ name: "Ed25519" }, key, new Uint8Array(signature), text)).toBe(true);
  });

  it("asks the localnet faucet through the localnet_faucet admin RPC", async () => {
    const requests: unknown[] = [];
    vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
      requests.push(JSON.parse(String(init.body)));
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { lamports: "1" } }));
    });
    await requestLocalnetFaucet("http://127.0.0.1:8899", "ADDR");
    expect(requests).toEqual([{ jsonrpc: "2.0", id: 1, method: "localnet_faucet", params: ["ADDR"] }]);
    vi.stubGlobal(
      "fetch",
      async () => new Response(JSON.stringify({ error: { message: "method not found" } })),
    );
    await expect(requestLocalnetFaucet("http://x", "A")).rejects.toThrow("Faucet failed: method not found");
  });
});

describe("wallet errors", () => {
  it("refuses message signing on Ledger and wallets without it, with the spec's text", async () => {
    const text =
      "Wallet does not support signing messages. Ledger are not supported for now to update pool metadata.";
    await expect(
      signMessageOrThrow({ walletName: "Ledger", signMessage: async (m) => m }, new Uint8Array()),
    ).rejects.toThrow(text);
    await expect(signMessageOrThrow({ walletName: "Phantom" }, new Uint8Array())).rejects.toThrow(text);
    expect(
      await signMessageOrThrow(
        { walletName: "Phantom", signMessage: async () => Uint8Array.of(7) },
        new Uint8Array(),
      ),
    ).toEqual(Uint8Array.of(7));
  });

  it("maps adapter and mobile protocol errors to stable codes", () => {
    expect(toCisternWalletError(new WalletConnectionError("x")).code).toBe(ERROR_CODES.WALLET_CONNECTION);
    expect(toCisternWalletError(new WalletNotReadyError()).code).toBe(ERROR_CODES.WALLET_NOT_READY);
    const mobile = Object.assign(new Error("x"), { code: "ERROR_WALLET_NOT_FOUND" });
    const mapped = toCisternWalletError(new WalletConnectionError("x", mobile));
    expect(mapped).toBeInstanceOf(CisternError);
    expect(mapped.message).toBe("Found no installed wallet that supports the mobile wallet protocol.");
    const port = Object.assign(new Error("x"), {
      code: "ERROR_ASSOCIATION_PORT_OUT_OF_RANGE",
      data: { port: 80 },
    });
    expect(toCisternWalletError(port).message).toBe(
      "Association port number must be between 49152 and 65535. 80 given.",
    );
    const https = Object.assign(new Error("x"), { code: "ERROR_FORBIDDEN_WALLET_BASE_URL" });
    expect(toCisternWalletError(https).message).toBe(
      "Base URLs supplied by wallets must be valid `https` URLs",
    );
  });

  it("only logs adapter errors, opening the wallet's page when it is not ready", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const open = vi.spyOn(window, "open").mockImplementation(() => null);
    handleWalletError(new WalletConnectionError("nope"));
    expect(open).not.toHaveBeenCalled();
    handleWalletError(new WalletNotReadyError(), new DevWalletAdapter());
    expect(open).toHaveBeenCalledWith(new DevWalletAdapter().url, "_blank", "noopener");
    expect(log).toHaveBeenCalledTimes(2);
  });
});

describe("wallet bookkeeping", () => {
  it("keeps previously connected wallet names, most recent first", () => {
    rememberConnectedWallet("Phantom");
    rememberConnectedWallet("Solflare");
    rememberConnectedWallet("Phantom");
    expect(getPreviouslyConnected()).toEqual(["Phantom", "Solflare"]);
  });

  it("builds notification payloads with the short address and metadata", async () => {
    const adapter = new DevWalletAdapter();
    await adapter.connect();
    const key = adapter.publicKey!.toBase58();
    expect(getWalletNotificationPayload(adapter)).toEqual({
      publicKey: key,
      shortAddress: `${key.slice(0, 4)}...${key.slice(-4)}`,
      walletName: DEV_WALLET_NAME,
      metadata: {
        name: DEV_WALLET_NAME,
        url: adapter.url,
        icon: adapter.icon,
        supportedTransactionVersions: ["legacy", "0"],
      },
    });
  });
});

describe("mobile wallet adapter", () => {
  const android =
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36";

  it("is added on Android with the 'Mobile Wallet Adapter' name (labelled 'Mobile' in the modal)", () => {
    const adapters = getAppWalletAdapters("mainnet", android);
    expect(adapters.map((a) => a.name)).toEqual([
      SolanaMobileWalletAdapterWalletName,
      "Phantom",
      "Solflare",
      "Backpack",
    ]);
    expect(
      getAppWalletAdapters("devnet", "Mozilla/5.0 (X11; Linux x86_64) Chrome/156").map((a) => a.name),
    ).not.toContain(SolanaMobileWalletAdapterWalletName);
  });
});

describe("iOS deep links", () => {
  const iosSafari =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
  const iosChrome =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0 Mobile/15E148 Safari/604.1";

  it("offers Phantom and Solflare as loadable wallets on iOS Safari only", () => {
    expect(isIosSafari(iosSafari)).toBe(true);
    expect(isIosSafari(iosChrome)).toBe(false);
    const adapters = getAppWalletAdapters("mainnet", iosSafari);
    // deep links for Phantom and Solflare; Backpack has none and is offered as not installed
    expect(adapters.map((a) => [a.name, a.readyState])).toEqual([
      ["Phantom", WalletReadyState.Loadable],
      ["Solflare", WalletReadyState.Loadable],
      ["Backpack", WalletReadyState.NotDetected],
    ]);
    expect(
      getAppWalletAdapters("mainnet", "Mozilla/5.0 (X11; Linux x86_64) Chrome/156").map((a) => a.readyState),
    ).toEqual([WalletReadyState.NotDetected, WalletReadyState.NotDetected, WalletReadyState.NotDetected]);
  });

  it("redirects to the wallet's universal link on connect, never on auto-connect", async () => {
    const visited: string[] = [];
    const phantom = new DeepLinkWalletAdapter(DEEP_LINK_WALLETS[0]!, (url) => visited.push(url));
    await phantom.autoConnect();
    expect(visited).toEqual([]);
    await phantom.connect();
    const page = encodeURIComponent(window.location.href);
    expect(visited).toEqual([
      `https://phantom.app/ul/browse/${page}?ref=${encodeURIComponent(window.location.origin)}`,
    ]);
  });
});
