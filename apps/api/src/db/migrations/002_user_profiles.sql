-- User profiles set by POST /user/update (wallet-signed link message). Added by the write path (apps/api/src/tx).
CREATE TABLE user_profiles (
  pubkey TEXT PRIMARY KEY,
  username TEXT NOT NULL DEFAULT '',
  image TEXT NOT NULL DEFAULT '',
  updated_at BIGINT NOT NULL
);
