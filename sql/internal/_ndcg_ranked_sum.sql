-- _ndcg_ranked_sum(ranked, m, ties, log_base): discounted gain of a ranking, cut at m (internal).
--   ranked    list of {r: rank key, g: gain} from _ndcg_ranking.
--   m         cut (NULL = whole list).
--   ties      'average': items with equal r share the mean gain of their whole tie group
--             (McSherry & Najork; scikit-learn), also when the group straddles the cut;
--             'key': the list order already breaks ties.
-- Lists without ties in the first m + 1 items take the direct sum.
CREATE OR REPLACE MACRO _ndcg_ranked_sum(ranked, m, ties, log_base) AS
CASE
    WHEN ties = 'key' OR NOT _ndcg_has_ties(ranked, m) THEN
        _ndcg_sum_discounted(list_transform(ranked, lambda x: x.g), m, log_base)
    ELSE coalesce(list_sum(list_transform(
        _ndcg_head(ranked, m),
        lambda x, p: list_avg(list_transform(list_filter(ranked, lambda y: y.r = x.r), lambda y: y.g))
                     / _ndcg_discount(p, log_base))), 0.0)::DOUBLE
END;
