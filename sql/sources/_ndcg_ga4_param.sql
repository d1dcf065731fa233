-- _ndcg_ga4_param(params, name) -> VARCHAR
-- The value of GA4's event parameter `name` as text (internal): `params` is the export's
-- event_params, a list of STRUCT(key, value STRUCT(string_value, int_value, float_value,
-- double_value)); the first of the four values that is set (ga_session_id is an int_value,
-- search_term a string_value). NULL when the event has no such parameter.
CREATE OR REPLACE MACRO _ndcg_ga4_param(params, name) AS
coalesce(
    struct_extract(struct_extract(list_filter(params, lambda p: p.key = name)[1], 'value'),
                   'string_value')::VARCHAR,
    struct_extract(struct_extract(list_filter(params, lambda p: p.key = name)[1], 'value'),
                   'int_value')::VARCHAR,
    struct_extract(struct_extract(list_filter(params, lambda p: p.key = name)[1], 'value'),
                   'double_value')::VARCHAR,
    struct_extract(struct_extract(list_filter(params, lambda p: p.key = name)[1], 'value'),
                   'float_value')::VARCHAR);
