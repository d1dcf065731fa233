-- _ndcg_ideal_error(rels, ideal, gain, negative): NULL when the ideal covers the ranking, else an
-- error naming ideal (internal; list_ndcg). Covers: best first, each positive gain of rels is at
-- most ideal's at the same place. Every judged grade of the query includes the ranking's, so a
-- true ideal covers it; covering keeps IDCG >= DCG at every cut. A NULL rels or ideal passes.
-- 'linear' and 'exponential' grow with the grade, so grades are compared (a gain per element
-- inside a lambda is not folded: it doubled the check's cost); a gain map's gains are compared.
-- The error branch holds no lambda (one there cost every row). Two sorts: O(n log n).
-- Example: _ndcg_ideal_error([3, 2, 1], [1], 'linear', 'error') raises.
CREATE OR REPLACE MACRO _ndcg_ideal_error(rels, ideal, gain, negative) AS
CASE
    WHEN NOT coalesce(list_bool_and(list_transform(CASE
             WHEN _ndcg_is_map(gain) THEN list_zip(
                 list_reverse_sort(list_transform(rels, lambda r: _ndcg_gain(r, gain, negative))),
                 list_reverse_sort(list_transform(ideal, lambda r: _ndcg_gain(r, gain, negative))))
             ELSE list_zip(list_reverse_sort(rels, 'NULLS LAST'), list_reverse_sort(ideal, 'NULLS LAST'))
         END,
         -- past the end of ideal (or at its NULLs) p[2] is NULL: gain 0; at rels' NULLs or past its
         -- end p[1] is NULL and bool_and skips the pair; a grade <= 0 gains 0 (or is an error)
         lambda p: p[1] <= 0 OR p[1] <= coalesce(p[2], 0))), true) THEN
        error('duckdb_ndcg: ideal must hold every judged grade of rels (it is every judged grade '
              || 'of the query; best first, each of its gains at least the ranking''s at the same '
              || 'place), got rels ' || rels::VARCHAR || ', ideal ' || ideal::VARCHAR)
END;
