-- The binary family as aggregates: precision, recall, F1, hit rate, reciprocal rank, average
-- precision, R-precision, bpref, Judged@k.

-- precision_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL) -> DOUBLE
--   [aggregate]
-- Precision@k (named precision_at_k because PRECISION is an SQL keyword): relevant rows
-- (rel >= threshold) among the first k returned, divided by k
-- (trec_eval P_k: the denominator stays k when fewer rows were returned); k NULL divides by the
-- number of returned rows. With ties = 'average' a tie group straddling k counts its mean.
-- Example: SELECT query_id, precision_at_k(rel, rnk, 3) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO precision_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                  tie_key := NULL) AS
coalesce(_ndcg_ranked_count(_ndcg_relevant(rel, threshold), rnk, k, ties, tie_key)
         / nullif(coalesce(_ndcg_checked_k(k), count(rnk)), 0), 0.0);

-- recall_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--             denominator := 'relevant', empty_ideal := 0.0) -> DOUBLE  [aggregate]
-- Recall@k: relevant rows (rel >= threshold) among the first k returned, divided by the
-- denominator. With ties = 'average' a tie group straddling k counts its expected share.
--   denominator  'relevant': all relevant judged rows of the group, returned or not (trec_eval
--                recall_k); 'min_k': least(relevant, k), so that a perfect top k scores 1 when
--                there are more relevant rows than k.
--   empty_ideal  result when the group has no relevant judged row (0.0; NULL skips it in avg()).
-- Example: SELECT query_id, recall_at_k(rel, rnk, 10) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO recall_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                               tie_key := NULL, denominator := 'relevant', empty_ideal := 0.0) AS
_ndcg_empty(
    coalesce(_ndcg_ranked_count(_ndcg_relevant(rel, threshold), rnk, k, ties, tie_key)
             / nullif(_ndcg_denominator(denominator, ['relevant', 'min_k'],
                                        sum(_ndcg_relevant(rel, threshold)), _ndcg_checked_k(k),
                                        NULL), 0), 0.0),
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);

-- f1_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--         empty_ideal := 0.0) -> DOUBLE  [aggregate]
-- F1@k: the harmonic mean of precision_at_k and recall_at_k, 2 P R / (P + R), which is
-- 2 hits / (k + relevant) for hits relevant rows (rel >= threshold) among the first k returned
-- and relevant judged rows in all (ranx f1). Precision divides by k even when fewer rows were
-- returned, as precision_at_k (trec_eval P_k; ranx divides by the rows returned then); k NULL:
-- by the returned rows. With ties = 'average' a tie group straddling k counts its expected hits,
-- and F1 is linear in them, so the value is the exact expectation over tied orders.
--   empty_ideal  result when the group has no relevant judged row (0.0; NULL skips it in avg()).
-- Example: SELECT query_id, f1_at_k(rel, rnk, 10) FROM judged_run GROUP BY query_id;
CREATE OR REPLACE MACRO f1_at_k(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                tie_key := NULL, empty_ideal := 0.0) AS
_ndcg_empty(
    coalesce(2.0 * _ndcg_ranked_count(_ndcg_relevant(rel, threshold), rnk, k, ties, tie_key)
             / nullif(coalesce(_ndcg_checked_k(k), count(rnk)) + sum(_ndcg_relevant(rel, threshold)),
                      0), 0.0),
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);

-- hit_rate(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--   empty_ideal := 0.0) -> DOUBLE
--   [aggregate]
-- Hit rate@k: 1.0 when a relevant row (rel >= threshold) is among the first k returned, else 0.0
-- (trec_eval success.k). Averaged over queries it is the hit rate.
--   ties  'average': the expected value over every order of tied rows (each tie group in a
--         uniformly random order): a tie group straddling k with c of its n rows relevant and w of
--         its positions before the cut hits with probability 1 - C(n - c, w) / C(n, w)
--         (hypergeometric); 'key': equal rnk broken by tie_key descending (trec_eval).
--   empty_ideal  result when the group has no relevant judged row (0.0; NULL skips it in avg()).
-- Example: SELECT avg(hit) FROM (SELECT hit_rate(rel, rnk, 10) AS hit FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO hit_rate(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                 tie_key := NULL, empty_ideal := 0.0) AS
_ndcg_empty(
    CASE
        WHEN ties = 'key' THEN
            CASE WHEN list_contains((_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)).in_order, 1)
                 THEN 1.0::DOUBLE ELSE 0.0::DOUBLE END
        ELSE
            list_transform([_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)],
                           lambda r: _ndcg_expected_hit(r.groups, r.m))[1]
    END,
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);

-- reciprocal_rank(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--   empty_ideal := 0.0) -> DOUBLE  [aggregate]
-- 1 / position of the first relevant row (rel >= threshold) among the first k returned, 0.0 when
-- there is none (trec_eval recip_rank). Averaged over queries it is MRR.
--   ties  'average': the expected value over every order of tied rows (each tie group in a
--         uniformly random order): the first relevant row lies in the first tie group holding one
--         (start s, n rows, c relevant), at s + i with probability C(n - 1 - i, c - 1) / C(n, c);
--         'key': equal rnk broken by tie_key descending (trec_eval).
--   empty_ideal  result when the group has no relevant judged row (0.0; NULL skips it in avg()).
-- Example: SELECT avg(rr) AS mrr FROM (SELECT reciprocal_rank(rel, rnk) AS rr FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO reciprocal_rank(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                        tie_key := NULL, empty_ideal := 0.0) AS
_ndcg_empty(
    CASE
        WHEN ties = 'key' THEN
            coalesce(1.0 / list_position(
                (_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)).in_order, 1),
                0.0)
        ELSE
            list_transform([_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)],
                           lambda r: _ndcg_expected_rr(r.groups, r.m))[1]
    END,
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);

-- average_precision(rel, rnk, k := NULL, threshold := 1, ties := 'average', tie_key := NULL,
--                   denominator := 'relevant', empty_ideal := 0.0) -> DOUBLE  [aggregate]
-- Average precision@k: the sum of precision@p over the positions p <= k of relevant returned rows
-- (rel >= threshold), divided by the denominator. Averaged over queries it is MAP.
--   denominator  'relevant': all relevant judged rows, returned or not (trec_eval map,
--                map_cut.k; ranx map@k); 'min_k': least(relevant, k) (Spark
--                meanAveragePrecisionAt, RecBole, Microsoft Recommenders); 'retrieved': the
--                relevant rows among the first k (Hivemall). 0.0 when nothing relevant is returned.
--   empty_ideal  result when the group has no relevant judged row (0.0: trec_eval; 1.0: XGBoost;
--                NULL makes avg() skip the query).
--   ties  'average': the expected value over every order of tied rows (each tie group in a
--         uniformly random order). By linearity, a relevant row of a tie group (start s, n rows,
--         c relevant, a relevant rows before it) at position q = s + u has expected precision
--         (1 + a + u (c - 1) / (n - 1)) / q, and u is uniform over 0..n-1: the group adds
--         c / n * sum_{q = s .. min(s + n - 1, k)} (1 + a + (q - s) (c - 1) / (n - 1)) / q.
--         With denominator 'retrieved' the count divided by is random when a tie group straddles
--         k holding relevant and other rows: the result is then E[sum / retrieved] (an order that
--         retrieves no relevant row counting 0.0, as without ties), summed over the hypergeometric
--         number of the group's relevant rows before the cut, each with the expected sum given
--         it: O(k) more work (_ndcg_expected_ap_retrieved).
--         'key': equal rnk broken by tie_key descending (trec_eval).
-- Example: SELECT avg(ap) AS map FROM (SELECT average_precision(rel, rnk) AS ap FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO average_precision(rel, rnk, k := NULL, threshold := 1, ties := 'average',
                                          tie_key := NULL, denominator := 'relevant',
                                          empty_ideal := 0.0) AS
list_transform(
    [CASE
        WHEN ties = 'key' THEN
            list_transform(
                [(_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)).in_order],
                lambda h: {sum: list_sum(list_transform(
                               list_filter(list_transform(h, lambda hit, p: CASE WHEN hit = 1 THEN p END),
                                           lambda p: p IS NOT NULL),
                               lambda p, j: j / p)),
                           hits: list_count(list_filter(h, lambda hit: hit = 1))::DOUBLE,
                           retrieved: NULL::DOUBLE})[1]
        ELSE
            list_transform([_ndcg_relevant_ranking(rel, rnk, k, threshold, ties, tie_key)],
                lambda r: {sum: _ndcg_expected_ap_sum(r.groups, r.m),
                           hits: _ndcg_expected_hits(r.groups, r.m),
                           -- the count divided by is random when the group straddling the cut
                           -- holds relevant and other rows
                           retrieved: CASE WHEN denominator = 'retrieved'
                                            AND coalesce(list_bool_or(list_transform(r.groups,
                                                lambda g: g.marked > 0 AND g.marked < g.size
                                                          AND g.start + g.size - 1 > r.m)), false)
                                      THEN _ndcg_expected_ap_retrieved(r.groups, r.m) END})[1]
    END],
    lambda a: _ndcg_empty(
        coalesce(a.retrieved,
                 coalesce(a.sum / nullif(_ndcg_denominator(
                     denominator, ['relevant', 'min_k', 'retrieved'],
                     sum(_ndcg_relevant(rel, threshold)), _ndcg_checked_k(k), a.hits), 0), 0.0)),
        sum(_ndcg_relevant(rel, threshold)), empty_ideal))[1];

-- r_precision(rel, rnk, threshold := 1, ties := 'average', tie_key := NULL, empty_ideal := 0.0)
--   -> DOUBLE  [aggregate]
-- R-precision: the relevant rows (rel >= threshold) among the first R returned, divided by R, the
-- number of relevant judged rows of the group, returned or not (trec_eval Rprec, ranx
-- r_precision). Reads whole rankings (R is known only at the end).
--   ties         'average': a tie group straddling position R counts its expected share of
--                relevant rows (exact, like precision_at_k); 'key': tie_key descending.
--   empty_ideal  result when R = 0 (0.0, as trec_eval; NULL skips the query in avg()).
-- Example: SELECT avg(rp) FROM (SELECT r_precision(rel, rnk) AS rp FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO r_precision(rel, rnk, threshold := 1, ties := 'average', tie_key := NULL,
                                    empty_ideal := 0.0) AS
_ndcg_empty(
    CASE
        WHEN ties = 'key' THEN
            -- coalesce: a query that returned no row has no list, and no hit
            coalesce(list_count(list_filter(
                list_slice(
                    (_ndcg_relevant_ranking(rel, rnk, NULL, threshold, ties, tie_key)).in_order,
                    1, sum(_ndcg_relevant(rel, threshold))),
                lambda hit: hit = 1)), 0)::DOUBLE
        ELSE
            list_transform([_ndcg_relevant_ranking(rel, rnk, NULL, threshold, ties, tie_key)],
                           lambda r: _ndcg_expected_hits(r.groups,
                                                         sum(_ndcg_relevant(rel, threshold))))[1]
    END / sum(_ndcg_relevant(rel, threshold)),
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);

-- bpref(rel, rnk, threshold := 1, ties := 'average', tie_key := NULL, empty_ideal := 0.0)
--   -> DOUBLE  [aggregate]
-- bpref (Buckley & Voorhees): for each relevant returned row (rel >= threshold),
-- 1 - min(y, R) / min(N, R) with y the judged non-relevant rows (rel < threshold) ranked above
-- it, summed and divided by R; R and N count the relevant and judged non-relevant rows of the
-- group, returned or not; unjudged rows (rel NULL) are skipped (trec_eval bpref, ranx bpref).
-- Whole rankings, no cutoff.
--   ties         'average': a relevant row's place among the non-relevant rows of its tie group
--                is uniform, which gives the exact expectation over tied orders; 'key': tie_key
--                descending (trec_eval).
--   empty_ideal  result when R = 0 (0.0; NULL skips the query in avg()).
-- Example: SELECT avg(b) FROM (SELECT bpref(rel, rnk) AS b FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO bpref(rel, rnk, threshold := 1, ties := 'average', tie_key := NULL,
                              empty_ideal := 0.0) AS
_ndcg_empty(
    CASE
        WHEN ties = 'key' THEN
            list_transform(
                [{rel: (_ndcg_relevant_ranking(rel, rnk, NULL, threshold, ties, tie_key)).in_order,
                  non: (_ndcg_relevant_ranking(
                           CASE WHEN rel IS NOT NULL AND _ndcg_relevant(rel, threshold) = 0
                                THEN 1 ELSE 0 END, rnk, NULL, 1, ties, tie_key)).in_order}],
                -- one tie group per position: the groups' counts come from the same merge
                lambda h: _ndcg_bpref_sum(
                    _ndcg_tie_groups({
                        m: len(h.rel), keys: range(1, len(h.rel) + 1), straddle: NULL,
                        rows: list_transform(list_filter(range(1, len(h.rel) + 1),
                                                         lambda i: h.rel[i] = 1),
                                             lambda i: {r: i, g: 1.0})}),
                    _ndcg_tie_groups({
                        m: len(h.rel), keys: range(1, len(h.rel) + 1), straddle: NULL,
                        rows: list_transform(list_filter(range(1, len(h.rel) + 1),
                                                         lambda i: h.non[i] = 1),
                                             lambda i: {r: i, g: 1.0})}),
                    sum(_ndcg_relevant(rel, threshold)),
                    count(rel) FILTER (WHERE _ndcg_relevant(rel, threshold) = 0)))[1]
        ELSE
            list_transform(
                [{rel: _ndcg_relevant_ranking(rel, rnk, NULL, threshold, ties, tie_key),
                  non: _ndcg_relevant_ranking(
                           CASE WHEN rel IS NOT NULL AND _ndcg_relevant(rel, threshold) = 0
                                THEN 1 ELSE 0 END, rnk, NULL, 1, ties, tie_key)}],
                lambda r: _ndcg_bpref_sum(
                    r.rel.groups, r.non.groups, sum(_ndcg_relevant(rel, threshold)),
                    count(rel) FILTER (WHERE _ndcg_relevant(rel, threshold) = 0)))[1]
    END / sum(_ndcg_relevant(rel, threshold)),
    sum(_ndcg_relevant(rel, threshold)), empty_ideal);

-- judged_at_k(rel, rnk, k := NULL, ties := 'average', tie_key := NULL) -> DOUBLE  [aggregate]
-- Judged@k: the share of the first k returned rows that are judged (rel NOT NULL), divided by
-- the rows there are, least(k, returned) (ir_measures Judged@k); k NULL: every returned row. 0.0
-- when nothing was returned. With ties = 'average' a tie group straddling k counts its expected
-- share of judged rows; 'key': tie_key descending.
-- Example: SELECT avg(j) FROM (SELECT judged_at_k(rel, rnk, 10) AS j FROM judged_run GROUP BY query_id);
CREATE OR REPLACE MACRO judged_at_k(rel, rnk, k := NULL, ties := 'average', tie_key := NULL) AS
coalesce(_ndcg_ranked_count(CASE WHEN rel IS NULL THEN 0 ELSE 1 END, rnk, k, ties, tie_key)
         / nullif(least(_ndcg_checked_k(k), count(rnk)), 0), 0.0);
