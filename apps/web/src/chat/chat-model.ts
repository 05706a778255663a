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

/** What the chat knows of a room's loan: the loan in words and the other party's role in it. */
export interface RoomLoan {
  /** "20 USDC loan on Aqua Ape #12" (see describeLoan). */
  subject: string;
  /** The other person's part in the loan, from the signed-in wallet's side. */
  peerRole: "lender" | "borrower";
}

/**
 * A room's title. A loan's room is titled with the loan (collateral and amount) and the other party by their profile
 * name, else by their part in the loan ("with your lender"); a loan the wallet's lists do not hold (yet) reads
 * "Loan conversation". Direct messages: the other person's profile name, else their shortened address (a direct room
 * has no other name).
 */
export function roomTitle(room: ChatRoom, loan?: RoomLoan): { title: string; subtitle: string } {
  if (room.kind === "direct" || room.loan === null)
    return { title: displayName(room.peer), subtitle: "Direct messages" };
  const withPeer =
    room.peer.username !== ""
      ? `with ${room.peer.username}`
      : loan === undefined
        ? ""
        : `with your ${loan.peerRole}`;
  return { title: loan?.subject ?? "Loan conversation", subtitle: withPeer };
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
