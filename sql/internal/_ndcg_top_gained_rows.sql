-- _ndcg_top_gained_rows(rel, rnk, depth, gain, ties): aggregate; like _ndcg_gained_rows, but only
-- the first depth rows with a non-zero gain (all when depth is NULL), read with top-N aggregates so
-- that memory stays bounded by depth. They hold every gained row before any cut <= depth, and
-- every gained row at the cut unless its tie group straddles the cut, whose gain sum a second
-- pass supplies (ndcg_report). Equal keys may pair with each other's gains: a row's contribution
-- depends only on its key and gain (internal).
CREATE OR REPLACE MACRO _ndcg_top_gained_rows(rel, rnk, depth, gain, ties) AS
CASE
    WHEN depth IS NULL THEN _ndcg_gained_rows(rel, rnk, gain, ties)
    -- [x] with lambda t binds the aggregates outside the lambda body, where the branch folds
    ELSE list_transform(
        [{r: min(rnk, _ndcg_top_n(depth))
                 FILTER (WHERE depth IS NOT NULL AND ties = 'average'
                               AND _ndcg_has_gain(rel, gain)),
          g: min_by(_ndcg_gain_value(rel, gain), rnk, _ndcg_top_n(depth))
                 FILTER (WHERE depth IS NOT NULL AND ties = 'average'
                               AND _ndcg_has_gain(rel, gain))}],
        lambda t: list_transform(t.r, lambda x, i: {r: x, g: t.g[i]}))[1]
END;
