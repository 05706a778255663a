-- The sale that closed a Sold loan (MarketSell), read by the indexer from the transaction's program data:
-- loans.sold_amount is the proceeds; these are its slot and signature (the spec's Loan.sale).
ALTER TABLE loans ADD COLUMN sale_slot BIGINT;
ALTER TABLE loans ADD COLUMN sale_signature TEXT;
