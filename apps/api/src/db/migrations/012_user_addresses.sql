-- Wallets a user linked to itself (POST /user/link-address): each linked wallet signed a message naming the user,
-- and so did the user. A wallet is linked to one user at most (the primary key), a user is never itself a linked
-- wallet, and a linked wallet has no links of its own; a link ends with POST /user/unlink-address.
CREATE TABLE user_addresses (
  address TEXT PRIMARY KEY,
  user_pubkey TEXT NOT NULL,
  linked_at BIGINT NOT NULL
);
CREATE INDEX user_addresses_user ON user_addresses (user_pubkey, linked_at);
