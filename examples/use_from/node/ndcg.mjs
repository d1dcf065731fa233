// The duckdb_ndcg macros from Node.js: open a DuckDB file that holds them (duckdb-ndcg install)
// and call them in SQL. No Python involved. Evidence, Cube and Malloy reach DuckDB the same way.
//   npm install && node ndcg.mjs metrics.duckdb
import { DuckDBInstance } from '@duckdb/node-api';

const path = process.argv[2] ?? 'metrics.duckdb';
const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
const connection = await instance.connect();

const list = await connection.runAndReadAll('SELECT list_ndcg([3, 2, 3, 0, 1, 2]) AS ndcg');
const summary = await connection.runAndReadAll(
  "SELECT device, k, queries, mean_ndcg FROM ndcg_summary('shown', 'events', k := [5, 10], " +
  "slice_by := ['device']) ORDER BY device, k");
const measure = await connection.runAndReadAll(
  'SELECT device, mean_ndcg(query_id, rel, rnk, 10) AS mean_ndcg_10 FROM judged_run ' +
  'GROUP BY device ORDER BY device');
const version = await connection.runAndReadAll('SELECT version() AS version');

console.log(JSON.stringify({
  version: version.getRowObjectsJson()[0].version,
  list_ndcg: list.getRowObjectsJson()[0].ndcg,
  summary: summary.getRowObjectsJson(),
  measure: measure.getRowObjectsJson(),
}));
connection.closeSync();
