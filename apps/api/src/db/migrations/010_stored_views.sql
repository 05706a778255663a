-- /dirty/pools answers from what the indexer keeps ready, so a list read after a write costs one index walk and
-- no per-row work in the API process:
-- * view_json: each pool's and each bank's whole API view as JSON text, rewritten by every write of the row, of a
--   pool's bank and of a pool's name (src/pools/stored-views.ts). NULL until written; the API fills any NULL
--   when it opens the database (rows from before this migration).
-- * pool_counts: how many pools there are per currency, type and status, kept by a trigger on every pools
--   write, so totalCount is a sum over a few rows instead of a count over every live pool.
ALTER TABLE pools ADD COLUMN view_json TEXT;
ALTER TABLE banks ADD COLUMN view_json TEXT;

CREATE TABLE pool_counts (
  currency TEXT NOT NULL,
  pool_type TEXT NOT NULL,
  status TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (currency, pool_type, status)
);
INSERT INTO pool_counts (currency, pool_type, status, n)
  SELECT currency, pool_type, status, count(*) FROM pools GROUP BY currency, pool_type, status;

CREATE FUNCTION pool_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE pool_counts SET n = n - 1
      WHERE currency = OLD.currency AND pool_type = OLD.pool_type AND status = OLD.status;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO pool_counts (currency, pool_type, status, n) VALUES (NEW.currency, NEW.pool_type, NEW.status, 1)
      ON CONFLICT (currency, pool_type, status) DO UPDATE SET n = pool_counts.n + 1;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER pool_counts_on_insert_delete AFTER INSERT OR DELETE ON pools
  FOR EACH ROW EXECUTE FUNCTION pool_counts_follow();
CREATE TRIGGER pool_counts_on_update AFTER UPDATE OF currency, pool_type, status ON pools
  FOR EACH ROW WHEN (OLD.currency IS DISTINCT FROM NEW.currency OR OLD.pool_type IS DISTINCT FROM NEW.pool_type
    OR OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION pool_counts_follow();
