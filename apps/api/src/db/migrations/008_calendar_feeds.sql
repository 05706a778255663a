-- Per-wallet calendar feeds (.ics of the wallet's loans' due dates and grace ends): one unguessable token per
-- wallet, issued after the wallet signed the calendar message; issuing a new one revokes the old.
CREATE TABLE calendar_feeds (
  wallet TEXT PRIMARY KEY,
  token TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL
);
