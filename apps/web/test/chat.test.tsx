import { type ChatCredential, getChatCredentialStorageKey, getChatSignInMessage } from "@cistern/protocol";
import { WalletContext, type WalletContextState } from "@solana/wallet-adapter-react";
import { Keypair } from "@solana/web3.js";
import { QueryClientProvider } from "@tanstack/react-query";
import { act, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { createAnalytics } from "../src/analytics/analytics.ts";
import { createQueryClient } from "../src/app.tsx";
import { AppContext } from "../src/app-context.ts";
import { loadChatCredential } from "../src/chat/chat-api.ts";
import { ChatProvider, useChat } from "../src/chat/chat-context.tsx";
import { type ChatRoom, roomTitle } from "../src/chat/chat-model.ts";
import { DEFAULT_RUNTIME_CONFIG } from "../src/config/runtime-config.ts";
import { makeWallet } from "./pages/render-page.tsx";

const SIGNATURE = "5".repeat(88);

function credentialFor(wallet: string): ChatCredential {
  return {
    message: `${getChatSignInMessage(wallet)}\nWallet: ${wallet}\nNonce: ${"a".repeat(32)}\nExpires: 2026-12-01T00:00:00.000Z`,
    signature: SIGNATURE,
    userId: wallet,
  };
}

function Probe() {
  const chat = useChat();
  return (
    <p>
      <span data-testid="credential">{chat.credential?.userId ?? "none"}</span>
      <span data-testid="connection">{chat.connection}</span>
    </p>
  );
}

function renderChat(wallet: WalletContextState, apiUrl: string) {
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false } });
  const context = {
    config: { ...DEFAULT_RUNTIME_CONFIG, apiUrl },
    rpcUrl: "http://rpc.test",
    analytics: createAnalytics(null),
    buildId: "test",
  };
  const tree = (w: WalletContextState) => (
    <AppContext.Provider value={context}>
      <QueryClientProvider client={queryClient}>
        <WalletContext.Provider value={w}>
          <ChatProvider>
            <Probe />
          </ChatProvider>
        </WalletContext.Provider>
      </QueryClientProvider>
    </AppContext.Provider>
  );
  const view = render(tree(wallet));
  return { ...view, setWallet: (w: WalletContextState) => view.rerender(tree(w)) };
}

afterEach(() => localStorage.clear());

describe("chat credential (spec: loaded on connect, cleared on disconnect, invalid ones ignored)", () => {
  it("loads only a well-formed credential of this wallet", () => {
    const me = Keypair.generate().publicKey.toBase58();
    const other = Keypair.generate().publicKey.toBase58();
    const key = getChatCredentialStorageKey(me);
    expect(loadChatCredential(me)).toBeNull();
    localStorage.setItem(key, "{not json");
    expect(loadChatCredential(me)).toBeNull();
    localStorage.setItem(key, JSON.stringify({ ...credentialFor(me), signature: "short" }));
    expect(loadChatCredential(me)).toBeNull();
    localStorage.setItem(key, JSON.stringify(credentialFor(other)));
    expect(loadChatCredential(me)).toBeNull();
    localStorage.setItem(key, JSON.stringify({ ...credentialFor(me), message: getChatSignInMessage(other) }));
    expect(loadChatCredential(me)).toBeNull();
    localStorage.setItem(key, JSON.stringify(credentialFor(me)));
    expect(loadChatCredential(me)).toEqual(credentialFor(me));
  });

  it("uses the cached credential when the wallet connects, says when the socket is offline, and forgets it on disconnect", async () => {
    const keypair = Keypair.generate();
    const me = keypair.publicKey.toBase58();
    localStorage.setItem(getChatCredentialStorageKey(me), JSON.stringify(credentialFor(me)));
    // nothing listens on port 9: the socket cannot connect
    const view = renderChat(makeWallet(keypair), "http://127.0.0.1:9");
    expect(screen.getByTestId("credential").textContent).toBe(me);
    await waitFor(() => expect(screen.getByTestId("connection").textContent).toBe("offline"), {
      timeout: 10_000,
    });
    const disconnected = { ...makeWallet(keypair), publicKey: null, connected: false } as WalletContextState;
    act(() => view.setWallet(disconnected));
    expect(screen.getByTestId("credential").textContent).toBe("none");
    expect(screen.getByTestId("connection").textContent).toBe("signed-out");
    expect(localStorage.getItem(getChatCredentialStorageKey(me))).toBeNull();
    view.unmount();
  });
});

describe("#36 chat room titles", () => {
  const peer = (username = "") => ({ userId: Keypair.generate().publicKey.toBase58(), username, image: "" });
  const room = (over: Partial<ChatRoom>): ChatRoom => ({
    id: "loan:x",
    kind: "loan",
    loan: Keypair.generate().publicKey.toBase58(),
    peer: peer(),
    unread: 0,
    lastMessage: null,
    createdAt: 0,
    ...over,
  });
  const loan = { subject: "20 USDC loan on Aqua Ape #12", peerRole: "lender" as const };

  it("titles a loan's room with the loan and the other party's profile name, never an address", () => {
    expect(roomTitle(room({ peer: peer("Dana") }), loan)).toEqual({
      title: "20 USDC loan on Aqua Ape #12",
      subtitle: "with Dana",
    });
    // no profile name: their part in the loan
    expect(roomTitle(room({}), loan)).toEqual({
      title: "20 USDC loan on Aqua Ape #12",
      subtitle: "with your lender",
    });
    expect(roomTitle(room({}), { ...loan, peerRole: "borrower" }).subtitle).toBe("with your borrower");
    // a loan not in the wallet's lists yet: no address for a name
    const unknown = room({});
    const title = roomTitle(unknown);
    expect(title).toEqual({ title: "Loan conversation", subtitle: "" });
    expect(JSON.stringify(title)).not.toContain(unknown.loan!.slice(0, 4));
    expect(JSON.stringify(title)).not.toContain(unknown.peer.userId.slice(0, 4));
  });

  it("titles direct messages with the other person", () => {
    expect(roomTitle(room({ kind: "direct", loan: null, peer: peer("Ola") }))).toEqual({
      title: "Ola",
      subtitle: "Direct messages",
    });
  });
});
