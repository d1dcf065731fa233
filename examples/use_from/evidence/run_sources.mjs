// Run every source query the way `npm run sources` does in an Evidence project: for each folder
// under sources/, the DuckDB connector's runner (getRunner) on each .sql file, with the options of
// connection.yaml. Prints {source: {query: rows}} as JSON.
//   npm install && node run_sources.mjs
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import duckdb from '@evidence-dev/duckdb';

const root = path.resolve('sources');
const out = {};
for (const source of (await readdir(root)).sort()) {
  const directory = path.join(root, source);
  const yaml = await readFile(path.join(directory, 'connection.yaml'), 'utf-8');
  // the one option these sources set; Evidence reads connection.yaml with a YAML parser
  const filename = yaml.match(/^\s*filename:\s*"?([^"\n]+)"?\s*$/m)[1];
  const runner = await duckdb.getRunner({ filename }, directory);
  out[source] = {};
  for (const file of (await readdir(directory)).sort()) {
    if (!file.endsWith('.sql') || file === 'initialize.sql') continue;
    const text = await readFile(path.join(directory, file), 'utf-8');
    const result = await runner(text, path.join(directory, file), 1000);
    const rows = [];
    for await (const batch of result.rows()) rows.push(...batch);
    out[source][file] = rows;
  }
}
console.log(JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? Number(v) : v)));
