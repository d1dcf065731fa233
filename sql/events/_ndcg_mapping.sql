-- _ndcg_mapping(mapping) -> MAP(VARCHAR, DOUBLE)
-- The mapping argument as a MAP from event type to grade (internal): a MAP as given (its values
-- as DOUBLE), a STRUCT literal ({'click': 1}, a common slip for MAP {'click': 1}) and a MAP's
-- text form ('{click=1, purchase=3}', the form gain accepts) as that MAP; NULL stays NULL (the
-- default grades). Anything else is one error naming the form. A grade text that is no number
-- ('{click=x}') becomes NULL, which event_relevance refuses.
CREATE OR REPLACE MACRO _ndcg_mapping(mapping) AS
CASE WHEN mapping IS NULL THEN NULL::MAP(VARCHAR, DOUBLE)
     ELSE coalesce(TRY_CAST(mapping AS MAP(VARCHAR, DOUBLE)),
                   error('duckdb_ndcg: mapping must be a MAP from event type to grade, e.g. '
                         || 'MAP {''click'': 1, ''purchase'': 3}, got ' || mapping::VARCHAR)) END;
