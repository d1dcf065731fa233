-- The report's engine: rankings joined with graded events, scored per (query, k, slice), and its
-- option checks (internal).

-- _ndcg_table_name(t) -> VARCHAR
-- The name of a table argument as text, for error messages (internal): 'events' for 'events',
-- and also for a bare, unquoted events or logs.events (the quotes users forget). A table
-- function binds a bare name among its arguments as its text (query_table(events) reads the
-- table), but pasted into an expression it would be a column; repeat(t, 1) is a table function,
-- so its one row is the name's text either way (DuckDB 1.4, 1.5 and 2.x).
CREATE OR REPLACE MACRO _ndcg_table_name(t) AS
(SELECT * FROM repeat(t, 1));

-- _ndcg_slice_list(slice_by) -> VARCHAR[]
-- slice_by as a list of column names (internal): a list as given, one name given as text
-- ('device', a common slip for ['device']) as a list of it; a list's text form ('[device, day]')
-- is read as that list, as gain reads a map's text form; NULL stays NULL.
CREATE OR REPLACE MACRO _ndcg_slice_list(slice_by) AS
CASE WHEN slice_by IS NULL THEN NULL
     ELSE coalesce(TRY_CAST(slice_by AS VARCHAR[]), [slice_by::VARCHAR]) END;

-- _ndcg_event_slice(x, query, query_col, events_name) -> the type of x (an aggregate)
-- The one value a query's events give slice column x (internal; _ndcg_report_rows, which calls
-- it on COLUMNS(...) grouped by query, so that each column keeps its name): NULL values are
-- skipped (NULL when there is none); two values are an error naming the events table, the query,
-- the column and two of them. A macro, so that x appears once in the COLUMNS expression.
CREATE OR REPLACE MACRO _ndcg_event_slice(x, query, query_col, events_name) AS
CASE WHEN min(x) <> max(x) THEN
         error('duckdb_ndcg: events table ' || any_value(events_name) || ' gives ' || query_col
               || ' ' || query::VARCHAR || ' more than one ' || any_value(alias(x)) || ' ('
               || min(x)::VARCHAR || ', ' || max(x)::VARCHAR
               || '): a slice taken from the events must have one value per query')
     ELSE min(x)
END;

-- _ndcg_checked_score(ndcg, key, k, empty_ideal): a query's NDCG@k when it is a finite number or
-- NULL, else an error naming the query (internal; compare_summary and ab_summary, before their
-- tests). empty_ideal := 'nan' gives a query with no relevant item NaN, which a test cannot use;
-- NULL (empty_ideal := NULL) leaves such a query out of every test.
CREATE OR REPLACE MACRO _ndcg_checked_score(ndcg, key, k, empty_ideal) AS
CASE WHEN isfinite(ndcg) IS NOT false THEN ndcg
     ELSE error('duckdb_ndcg: the NDCG' || coalesce('@' || k::VARCHAR, '') || ' of query '
                || to_json(key) || ' is NaN or infinite (empty_ideal := '
                || coalesce(empty_ideal::VARCHAR, 'NULL') || '): the tests need a number per '
                || 'query; empty_ideal := NULL leaves the queries with no relevant item out')
END;

-- _ndcg_report_cuts(k): the cutoffs of a report as a BIGINT[] (internal). k is one cutoff or a
-- list of them; NULL (alone or in the list) means no cutoff. Each is checked by _ndcg_checked_k;
-- an empty list, and a cutoff listed twice (it would count every query twice in the means), are
-- errors.
CREATE OR REPLACE MACRO _ndcg_report_cuts(k) AS
list_transform(
    [CASE
         WHEN k IS NULL THEN [NULL::BIGINT]
         ELSE list_transform(('[' || trim(k::VARCHAR, '[]') || ']')::VARCHAR[],
                             lambda x: _ndcg_checked_k(CASE WHEN upper(trim(x)) = 'NULL' THEN NULL
                                                            ELSE x::DOUBLE END))
     END],
    lambda cuts: CASE
        WHEN len(cuts) = 0 THEN
            error('duckdb_ndcg: k must be a cutoff or a non-empty list of cutoffs, got []')
        WHEN len(list_distinct(list_transform(cuts, lambda x: coalesce(x, -1)))) < len(cuts) THEN
            error('duckdb_ndcg: k lists a cutoff more than once: ' || k::VARCHAR)
        ELSE cuts
    END)[1];

-- _ndcg_report_metrics(): the names ndcg_report's metrics := [...] accepts, in the order of its
-- columns (internal): ndcg (always reported) and the family, each named like the aggregate that
-- computes it, so a column, the aggregate and run_report's metric of the same name agree.
-- judged_at_k, last, is computed by the engine (_ndcg_report_rows), not over the judged run.
CREATE OR REPLACE MACRO _ndcg_report_metrics() AS
['ndcg', 'precision_at_k', 'recall_at_k', 'f1_at_k', 'hit_rate', 'reciprocal_rank',
 'average_precision', 'r_precision', 'err', 'rbp', 'judged_at_k'];

-- _ndcg_report_counted(metrics) -> BOOLEAN (internal): whether a report's metrics := [...] names
-- precision_at_k, recall_at_k or f1_at_k, the family's metrics that are linear in the relevant
-- rows within k: the scorer counts those rows (its hits) with DCG, in the same spilling pass, so
-- no judged run is built for them. A constant, so DuckDB folds it (and the default report reads
-- no grade beyond the gain).
-- Example: SELECT _ndcg_report_counted(['ndcg', 'recall_at_k']);  -- true
CREATE OR REPLACE MACRO _ndcg_report_counted(metrics) AS
coalesce(list_has_any(metrics, ['precision_at_k', 'recall_at_k', 'f1_at_k']), false);

-- _ndcg_report_has_family(metrics) -> BOOLEAN (internal): whether a report's metrics := [...]
-- names a metric scored over each ranking's judged run (hit_rate, reciprocal_rank,
-- average_precision, r_precision, err, rbp: they depend on the order within the ranking); false
-- for NULL, ['ndcg'] (the default) and the metrics the engine computes itself (judged_at_k, and
-- the counted ones of _ndcg_report_counted). The one condition under which the report builds its
-- judged runs (_ndcg_report_rows) and reads the family's aggregates (_ndcg_report_metric_rows); a
-- constant, so DuckDB folds it.
-- Example: SELECT _ndcg_report_has_family(['ndcg', 'err']);  -- true
CREATE OR REPLACE MACRO _ndcg_report_has_family(metrics) AS
coalesce(len(list_filter(metrics, lambda m: coalesce(
    m NOT IN ('ndcg', 'judged_at_k', 'precision_at_k', 'recall_at_k', 'f1_at_k'), true))) > 0,
         false);

-- _ndcg_report_max_grade(max_grade, mapping, value_grades := NULL): err's max_grade in
-- ndcg_report, checked (internal): 'mapping' is the largest grade of value_grades when given,
-- else of the mapping (3, purchase, for the default mapping), else a positive finite number;
-- anything else is an error naming the setting.
CREATE OR REPLACE MACRO _ndcg_report_max_grade(max_grade, mapping, value_grades := NULL) AS
CASE
    WHEN max_grade::VARCHAR = 'mapping' THEN
        coalesce(list_max(map_values(_ndcg_value_grades(value_grades))),
                 list_max(map_values(mapping)), 3.0)::DOUBLE
    WHEN TRY_CAST(max_grade AS DOUBLE) > 0 AND isfinite(TRY_CAST(max_grade AS DOUBLE)) THEN
        TRY_CAST(max_grade AS DOUBLE)
    ELSE error('duckdb_ndcg: max_grade must be ''mapping'' or a positive number, got '
               || coalesce(CASE WHEN TRY_CAST(max_grade AS DOUBLE) IS NULL
                                THEN '''' || max_grade::VARCHAR || ''''
                                ELSE max_grade::VARCHAR END, 'NULL'))
END;

-- _ndcg_report_gain(gain): the gain the report engine scores grades with (internal): 'value'
-- (each event's value is its grade, _ndcg_event_relevance) is 'linear' over those grades; a gain
-- MAP becomes its text form, which the gain helpers read as the MAP; a gain that is none of
-- 'linear', 'exponential', 'value' or a MAP is an error in the report's words.
CREATE OR REPLACE MACRO _ndcg_report_gain(gain) AS
CASE
    WHEN gain IS NULL OR (NOT _ndcg_is_map(gain)
                          AND gain::VARCHAR NOT IN ('linear', 'exponential', 'value')) THEN
        error('duckdb_ndcg: gain must be ''linear'', ''exponential'' or a MAP from grade to gain, '
              || 'or ''value'' (the events'' value_col as the grade), got '
              || coalesce('''' || gain::VARCHAR || '''', 'NULL'))
    WHEN gain::VARCHAR = 'value' THEN 'linear'
    ELSE gain::VARCHAR
END;

-- _ndcg_report_timed(bucket, start, stop): whether the report reads the rankings' time column
-- (internal): a bucket, a start or a stop is given.
CREATE OR REPLACE MACRO _ndcg_report_timed(bucket, start, stop) AS
bucket IS NOT NULL OR start IS NOT NULL OR stop IS NOT NULL;

-- _ndcg_report_time(x, what): a start or stop bound as a TIMESTAMP (internal): a DATE, a
-- TIMESTAMP or their text ('2026-01-31'); NULL stays NULL (no bound); anything else is an
-- error naming the option.
CREATE OR REPLACE MACRO _ndcg_report_time(x, what) AS
CASE WHEN x IS NULL THEN NULL::TIMESTAMP
     ELSE coalesce(TRY_CAST(x::VARCHAR AS TIMESTAMP),
                   error('duckdb_ndcg: ' || what || ' must be a date or timestamp '
                         || '(''2026-01-31''), got ' || x::VARCHAR)) END;

-- _ndcg_report_bucket(t, bucket): the DATE starting the 'day' or 'week' (ISO, Monday) that
-- holds TIMESTAMP t (internal); NULL for any other bucket (_ndcg_report_interval_bucket).
CREATE OR REPLACE MACRO _ndcg_report_bucket(t, bucket) AS
CASE bucket::VARCHAR WHEN 'day' THEN date_trunc('day', t)
                     WHEN 'week' THEN date_trunc('week', t) END::DATE;

-- _ndcg_report_interval_bucket(t, bucket): the TIMESTAMP starting the bucket of an INTERVAL
-- bucket (INTERVAL 6 HOUR, or its text '6 hours') that holds t (DuckDB's time_bucket: buckets
-- of whole days or less start at midnight), checked: a bucket that is neither 'day', 'week'
-- nor a positive INTERVAL is an error naming the option.
CREATE OR REPLACE MACRO _ndcg_report_interval_bucket(t, bucket) AS
CASE
    WHEN bucket IS NULL THEN NULL::TIMESTAMP
    WHEN bucket::VARCHAR IN ('day', 'week') THEN NULL::TIMESTAMP
    WHEN coalesce(TRY_CAST(bucket::VARCHAR AS INTERVAL) > INTERVAL 0 SECOND, false) THEN
        time_bucket(TRY_CAST(bucket::VARCHAR AS INTERVAL), t)
    ELSE error('duckdb_ndcg: bucket must be ''day'', ''week'' or a positive INTERVAL '
               || '(INTERVAL 6 HOUR), got ''' || bucket::VARCHAR || '''')
END;

-- _ndcg_report_columns(): the columns ndcg_report, ndcg_summary and compare_rankers add to the
-- query and slice columns (internal). A query or slice column of the same name would shadow them
-- (GROUP BY k over a slice named k), so the report refuses it.
CREATE OR REPLACE MACRO _ndcg_report_columns() AS
['k', 'ndcg', 'dcg', 'idcg', 'shown', 'shown_relevant', 'relevant', 'queries', 'mean_ndcg',
 'queries_without_relevant', 'mean_ndcg_with_relevant', 'ndcg_a', 'ndcg_b', 'diff', 'mean_diff',
 'mean_judged_at_k', 'judged_a', 'judged_b'];

-- _ndcg_report_rows(rankings, events, k := ..., slice_by := ..., query_col := ..., ...every option of
--                   ndcg_report..., judged := ...)
--   -> TABLE(_key STRUCT(query and slice columns), _k, ndcg, dcg, idcg, shown, shown_relevant,
--            relevant, precision_at_k, recall_at_k, f1_at_k, _judged STRUCT(i, rel, rnk)[],
--            judged_at_k DOUBLE)
-- The engine of ndcg_report, ndcg_summary and compare_rankers (internal; see ndcg_report for the
-- parameters; metrics, threshold and max_grade are checked here, used by
-- _ndcg_report_metric_rows). Built only of what DuckDB spills to disk, so a log larger than memory finishes:
-- hash aggregates with fixed-size states, one hash join, and one window sort per ranking.
--   1. events -> grades (event_relevance); the graded items with a gain (usually few) are joined
--      to the shown rows.
--   2. One window pass over each ranking in rank order gives every row its tie group's first
--      position s and size n, and the ranking's counts; only rows with s <= max(k) + 1 go on
--      (whole rankings when k is NULL).
--   3. DCG@k: the scorer (_ndcg_scored_gains, shared with run_report) spreads each tie group's
--      mean gain over the positions s .. min(s + n - 1, k) it has within k (ties := 'average',
--      exact when a group straddles k); with ties := 'key' every row is its own group (order by
--      rank, then item descending, as trec_eval).
--   4. IDCG@k: the graded gains of each query, best first (_ndcg_scored_ideal).
--   5. Only when metrics names precision_at_k, recall_at_k or f1_at_k (a constant condition,
--      _ndcg_report_counted): the scorer also counts the rows at threshold within k (its hits,
--      in step 3's pass), and the query's items at threshold give recall's denominator.
--   6. Only when metrics names a metric that depends on the order within a ranking (a constant
--      condition, _ndcg_report_has_family: DuckDB drops this branch otherwise, so the default
--      plan is steps 1-4 alone): _judged, the judged run of each
--      ranking as a list — the rows read in step 2 with their grade (0 without events) and s as
--      rank key (s orders the rows as the ranking does and is equal exactly within a tie group),
--      plus the graded items of the query not among them with rnk NULL; NULL otherwise.
--      _ndcg_report_metric_rows scores it with the family's aggregates. Rows below the depth
--      read count as not shown: they cannot change a metric at a cutoff <= max(k) except
--      through the relevant count, which keeps them. r_precision reads R rows (R can exceed k),
--      so it reads whole rankings.
--   7. Only when judged is true or metrics names judged_at_k (a constant condition, as in 6):
--      judged_at_k, the share of the first k rows (least(k, shown); all when k is NULL) whose
--      (query, item) the events judge: an event of a type the mapping grades, 0 included (an
--      impression). The rows read are anti-joined to the events (a second scan of them: grade 0
--      events are not in step 1); the scorer spreads each unjudged row over its tie group's
--      positions within k as it spreads gains (the expected share for a group straddling k).
--      NULL otherwise.
-- duplicates = 'error' checks the rows a cutoff reads (those with s <= max(k) + 1: the first
-- max(k) + 1 rows and whole tie groups there; all rows when k is NULL or r_precision is named): a
-- duplicate further down cannot change a metric at k.
CREATE OR REPLACE MACRO _ndcg_report_rows(rankings, events, k := NULL, slice_by := NULL,
                                          query_col := NULL, item_col := NULL, position_col := NULL,
                                          score_col := NULL, ties := NULL, gain := NULL,
                                          log_base := NULL, empty_ideal := NULL, duplicates := NULL,
                                          event_col := NULL, mapping := NULL, collapse := NULL,
                                          time_col := NULL, unknown := NULL, metrics := NULL,
                                          threshold := NULL, max_grade := NULL, judged := NULL,
                                          value_col := NULL, value_grades := NULL, bucket := NULL,
                                          start := NULL, stop := NULL,
                                          rankings_time_col := NULL) AS TABLE
WITH _ndcg_graded AS (
    -- items graded 0 add nothing: with grades that cannot be negative and collapse 'max' or
    -- 'sum', they are left out before events are grouped (most events are impressions)
    SELECT query_id AS _q, item_id AS _i, rel
    FROM _ndcg_event_relevance(events, query_col := query_col, item_col := item_col,
                               event_col := event_col, mapping := mapping, collapse := collapse,
                               time_col := time_col, unknown := unknown, value_col := value_col,
                               value_grades := value_grades, gain := gain,
                               -- grades below 0 are refused by the report, so with collapse
                               -- 'max' or 'sum' the items graded 0 can be left out early
                               positive_only := coalesce(collapse IN ('max', 'sum')
                                                         AND NOT _ndcg_is_map(gain)
                                                         AND coalesce(list_min(map_values(mapping)),
                                                                      0) >= 0,
                                                         false))
),
_ndcg_gained AS (
    -- the graded items that can add to DCG or to shown_relevant: usually a small part of the
    -- grades, so the join with the rankings builds a small hash table
    SELECT _q, _i, rel, _ndcg_gain(rel, _ndcg_report_gain(gain), 'zero') AS _g
    FROM _ndcg_graded
    WHERE rel > 0 OR _ndcg_has_gain(rel, _ndcg_report_gain(gain))
),
_ndcg_cfg AS (
    -- the cutoffs, parsed once, and the depth read: max(k) + 1, NULL (all) when a cutoff is NULL
    SELECT _cuts, _depth,
           -- the rows read: r_precision reads R rows, which can be more than max(k) + 1
           CASE WHEN NOT coalesce(list_contains(metrics, 'r_precision'), false) THEN _depth END
               AS _read_depth
    FROM (SELECT _cuts,
                 CASE WHEN len(list_filter(_cuts, lambda c: c IS NULL)) = 0
                      THEN list_max(_cuts) + 1 END AS _depth
          FROM (SELECT _ndcg_report_cuts(k) AS _cuts))
),
_ndcg_cuts AS (
    SELECT unnest(_cuts) AS _k FROM _ndcg_cfg
),
_ndcg_key_types AS (
    -- the key columns' types, read from one row of each table: keys of different kinds would
    -- join through implicit casts ('07' and '7.0' both equal to 7), so they are refused
    SELECT [(SELECT typeof(COLUMNS(lambda c: c = query_col)) FROM query_table(rankings) LIMIT 1),
            (SELECT typeof(COLUMNS(lambda c: c = item_col)) FROM query_table(rankings) LIMIT 1),
            (SELECT typeof(COLUMNS(lambda c: c = coalesce(score_col, position_col)))
             FROM query_table(rankings) LIMIT 1)]
               AS _shown_types,
           [(SELECT typeof(COLUMNS(lambda c: c = query_col)) FROM query_table(events) LIMIT 1),
            (SELECT typeof(COLUMNS(lambda c: c = item_col)) FROM query_table(events) LIMIT 1)]
               AS _event_types,
           -- keys whose collation makes different ids equal ('A' and 'a' with NOCASE): the
           -- joins and groups would merge them, so they are refused (one row of each table)
           list_filter([
               CASE WHEN (SELECT _ndcg_collated(v)
                          FROM (SELECT COLUMNS(lambda c: c = query_col)::VARCHAR AS v
                                FROM query_table(rankings) LIMIT 1))
                    THEN query_col || ' of rankings table ' || _ndcg_table_name(rankings) END,
               CASE WHEN (SELECT _ndcg_collated(v)
                          FROM (SELECT COLUMNS(lambda c: c = item_col)::VARCHAR AS v
                                FROM query_table(rankings) LIMIT 1))
                    THEN item_col || ' of rankings table ' || _ndcg_table_name(rankings) END,
               CASE WHEN (SELECT _ndcg_collated(v)
                          FROM (SELECT COLUMNS(lambda c: c = query_col)::VARCHAR AS v
                                FROM query_table(events) LIMIT 1))
                    THEN query_col || ' of events table ' || _ndcg_table_name(events) END,
               CASE WHEN (SELECT _ndcg_collated(v)
                          FROM (SELECT COLUMNS(lambda c: c = item_col)::VARCHAR AS v
                                FROM query_table(events) LIMIT 1))
                    THEN item_col || ' of events table ' || _ndcg_table_name(events) END],
               lambda c: c IS NOT NULL) AS _collated
),
_ndcg_names AS (
    -- the tables' names for the messages below, taken where no column is in scope: a bare name
    -- (rankings table shown, events table rel) would otherwise bind as a column of the rows
    SELECT _ndcg_table_name(rankings) AS _rankings_name, _ndcg_table_name(events) AS _events_name
),
_ndcg_event_slices AS NOT MATERIALIZED (
    -- the slice_by columns of the events, one value per query: NULL values are skipped, and a
    -- query whose events hold two is an error naming the column, the query and two values
    -- (_ndcg_sq is among the columns, so that the list is never empty)
    SELECT _ndcg_event_slice(COLUMNS(lambda c: c = '_ndcg_sq' OR list_contains(slice_by, c)),
                             _ndcg_sq, query_col, _events_name)
    FROM (SELECT COLUMNS(lambda c: c = query_col) AS _ndcg_sq, * FROM query_table(events)),
         _ndcg_names
    GROUP BY _ndcg_sq
),
_ndcg_query_times AS NOT MATERIALIZED (
    -- bucket, start, stop: each query's time is the earliest time of its rows (a list paged
    -- over midnight stays one ranking of its first day); the column must be a date or a
    -- timestamp (read as TIMESTAMP). Without them the query column stands in, not read.
    SELECT _ndcg_tq, min(_ndcg_t) AS _ndcg_qt, any_value(_ndcg_ttype) AS _ndcg_ttype
    FROM (SELECT COLUMNS(lambda c: c = query_col) AS _ndcg_tq,
                 TRY_CAST(COLUMNS(lambda c: c = CASE WHEN _ndcg_report_timed(bucket, start, stop)
                                                     THEN rankings_time_col
                                                     ELSE query_col END)::VARCHAR AS TIMESTAMP)
                     AS _ndcg_t,
                 typeof(COLUMNS(lambda c: c = CASE WHEN _ndcg_report_timed(bucket, start, stop)
                                                   THEN rankings_time_col
                                                   ELSE query_col END)) AS _ndcg_ttype
          FROM query_table(rankings))
    GROUP BY _ndcg_tq
),
_ndcg_rankings_timed AS NOT MATERIALIZED (
    -- the rankings of the queries whose time is in [start, stop), with the slice column
    -- `bucket` (DATE for 'day' and 'week', TIMESTAMP for an INTERVAL) when a bucket is given
    SELECT * EXCLUDE (_ndcg_rq, _ndcg_tq, _ndcg_qt, _ndcg_ttype, _ndcg_day, _ndcg_span),
           -- (start or stop alone: a NULL `bucket`, which no slice reads)
           COLUMNS(lambda c: (c = '_ndcg_day' AND coalesce(bucket::VARCHAR IN ('day', 'week'), true))
                             OR (c = '_ndcg_span' AND bucket IS NOT NULL
                                 AND bucket::VARCHAR NOT IN ('day', 'week'))) AS bucket
    FROM (
        SELECT _r.*, _t.*, _ndcg_report_bucket(_ndcg_qt, bucket) AS _ndcg_day,
               _ndcg_report_interval_bucket(_ndcg_qt, bucket) AS _ndcg_span
        FROM (SELECT *, COLUMNS(lambda c: c = query_col) AS _ndcg_rq
              FROM query_table(rankings)) AS _r
        JOIN _ndcg_query_times AS _t ON _r._ndcg_rq = _t._ndcg_tq)
    -- the checks stand in the filter, which every row passes through (a column no slice reads
    -- is not computed)
    WHERE CASE WHEN NOT regexp_full_match(_ndcg_ttype, 'DATE|TIMESTAMP(_S|_MS|_NS)?') THEN
                   error('duckdb_ndcg: rankings_time_col ' || rankings_time_col
                         || ' of rankings table ' || _ndcg_table_name(rankings) || ' is '
                         || _ndcg_ttype || '; bucket, start and stop need a DATE or '
                         || 'TIMESTAMP column (cast it in a view)')
               -- the rankings' own `bucket` would be the slice read (json_keys: DuckDB 1.4
               -- has no struct_keys)
               WHEN bucket IS NOT NULL
                    AND list_contains((SELECT json_keys(to_json(_b))
                                       FROM (SELECT * FROM query_table(rankings) LIMIT 1) AS _b),
                                      'bucket') THEN
                   error('duckdb_ndcg: rankings table ' || _ndcg_table_name(rankings)
                         || ' has a column bucket, the name of the slice column bucket := '
                         || 'adds: rename it in a view')
               ELSE true END
      AND _ndcg_report_interval_bucket(_ndcg_qt, bucket) IS NOT DISTINCT FROM _ndcg_span
      -- a query without a time (NULL) is outside every [start, stop)
      AND (start IS NULL OR _ndcg_qt >= _ndcg_report_time(start, 'start'))
      AND (stop IS NULL OR _ndcg_qt < _ndcg_report_time(stop, 'stop'))
),
_ndcg_rankings_as_given AS NOT MATERIALIZED (
    SELECT * FROM query_table(CASE WHEN _ndcg_report_timed(bucket, start, stop)
                                   THEN '_ndcg_rankings_timed' ELSE rankings END)
),
_ndcg_rankings_sliced AS NOT MATERIALIZED (
    -- the rankings with the events' slice columns joined per query. In SELECT * a name both
    -- tables have is the events' the second time (platform_1), so slice_by reads the rankings'
    -- own column: their value wins, and the events' values of it are not read
    SELECT * FROM (
        SELECT _r.*, _s.*
        FROM (SELECT *, COLUMNS(lambda c: c = query_col) AS _ndcg_rq
              FROM _ndcg_rankings_as_given) AS _r
        LEFT JOIN _ndcg_event_slices AS _s ON _r._ndcg_rq = _s._ndcg_sq)
),
_ndcg_shown AS NOT MATERIALIZED (
    SELECT struct_pack(*COLUMNS(lambda c: c = query_col OR list_contains(slice_by, c))) AS _key,
           COLUMNS(lambda c: c = query_col) AS _q,
           COLUMNS(lambda c: c = item_col) AS _i,
           CASE WHEN score_col IS NULL THEN 1 ELSE -1 END
               * TRY_CAST(COLUMNS(lambda c: c = coalesce(score_col, position_col)) AS DOUBLE) AS _rnk,
           -- the key in its own type, which the rankings are ordered by: as DOUBLE, BIGINT keys
           -- beyond 2^53 or DECIMAL keys of more than 15 digits can be one value and tie
           COLUMNS(lambda c: c = coalesce(score_col, position_col)) AS _order
    -- the join with the events only when slice_by names a column (a constant condition: the
    -- query without slices, the default, reads the rankings alone, as before; DuckDB 1.4 binds
    -- both CTEs, and plans only the one read)
    FROM query_table(CASE WHEN coalesce(len(slice_by), 0) = 0 THEN '_ndcg_rankings_as_given'
                          ELSE '_ndcg_rankings_sliced' END)
),
_ndcg_placed AS (
    -- one sort per ranking (spills): tie group start _s and size _n of every row, and the
    -- ranking's counts on its first row
    SELECT _key, _q, _i, _g,
           -- a relevant row, counted for precision, recall and F1 (0 when none is named: folded)
           CASE WHEN _ndcg_report_counted(metrics) THEN coalesce(rel >= threshold, false)::INTEGER
                ELSE 0 END AS _hits,
           rank() OVER _w AS _s,
           count(*) OVER (_w RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS _n,
           row_number() OVER _w = 1 AS _first,
           count(*) OVER _all AS shown,
           count(CASE WHEN rel > 0 THEN 1 END) OVER _all AS shown_relevant,
           bool_or(_q IS NULL OR _i IS NULL OR _rnk IS NULL) OVER _all AS _null_keys,
           bool_or(NOT isfinite(_rnk)) OVER _all AS _bad_rank
    FROM _ndcg_shown LEFT JOIN _ndcg_gained USING (_q, _i)
    WINDOW _w AS (PARTITION BY _key ORDER BY CASE WHEN score_col IS NULL THEN _order END,
                                             CASE WHEN score_col IS NOT NULL THEN _order END DESC,
                                             CASE WHEN ties = 'key' THEN _i END DESC),
           _all AS (PARTITION BY _key ORDER BY CASE WHEN score_col IS NULL THEN _order END,
                                               CASE WHEN score_col IS NOT NULL THEN _order END DESC,
                                               CASE WHEN ties = 'key' THEN _i END DESC
                    ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
),
_ndcg_read AS (
    -- the rows a cutoff reads (each ranking's first row, which carries its counts, among them:
    -- its _s is 1 and _depth is at least 2); whole rankings for r_precision
    SELECT _ndcg_placed.* FROM _ndcg_placed, _ndcg_cfg WHERE _s <= coalesce(_read_depth, _s)
),
_ndcg_rankings_read AS (
    SELECT _key, _q, shown, shown_relevant, _null_keys, _bad_rank FROM _ndcg_read WHERE _first
),
_ndcg_gain_rows AS (
    -- the rows read as the scorer's placed rows
    SELECT _key, _s, _n, _g, _hits FROM _ndcg_read
),
_ndcg_dcg AS (
    SELECT _key AS _dcg_key, _k AS _dcg_k, dcg, hits
    FROM _ndcg_scored_gains('_ndcg_gain_rows', '_ndcg_cuts', log_base := log_base)
),
_ndcg_repeated AS (
    -- an item shown twice among the rows a cutoff reads
    SELECT _key, min(_i::VARCHAR) AS _item
    FROM (SELECT _key, _i FROM _ndcg_read WHERE duplicates = 'error'
          GROUP BY ALL HAVING count(*) > 1)
    GROUP BY _key
),
_ndcg_ideal_gains AS (
    -- the graded gains of each query, the ideal of its rankings (cut at k, all when k is NULL)
    SELECT _q AS _key, _g, NULL::BIGINT AS _depth FROM _ndcg_gained
),
_ndcg_ideal AS (
    SELECT _key AS _ideal_q, _k AS _ideal_k, idcg
    FROM _ndcg_scored_ideal('_ndcg_ideal_gains', '_ndcg_cuts', log_base := log_base)
),
_ndcg_relevant AS (
    -- the relevant items of each query: graded above 0, and at threshold (which is above 0)
    SELECT _q AS _rel_q, count(*) AS relevant,
           count(*) FILTER (WHERE rel >= threshold) AS _relevant_at
    FROM _ndcg_graded
    WHERE rel > 0
    GROUP BY _q
),
_ndcg_more AS (
    -- duplicates = 'allow': the graded items a ranking shows more than once (at any depth) and
    -- how many more times; empty otherwise (a constant condition)
    SELECT _key, _q, _i, any_value(rel) AS rel, any_value(_g) AS _g, count(*) - 1 AS _more
    FROM _ndcg_shown JOIN _ndcg_gained USING (_q, _i)
    WHERE duplicates = 'allow'
    GROUP BY _key, _q, _i
    HAVING count(*) > 1
),
_ndcg_more_gains AS (
    -- the ideal of a ranking that repeats a graded item holds the item as often as it was shown:
    -- the query's graded items once each, plus the repeats
    SELECT _key, _g, NULL::BIGINT AS _depth
    FROM (SELECT DISTINCT _key, _q FROM _ndcg_more) JOIN _ndcg_gained USING (_q)
    UNION ALL
    SELECT _key, _g, NULL::BIGINT FROM (SELECT _key, _g, unnest(range(_more)) FROM _ndcg_more)
),
_ndcg_more_ideal AS (
    SELECT _key AS _more_key, _k AS _more_k, idcg AS _more_idcg
    FROM _ndcg_scored_ideal('_ndcg_more_gains', '_ndcg_cuts', log_base := log_base)
),
_ndcg_more_relevant AS (
    SELECT _key AS _more_rel_key, sum(_more)::BIGINT AS _more_relevant,
           (sum(_more) FILTER (WHERE rel >= threshold))::BIGINT AS _more_relevant_at
    FROM _ndcg_more WHERE rel > 0 GROUP BY _key
),
_ndcg_judged AS (
    -- the judged run of each ranking: the rows read with their grade (0 without events) and the
    -- tie group start as rank key, then the graded items not among them, rnk NULL
    SELECT _key, _i, coalesce(rel, 0.0) AS rel, _s::DOUBLE AS _rnk
    FROM _ndcg_read LEFT JOIN _ndcg_gained USING (_q, _i)
    WHERE _ndcg_report_has_family(metrics)
    UNION ALL
    SELECT _ndcg_rankings_read._key, _ndcg_gained._i, _ndcg_gained.rel, NULL::DOUBLE
    FROM _ndcg_rankings_read JOIN _ndcg_gained USING (_q)
    WHERE _ndcg_report_has_family(metrics)
      AND NOT EXISTS (SELECT 1 FROM _ndcg_read AS r
                      WHERE r._key = _ndcg_rankings_read._key AND r._i = _ndcg_gained._i)
    UNION ALL
    -- duplicates = 'allow': a repeated item's impressions beyond those above (the rows read, or
    -- the one unshown row), rnk NULL, so that the run holds it as often as it was shown
    SELECT _key, _i, rel, NULL::DOUBLE
    FROM (SELECT _key, _i, rel,
                 unnest(range(_more + 1 - greatest(1, (SELECT count(*) FROM _ndcg_read AS r
                                                       WHERE r._key = m._key AND r._i = m._i))))
          FROM _ndcg_more AS m)
    WHERE _ndcg_report_has_family(metrics)
),
_ndcg_judged_lists AS (
    -- each ranking's judged run as one list, for _ndcg_report_metric_rows to score (a list
    -- aggregate: the family's aggregates are bound only by the macros that name them)
    SELECT _key AS _judged_key, list({i: _i, rel: rel, rnk: _rnk}) AS _judged
    FROM _ndcg_judged
    GROUP BY _key
),
_ndcg_logged AS (
    -- step 6: the (query, item) pairs an event of a graded type names (the join below reads only
    -- those of the rows read)
    SELECT _q, _i
    FROM (SELECT COLUMNS(lambda c: c = query_col) AS _q, COLUMNS(lambda c: c = item_col) AS _i,
                 _ndcg_event_grade(COLUMNS(lambda c: c = event_col), mapping) AS _grade
          FROM query_table(events)) AS _e
    WHERE _grade IS NOT NULL
      AND (judged OR coalesce(list_contains(metrics, 'judged_at_k'), false))
),
_ndcg_unjudged_rows AS (
    -- the unjudged rows read, each a hit of no gain for the scorer, which spreads it over its tie
    -- group's positions within every cut (the group's expected share when it straddles k)
    SELECT _key, _s, _n, 0.0 AS _g, 1 AS _hits
    FROM _ndcg_read ANTI JOIN _ndcg_logged USING (_q, _i)
    WHERE judged OR coalesce(list_contains(metrics, 'judged_at_k'), false)
),
_ndcg_unjudged AS (
    SELECT _key AS _uj_key, _k AS _uj_k, hits AS _unjudged_rows
    FROM _ndcg_scored_gains('_ndcg_unjudged_rows', '_ndcg_cuts', log_base := log_base)
),
_ndcg_grade_check AS (
    -- one fixed-size aggregate over the grades: NaN, infinite or unmapped grades; negative
    -- grades and gains are refused below, in the report's words (it has no negative option)
    SELECT _ndcg_grade_error(rel, _ndcg_report_gain(gain), 'zero') AS _grade_error,
           min(rel) AS _min_grade
    FROM _ndcg_graded
)
SELECT _key, _k,
       _ndcg_scored_ndcg(dcg, coalesce(_more_idcg, idcg), empty_ideal)::DOUBLE AS ndcg,
       coalesce(dcg, 0.0)::DOUBLE AS dcg,
       coalesce(_more_idcg, idcg, 0.0)::DOUBLE AS idcg,
       shown,
       shown_relevant,
       coalesce(relevant, 0) + coalesce(_more_relevant, 0) AS relevant,
       -- precision, recall and F1 as their aggregates give them over the judged run (relevant
       -- rows within k, spread over tie groups by the scorer; the judged run's relevant rows)
       CASE WHEN list_contains(metrics, 'precision_at_k') THEN
           _ndcg_scored_precision(hits, _k, shown)
       END::DOUBLE AS precision_at_k,
       -- (the judged run's relevant rows: the query's items at threshold, and the repeats)
       CASE WHEN list_contains(metrics, 'recall_at_k') THEN
           _ndcg_scored_recall(hits, coalesce(_relevant_at, 0) + coalesce(_more_relevant_at, 0),
                               empty_ideal)
       END::DOUBLE AS recall_at_k,
       CASE WHEN list_contains(metrics, 'f1_at_k') THEN
           _ndcg_scored_f1(hits, _k, shown,
                           coalesce(_relevant_at, 0) + coalesce(_more_relevant_at, 0), empty_ideal)
       END::DOUBLE AS f1_at_k,
       _judged,
       CASE WHEN judged OR coalesce(list_contains(metrics, 'judged_at_k'), false) THEN
           (least(coalesce(_k, shown), shown) - coalesce(_unjudged_rows, 0.0))
               / least(coalesce(_k, shown), shown)
       END::DOUBLE AS judged_at_k
FROM _ndcg_rankings_read
CROSS JOIN _ndcg_cuts
LEFT JOIN _ndcg_dcg ON _dcg_key = _key AND _dcg_k IS NOT DISTINCT FROM _k
LEFT JOIN _ndcg_ideal ON _ideal_q = _q AND _ideal_k IS NOT DISTINCT FROM _k
LEFT JOIN _ndcg_relevant ON _rel_q = _q
LEFT JOIN _ndcg_more_ideal ON _more_key = _key AND _more_k IS NOT DISTINCT FROM _k
LEFT JOIN _ndcg_more_relevant ON _more_rel_key = _key
LEFT JOIN _ndcg_repeated USING (_key)
LEFT JOIN _ndcg_judged_lists ON _judged_key = _key
LEFT JOIN _ndcg_unjudged ON _uj_key = _key AND _uj_k IS NOT DISTINCT FROM _k
CROSS JOIN _ndcg_key_types
CROSS JOIN _ndcg_grade_check
CROSS JOIN _ndcg_names
-- the input checks: a filter every row passes (true), not a column, so that a query reading some
-- columns only (a summary read for its k alone) runs them too: DuckDB 2.0 drops a column no one
-- reads, and the error() in it. A branch `THEN false` is reached after its helper raised.
WHERE CASE
           WHEN metrics IS NULL OR len(metrics) = 0
                OR len(list_filter(metrics, lambda m: NOT coalesce(
                       list_contains(_ndcg_report_metrics(), m), false))) > 0 THEN
               error('duckdb_ndcg: metrics must name some of '
                     || array_to_string(_ndcg_report_metrics(), ', ') || ', got '
                     || coalesce(metrics::VARCHAR, 'NULL'))
           WHEN len(list_distinct(metrics)) < len(metrics) THEN
               error('duckdb_ndcg: metrics lists a metric more than once: ' || metrics::VARCHAR)
           WHEN _ndcg_threshold_error(threshold, true) IS NOT NULL THEN false
           -- raises the error of a bad max_grade, as _ndcg_discount does for log_base below
           WHEN _ndcg_report_max_grade(max_grade, mapping, value_grades) IS NULL THEN false
           WHEN duplicates IS NULL OR duplicates NOT IN ('error', 'allow') THEN
               error('duckdb_ndcg: duplicates must be ''error'' or ''allow'', got '
                     || coalesce('''' || duplicates || '''', 'NULL'))
           WHEN ties IS NULL OR ties NOT IN ('average', 'key') THEN
               error('duckdb_ndcg: ties must be ''average'' or ''key'', got '
                     || coalesce('''' || ties || '''', 'NULL'))
           WHEN _ndcg_discount(1, log_base) IS NULL
                OR _ndcg_gain_error(_ndcg_report_gain(gain), 'zero') IS NOT NULL
                OR _grade_error IS NOT NULL THEN false
           WHEN _min_grade < 0 THEN
               error('duckdb_ndcg: mapping gives an event type the negative grade '
                     || _min_grade::VARCHAR || ': the report scores grades of 0 and above')
           WHEN _ndcg_is_map(gain)
                AND list_min(map_values(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE)))) < 0 THEN
               error('duckdb_ndcg: gain map ' || gain::VARCHAR || ' gives grade '
                     || list_filter(map_entries(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE))),
                                    lambda e: e.value < 0)[1].key::VARCHAR
                     || ' the negative gain '
                     || list_min(map_values(TRY_CAST(gain AS MAP(DOUBLE, DOUBLE))))::VARCHAR
                     || ': the report scores gains of 0 and above')
           WHEN NOT _ndcg_is_number_type(coalesce(_shown_types[3], 'NULL')) THEN
               error('duckdb_ndcg: ' || coalesce(score_col, position_col) || ' of rankings table '
                     || _rankings_name || ' must be a number, got ' || _shown_types[3]
                     || ' (cast it in a view)')
           WHEN _ndcg_key_kind(_shown_types[1]) <> _ndcg_key_kind(_event_types[1])
                OR _ndcg_key_kind(_shown_types[2]) <> _ndcg_key_kind(_event_types[2]) THEN
               error('duckdb_ndcg: key columns differ in type: rankings '
                     || _rankings_name || ' has '
                     || query_col || ' ' || _shown_types[1] || ', ' || item_col || ' '
                     || _shown_types[2] || ' but events ' || _events_name || ' has '
                     || query_col || ' '
                     || _event_types[1] || ', ' || item_col || ' ' || _event_types[2]
                     || ' (cast one side in a view so that ids compare as the same kind)')
           WHEN len(_collated) > 0 THEN
               error('duckdb_ndcg: ' || _collated[1] || ' has a collation under which different '
                     || 'ids compare equal (''A'' = ''a''): keys are compared exactly, so drop it '
                     || 'in a view (' || (CASE WHEN _collated[1] LIKE query_col || ' %'
                                               THEN query_col ELSE item_col END)
                     || ' COLLATE "binary")')
           WHEN list_contains(slice_by, query_col) THEN
               error('duckdb_ndcg: slice_by names ' || query_col || ', the query column: a slice '
                     || 'groups queries, and each query is already its own row of ndcg_report; '
                     || 'slice by a property of the queries (day, device, variant)')
           -- json_keys(to_json(...)), not struct_keys: DuckDB 1.4 has no struct_keys
           WHEN len(slice_by) > 0
                AND list_any_value(list_filter(
                    slice_by, lambda s: NOT list_contains(json_keys(to_json(_key)), s)))
                IS NOT NULL THEN
               error('duckdb_ndcg: neither rankings table ' || _rankings_name
                     || ' nor events table ' || _events_name || ' has a column '
                     || list_any_value(list_filter(
                            slice_by, lambda s: NOT list_contains(json_keys(to_json(_key)), s)))
                     || ' (named in slice_by)')
           WHEN list_has_any(list_append(slice_by, query_col),
                             list_concat(_ndcg_report_columns(), metrics)) THEN
               error('duckdb_ndcg: column '
                     || list_intersect(list_append(slice_by, query_col),
                                       list_concat(_ndcg_report_columns(), metrics))[1]
                     || ' of rankings table ' || _rankings_name
                     || ' has the name of a result column ('
                     || array_to_string(list_concat(_ndcg_report_columns(), list_filter(
                            metrics, lambda m: NOT list_contains(_ndcg_report_columns(), m))),
                                        ', ')
                     || '): rename it in a view')
           WHEN _null_keys THEN
               error('duckdb_ndcg: rankings table ' || _rankings_name || ' has NULL in '
                     || query_col || ', '
                     || item_col || ' or ' || coalesce(score_col, position_col)
                     || ' (query ' || coalesce(_q::VARCHAR, 'NULL') || ')')
           WHEN _bad_rank THEN
               error('duckdb_ndcg: rank keys must be finite numbers (found NaN or infinity)')
           WHEN _item IS NOT NULL THEN
               error('duckdb_ndcg: rankings table ' || _rankings_name || ' shows '
                     || item_col || ' '
                     || _item || ' more than once in ranking ' || _key::VARCHAR
                     || ' (pass duplicates := ''allow'' to score every impression: each '
                     || 'showing gains its item''s grade and the ideal holds the item as often '
                     || 'as it was shown)')
           ELSE true
      END;

-- _ndcg_report_metric_rows(rankings, events, k := ..., ...every option of ndcg_report...,
--                          judged := ...)
--   -> TABLE(_key, _k, ndcg, dcg, idcg, shown, shown_relevant, relevant, precision_at_k,
--            recall_at_k, f1_at_k, hit_rate, reciprocal_rank, average_precision, r_precision,
--            err, rbp, judged_at_k DOUBLE)
-- _ndcg_report_rows with the family metrics of ndcg_report and ndcg_summary (internal): each
-- named metric that depends on the order within a ranking (hit_rate, reciprocal_rank,
-- average_precision, r_precision, err, rbp) is its aggregate over the ranking's judged run
-- (_ndcg_report_rows' _judged list, unnested) grouped by (ranking, cutoff), with the report's
-- ties (tie_key: the item), threshold, empty_ideal and max_grade; a metric not named is NULL (a
-- constant CASE: DuckDB drops its aggregate); precision_at_k, recall_at_k, f1_at_k and
-- judged_at_k are the engine's columns (see _ndcg_report_rows). Kept apart from the engine so that compare_rankers, compare_summary and ab_summary
-- do not bind (plan) these aggregates.
-- With only ndcg named (the default) the family is not even bound: the result is one of two
-- CTEs, _ndcg_only (the engine's rows, the list-scored columns NULL) or _ndcg_family, picked by name
-- with query_table from a constant condition on metrics (no user text goes into that name).
-- DuckDB 1.5 and 2.0 bind a CTE only when it is read, so the default report plans without the
-- family's aggregates (design_timings.md); DuckDB 1.4 binds every CTE of a
-- WITH, read or not, so there both are bound and only the one read is planned and run.
CREATE OR REPLACE MACRO _ndcg_report_metric_rows(rankings, events, k := NULL, slice_by := NULL,
                                                 query_col := NULL, item_col := NULL,
                                                 position_col := NULL, score_col := NULL,
                                                 ties := NULL, gain := NULL, log_base := NULL,
                                                 empty_ideal := NULL, duplicates := NULL,
                                                 event_col := NULL, mapping := NULL,
                                                 collapse := NULL, time_col := NULL,
                                                 unknown := NULL, metrics := NULL,
                                                 threshold := NULL, max_grade := NULL,
                                                 judged := NULL, value_col := NULL,
                                                 value_grades := NULL, bucket := NULL,
                                                 start := NULL, stop := NULL,
                                                 rankings_time_col := NULL) AS TABLE
WITH _ndcg_engine AS NOT MATERIALIZED (
    SELECT *
    FROM _ndcg_report_rows(rankings, events, k := k,
                           -- bucket adds the slice column `bucket` (_ndcg_report_rows makes it)
                           slice_by := CASE WHEN bucket IS NULL THEN _ndcg_slice_list(slice_by)
                                            ELSE list_append(_ndcg_slice_list(slice_by), 'bucket')
                                       END,
                           query_col := query_col, item_col := item_col,
                           position_col := position_col, score_col := score_col, ties := ties,
                           gain := gain, log_base := log_base, empty_ideal := empty_ideal,
                           duplicates := duplicates, event_col := event_col,
                           mapping := _ndcg_mapping(mapping), collapse := collapse,
                           time_col := time_col, unknown := unknown, metrics := metrics,
                           threshold := threshold, max_grade := max_grade, judged := judged,
                           value_col := value_col, value_grades := value_grades, bucket := bucket,
                           start := start, stop := stop, rankings_time_col := rankings_time_col)
),
_ndcg_only AS NOT MATERIALIZED (
    SELECT _key, _k, ndcg, dcg, idcg, shown, shown_relevant, relevant, precision_at_k,
           recall_at_k, f1_at_k, NULL::DOUBLE AS hit_rate, NULL::DOUBLE AS reciprocal_rank,
           NULL::DOUBLE AS average_precision, NULL::DOUBLE AS r_precision, NULL::DOUBLE AS err,
           NULL::DOUBLE AS rbp, judged_at_k
    FROM _ndcg_engine
),
_ndcg_family AS NOT MATERIALIZED (
    -- the report's columns are the same on every row of a group: any_value, not GROUP BY, so that
    -- DuckDB drops those a query does not read (and the window aggregates behind them)
    SELECT _key, _k, any_value(ndcg) AS ndcg, any_value(dcg) AS dcg, any_value(idcg) AS idcg,
           any_value(shown) AS shown, any_value(shown_relevant) AS shown_relevant,
           any_value(relevant) AS relevant,
           any_value(precision_at_k) AS precision_at_k, any_value(recall_at_k) AS recall_at_k,
           any_value(f1_at_k) AS f1_at_k,
           CASE WHEN list_contains(metrics, 'hit_rate') THEN
               hit_rate(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                        tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS hit_rate,
           CASE WHEN list_contains(metrics, 'reciprocal_rank') THEN
               reciprocal_rank(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                               tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS reciprocal_rank,
           CASE WHEN list_contains(metrics, 'average_precision') THEN
               average_precision(_j.rel, _j.rnk, _k, threshold := threshold, ties := ties,
                                 tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS average_precision,
           CASE WHEN list_contains(metrics, 'r_precision') THEN
               r_precision(_j.rel, _j.rnk, threshold := threshold, ties := ties,
                           tie_key := _j.i, empty_ideal := empty_ideal)
           END::DOUBLE AS r_precision,
           CASE WHEN list_contains(metrics, 'err') THEN
               CASE WHEN max(_j.rel) > _max_grade THEN
                        error('duckdb_ndcg: err needs grades between 0 and max_grade '
                              || _max_grade::VARCHAR || ', got ' || max(_j.rel)::VARCHAR
                              || ' (pass max_grade := <number> at least the largest grade; '
                              || 'collapse ''sum'' adds grades up)')
                    ELSE err(_j.rel, _j.rnk, _k, max_grade := _max_grade, ties := ties,
                             tie_key := _j.i)
               END
           END::DOUBLE AS err,
           CASE WHEN list_contains(metrics, 'rbp') THEN
               rbp(_j.rel, _j.rnk, k := _k, threshold := threshold, ties := ties,
                   tie_key := _j.i)
           END::DOUBLE AS rbp,
           any_value(judged_at_k) AS judged_at_k
    FROM (
        -- one row per row of the judged run (one, _j NULL, when no family metric is named)
        SELECT * EXCLUDE (_judged), unnest(coalesce(_judged, [NULL])) AS _j
        FROM _ndcg_engine
    ),
    (SELECT _ndcg_report_max_grade(max_grade, _ndcg_mapping(mapping), value_grades)
         AS _max_grade)
    GROUP BY _key, _k, _max_grade
)
-- the same columns either way, picked by the condition under which _ndcg_report_rows builds
-- the judged runs
SELECT *
FROM query_table(CASE WHEN _ndcg_report_has_family(metrics) THEN '_ndcg_family'
                      ELSE '_ndcg_only' END);
