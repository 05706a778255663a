import { useWallet } from "@solana/wallet-adapter-react";
import { QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, render, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAnalytics } from "../src/analytics/analytics.ts";
import { createQueryClient } from "../src/app.tsx";
import { AppContext } from "../src/app-context.ts";
import { DEFAULT_RUNTIME_CONFIG } from "../src/config/runtime-config.ts";
import { WalletDataSync } from "../src/data/wallet-data-sync.tsx";
import { DEV_WALLET_NAME } from "../src/wallet/dev-wallet-adapter.ts";
import { getPreviouslyConnected } from "../src/wallet/previously-connected.ts";
import type { WalletNotificationPayload, WalletNotifications } from "../src/wallet/wallet-notifications.ts";
import { WalletSetup } from "../src/wallet/wallet-setup.tsx";

let wallet: ReturnType<typeof useWallet>;
function Probe() {
  wallet = useWallet();
  return null;
}

beforeEach(() => {
  localStorage.clear();
  vi.stubGlobal("fetch", async () => new Response("down", { status: 503 }));
  vi.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("wallet lifecycle", () => {
  it("connects, notifies, remembers the wallet, refreshes wallet data, and clears it on disconnect", async () => {
    const events: [string, WalletNotificationPayload][] = [];
    const notifications: WalletNotifications = {
      onConnecting: (p) => events.push(["connecting", p]),
      onConnect: (p) => events.push(["connect", p]),
      onDisconnect: (p) => events.push(["disconnect", p]),
      onNotInstalled: (p) => events.push(["not-installed", p]),
    };
    const queryClient = createQueryClient();
    queryClient.setQueryData(["assets", "someone"], ["nft"]);
    queryClient.setQueryData(["user-stats", "someone"], { loans: 1 });
    const invalidate = vi.spyOn(queryClient, "invalidateQueries");
    render(
      <AppContext.Provider
        value={{
          config: DEFAULT_RUNTIME_CONFIG,
          rpcUrl: "http://127.0.0.1:1",
          analytics: createAnalytics(null),
          buildId: "t",
        }}
      >
        <QueryClientProvider client={queryClient}>
          <WalletSetup
            rpcUrl="http://127.0.0.1:1"
            cluster="localnet"
            explanationUrl={null}
            notifications={notifications}
          >
            <WalletDataSync />
            <Probe />
          </WalletSetup>
        </QueryClientProvider>
      </AppContext.Provider>,
    );
    expect(wallet.wallets.map((w) => w.adapter.name)).toContain(DEV_WALLET_NAME);

    act(() => wallet.select(DEV_WALLET_NAME));
    await waitFor(() => expect(wallet.connected).toBe(true));
    const address = wallet.publicKey!.toBase58();
    expect(localStorage.getItem("walletName")).toBe(JSON.stringify(DEV_WALLET_NAME));
    expect(getPreviouslyConnected()).toEqual([DEV_WALLET_NAME]);
    const connect = events.find(([kind]) => kind === "connect")![1];
    expect(connect).toMatchObject({
      publicKey: address,
      shortAddress: `${address.slice(0, 4)}...${address.slice(-4)}`,
      walletName: DEV_WALLET_NAME,
    });
    // Once the supported currencies are known (protocol table: the API is down), wallet scopes refresh.
    await waitFor(() =>
      expect(invalidate.mock.calls.map(([f]) => f?.queryKey?.[0])).toEqual(
        expect.arrayContaining(["assets", "user-stats", "balance", "loans", "mypool"]),
      ),
    );

    await act(async () => {
      await wallet.disconnect();
    });
    expect(wallet.connected).toBe(false);
    expect(events.at(-1)).toEqual([
      "disconnect",
      expect.objectContaining({ publicKey: address, walletName: DEV_WALLET_NAME }),
    ]);
    expect(localStorage.getItem("walletName")).toBeNull();
    expect(queryClient.getQueryData(["assets", "someone"])).toBeUndefined();
    expect(queryClient.getQueryData(["user-stats", "someone"])).toBeUndefined();
  });
});
