-- _ndcg_ndcg(rel, rnk, k, gain, ties, tie_key, log_base, empty_ideal, clamp_k,
--             full_ideal, negative):
-- the engine of ndcg (internal), fed by ndcg with grades and rank keys already checked to be
-- numbers (_ndcg_type_error) and read as DOUBLE; the parameters are ndcg's, see ndcg.sql.
CREATE OR REPLACE MACRO _ndcg_ndcg(rel, rnk, k, gain, ties, tie_key, log_base, empty_ideal, clamp_k,
                                   full_ideal, negative) AS
coalesce(
    _ndcg_dcg(rel, rnk, k, gain, ties, tie_key, 'log', log_base, negative)
    / nullif(_ndcg_weighted_list(
        -- with averaged ties the ranking holds every non-zero gain (judged rows it did not return
        -- too): their sorted gains are the ideal ranking, with no aggregate of its own
        CASE WHEN ties = 'average' AND NOT _ndcg_is_map(gain)
             THEN list_reverse_sort(list_transform(
                 _ndcg_valued_rows(_ndcg_gain_value(rel, gain), rnk, ties), lambda x: x.g))
             ELSE _ndcg_ideal_gains(rel, _ndcg_read_depth(k), gain)
        END,
        _ndcg_ideal_cut(_ndcg_checked_k(k), count(rnk), clamp_k, full_ideal), 'log', log_base), 0),
    empty_ideal);
