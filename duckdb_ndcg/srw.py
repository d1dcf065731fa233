"""OpenSearch Search Relevance Workbench's per-query metrics on a judged run:
``duckdb-ndcg trec --preset opensearch_srw -q -n``.

The workbench (opensearch-project/search-relevance, ``metrics/calculator/Evaluation.java``,
``JudgmentThresholdCalculator.java``, ``metrics/EvaluationMetrics.java``) scores each query of a
query set on the hits of a search of size k and the query's judgments:

- a hit is relevant when its grade is >= T and > 0, T = max(0.5 x the highest grade, the 90th
  percentile of the query's grades by nearest rank: the ceil(0.9 n)-th smallest), 0 when every
  grade is 0 (an unjudged hit is not relevant);
- ``Precision@k`` (``P.k``): relevant hits among the first k / min(k, hits), 0 without hits;
- ``MAP@k`` (``map_cut.k``): the sum of (relevant so far) / position over the relevant hits among
  the first k, / the judgments >= T and > 0; 0 when no relevant hit;
- ``Recall@k`` (``recall.k``): relevant hits among the first k / the judgments >= T and > 0;
- ``NDCG@k`` (``ndcg_cut.k``, graded, no threshold): DCG of 2^grade - 1 / log2(position + 1)
  over the first k hits / the same over every judgment sorted descending, cut at k; 0 when that
  is 0;
- each value rounded to 2 decimals (``Math.round(x * 100) / 100``, half up); no mean over
  queries.

Sums are added in the workbench's order (positions ascending; the ideal's grades descending).
"""

from __future__ import annotations

from duckdb_ndcg.macros import quoted
from duckdb_ndcg.measures import Measure

# trec_eval measure (its metric) -> the SRW value over one query: hits (grades in hit order, NULL
# unjudged), grades (the query's judgments, ascending), rel (the hits' relevance flags), n (hits),
# r (judgments >= T and > 0), {k} the cutoff
_VALUES = {
    "precision_at_k": "CASE WHEN least({k}, n) > 0 THEN "
                      "len(list_filter(rel[1:{k}], lambda h: h)) / least({k}, n) ELSE 0.0 END",
    "average_precision": "CASE WHEN len(list_filter(rel[1:{k}], lambda h: h)) > 0 THEN "
                         "list_sum(list_transform(rel[1:{k}], lambda h, i: CASE WHEN h THEN "
                         "len(list_filter(rel[1:i], lambda x: x)) / i ELSE 0.0 END)) / r "
                         "ELSE 0.0 END",
    "recall_at_k": "CASE WHEN r > 0 THEN len(list_filter(rel[1:{k}], lambda h: h)) / r "
                   "ELSE 0.0 END",
    "ndcg": "CASE WHEN {ideal} > 0 THEN {dcg} / {ideal} ELSE 0.0 END",
}
# the DCG of grades in order (NULL: unjudged, 0), as the workbench sums it: (2^g - 1) /
# (ln(i + 1) / ln(2)) at position i, one after the other
_DCG = ("coalesce(list_sum(list_transform({gs}, lambda g, i: CASE WHEN g IS NULL THEN 0.0 "
        "ELSE (pow(2.0, g) - 1.0) / (ln(i + 1.0) / ln(2.0)) END)), 0.0)")


def srw_measures(measures: list[Measure]) -> list[str]:
    """The trec_eval names of ``measures`` the workbench has no rule for (P.k, map_cut.k,
    recall.k and ndcg_cut.k it has)."""
    return [m.trec or m.name for m in measures
            if m.metric not in _VALUES or dict(m.options).get("k") is None or m.judged_only
            or (m.metric == "ndcg" and "gain" in dict(m.options))]


def srw_sql(measures: list[Measure], judged: str) -> tuple[str, list[object]]:
    """Columns ``query_id, m0, m1, ...``: each query's SRW values of ``measures`` over the judged
    run ``judged`` (query_id, item_id, rel, rnk: the hits' positions 1..n), and the parameters."""
    params: list[object] = []
    columns = []
    for i, measure in enumerate(measures):
        params.append(dict(measure.options)["k"])
        value = _VALUES[measure.metric].format(
            ideal=_DCG.format(gs="list_reverse(grades)[1:{k}]"), dcg=_DCG.format(gs="hits[1:{k}]"),
            k="{k}")
        value = value.replace("{k}", f"${len(params)}::BIGINT")
        columns.append(f"round(({value}) * 100.0::DOUBLE) / 100.0::DOUBLE AS m{i}")
    sql = f"""
SELECT query_id, {', '.join(columns)}
FROM (
    SELECT *, len(list_filter(grades, lambda g: g >= t AND g > 0)) AS r,
           list_transform(hits, lambda g: coalesce(g >= t AND g > 0, false)) AS rel
    FROM (
        SELECT *, CASE WHEN coalesce(grades[-1], 0) = 0 THEN 0.0
                       ELSE greatest(0.5 * grades[-1],
                                     grades[least(ceil(0.9::DOUBLE * len(grades))::BIGINT,
                                                  len(grades))])
                  END AS t
        FROM (
            SELECT query_id,
                   coalesce(list(TRY_CAST(rel AS DOUBLE) ORDER BY TRY_CAST(rel AS DOUBLE))
                            FILTER (WHERE rel IS NOT NULL), []::DOUBLE[]) AS grades,
                   coalesce(list(TRY_CAST(rel AS DOUBLE) ORDER BY rnk)
                            FILTER (WHERE rnk IS NOT NULL), []::DOUBLE[]) AS hits,
                   count(rnk) AS n
            FROM {quoted(judged)} GROUP BY query_id
        )
    )
)"""
    return sql, params

