-- _ndcg_report_cuts(k): the cutoffs of a report as a BIGINT[] (internal). k is one cutoff or a
-- list of them; NULL (alone or in the list) means no cutoff. Each is checked by _ndcg_checked_k.
CREATE OR REPLACE MACRO _ndcg_report_cuts(k) AS
CASE
    WHEN k IS NULL THEN [NULL::BIGINT]
    ELSE list_transform(('[' || trim(k::VARCHAR, '[]') || ']')::VARCHAR[],
                        lambda x: _ndcg_checked_k(CASE WHEN upper(trim(x)) = 'NULL' THEN NULL
                                                       ELSE x::DOUBLE END))
END;
