-- _ndcg_ndcg(rel, rnk, k, gain, ties, tie_key, log_base, empty_ideal, clamp_k,
--             full_ideal, negative):
-- the engine of ndcg (internal), fed by ndcg with grades and rank keys already checked to be
-- numbers (_ndcg_type_error) and read as DOUBLE; the parameters are ndcg's, see ndcg.sql.
CREATE OR REPLACE MACRO _ndcg_ndcg(rel, rnk, k, gain, ties, tie_key, log_base, empty_ideal, clamp_k,
                                   full_ideal, negative) AS
coalesce(
    _ndcg_dcg(rel, rnk, k, gain, ties, tie_key, log_base, negative)
    / nullif(_ndcg_sum_discounted(
        -- with averaged ties, dcg already holds every non-zero gain (judged rows it did not
        -- return too): their sorted gains are the ideal ranking, with no aggregate of its own
        CASE WHEN ties = 'average' AND NOT _ndcg_is_map(gain)
             THEN list_reverse_sort(list_transform(_ndcg_gained_rows(rel, rnk, gain, ties),
                                                   lambda x: x.g))
             ELSE _ndcg_ideal_gains(rel, _ndcg_read_depth(k), gain)
        END,
        _ndcg_ideal_cut(_ndcg_checked_k(k), count(rnk), clamp_k, full_ideal), log_base), 0),
    empty_ideal);
