import { createPubSub, filter, pipe, Repeater } from "graphql-yoga";
import type { Database } from "../db/database.ts";
import { CHAT_CHANNEL, type ChatEvent, type ChatMessageView } from "./chat-store.ts";

/** Delivers new chat messages to this process's subscribers, whichever process stored them. */
export interface ChatBus {
  /** Messages for `wallet` (any of its rooms, or only `roomId`), as an async iterable for a subscription. */
  subscribe(wallet: string, roomId: string | null): AsyncIterable<ChatMessageView>;
  /** Subscriptions open in this process. */
  subscriberCount(): number;
  stop(): Promise<void>;
}

/**
 * LISTENs on the chat channel (one connection per process) and republishes each message in-process to the
 * subscriptions of its two members: NOTIFY is the fan-out between processes, the pubsub within one.
 */
export async function startChatBus(db: Database, onBadPayload: (payload: string) => void): Promise<ChatBus> {
  const pubsub = createPubSub<{ "chat:message": [wallet: string, message: ChatMessageView] }>();
  let subscribers = 0;
  const unlisten = await db.listen(CHAT_CHANNEL, (payload) => {
    let event: ChatEvent;
    try {
      event = JSON.parse(payload) as ChatEvent;
    } catch {
      onBadPayload(payload);
      return;
    }
    const [a, b] = event.members;
    pubsub.publish("chat:message", a, event.message);
    if (b !== a) pubsub.publish("chat:message", b, event.message);
  });
  return {
    subscribe(wallet, roomId) {
      const source = pubsub.subscribe("chat:message", wallet);
      const counted = new Repeater<ChatMessageView>(async (push, stop) => {
        subscribers += 1;
        const iterator = source[Symbol.asyncIterator]();
        stop.then(() => iterator.return?.());
        try {
          for (;;) {
            const next = await Promise.race([
              iterator.next(),
              stop.then(() => ({ done: true as const, value: undefined })),
            ]);
            if (next.done) break;
            await push(next.value);
          }
        } finally {
          subscribers -= 1;
          stop();
        }
      });
      return roomId === null
        ? counted
        : pipe(
            counted,
            filter((m: ChatMessageView) => m.roomId === roomId),
          );
    },
    subscriberCount: () => subscribers,
    stop: unlisten,
  };
}
