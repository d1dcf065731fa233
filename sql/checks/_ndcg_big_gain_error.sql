-- _ndcg_big_gain_error(rel, gain): the error for a grade whose gain exceeds 1e300 (internal). DCG
-- sums such gains and would overflow DOUBLE to infinity (NaN NDCG), so they are refused: linear
-- grades up to 1e300, exponential grades below 997 (2^997 - 1 > 1e300).
CREATE OR REPLACE MACRO _ndcg_big_gain_error(rel, gain) AS
error('duckdb_ndcg: grade ' || rel::VARCHAR || ' is too large for gain '''
      || gain::VARCHAR || ''': its gain exceeds 1e300 and DCG sums would overflow DOUBLE'
      || CASE WHEN gain::VARCHAR = 'exponential' THEN ' (exponential gain needs grades below 997)'
              ELSE '' END);
