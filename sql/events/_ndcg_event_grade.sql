-- _ndcg_event_grade(event_type, mapping): the grade of one event type (internal). mapping NULL is
-- the default mapping: impression/view 0, click 1, add_to_cart/cart 2, purchase 3 (the seeds'
-- grades); otherwise mapping is a MAP from event type to grade. NULL for a type the mapping lacks.
CREATE OR REPLACE MACRO _ndcg_event_grade(event_type, mapping) AS
CASE
    WHEN mapping IS NULL THEN
        CASE event_type::VARCHAR
            WHEN 'impression' THEN 0.0 WHEN 'view' THEN 0.0
            WHEN 'click' THEN 1.0
            WHEN 'add_to_cart' THEN 2.0 WHEN 'cart' THEN 2.0
            WHEN 'purchase' THEN 3.0
        END
    ELSE map_extract_value(mapping, event_type::VARCHAR)
END::DOUBLE;
