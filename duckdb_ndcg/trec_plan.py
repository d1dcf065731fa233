"""trec_eval's usual measures in a plan DuckDB can spill: ``duckdb-ndcg trec`` on runs larger
than memory.

The aggregates of :func:`duckdb_ndcg.measures.measures_sql` hold each query's whole ranking as
lists, one per measure (``-m official``: 25 of them), in one hash aggregate DuckDB cannot spill.
Here every returned row gets its position and running counts from one window over the rows
sorted by query and trec_eval's order (score descending, then document id descending: the
judged table's ``rnk``, item descending on equal ``rnk``), each query its counts R (relevant) and
N (judged non-relevant) from a hash aggregate, joined back; every measure is then a
fixed-size aggregate over those rows:

- ``P@k`` (P_k): relevant rows at positions <= k, / k; ``R@k`` (recall_k): / R;
- ``Rprec``: relevant rows at positions <= R, / R; ``RR`` (recip_rank): 1 / the first relevant
  position;
- ``iprec_at_recall``: the largest j / p over the relevant rows, the j-th at position p, from
  the c-th on (c the recall level as a count of R, rounded as trec_eval 10 or 9);
- the counts (num_q, num_ret, num_rel, num_rel_ret).

AP (map, map_cut) and bpref are sums over the relevant returned rows; a hash aggregate adds
them in any order, which can change the last bit and, on a rounding boundary, the 4th decimal.
So they are the one list state left: each query's relevant returned rows' terms (not its whole
ranking), sorted by position and added one after the other as trec_eval adds them. Each value
is the same double as the aggregates' (tests/core/test_trec_plan.py compares every line).
A measure this plan does not cover (ndcg, bpref with -J, ...) leaves the whole set to
``measures_sql``.
"""

from __future__ import annotations

from duckdb_ndcg.macros import quoted
from duckdb_ndcg.measures import Measure

# metric -> the aggregate over the annotated rows (h relevant, p position, j relevant rows up
# to p, R, N per query; the sorted terms {p, ap, bpref} of the relevant rows as _terms), with
# {k} a cutoff and {c} the recall level's count, bound
_AGGREGATES = {
    "num_q": "1",
    "num_ret": "count(p)",
    "num_rel": "any_value(R)",
    "num_rel_ret": "count(*) FILTER (WHERE h)",
    "precision_at_k": "coalesce((count(*) FILTER (WHERE h AND p <= {k})) / nullif({k}, 0), 0.0)",
    "recall_at_k": "coalesce((count(*) FILTER (WHERE h AND p <= {k})) / nullif(any_value(R), 0), "
                   "0.0)",
    "r_precision": "coalesce((count(*) FILTER (WHERE h AND p <= R))::DOUBLE "
                   "/ nullif(any_value(R), 0), 0.0)",
    "reciprocal_rank": "CASE WHEN any_value(R) > 0 THEN coalesce(1.0 / min(p) FILTER (WHERE h), "
                       "0.0) ELSE 0.0 END",
    "iprec": "coalesce(max(j / p) FILTER (WHERE h AND j >= {c}), 0.0)",
    "average_precision": "CASE WHEN any_value(R) > 0 THEN coalesce(list_sum(list_transform("
                         "{terms}, lambda x: x.ap)) / any_value(R), 0.0) ELSE 0.0 END",
    "bpref": "CASE WHEN any_value(R) > 0 THEN coalesce(list_sum(list_transform("
             "any_value(_terms), lambda x: x.bpref)), 0.0) / any_value(R) ELSE 0.0 END",
}
_CUT = {"precision_at_k", "recall_at_k"}  # metrics that need a cutoff here
_UNCUT = {"r_precision", "bpref", "iprec", "reciprocal_rank"}  # metrics read without one
# the level l of IPrec as a count of the R relevant rows (measures._IPREC_COUNT)
_IPREC_COUNT = {"trec_eval_9": "floor(R * {l} + 0.9)", "trec_eval_10": "round(R * {l})"}
_OPTIONS = {"k", "threshold", "recall", "rounding"}  # the options this plan reads


def covers(measures: list[Measure]) -> bool:
    """Whether every measure is one this plan computes, all with one threshold."""
    thresholds = {dict(m.options).get("threshold", 1) for m in measures
                  if m.metric not in ("num_q", "num_ret")}
    return len(thresholds) <= 1 and all(
        m.metric in _AGGREGATES and not m.judged_only and m.min_grade is None
        and set(dict(m.options)) <= _OPTIONS
        and not (m.metric in _UNCUT and dict(m.options).get("k") is not None)
        and not (m.metric in _CUT and dict(m.options).get("k") is None)
        for m in measures)


def spilling_sql(measures: list[Measure], judged: str) -> tuple[str, list[object]]:
    """The query of :func:`duckdb_ndcg.measures.measures_sql` (columns ``query_id, m0, m1, ...``
    over the judged table's columns query_id, item_id, rel, rnk) for measures that
    :func:`covers`, and its parameters."""
    params: list[object] = []

    def bind(value: object) -> str:
        params.append(value)
        return f"${len(params)}"

    threshold = next((dict(m.options)["threshold"] for m in measures
                      if "threshold" in dict(m.options)), 1)
    t = bind(threshold)
    columns = []
    for i, measure in enumerate(measures):
        options = dict(measure.options)
        template = _AGGREGATES[measure.metric]
        if measure.metric == "iprec":
            rounding = str(options.get("rounding", "trec_eval_9"))
            template = template.replace(
                "{c}", _IPREC_COUNT[rounding].replace("{l}", f"{bind(options.get('recall', 0.0))}"
                                                      "::DOUBLE"))
        k = options.get("k")
        if "{k}" in template:
            template = template.replace("{k}", bind(k))
        if "{terms}" in template:
            template = template.replace("{terms}", "any_value(_terms)" if k is None else
                                        f"list_filter(any_value(_terms), lambda x: x.p <= {bind(k)})")
        columns.append(f"({template})::DOUBLE AS m{i}")
    table = quoted(judged)
    sql = f"""
WITH _rows AS (
    SELECT query_id AS _q, item_id AS _i, TRY_CAST(rel AS DOUBLE) AS _rel, rnk AS _rnk
    FROM {table}
),
_counts AS (
    SELECT _q, count(*) FILTER (WHERE _rel >= {t}) AS R,
           count(*) FILTER (WHERE _rel IS NOT NULL AND NOT _rel >= {t}) AS N
    FROM _rows GROUP BY _q
),
_ranked AS (
    SELECT _q, h, row_number() OVER w AS p,
           sum(CASE WHEN h THEN 1 ELSE 0 END) OVER w AS j,
           sum(CASE WHEN non THEN 1 ELSE 0 END) OVER w AS y
    FROM (SELECT _q, _i, _rnk, coalesce(_rel >= {t}, false) AS h,
                 coalesce(_rel IS NOT NULL AND NOT _rel >= {t}, false) AS non
          FROM _rows WHERE _rnk IS NOT NULL)
    WINDOW w AS (PARTITION BY _q ORDER BY _rnk ASC, _i DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
_hits AS (
    SELECT r._q, r.h, r.p, r.j, c.R,
           -- bpref's term of a relevant row with y judged non-relevant rows above it
           CASE WHEN r.h THEN {{p: r.p, ap: r.j / r.p,
                                bpref: CASE WHEN r.y = 0 THEN 1.0::DOUBLE
                                            ELSE 1.0 - least(r.y, c.R)::DOUBLE / least(c.N, c.R)
                                       END}} END AS _term
    FROM _ranked r JOIN _counts c USING (_q)
),
_terms AS (
    -- the relevant returned rows' terms in trec_eval's order, added one after the other
    SELECT _q, list_sort(list(_term) FILTER (WHERE _term IS NOT NULL)) AS _terms
    FROM _hits GROUP BY _q
),
_all AS (
    SELECT c._q, c.R, h.h, h.p, h.j, t._terms
    FROM _counts c LEFT JOIN _hits h USING (_q) LEFT JOIN _terms t USING (_q)
)
SELECT _q AS query_id, {', '.join(columns)} FROM _all GROUP BY _q"""
    return sql, params
