import { shortenAddress } from "@cistern/protocol";

/** A chat user: wallet address and the profile it set (empty strings when none). */
export interface ChatUser {
  userId: string;
  username: string;
  image: string;
}

/** A message; `sender` is null for a system message (a loan event). Text is plain text. */
export interface ChatMessage {
  id: string;
  roomId: string;
  sender: ChatUser | null;
  text: string;
  sentAtMs: number;
}

/** A room as the signed-in wallet sees it. */
export interface ChatRoom {
  id: string;
  kind: "loan" | "direct";
  loan: string | null;
  peer: ChatUser;
  unread: number;
  lastMessage: ChatMessage | null;
  createdAt: number;
}

export const MESSAGE_FIELDS = "id roomId sender { userId username image } text sentAtMs";
export const ROOM_FIELDS = `id kind loan peer { userId username image } unread lastMessage { ${MESSAGE_FIELDS} } createdAt`;

/** A user's name as the chat shows it: the profile name, else the shortened address. */
export function displayName(user: ChatUser): string {
  return user.username !== "" ? user.username : shortenAddress(user.userId);
}

/** A room's title: the other person, and which loan when it is a loan's room. */
export function roomTitle(room: ChatRoom): { title: string; subtitle: string } {
  return {
    title: displayName(room.peer),
    subtitle: room.loan === null ? "Direct messages" : `Loan ${shortenAddress(room.loan)}`,
  };
}

/** "14:05" today, "21 Nov, 14:05" otherwise (the reader's time zone: a chat is read as it happens). */
export function formatMessageTime(ms: number, nowMs: number = Date.now()): string {
  const at = new Date(ms);
  const sameDay = at.toDateString() === new Date(nowMs).toDateString();
  return at.toLocaleString("en-GB", {
    ...(sameDay ? {} : { day: "numeric", month: "short" }),
    hour: "2-digit",
    minute: "2-digit",
  });
}
