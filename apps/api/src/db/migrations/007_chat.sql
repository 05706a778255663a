-- Loan chat. A room is a loan's (its borrower and its pool's owner) or two wallets' direct messages; the two
-- members are the only readers and writers. Messages are plain text; a system message (sender NULL) records a
-- loan event, once per (room, system_key). Every API process writes here and fans out through NOTIFY chat_events.
CREATE TABLE chat_rooms (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  loan TEXT,
  member_a TEXT NOT NULL,
  member_b TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_message_id BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX chat_rooms_member_a_idx ON chat_rooms (member_a, last_message_id DESC);
CREATE INDEX chat_rooms_member_b_idx ON chat_rooms (member_b, last_message_id DESC);

CREATE TABLE chat_messages (
  id BIGSERIAL PRIMARY KEY,
  room_id TEXT NOT NULL REFERENCES chat_rooms (id),
  sender TEXT,
  text TEXT NOT NULL,
  system_key TEXT,
  sent_at_ms BIGINT NOT NULL
);
CREATE INDEX chat_messages_room_idx ON chat_messages (room_id, id DESC);
CREATE INDEX chat_messages_sender_idx ON chat_messages (sender, sent_at_ms) WHERE sender IS NOT NULL;
CREATE UNIQUE INDEX chat_messages_system_key_idx ON chat_messages (room_id, system_key) WHERE system_key IS NOT NULL;

-- What each member last read in a room (unread = later messages from others).
CREATE TABLE chat_reads (
  room_id TEXT NOT NULL REFERENCES chat_rooms (id),
  wallet TEXT NOT NULL,
  last_read_id BIGINT NOT NULL,
  PRIMARY KEY (room_id, wallet)
);

-- Chat sign-ins: a login message (signed_messages, purpose chat-login) is consumed once; the session it opens
-- accepts the same credential {message, signature, userId} until expires_at.
CREATE TABLE chat_sessions (
  nonce TEXT PRIMARY KEY,
  wallet TEXT NOT NULL,
  signature TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);

-- How far the timeline has turned loan_activity rows into system messages.
CREATE TABLE chat_timeline_cursor (
  id INTEGER PRIMARY KEY,
  last_activity_id BIGINT NOT NULL
);
