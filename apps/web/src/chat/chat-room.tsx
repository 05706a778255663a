import { CHAT_MESSAGE_MAX_CHARS, getErrorText, normaliseChatText } from "@cistern/protocol";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { useChat } from "./chat-context.tsx";
import { useChatRoomLoans } from "./chat-loans.ts";
import {
  type ChatMessage,
  type ChatRoom,
  displayName,
  formatMessageTime,
  MESSAGE_FIELDS,
  ROOM_FIELDS,
  roomTitle,
} from "./chat-model.ts";

const PAGE = 30;

/** One conversation: its history (older pages on demand), live messages, and the composer. */
export function ChatRoomView({ roomId }: { roomId: string }) {
  const chat = useChat();
  const loanOf = useChatRoomLoans(chat.wallet);
  const [room, setRoom] = useState<ChatRoom | null>(null);
  const [messages, setMessages] = useState<ChatMessage[]>([]); // oldest first
  const [hasMore, setHasMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const list = useRef<HTMLOListElement>(null);
  const { request } = chat;

  const markRead = useCallback(
    () => request(`mutation($r: ID!) { markRead(roomId: $r) { id } }`, { r: roomId }).catch(() => undefined),
    [request, roomId],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: chat.connectedCount re-reads the history after a reconnect
  useEffect(() => {
    let live = true;
    setLoading(true);
    Promise.all([
      request<{ room: ChatRoom }>(`query($r: ID!) { room(id: $r) { ${ROOM_FIELDS} } }`, { r: roomId }),
      request<{ messages: { messages: ChatMessage[]; hasMore: boolean } }>(
        `query($r: ID!, $n: Int) { messages(roomId: $r, limit: $n) { messages { ${MESSAGE_FIELDS} } hasMore } }`,
        { r: roomId, n: PAGE },
      ),
    ])
      .then(([r, page]) => {
        if (!live) return;
        setRoom(r.room);
        setMessages([...page.messages.messages].reverse());
        setHasMore(page.messages.hasMore);
        setError(null);
        void markRead();
      })
      .catch((e) => live && setError(getErrorText(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [request, roomId, markRead, chat.connectedCount]);

  // Live messages of this room; reading them here marks them read.
  useEffect(
    () =>
      chat.onMessage((message) => {
        if (message.roomId !== roomId) return;
        setMessages((current) =>
          current.some((m) => m.id === message.id) ? current : [...current, message],
        );
        void markRead();
      }),
    [chat.onMessage, roomId, markRead],
  );

  // Keep the newest message in view.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a message is added
  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages.length]);

  async function loadOlder() {
    const oldest = messages[0];
    if (oldest === undefined) return;
    try {
      const page = await request<{ messages: { messages: ChatMessage[]; hasMore: boolean } }>(
        `query($r: ID!, $b: ID, $n: Int) { messages(roomId: $r, before: $b, limit: $n) { messages { ${MESSAGE_FIELDS} } hasMore } }`,
        { r: roomId, b: oldest.id, n: PAGE },
      );
      setMessages((current) => [...[...page.messages.messages].reverse(), ...current]);
      setHasMore(page.messages.hasMore);
    } catch (e) {
      setError(getErrorText(e));
    }
  }

  const heading = room === null ? null : roomTitle(room, loanOf(room.loan));
  return (
    <section
      className="chat-room"
      aria-label={
        heading === null ? "Conversation" : `Conversation: ${heading.title} ${heading.subtitle}`.trim()
      }
    >
      <div className="chat-room-head">
        <button type="button" className="button button-small" onClick={() => chat.open(null)}>
          ← All
        </button>
        {heading ? (
          <span className="chat-room-title" data-testid="chat-room-title">
            {heading.title} <small className="muted">{heading.subtitle}</small>
          </span>
        ) : null}
      </div>
      {error ? (
        <p className="chat-error" role="alert" data-testid="chat-error">
          {error}
        </p>
      ) : null}
      {loading ? <p className="chat-note">Loading…</p> : null}
      {room === null ? null : (
        <>
          <ol className="chat-messages" ref={list} aria-live="polite" data-testid="chat-messages">
            {hasMore ? (
              <li className="chat-older">
                <button type="button" className="button button-small" onClick={() => void loadOlder()}>
                  Load older messages
                </button>
              </li>
            ) : null}
            {messages.length === 0 ? <li className="chat-note">No messages yet. Say hello.</li> : null}
            {messages.map((m) => (
              <MessageItem key={m.id} message={m} mine={m.sender?.userId === chat.wallet} />
            ))}
          </ol>
          <Composer
            roomId={roomId}
            onSent={(m) => setMessages((c) => (c.some((x) => x.id === m.id) ? c : [...c, m]))}
          />
        </>
      )}
    </section>
  );
}

function MessageItem({ message, mine }: { message: ChatMessage; mine: boolean }) {
  if (message.sender === null)
    return (
      <li className="chat-message chat-system" data-testid="chat-system-message">
        <span>{message.text}</span>
        <time className="muted">{formatMessageTime(message.sentAtMs)}</time>
      </li>
    );
  return (
    <li className={`chat-message ${mine ? "chat-mine" : "chat-theirs"}`} data-testid="chat-message">
      <span className="chat-author muted">{mine ? "You" : displayName(message.sender)}</span>
      {/* plain text: React renders it as text, never as HTML */}
      <span className="chat-text">{message.text}</span>
      <time className="muted">{formatMessageTime(message.sentAtMs)}</time>
    </li>
  );
}

function Composer({ roomId, onSent }: { roomId: string; onSent: (m: ChatMessage) => void }) {
  const chat = useChat();
  const id = useId();
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const length = [...text.trim()].length;
  const tooLong = length > CHAT_MESSAGE_MAX_CHARS;

  async function send() {
    if (sending) return;
    try {
      normaliseChatText(text); // the API's own rule: the same sentence, before a round trip
    } catch (e) {
      setError(getErrorText(e));
      return;
    }
    setSending(true);
    try {
      const r = await chat.request<{ sendMessage: ChatMessage }>(
        `mutation($r: ID!, $t: String!) { sendMessage(roomId: $r, text: $t) { ${MESSAGE_FIELDS} } }`,
        { r: roomId, t: text },
      );
      onSent(r.sendMessage);
      setText("");
      setError(null);
    } catch (e) {
      setError(getErrorText(e));
    } finally {
      setSending(false);
    }
  }

  return (
    <form
      className="chat-composer"
      aria-label="Send a message"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label htmlFor={id} className="pg-sr">
        Message
      </label>
      <textarea
        id={id}
        value={text}
        rows={2}
        placeholder="Write a message"
        aria-invalid={tooLong || undefined}
        aria-describedby={`${id}-count`}
        onChange={(e) => {
          setText(e.target.value);
          setError(null);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            void send();
          }
        }}
      />
      <div className="chat-composer-foot">
        <small id={`${id}-count`} className={tooLong ? "chat-error" : "muted"}>
          {length}/{CHAT_MESSAGE_MAX_CHARS}
        </small>
        <button type="submit" className="button button-primary button-small" disabled={sending}>
          Send
        </button>
      </div>
      {error ? (
        <p className="chat-error" role="alert" data-testid="chat-send-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}
