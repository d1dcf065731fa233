-- _ndcg_row_dcg(keys, r, g, log_base): the discounted gain of one row of rank key r and gain g in a
-- ranking whose rank keys, ascending, are keys (r among them): g / discount(position), or, when
-- other rows share its key, g times the mean of 1 / discount over the positions of its tie group
-- (McSherry & Najork; scikit-learn). The group must end inside keys (internal).
CREATE OR REPLACE MACRO _ndcg_row_dcg(keys, r, g, log_base) AS
CASE
    WHEN keys[list_position(keys, r) + 1] IS DISTINCT FROM r THEN
        g / _ndcg_discount(list_position(keys, r), log_base)
    ELSE g * list_avg(list_transform(
        range(list_position(keys, r), len(keys) + 2 - list_position(list_reverse(keys), r)),
        lambda q: 1.0 / _ndcg_discount(q, log_base)))
END;
