-- _ndcg_bpref_sum(rel_groups, non_groups, relevant, nonrelevant): bpref before its division by
-- relevant (internal). rel_groups and non_groups are the same tie groups (_ndcg_tie_groups over
-- the same keys) marking the relevant and the judged non-relevant rows. A relevant row with y
-- judged non-relevant rows above it adds 1 - min(y, R) / min(N, R) (1 when y = 0; trec_eval
-- bpref). In a tie group with d non-relevant rows, a relevant row's place among them is uniform
-- whatever the order of the group, so y = a + x with x uniform over 0..d (a: non-relevant rows
-- in earlier groups); the group adds c times the mean over x: the exact expectation over tied
-- orders, O(d) per group.
CREATE OR REPLACE MACRO _ndcg_bpref_sum(rel_groups, non_groups, relevant, nonrelevant) AS
-- both lists bound once: as macro arguments they may be whole expressions
list_transform([{rel: rel_groups, non: non_groups}], lambda gs:
    coalesce(list_sum(list_transform(gs.rel, lambda g, j: CASE WHEN g.c > 0 THEN
        g.c * list_avg(list_transform(range(0, gs.non[j].c + 1), lambda x: CASE
            WHEN gs.non[j].a + x = 0 THEN 1.0::DOUBLE
            ELSE 1.0 - least(gs.non[j].a + x, relevant)::DOUBLE / least(nonrelevant, relevant)
        END))
    END)), 0.0::DOUBLE))[1];
