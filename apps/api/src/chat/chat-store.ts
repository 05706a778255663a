import {
  CHAT_PAGE_MAX_MESSAGES,
  CHAT_RATE_LIMIT_MESSAGES,
  CHAT_RATE_LIMIT_WINDOW_SECONDS,
  CisternError,
  ERROR_CODES,
  getDirectRoomId,
  getLoanRoomId,
  normaliseChatText,
  parseRoomId,
} from "@cistern/protocol";
import type { Database, Queryable } from "../db/database.ts";

/** The NOTIFY channel every API process listens on for new chat messages. */
export const CHAT_CHANNEL = "chat_events";

/** A message as the chat answers it. `sender` is null for a system message (a loan event). */
export interface ChatMessageView {
  id: string;
  roomId: string;
  sender: string | null;
  senderName: string;
  senderImage: string;
  text: string;
  sentAtMs: number;
}

/** A room as a member sees it. */
export interface ChatRoomView {
  id: string;
  kind: "loan" | "direct";
  loan: string | null;
  members: [string, string];
  createdAt: number;
  lastMessageId: string;
}

/** What NOTIFY carries: the message and the two wallets that may receive it. */
export interface ChatEvent {
  message: ChatMessageView;
  members: [string, string];
}

interface RoomRow {
  id: string;
  kind: string;
  loan: string | null;
  member_a: string;
  member_b: string;
  created_at: unknown;
  last_message_id: unknown;
}

interface MessageRow {
  id: unknown;
  room_id: string;
  sender: string | null;
  username: string | null;
  image: string | null;
  text: string;
  sent_at_ms: unknown;
}

const MESSAGE_COLUMNS = `m.id, m.room_id, m.sender, p.username, p.image, m.text, m.sent_at_ms`;

function toRoom(row: RoomRow): ChatRoomView {
  return {
    id: row.id,
    kind: row.kind === "loan" ? "loan" : "direct",
    loan: row.loan,
    members: [row.member_a, row.member_b],
    createdAt: Number(row.created_at),
    lastMessageId: String(row.last_message_id),
  };
}

function toMessage(row: MessageRow): ChatMessageView {
  return {
    id: String(row.id),
    roomId: row.room_id,
    sender: row.sender,
    senderName: row.username ?? "",
    senderImage: row.image ?? "",
    text: row.text,
    sentAtMs: Number(row.sent_at_ms),
  };
}

/** Creates the room of an indexed loan (borrower and lender = pool owner) if it has none; null when not indexed. */
export async function ensureLoanRoom(q: Queryable, loan: string): Promise<ChatRoomView | null> {
  await q.query(
    `INSERT INTO chat_rooms (id, kind, loan, member_a, member_b, created_at)
     SELECT $1, 'loan', pubkey, borrower, lender, created_at FROM loans WHERE pubkey = $2
     ON CONFLICT (id) DO NOTHING`,
    [getLoanRoomId(loan), loan],
  );
  const [row] = await q.query<RoomRow>("SELECT * FROM chat_rooms WHERE id = $1", [getLoanRoomId(loan)]);
  return row === undefined ? null : toRoom(row);
}

/**
 * The room `roomId` for `wallet`, which must be one of its two members. A loan's room is created from the
 * indexed loan, a direct room on first use. Refuses an ill-formed or unknown room (8103) and another's (8104).
 */
export async function getRoomForMember(db: Queryable, roomId: string, wallet: string): Promise<ChatRoomView> {
  const parsed = parseRoomId(roomId);
  if (parsed === null) throw new CisternError(ERROR_CODES.CHAT_ROOM_NOT_FOUND);
  let room: ChatRoomView | null;
  if (parsed.kind === "loan") {
    room = await ensureLoanRoom(db, parsed.loan);
  } else {
    if (!parsed.members.includes(wallet)) throw new CisternError(ERROR_CODES.CHAT_ROOM_FORBIDDEN);
    room = await openDirectRoom(db, parsed.members[0], parsed.members[1], Date.now() / 1000);
  }
  if (room === null) throw new CisternError(ERROR_CODES.CHAT_ROOM_NOT_FOUND);
  if (!room.members.includes(wallet)) throw new CisternError(ERROR_CODES.CHAT_ROOM_FORBIDDEN);
  return room;
}

/** The direct room of two different wallets, created if new. */
export async function openDirectRoom(
  db: Queryable,
  wallet: string,
  other: string,
  nowSeconds: number,
): Promise<ChatRoomView> {
  if (wallet === other) throw new CisternError(ERROR_CODES.CHAT_SELF_MESSAGE);
  const id = getDirectRoomId(wallet, other);
  const [a, b] = wallet < other ? [wallet, other] : [other, wallet];
  await db.query(
    `INSERT INTO chat_rooms (id, kind, loan, member_a, member_b, created_at) VALUES ($1, 'direct', NULL, $2, $3, $4)
     ON CONFLICT (id) DO NOTHING`,
    [id, a, b, Math.floor(nowSeconds)],
  );
  const [row] = await db.query<RoomRow>("SELECT * FROM chat_rooms WHERE id = $1", [id]);
  return toRoom(row!);
}

/** A room with what `wallet` has not read yet (people's messages only) and its last message. */
export interface RoomSummary {
  room: ChatRoomView;
  unread: number;
  last: ChatMessageView | null;
}

const UNREAD_SQL = `(SELECT count(*) FROM chat_messages u WHERE u.room_id = r.id
  AND u.id > COALESCE((SELECT last_read_id FROM chat_reads cr WHERE cr.room_id = r.id AND cr.wallet = $1), 0)
  AND u.sender IS NOT NULL AND u.sender <> $1)`;

async function summarise(db: Queryable, rows: (RoomRow & { unread: unknown })[]): Promise<RoomSummary[]> {
  const lastIds = rows.map((r) => String(r.last_message_id)).filter((id) => id !== "0");
  const last = lastIds.length === 0 ? [] : await getMessagesById(db, lastIds);
  const byId = new Map(last.map((m) => [m.id, m]));
  return rows.map((r) => ({
    room: toRoom(r),
    unread: Number(r.unread),
    last: byId.get(String(r.last_message_id)) ?? null,
  }));
}

/** The wallet's rooms, most recently active first, with its unread count and the last message of each. */
export async function listRooms(db: Queryable, wallet: string, limit = 100): Promise<RoomSummary[]> {
  const rows = await db.query<RoomRow & { unread: unknown }>(
    `WITH r AS (
       SELECT * FROM chat_rooms WHERE member_a = $1
       UNION ALL SELECT * FROM chat_rooms WHERE member_b = $1 AND member_a <> $1
       ORDER BY last_message_id DESC, created_at DESC LIMIT $2
     )
     SELECT r.*, ${UNREAD_SQL} AS unread FROM r ORDER BY last_message_id DESC, created_at DESC`,
    [wallet, limit],
  );
  return summarise(db, rows);
}

/** One room's summary for `wallet`. */
export async function summariseRoom(db: Queryable, room: ChatRoomView, wallet: string): Promise<RoomSummary> {
  const rows = await db.query<RoomRow & { unread: unknown }>(
    `SELECT r.*, ${UNREAD_SQL} AS unread FROM chat_rooms r WHERE r.id = $2`,
    [wallet, room.id],
  );
  return (await summarise(db, rows))[0] ?? { room, unread: 0, last: null };
}

/** Messages from the other people (never system messages: loan events) the wallet has not read, over all its rooms. */
export async function countUnread(db: Queryable, wallet: string): Promise<number> {
  const [row] = await db.query<{ n: unknown }>(
    `SELECT COALESCE(sum(${UNREAD_SQL}), 0) AS n FROM chat_rooms r WHERE r.member_a = $1 OR r.member_b = $1`,
    [wallet],
  );
  return Number(row?.n ?? 0);
}

async function getMessagesById(db: Queryable, ids: string[]): Promise<ChatMessageView[]> {
  const rows = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM chat_messages m LEFT JOIN user_profiles p ON p.pubkey = m.sender
     WHERE m.id = ANY($1::bigint[])`,
    [ids],
  );
  return rows.map(toMessage);
}

/** A page of a room's history, newest first, older than message `before` when given. */
export async function getMessagePage(
  db: Queryable,
  roomId: string,
  before: string | null,
  limit: number,
): Promise<{ messages: ChatMessageView[]; hasMore: boolean }> {
  if (!Number.isInteger(limit) || limit < 1 || limit > CHAT_PAGE_MAX_MESSAGES)
    throw new CisternError(ERROR_CODES.CHAT_INVALID_INPUT, {
      field: "limit",
      why: `a whole number from 1 to ${CHAT_PAGE_MAX_MESSAGES}`,
    });
  if (before !== null && !/^\d{1,18}$/.test(before))
    throw new CisternError(ERROR_CODES.CHAT_INVALID_INPUT, { field: "before", why: "a message id" });
  const rows = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM chat_messages m LEFT JOIN user_profiles p ON p.pubkey = m.sender
     WHERE m.room_id = $1 AND ($2::bigint IS NULL OR m.id < $2::bigint)
     ORDER BY m.id DESC LIMIT $3`,
    [roomId, before, limit + 1],
  );
  return { messages: rows.slice(0, limit).map(toMessage), hasMore: rows.length > limit };
}

async function insertMessage(
  q: Queryable,
  room: ChatRoomView,
  input: { sender: string | null; text: string; systemKey: string | null; nowMs: number },
): Promise<ChatMessageView | null> {
  const rows = await q.query<MessageRow>(
    `WITH m AS (
       INSERT INTO chat_messages (room_id, sender, text, system_key, sent_at_ms) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING *
     ), r AS (UPDATE chat_rooms SET last_message_id = (SELECT id FROM m) WHERE id = $1 AND EXISTS (SELECT 1 FROM m))
     SELECT ${MESSAGE_COLUMNS} FROM m LEFT JOIN user_profiles p ON p.pubkey = m.sender`,
    [room.id, input.sender, input.text, input.systemKey, Math.floor(input.nowMs)],
  );
  if (rows.length === 0) return null;
  const message = toMessage(rows[0]!);
  const event: ChatEvent = { message, members: room.members };
  // Delivered on commit, to every API process listening (this one included).
  await q.query("SELECT pg_notify($1, $2)", [CHAT_CHANNEL, JSON.stringify(event)]);
  return message;
}

/**
 * Sends `sender`'s message to a room they belong to: text normalised and checked (8105, 8106, 8109), at most
 * CHAT_RATE_LIMIT_MESSAGES per window per wallet across every process (8107). Nothing is written on refusal.
 */
export async function sendMessage(
  db: Database,
  input: { roomId: string; sender: string; text: string; nowMs: number },
): Promise<ChatMessageView> {
  const text = normaliseChatText(input.text);
  const room = await getRoomForMember(db, input.roomId, input.sender);
  return db.transaction(async (tx) => {
    // One sender at a time, in whichever process, so the rate window is counted exactly.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [input.sender]);
    const [recent] = await tx.query<{ n: unknown }>(
      "SELECT count(*) AS n FROM chat_messages WHERE sender = $1 AND sent_at_ms > $2",
      [input.sender, Math.floor(input.nowMs) - CHAT_RATE_LIMIT_WINDOW_SECONDS * 1000],
    );
    if (Number(recent!.n) >= CHAT_RATE_LIMIT_MESSAGES) throw new CisternError(ERROR_CODES.CHAT_RATE_LIMITED);
    const message = await insertMessage(tx, room, {
      sender: input.sender,
      text,
      systemKey: null,
      nowMs: input.nowMs,
    });
    return message!;
  });
}

/** Posts a system message once per (room, key); null when that key was already posted. */
export async function postSystemMessage(
  db: Database,
  room: ChatRoomView,
  systemKey: string,
  text: string,
  nowMs: number,
): Promise<ChatMessageView | null> {
  return db.transaction((tx) => insertMessage(tx, room, { sender: null, text, systemKey, nowMs }));
}

/** A system message for a loan's room (the chat timeline's loan events). */
export interface LoanSystemPost {
  loan: string;
  systemKey: string;
  text: string;
}

/**
 * Posts system messages to loans' rooms, each once per (room, key), in one transaction of three statements
 * whatever their number: the rooms created from the indexed loans, the messages inserted in the order given (a
 * loan not indexed has no room and gets nothing), and every member told (NOTIFY, delivered on commit). What
 * postSystemMessage does for one message, for a timeline round's events. Returns the messages posted.
 */
export async function postLoanSystemMessages(
  db: Database,
  posts: readonly LoanSystemPost[],
  nowMs: number,
): Promise<ChatMessageView[]> {
  const unique = [...new Map(posts.map((p) => [`${p.loan}\u0000${p.systemKey}`, p] as const)).values()];
  if (unique.length === 0) return [];
  const rooms = unique.map((p) => getLoanRoomId(p.loan));
  return db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO chat_rooms (id, kind, loan, member_a, member_b, created_at)
       SELECT DISTINCT ON (f.id) f.id, 'loan', l.pubkey, l.borrower, l.lender, l.created_at
       FROM unnest($1::text[], $2::text[]) AS f(id, loan) JOIN loans l ON l.pubkey = f.loan
       ON CONFLICT (id) DO NOTHING`,
      [rooms, unique.map((p) => p.loan)],
    );
    const rows = await tx.query<MessageRow & { member_a: string; member_b: string }>(
      `WITH m AS (
         INSERT INTO chat_messages (room_id, sender, text, system_key, sent_at_ms)
         SELECT f.room, NULL, f.text, f.key, $4
         FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS f(room, text, key, n)
         JOIN chat_rooms c ON c.id = f.room ORDER BY f.n
         ON CONFLICT DO NOTHING RETURNING *
       ), r AS (
         UPDATE chat_rooms c SET last_message_id = x.id
         FROM (SELECT room_id, max(id) AS id FROM m GROUP BY room_id) x WHERE c.id = x.room_id
       )
       SELECT ${MESSAGE_COLUMNS}, c.member_a, c.member_b
       FROM m JOIN chat_rooms c ON c.id = m.room_id LEFT JOIN user_profiles p ON p.pubkey = m.sender
       ORDER BY m.id`,
      [rooms, unique.map((p) => p.text), unique.map((p) => p.systemKey), Math.floor(nowMs)],
    );
    const messages = rows.map(toMessage);
    if (rows.length > 0)
      await tx.query("SELECT pg_notify($1, e) FROM unnest($2::text[]) AS e", [
        CHAT_CHANNEL,
        rows.map((row, i) =>
          JSON.stringify({
            message: messages[i]!,
            members: [row.member_a, row.member_b],
          } satisfies ChatEvent),
        ),
      ]);
    return messages;
  });
}

/** Marks everything in the room read for `wallet`. */
export async function markRoomRead(db: Queryable, room: ChatRoomView, wallet: string): Promise<void> {
  await db.query(
    `INSERT INTO chat_reads (room_id, wallet, last_read_id)
     SELECT id, $2, last_message_id FROM chat_rooms WHERE id = $1
     ON CONFLICT (room_id, wallet) DO UPDATE SET last_read_id = GREATEST(chat_reads.last_read_id, EXCLUDED.last_read_id)`,
    [room.id, wallet],
  );
}

/** A chat user with the number of messages they sent. */
export interface ChatUserFigures {
  userId: string;
  username: string;
  messages: number;
}

/** The wallets that sent most messages. */
export async function getTopChatUsers(db: Queryable, limit: number): Promise<ChatUserFigures[]> {
  const rows = await db.query<{ sender: string; username: string | null; n: unknown }>(
    `SELECT m.sender, p.username, count(*) AS n FROM chat_messages m LEFT JOIN user_profiles p ON p.pubkey = m.sender
     WHERE m.sender IS NOT NULL GROUP BY m.sender, p.username ORDER BY n DESC, m.sender LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ userId: r.sender, username: r.username ?? "", messages: Number(r.n) }));
}

/** Chat users whose display name contains `query` (any case) or whose address starts with it. */
export async function searchChatUsers(db: Queryable, query: string, limit = 20): Promise<ChatUserFigures[]> {
  const needle = query.trim();
  if (needle === "") return [];
  const like = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db.query<{ sender: string; username: string | null; n: unknown }>(
    `SELECT m.sender, p.username, count(*) AS n FROM chat_messages m LEFT JOIN user_profiles p ON p.pubkey = m.sender
     WHERE m.sender IS NOT NULL AND (p.username ILIKE $1 OR m.sender LIKE $2)
     GROUP BY m.sender, p.username ORDER BY n DESC, m.sender LIMIT $3`,
    [like, `${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, limit],
  );
  return rows.map((r) => ({ userId: r.sender, username: r.username ?? "", messages: Number(r.n) }));
}
