-- _ndcg_json_text(x) -> VARCHAR
-- A value as text (internal), a JSON value as its plain text: read_json gives a field holding
-- text in some documents and numbers in others (UBI's object_id, a timestamp as ISO text or
-- epoch millis) the type JSON, whose ::VARCHAR keeps the quotes ('"P"'). typeof folds to a
-- constant, so only one branch runs.
CREATE OR REPLACE MACRO _ndcg_json_text(x) AS
CASE WHEN typeof(x) = 'JSON' THEN json_extract_string(x::VARCHAR, '$') ELSE x::VARCHAR END;
