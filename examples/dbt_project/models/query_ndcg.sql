-- NDCG@5 and NDCG@10 of every query, judged by the events with the grades of seed event_grades.
-- ndcg_report takes table names as strings: ref() renders a quoted, qualified name it can read.
SELECT ranker, query_id, k, ndcg, dcg, idcg, shown, shown_relevant, relevant
FROM ndcg_report(
    '{{ ref("search_rankings") }}', '{{ ref("search_events") }}',
    k := [5, 10],
    slice_by := ['ranker'],
    mapping := (SELECT map(list(event_type), list(grade)) FROM {{ ref('event_grades') }})
)
