-- _ndcg_tie_grades(rel, rnk, depth, gain, ties): aggregate; {r: rnk, g: rel} of every returned row
-- of a group whose gain can be non-zero, from which the gain sum of a tie group that straddles
-- position depth is read (ties = 'average' with a depth only; NULL otherwise) (internal).
CREATE OR REPLACE MACRO _ndcg_tie_grades(rel, rnk, depth, gain, ties) AS
list({r: rnk, g: rel})
    FILTER (WHERE depth IS NOT NULL AND ties = 'average'
                  AND (rel > 0 OR (_ndcg_is_map(gain) AND rel >= 0)));
