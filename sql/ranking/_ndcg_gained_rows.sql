-- _ndcg_gained_rows(rel, rnk, gain, ties): aggregate; {r: rnk, g: gain} of every row of a group
-- whose gain is not 0, in no particular order (ties = 'average' only; NULL otherwise); r is NULL
-- for a judged row the ranker did not return. Most grades are 0 in practice, so this list is
-- short: DCG is summed over its returned rows, each placed by its key in the sorted rank keys
-- (_ndcg_dcg_at), and the ideal ranking is its gains sorted (ndcg) (internal).
CREATE OR REPLACE MACRO _ndcg_gained_rows(rel, rnk, gain, ties) AS
list({r: rnk, g: _ndcg_gain_value(rel, gain)})
    FILTER (WHERE ties = 'average' AND _ndcg_has_gain(rel, gain));
