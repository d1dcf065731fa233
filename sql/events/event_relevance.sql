-- event_relevance(events, query_col := 'query_id', item_col := 'item_id', event_col := 'event_type',
--                 mapping := NULL, collapse := 'max', time_col := NULL, unknown := 'error')
--   -> TABLE(query_id, item_id, rel DOUBLE)
-- Graded relevance from a log of user actions: one row per (query, item) of table `events` (a
-- name, quoted as in SQL when it needs quotes; a bare name works too), ready to be joined to a
-- ranking as judgments.
--   query_col, item_col, event_col  names (strings) of the columns of `events` to read.
--   mapping    MAP from event type to grade; NULL = the seeds' default: impression/view 0,
--              click 1, add_to_cart/cart 2, purchase 3 (exact, case-sensitive names). A given map
--              replaces the default. A mapping kept in a table can be passed as a subquery:
--              mapping := (SELECT map(list(event_type), list(grade)) FROM my_mapping).
--              A STRUCT literal ({'click': 1}) or a MAP's text form ('{click=1, purchase=3}', as
--              gain takes) is read as that MAP; any other value is an error.
--   collapse   how the events of one (query, item) become one grade: 'max' (best action), 'sum'
--              (grades add up), 'last' (grade of the latest event by time_col; equal times keep
--              the higher grade; a NULL time counts as earlier than every time). Any other
--              value (NULL, 'mean', 'MAX': choices are exact) is an error, whatever unknown is.
--   time_col   name of the timestamp column; needed by collapse := 'last' only, and must be a
--              date, time, timestamp or number (text would compare alphabetically).
--   unknown    'error': an event type the mapping lacks is an error listing every such type;
--              'ignore': such rows are dropped (a (query, item) with only unknown events is left
--              out, so it is not judged).
-- A NULL query key is an error. An event without an item (a search-level event such as
-- search_refine) is dropped when its type's grade is 0 or the type is ignored (unknown :=
-- 'ignore'), and is an error when its type has another grade; evaluate() and the CLI warn with
-- the number dropped (in SQL: count the events whose item is NULL). A NULL event type is an
-- unknown type.
-- Example: SELECT * FROM event_relevance('events', mapping := MAP {'click': 1, 'order': 5});
CREATE OR REPLACE MACRO event_relevance(events, query_col := 'query_id', item_col := 'item_id',
                                        event_col := 'event_type', mapping := NULL,
                                        collapse := 'max', time_col := NULL,
                                        unknown := 'error') AS TABLE
SELECT * FROM _ndcg_event_relevance(events, query_col, item_col, event_col,
                                    _ndcg_mapping(mapping), collapse, time_col, unknown, false);
