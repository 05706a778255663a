-- The account layout a pool is at on chain (2 current; 1 until Migrate after the program's 1.8 upgrade), written
-- by the indexer, so its owner is offered the upgrade. NULL until the indexer reads the pool again (the pool views
-- are written anew when the API opens the database, and the list shows NULL as the current layout).
ALTER TABLE pools ADD COLUMN layout_version INTEGER;
UPDATE pools SET view_json = NULL;
