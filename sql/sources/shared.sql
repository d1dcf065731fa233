-- What the vendors' exports share: JSON text, the options of a source, the attribution window
-- (internal).

-- _ndcg_json_text(x) -> VARCHAR
-- A value as text (internal), a JSON value as its plain text: read_json gives a field holding
-- text in some documents and numbers in others (UBI's object_id, a timestamp as ISO text or
-- epoch millis) the type JSON, whose ::VARCHAR keeps the quotes ('"P"'). typeof folds to a
-- constant, so only one branch runs.
CREATE OR REPLACE MACRO _ndcg_json_text(x) AS
CASE WHEN typeof(x) = 'JSON' THEN json_extract_string(x::VARCHAR, '$') ELSE x::VARCHAR END;

-- _ndcg_source_options(attribution, attribution_window, position_base) -> BOOLEAN
-- true when the options the source adapters share are valid, else an error naming the first bad
-- one (internal): attribution 'last' or 'first'; attribution_window NULL (1 day), an INTERVAL
-- (or its text, '30 minutes') or a MAP from event name to INTERVAL; position_base 'auto', 0 or 1.
-- The adapters read it in a one-row CTE, so a bad option is refused on an empty export too.
CREATE OR REPLACE MACRO _ndcg_source_options(attribution, attribution_window, position_base) AS
CASE
    WHEN attribution IS NULL OR attribution NOT IN ('last', 'first') THEN
        error('duckdb_ndcg: attribution must be ''last'' or ''first'', got '
              || coalesce('''' || attribution || '''', 'NULL'))
    WHEN attribution_window IS NOT NULL
         AND TRY_CAST(attribution_window AS INTERVAL) IS NULL
         AND TRY_CAST(attribution_window AS MAP(VARCHAR, INTERVAL)) IS NULL THEN
        error('duckdb_ndcg: attribution_window must be an INTERVAL or a MAP from event name to '
              || 'INTERVAL (MAP {''select_item'': INTERVAL 30 MINUTE}), got '
              || attribution_window::VARCHAR)
    WHEN position_base IS NULL OR position_base::VARCHAR NOT IN ('auto', '0', '1') THEN
        error('duckdb_ndcg: position_base must be ''auto'' or 0 or 1, got '
              || coalesce(CASE WHEN typeof(position_base) = 'VARCHAR'
                               THEN '''' || position_base::VARCHAR || ''''
                               ELSE position_base::VARCHAR END, 'NULL'))
    ELSE true
END;

-- _ndcg_attribution_window(attribution_window, event_name) -> INTERVAL
-- How long after a showing an interaction of type `event_name` is still attributed to it
-- (internal): attribution_window NULL is 1 day for every type; an INTERVAL (or its text) is that
-- for every type; a MAP from event name to INTERVAL gives each named type its own, and 1 day to
-- the types it does not name.
CREATE OR REPLACE MACRO _ndcg_attribution_window(attribution_window, event_name) AS
coalesce(TRY_CAST(attribution_window AS INTERVAL),
         map_extract_value(TRY_CAST(attribution_window AS MAP(VARCHAR, INTERVAL)), event_name),
         INTERVAL 1 DAY);

-- _ndcg_attributed(acts, shown, attribution := ...)
--   -> TABLE(_row, _last STRUCT(t, q, p), _first STRUCT(t, q, p))
-- The showing each interaction is attributed to (internal; each source's interactions macro).
-- acts names a relation of (_row, _who, item_id, event_at, _from): an interaction (_row: its id,
-- of any type: a number, GA4's a UUID), under each of its identities (_who: one row each;
-- Segment's userId and anonymousId), and the start of its attribution window; shown names the
-- shown lists (user_id, item_id, shown_at, query_id, position). _last: the latest showing of the
-- item to the user at or before the interaction, however long before (the caller compares it
-- with _from); _first (attribution 'first' only, else NULL): the earliest showing from _from to
-- the interaction. Showings at equal times are ordered by query, then position, so the choice
-- never depends on row order.
-- Each is a window over the showings and the interactions of a (user, item) in time order: a
-- sort, which spills, whose cost grows with the rows. Pairing each interaction with every
-- earlier showing (a join) grew with their product: one user clicking an item 40,000 times that
-- was shown to them 40,000 times took 65 s, the windows 0.09 s
-- (benchmarks/results/design_timings.md).
CREATE OR REPLACE MACRO _ndcg_attributed(acts, shown, attribution := NULL) AS TABLE
WITH _ndcg_acting AS (
    SELECT _row, _who, item_id, event_at, _from
    FROM query_table(acts)
    WHERE _who IS NOT NULL AND item_id IS NOT NULL AND event_at IS NOT NULL
),
_ndcg_showings AS (
    -- only the showings of a (user, item) that has an interaction: the others fall in a window
    -- partition no interaction reads (a hash semi-join, so the sort below holds fewer rows)
    SELECT s.user_id AS _who, s.item_id, s.shown_at AS _t, s.query_id AS _q, s.position AS _p,
           {'t': s.shown_at, 'q': s.query_id, 'p': s.position} AS _showing
    FROM query_table(shown) s
    SEMI JOIN _ndcg_acting a ON s.user_id = a._who AND s.item_id = a.item_id
    WHERE s.user_id IS NOT NULL AND s.item_id IS NOT NULL AND s.shown_at IS NOT NULL
),
_ndcg_latest AS (
    -- each interaction takes the last showing before it: at equal times the showing comes first
    -- (_kind 0), so a showing at the interaction's time counts
    SELECT _row, _last
    FROM (SELECT _row, last_value(_showing IGNORE NULLS) OVER (
                     PARTITION BY _who, item_id ORDER BY _t, _kind, _q, _p
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _last
          FROM (SELECT _who, item_id, _t, 0 AS _kind, _q, _p, _showing, NULL AS _row
                FROM _ndcg_showings
                UNION ALL
                SELECT _who, item_id, event_at, 1, NULL, NULL, NULL, _row
                FROM _ndcg_acting))
    WHERE _row IS NOT NULL
),
_ndcg_earliest AS (
    -- 'first': a probe at the start of each interaction's window, ahead of the showings of its
    -- time (_kind -1), takes the first showing after it, kept when it is at or before the
    -- interaction; nothing for 'last' (a constant filter)
    SELECT _row, CASE WHEN _next.t <= _at THEN _next END AS _first
    FROM (SELECT _row, _at, first_value(_showing IGNORE NULLS) OVER (
                     PARTITION BY _who, item_id ORDER BY _t, _kind, _q, _p
                     ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS _next
          FROM (SELECT _who, item_id, _t, 0 AS _kind, _q, _p, _showing, NULL AS _row,
                       NULL::TIMESTAMP AS _at
                FROM _ndcg_showings
                WHERE attribution = 'first'
                UNION ALL
                SELECT _who, item_id, _from, -1, NULL, NULL, NULL, _row, event_at
                FROM _ndcg_acting
                WHERE attribution = 'first'))
    WHERE _row IS NOT NULL
)
-- an interaction under two identities: the latest of both, the earliest of both
SELECT _row, max(_last) AS _last, min(_first) AS _first
FROM (SELECT _row, _last, NULL AS _first FROM _ndcg_latest
      UNION ALL
      SELECT _row, NULL, _first FROM _ndcg_earliest)
GROUP BY _row;
