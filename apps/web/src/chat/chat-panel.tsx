import { getErrorText, isValidPublicKey } from "@cistern/protocol";
import { useEffect, useId, useRef, useState } from "react";
import { type ChatConnection, useChat } from "./chat-context.tsx";
import { useChatRoomLoans } from "./chat-loans.ts";
import { roomTitle } from "./chat-model.ts";
import { ChatRoomView } from "./chat-room.tsx";
import "./chat.css";

const CONNECTION_TEXT: Record<ChatConnection, string> = {
  "signed-out": "",
  connecting: "Connecting…",
  online: "Online",
  offline: "Offline: reconnecting…",
};

/** The header's chat button, with the unread count. */
export function ChatButton() {
  const chat = useChat();
  const label = chat.unreadTotal > 0 ? `Chat, ${chat.unreadTotal} unread` : "Chat";
  return (
    <button
      type="button"
      className="icon-button chat-button"
      aria-label={label}
      aria-expanded={chat.panelOpen}
      data-testid="chat-button"
      onClick={() => (chat.panelOpen ? chat.close() : chat.open(chat.roomId))}
    >
      <svg
        aria-hidden="true"
        width="18"
        height="18"
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
      >
        <path d="M4 5h16v11H9l-5 4z" strokeLinejoin="round" />
      </svg>
      {chat.unreadTotal > 0 ? (
        <span className="chat-badge" aria-hidden="true" data-testid="chat-unread">
          {chat.unreadTotal > 99 ? "99+" : chat.unreadTotal}
        </span>
      ) : null}
    </button>
  );
}

/** The chat panel (bottom right) while it is open. */
export function ChatPanelHost() {
  return useChat().panelOpen ? <ChatPanel /> : null;
}

function ChatPanel() {
  const chat = useChat();
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    panel.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") chat.close();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [chat.close]);
  return (
    <aside ref={panel} className="chat-panel" aria-label="Chat" tabIndex={-1} data-testid="chat-panel">
      <header className="chat-head">
        <h2>Chat</h2>
        {chat.connection === "signed-out" ? null : (
          <span
            className={`chat-status chat-status-${chat.connection}`}
            data-testid="chat-status"
            role="status"
          >
            {CONNECTION_TEXT[chat.connection]}
          </span>
        )}
        {chat.connection === "offline" ? (
          <button type="button" className="button" onClick={chat.reconnect}>
            Reconnect
          </button>
        ) : null}
        <button type="button" className="chat-close" aria-label="Close chat" onClick={chat.close}>
          ×
        </button>
      </header>
      <ChatBody />
    </aside>
  );
}

function ChatBody() {
  const chat = useChat();
  if (chat.wallet === null)
    return <p className="chat-note">Connect a wallet to chat with your lenders and borrowers.</p>;
  if (chat.credential === null)
    return (
      <div className="chat-signin">
        <p className="chat-note">
          Each loan has a conversation between its borrower and its lender. Your wallet signs a message to
          prove it is yours; nothing is sent on chain.
        </p>
        {chat.signInError ? (
          <p className="chat-error" role="alert" data-testid="chat-signin-error">
            {chat.signInError}
          </p>
        ) : null}
        <button
          type="button"
          className="button button-primary"
          onClick={() => void chat.signIn()}
          disabled={chat.signingIn}
        >
          {chat.signingIn ? "Check your wallet…" : "Sign in to chat"}
        </button>
      </div>
    );
  if (chat.roomId !== null) return <ChatRoomView key={chat.roomId} roomId={chat.roomId} />;
  return <RoomList />;
}

function RoomList() {
  const chat = useChat();
  return (
    <>
      {chat.rooms.length === 0 ? (
        <p className="chat-note">
          No conversations yet. Each loan you take or lend gets one; open it from the loan's row on the Loans
          page.
        </p>
      ) : (
        <Rooms />
      )}
      <NewDirectMessage />
    </>
  );
}

/** Starts (or reopens) direct messages with a wallet address. */
function NewDirectMessage() {
  const chat = useChat();
  const id = useId();
  const [address, setAddress] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="chat-new"
      aria-label="Message a wallet"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        const wallet = address.trim();
        if (!isValidPublicKey(wallet)) {
          setError("Enter a wallet address.");
          return;
        }
        try {
          const r = await chat.request<{ openDirectRoom: { id: string } }>(
            "mutation($w: String!) { openDirectRoom(wallet: $w) { id } }",
            { w: wallet },
          );
          setAddress("");
          setError(null);
          chat.open(r.openDirectRoom.id);
        } catch (e) {
          setError(getErrorText(e));
        }
      }}
    >
      <label htmlFor={id}>Message a wallet</label>
      <div className="chat-new-row">
        <input
          id={id}
          value={address}
          placeholder="Wallet address"
          autoComplete="off"
          spellCheck={false}
          aria-invalid={error !== null || undefined}
          onChange={(e) => {
            setAddress(e.target.value);
            setError(null);
          }}
        />
        <button type="submit" className="button button-small">
          Open
        </button>
      </div>
      {error ? (
        <p className="chat-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

function Rooms() {
  const chat = useChat();
  const loanOf = useChatRoomLoans(chat.wallet);
  return (
    <ul className="chat-rooms" aria-label="Conversations">
      {chat.rooms.map((room) => {
        const { title, subtitle } = roomTitle(room, loanOf(room.loan));
        return (
          <li key={room.id}>
            <button
              type="button"
              className="chat-room-item"
              onClick={() => chat.open(room.id)}
              data-room={room.id}
            >
              <span className="chat-room-title" data-testid="chat-room-item-title">
                {title} <small className="muted">{subtitle}</small>
              </span>
              <span className="chat-room-last muted">{room.lastMessage?.text ?? "No messages yet"}</span>
              {room.unread > 0 ? (
                <span className="chat-badge">
                  {room.unread}
                  <span className="pg-sr"> unread</span>
                </span>
              ) : null}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
