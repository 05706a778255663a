-- A margin position's down payment (MarginSwapLoan), read by the indexer from the opening transaction's
-- "margin" program data; the spec's Loan.kind carries it ({ marginSwapLoan: { downPayment } }).
ALTER TABLE loans ADD COLUMN down_payment NUMERIC(20, 0);
