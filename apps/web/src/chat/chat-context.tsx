import {
  CHAT_KEEP_ALIVE_MS,
  CHAT_RETRY_ATTEMPTS,
  type ChatCredential,
  getChatRetryDelayMs,
  getErrorText,
  getLoanRoomId,
} from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type Client, createClient } from "graphql-ws";
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { useAppContext } from "../app-context.ts";
import { locationStore, useLocationHref } from "../lib/location.ts";
import {
  ChatError,
  CREDENTIAL_CODES,
  chatRequest,
  clearChatCredential,
  getChatEndpoint,
  loadChatCredential,
  saveChatCredential,
  signInToChat,
} from "./chat-api.ts";
import { type ChatMessage, type ChatRoom, MESSAGE_FIELDS, ROOM_FIELDS } from "./chat-model.ts";

/** The socket's state as the panel says it. */
export type ChatConnection = "signed-out" | "connecting" | "online" | "offline";

export interface ChatValue {
  wallet: string | null;
  credential: ChatCredential | null;
  connection: ChatConnection;
  /** Counts the socket's (re)connections: what arrived while it was down is read again when it changes. */
  connectedCount: number;
  /** The last sign-in failure (stored for the chat, shown until the next attempt). */
  signInError: string | null;
  signingIn: boolean;
  rooms: ChatRoom[];
  unreadTotal: number;
  panelOpen: boolean;
  roomId: string | null;
  signIn(): Promise<void>;
  open(roomId?: string | null): void;
  openLoanRoom(loan: string): void;
  close(): void;
  reconnect(): void;
  /** Runs a query or mutation as the signed-in wallet; a refused credential signs the wallet out of the chat. */
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** Calls `listener` with each new message in the wallet's rooms; returns the unsubscribe. */
  onMessage(listener: (message: ChatMessage) => void): () => void;
}

const ChatContext = createContext<ChatValue | null>(null);

/** The chat (spec: the shell includes chat); throws outside the provider. */
export function useChat(): ChatValue {
  const value = useContext(ChatContext);
  if (value === null) throw new Error("useChat must be used inside <ChatProvider>");
  return value;
}

/** The `chat` query parameter opens the panel on a room (links from elsewhere, e.g. a loan's page). */
function roomFromHref(href: string): string | null {
  return new URL(href).searchParams.get("chat");
}

/**
 * Holds the chat for the connected wallet: its cached credential (loaded when the wallet connects, cleared on
 * disconnect, ignored when invalid), the graphql-ws socket (the spec's client defaults: 5 retries, exponential
 * backoff from 1 s with jitter, keep-alive 0) and the rooms with their unread counts.
 */
export function ChatProvider({ children }: { children: ReactNode }) {
  const { config } = useAppContext();
  const walletState = useWallet();
  const wallet = walletState.publicKey?.toBase58() ?? null;
  const queryClient = useQueryClient();
  const [credential, setCredential] = useState<ChatCredential | null>(null);
  const [connection, setConnection] = useState<ChatConnection>("signed-out");
  const [signInError, setSignInError] = useState<string | null>(null);
  const [signingIn, setSigningIn] = useState(false);
  const [panelOpen, setPanelOpen] = useState(false);
  const [roomId, setRoomId] = useState<string | null>(null);
  const [socketGeneration, setSocketGeneration] = useState(0);
  const [connectedCount, setConnectedCount] = useState(0);
  const listeners = useRef(new Set<(message: ChatMessage) => void>());
  const previousWallet = useRef<string | null>(null);
  const href = useLocationHref();

  // Connect: load the cached credential. Disconnect: forget the previous wallet's credential.
  useEffect(() => {
    if (previousWallet.current !== null && previousWallet.current !== wallet)
      clearChatCredential(previousWallet.current);
    previousWallet.current = wallet;
    setCredential(wallet === null ? null : loadChatCredential(wallet));
    setSignInError(null);
  }, [wallet]);

  const forget = useCallback((reason: string) => {
    setCredential((current) => {
      if (current !== null) clearChatCredential(current.userId);
      return null;
    });
    setSignInError(reason);
  }, []);

  const request = useCallback(
    async <T,>(query: string, variables: Record<string, unknown> = {}): Promise<T> => {
      try {
        return await chatRequest<T>(config.apiUrl, query, variables, credential);
      } catch (error) {
        if (error instanceof ChatError && CREDENTIAL_CODES.includes(error.code)) forget(error.message);
        throw error;
      }
    },
    [config.apiUrl, credential, forget],
  );

  const roomsQuery = useQuery({
    queryKey: ["chat", "rooms", credential?.userId ?? null, config.apiUrl],
    queryFn: () => request<{ rooms: ChatRoom[] }>(`{ rooms { ${ROOM_FIELDS} } }`),
    enabled: credential !== null,
    retry: false,
  });

  // The socket: one per credential; every new message refreshes the room list and reaches the open room.
  // biome-ignore lint/correctness/useExhaustiveDependencies: socketGeneration is the Reconnect button's way to rebuild the socket
  useEffect(() => {
    if (credential === null) {
      setConnection("signed-out");
      return;
    }
    setConnection("connecting");
    const client: Client = createClient({
      url: getChatEndpoint(config.apiUrl, true),
      connectionParams: { ...credential },
      retryAttempts: CHAT_RETRY_ATTEMPTS,
      retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, getChatRetryDelayMs(retries))),
      keepAlive: CHAT_KEEP_ALIVE_MS,
      shouldRetry: () => true,
      on: {
        connecting: () => setConnection((c) => (c === "online" ? "offline" : c)),
        connected: () => {
          setConnection("online");
          setConnectedCount((n) => n + 1);
          // messages sent while the socket was down were not pushed: read the rooms again
          void queryClient.invalidateQueries({ queryKey: ["chat", "rooms"] });
        },
        closed: () => setConnection("offline"),
      },
    });
    const stop = client.subscribe<{ messageAdded: ChatMessage }>(
      { query: `subscription { messageAdded { ${MESSAGE_FIELDS} } }` },
      {
        next: ({ data }) => {
          if (!data) return;
          for (const listener of listeners.current) listener(data.messageAdded);
          void queryClient.invalidateQueries({ queryKey: ["chat", "rooms"] });
        },
        error: (error) => {
          const code = (error as { code?: number }).code;
          // 4403: the server refused the credential (expired or revoked): sign in again.
          if (code === 4403) forget("Your chat sign-in is not valid any more: sign in again.");
          else setConnection("offline");
        },
        complete: () => undefined,
      },
    );
    return () => {
      stop();
      void client.dispose();
    };
  }, [credential, config.apiUrl, queryClient, forget, socketGeneration]);

  // ?chat=<room> opens the panel on that room.
  useEffect(() => {
    const fromUrl = roomFromHref(href);
    if (fromUrl !== null) {
      setRoomId(fromUrl);
      setPanelOpen(true);
    }
  }, [href]);

  const signIn = useCallback(async () => {
    if (walletState.publicKey === null) return;
    setSigningIn(true);
    setSignInError(null);
    try {
      const signed = await signInToChat(config.apiUrl, {
        publicKey: walletState.publicKey,
        walletName: walletState.wallet?.adapter.name ?? null,
        signMessage: walletState.signMessage,
      });
      // Checked now, so a refusal shows here rather than as a closed socket.
      await chatRequest(config.apiUrl, "{ me { userId } }", {}, signed);
      saveChatCredential(signed);
      setCredential(signed);
    } catch (error) {
      setSignInError(getErrorText(error));
    } finally {
      setSigningIn(false);
    }
  }, [config.apiUrl, walletState.publicKey, walletState.wallet, walletState.signMessage]);

  const value = useMemo<ChatValue>(() => {
    const rooms = roomsQuery.data?.rooms ?? [];
    return {
      wallet,
      credential,
      connection,
      connectedCount,
      signInError,
      signingIn,
      rooms,
      unreadTotal: rooms.reduce((sum, r) => sum + r.unread, 0),
      panelOpen,
      roomId,
      signIn,
      open: (id = null) => {
        setRoomId(id);
        setPanelOpen(true);
      },
      openLoanRoom: (loan) => {
        setRoomId(getLoanRoomId(loan));
        setPanelOpen(true);
      },
      close: () => {
        setPanelOpen(false);
        const url = new URL(locationStore.get());
        if (url.searchParams.has("chat")) {
          url.searchParams.delete("chat");
          window.history.replaceState(null, "", url);
          locationStore.set(url.href);
        }
      },
      reconnect: () => setSocketGeneration((n) => n + 1),
      request,
      onMessage: (listener) => {
        listeners.current.add(listener);
        return () => listeners.current.delete(listener);
      },
    };
  }, [
    wallet,
    credential,
    connection,
    connectedCount,
    signInError,
    signingIn,
    roomsQuery.data,
    panelOpen,
    roomId,
    signIn,
    request,
  ]);

  return <ChatContext.Provider value={value}>{children}</ChatContext.Provider>;
}
