-- Loan requests (the lending program's Request accounts): a borrower's terms with the collateral escrowed, until a
-- lender fills it (then `loan` names the loan) or the borrower cancels. Written by the indexer from the chain.
CREATE TABLE loan_requests (
  pubkey TEXT PRIMARY KEY,
  borrower TEXT NOT NULL,
  currency TEXT NOT NULL,
  collateral_mint TEXT NOT NULL,
  collection TEXT NOT NULL,
  is_defi BOOLEAN NOT NULL,
  collateral_amount NUMERIC(20,0) NOT NULL,
  principal NUMERIC(20,0) NOT NULL,
  duration BIGINT NOT NULL,
  max_apr_bps INTEGER NOT NULL,
  status TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  closed_at BIGINT NOT NULL,
  loan TEXT,
  slot BIGINT NOT NULL
);
CREATE INDEX loan_requests_status_created_idx ON loan_requests (status, created_at DESC, pubkey);
CREATE INDEX loan_requests_borrower_idx ON loan_requests (borrower, created_at DESC);
CREATE INDEX loan_requests_collection_idx ON loan_requests (collection, status);
