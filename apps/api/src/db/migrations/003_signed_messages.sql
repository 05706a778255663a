-- Messages the API issued for a wallet to sign (link message, chat login): one row per nonce, accepted once
-- before it expires. Shared by every API process over the same database.
CREATE TABLE signed_messages (
  nonce TEXT PRIMARY KEY,
  wallet TEXT NOT NULL,
  purpose TEXT NOT NULL,
  message TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);
CREATE INDEX signed_messages_expires_at ON signed_messages (expires_at);

-- Transaction messages the builder issued (SHA-256 of the message bytes), kept until their blockhash expires:
-- the sender co-signs only these, once, in whichever API process the wallet sends them to.
CREATE TABLE issued_transactions (
  hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  needs_oracle BOOLEAN NOT NULL,
  last_valid_block_height BIGINT NOT NULL,
  cosigned_at BIGINT
);
CREATE INDEX issued_transactions_height ON issued_transactions (last_valid_block_height);
