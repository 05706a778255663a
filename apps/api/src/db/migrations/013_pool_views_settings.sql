-- The pool view no longer shows isCompoundingEnabled and conditions.liquidationThreshold (the lending program has
-- neither setting): the stored views are written anew when the API opens the database (fillMissingViews).
UPDATE pools SET view_json = NULL;
