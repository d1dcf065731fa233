-- _ndcg_read_fields(path): the whitespace-separated fields of each non-blank line of a text file,
-- with its line number (internal; the reader behind read_qrels and read_trec_run). Lines may end
-- in \n or \r\n, even mixed in one file (strict_mode = false).
CREATE OR REPLACE MACRO _ndcg_read_fields(path) AS TABLE
SELECT line_no, fields
FROM (
    SELECT row_number() OVER () AS line_no,
           list_filter(regexp_split_to_array(line, '\s+'), lambda f: f <> '') AS fields
    FROM read_csv(path, columns = {'line': 'VARCHAR'}, header = false, delim = '\0', quote = '',
                  escape = '', auto_detect = false, strict_mode = false)
)
WHERE len(fields) > 0;
