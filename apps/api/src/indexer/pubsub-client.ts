import WebSocket from "ws";

export interface PubSubHandlers {
  onProgramAccount(pubkey: string, data: Uint8Array, lamports: bigint, slot: number): void;
  onLogs(signature: string, failed: boolean, slot: number): void;
  /** Called after every (re)connection once both subscriptions are acknowledged. */
  onSubscribed(): void;
  onError(error: unknown): void;
}

export interface PubSubConnection {
  close(): void;
}

interface Notification {
  method?: string;
  id?: number;
  result?: unknown;
  params?: { subscription: number; result: { context: { slot: number }; value: unknown } };
}

/**
 * Subscribes to a program's account changes (programSubscribe, base64) and its transactions
 * (logsSubscribe mentions) over the Solana PubSub websocket, reconnecting after a drop.
 */
export function connectProgramPubSub(
  wsUrl: string,
  programId: string,
  handlers: PubSubHandlers,
  reconnectDelayMs = 1000,
): PubSubConnection {
  let closed = false;
  let socket: WebSocket | undefined;
  let timer: NodeJS.Timeout | undefined;
  function open(): void {
    if (closed) return;
    const ws = new WebSocket(wsUrl);
    socket = ws;
    let acknowledged = 0;
    ws.on("open", () => {
      ws.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "programSubscribe",
          params: [programId, { encoding: "base64", commitment: "confirmed" }],
        }),
      );
      ws.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "logsSubscribe",
          params: [{ mentions: [programId] }, { commitment: "confirmed" }],
        }),
      );
    });
    ws.on("message", (raw) => {
      let message: Notification;
      try {
        message = JSON.parse(raw.toString()) as Notification;
      } catch {
        return;
      }
      if (message.id === 1 || message.id === 2) {
        acknowledged++;
        if (acknowledged === 2) handlers.onSubscribed();
        return;
      }
      const slot = message.params?.result.context.slot ?? 0;
      if (message.method === "programNotification") {
        const value = message.params?.result.value as {
          pubkey: string;
          account: { data: [string, string]; lamports: number };
        };
        handlers.onProgramAccount(
          value.pubkey,
          new Uint8Array(Buffer.from(value.account.data[0], "base64")),
          BigInt(value.account.lamports),
          slot,
        );
      } else if (message.method === "logsNotification") {
        const value = message.params?.result.value as { signature: string; err: unknown };
        handlers.onLogs(value.signature, value.err !== null && value.err !== undefined, slot);
      }
    });
    ws.on("error", (error) => handlers.onError(error));
    ws.on("close", () => {
      if (closed) return;
      timer = setTimeout(open, reconnectDelayMs);
      timer.unref();
    });
  }
  open();
  return {
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      socket?.removeAllListeners("close");
      socket?.on("error", () => undefined);
      socket?.terminate();
    },
  };
}
