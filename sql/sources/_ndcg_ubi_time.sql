-- _ndcg_ubi_time(ts) -> TIMESTAMP (UTC)
-- A UBI timestamp as a TIMESTAMP in UTC (internal): ISO 8601 text (with 'Z' or an offset, or
-- without, read as UTC), a DuckDB TIMESTAMP or TIMESTAMPTZ (read_json's guess), or a number of
-- milliseconds since 1970 (the events mapping's epoch_millis). OpenSearch indexes malformed
-- timestamps and ignores them (ignore_malformed): they are NULL here too. The times are carried
-- for the contract's shown_at and event_at; no UBI number depends on them.
CREATE OR REPLACE MACRO _ndcg_ubi_time(ts) AS
CASE
    WHEN _ndcg_json_text(ts) IS NULL THEN NULL
    WHEN regexp_full_match(trim(_ndcg_json_text(ts)), '[0-9]{1,16}') THEN
        make_timestamp(trim(_ndcg_json_text(ts))::BIGINT * 1000)
    WHEN regexp_matches(trim(_ndcg_json_text(ts)), '(Z|[+-][0-9]{2}(:?[0-9]{2})?)$') THEN
        make_timestamp(epoch_us(TRY_CAST(trim(_ndcg_json_text(ts)) AS TIMESTAMPTZ)))
    ELSE TRY_CAST(trim(_ndcg_json_text(ts)) AS TIMESTAMP)
END;
