-- _ndcg_gained_rows(rel, rnk, gain, ties): aggregate; {r: rnk, g: gain} of every returned row of a
-- group whose gain is not 0, in no particular order (ties = 'average' only; NULL otherwise). Most
-- grades are 0 in practice, so this list is short; DCG is summed over it (_ndcg_dcg_at), each row
-- placed by its key in the sorted rank keys (internal).
CREATE OR REPLACE MACRO _ndcg_gained_rows(rel, rnk, gain, ties) AS
list({r: rnk, g: _ndcg_gain_value(rel, gain)})
    FILTER (WHERE ties = 'average' AND rnk IS NOT NULL AND _ndcg_gain_value(rel, gain) <> 0);
