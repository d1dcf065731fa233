-- _ndcg_slice_list(slice_by) -> VARCHAR[]
-- slice_by as a list of column names (internal): a list as given, one name given as text
-- ('device', a common slip for ['device']) as a list of it; a list's text form ('[device, day]')
-- is read as that list, as gain reads a map's text form; NULL stays NULL.
CREATE OR REPLACE MACRO _ndcg_slice_list(slice_by) AS
CASE WHEN slice_by IS NULL THEN NULL
     ELSE coalesce(TRY_CAST(slice_by AS VARCHAR[]), [slice_by::VARCHAR]) END;
