-- _ndcg_is_map(gain): whether a gain argument is a MAP from grade to gain (a MAP value or its text
-- form '{0=0, 1=1, 2=3}') rather than 'linear' or 'exponential' (internal).
CREATE OR REPLACE MACRO _ndcg_is_map(gain) AS
TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)) IS NOT NULL;
