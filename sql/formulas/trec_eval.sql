-- trec_eval 10's own measures, ported from its m_*.c files (internal; duckdb-ndcg trec and
-- duckdb_ndcg.measures read them). Each takes one query's returned rows as trec_eval's relevance
-- codes in its order (score descending, document id descending): rels, a BIGINT list whose values
-- are a judged grade (>= 0), -1 (not in the qrels: "not in the pool") or -2 (a negative grade in
-- the qrels: "in the pool, unjudged"). The gain measures also take ideal: the positive gains of
-- the query's judged documents, largest first (_ndcg_trec_ideal), and gains: a MAP from grade to
-- gain (trec_eval's "level=gain" parameters; a grade not in it gains its own value, a code below 0
-- gains 0). Running sums are list_reduce folds whose start value leads the list (DuckDB 1.4's
-- list_reduce takes no start of another type than the elements, see err.sql): trec_eval's loops
-- in its order of additions, so its printed 4 decimals come out the same.

-- _ndcg_trec_gain(code, gains): trec_eval's gain of a relevance code (gain_init.c get_gain): the
-- MAP's gain of the grade, else the grade; 0 for a code below 0 (internal).
CREATE OR REPLACE MACRO _ndcg_trec_gain(code, gains) AS
CASE WHEN code < 0 THEN 0.0::DOUBLE
     ELSE coalesce(map_extract_value(gains, code::DOUBLE), code::DOUBLE) END;

-- _ndcg_trec_ideal(judged, gains): the ideal ranking's positive gains, largest first, of the
-- judged grades judged (>= 0) (internal; m_ndcg.c's walk down the gain levels, which stops at
-- the first gain <= 0).
CREATE OR REPLACE MACRO _ndcg_trec_ideal(judged, gains) AS
list_reverse_sort(list_filter(list_transform(judged, lambda g: _ndcg_trec_gain(g, gains)),
                              lambda g: g > 0));

-- _ndcg_trec_infap(rels, relevant, level): trec_eval infAP (m_infap.c, Yilmaz & Aslam): at each
-- judged relevant row (grade >= level) at 0-based position j, with r relevant, n judged
-- non-relevant and u pooled-unjudged rows before it, 1 if j = 0, else
-- 1/(j+1) + (j/(j+1)) ((r + n + u)/j) ((r + eps)/(r + n + 2 eps)), eps = 1e-5; rows not in the
-- pool count in j only. The sum over relevant (the query's judged relevant documents); 0 when 0.
CREATE OR REPLACE MACRO _ndcg_trec_infap(rels, relevant, level) AS
CASE WHEN relevant > 0 THEN list_reduce(list_concat(
    [{c: 0::BIGINT, j: 0::BIGINT, r: 0::BIGINT, n: 0::BIGINT, u: 0::BIGINT, s: 0.0::DOUBLE}],
    list_transform(rels, lambda c: {c: c, j: 0::BIGINT, r: 0::BIGINT, n: 0::BIGINT,
                                    u: 0::BIGINT, s: 0.0::DOUBLE})),
    lambda a, x: CASE
        WHEN x.c < 0 THEN {c: 0, j: a.j + 1, r: a.r, n: a.n, u: a.u + (x.c = -2)::BIGINT, s: a.s}
        WHEN x.c < level THEN {c: 0, j: a.j + 1, r: a.r, n: a.n + 1, u: a.u, s: a.s}
        ELSE {c: 0, j: a.j + 1, r: a.r + 1, n: a.n, u: a.u, s: a.s + CASE
            WHEN a.j = 0 THEN 1.0
            ELSE 1.0 / (a.j + 1.0) + (a.j / (a.j + 1.0)) * ((a.r + a.n + a.u) / a.j::DOUBLE)
                 * ((a.r + 0.00001) / (a.r + a.n + 2 * 0.00001)) END}
    END).s / relevant
ELSE 0.0 END;

-- _ndcg_trec_bing(rels, relevant, level): trec_eval binG (m_binG.c): the sum over the relevant
-- returned rows (grade >= level) of 1 / log2(2 + the rows before it that are not relevant), over
-- relevant (the query's relevant documents); 0 when none is returned.
CREATE OR REPLACE MACRO _ndcg_trec_bing(rels, relevant, level) AS
list_transform([list_filter(list_transform(rels, lambda c, i: CASE WHEN c >= level THEN i END),
                            lambda i: i IS NOT NULL)], lambda hits:
    CASE WHEN len(hits) > 0 THEN
        list_sum(list_transform(hits, lambda i, m: 1.0 / log2(2 + i - m))) / relevant
    ELSE 0.0 END)[1];

-- _ndcg_trec_ndcg(rels, ideal, gains): trec_eval ndcg with gains (m_ndcg.c, "ndcg.1=3,2=9"): the
-- DCG of the returned rows' gains (log2(position + 1)) over the ideal's; a negative gain counts in
-- the DCG, not in the ideal; 0 when the ideal DCG is 0.
CREATE OR REPLACE MACRO _ndcg_trec_ndcg(rels, ideal, gains) AS
list_transform([coalesce(list_sum(list_transform(ideal, lambda g, i: g / log2(i + 1))), 0.0)],
               lambda best: CASE WHEN best > 0 THEN
    coalesce(list_sum(list_transform(rels, lambda c, i: _ndcg_trec_gain(c, gains) / log2(i + 1))),
             0.0) / best
ELSE 0.0 END)[1];

-- _ndcg_trec_ndcg_rel(rels, ideal, gains): trec_eval ndcg_rel (m_ndcg_rel.c): nDCG at each returned
-- row of positive gain, and the final nDCG for each of the ideal's rows not returned, averaged
-- over the ideal's len(ideal) rows; 0 when that sum is not positive. Each row carries what it
-- adds to the DCG (d) and the ideal DCG (b), so the fold's lambda holds no other lambda.
CREATE OR REPLACE MACRO _ndcg_trec_ndcg_rel(rels, ideal, gains) AS
list_transform([{ideal: ideal, gs: list_transform(rels, lambda c: _ndcg_trec_gain(c, gains))}],
               lambda q: list_transform([{f: list_reduce(list_concat(
    [{g: 0.0::DOUBLE, d: 0.0::DOUBLE, b: 0.0::DOUBLE, s: 0.0::DOUBLE, n: 0::BIGINT}],
    list_transform(q.gs, lambda g, i: {
        g: g, d: CASE WHEN g <> 0 THEN g / log2(i + 1) ELSE 0.0 END,
        b: CASE WHEN coalesce(q.ideal[i], 0) > 0 THEN q.ideal[i] / log2(i + 1) ELSE 0.0 END,
        s: 0.0::DOUBLE, n: 0::BIGINT})),
    lambda a, x: {g: 0.0::DOUBLE, d: a.d + x.d, b: a.b + x.b,
                  s: a.s + CASE WHEN x.g > 0 THEN (a.d + x.d) / (a.b + x.b) ELSE 0.0 END,
                  n: a.n + (x.g > 0)::BIGINT}),
    best: coalesce(list_sum(list_transform(q.ideal, lambda g, i: g / log2(i + 1))), 0.0),
    m: len(q.ideal)}], lambda v:
    CASE WHEN v.m > 0 AND v.f.s + (v.m - v.f.n) * v.f.d / v.best > 0
         THEN (v.f.s + (v.m - v.f.n) * v.f.d / v.best) / v.m
    ELSE 0.0 END)[1])[1];

-- _ndcg_trec_rndcg(rels, ideal, gains, relevant): trec_eval Rndcg (m_Rndcg.c): nDCG at each
-- position where the ideal's gain changes (the R levels: after the rows of each gain, up to
-- its end), and at the last returned row when the ideal ends before it, averaged; 0 when relevant
-- (the query's relevant documents) is 0 or there is no such position. Position i (up to the
-- ideal's end, len(ideal) + 1, or the last returned row) carries what it adds to the DCG (d) and
-- the ideal DCG (b), and whether the ideal's gain changes before it (cut: nDCG at i - 1).
CREATE OR REPLACE MACRO _ndcg_trec_rndcg(rels, ideal, gains, relevant) AS
CASE WHEN relevant > 0 THEN
list_transform([{ideal: ideal, gs: list_transform(rels, lambda c: _ndcg_trec_gain(c, gains))}],
               lambda q: list_transform([list_reduce(list_concat(
    [{cut: false, d: 0.0::DOUBLE, b: 0.0::DOUBLE, s: 0.0::DOUBLE, n: 0::BIGINT}],
    list_transform(range(1, greatest(len(q.gs), len(q.ideal) + 1) + 1), lambda i: {
        cut: i >= 2 AND i <= len(q.ideal) + 1 AND coalesce(q.ideal[i], 0) <> q.ideal[i - 1],
        d: CASE WHEN coalesce(q.gs[i], 0) <> 0 THEN q.gs[i] / log2(i + 1) ELSE 0.0 END,
        b: CASE WHEN coalesce(q.ideal[i], 0) > 0 THEN q.ideal[i] / log2(i + 1) ELSE 0.0 END,
        s: 0.0::DOUBLE, n: 0::BIGINT})),
    lambda a, x: {cut: false, d: a.d + x.d, b: a.b + x.b,
                  s: a.s + CASE WHEN x.cut AND a.b > 0 THEN a.d / a.b ELSE 0.0 END,
                  n: a.n + (x.cut AND a.b > 0)::BIGINT})], lambda f:
    -- the ideal ends before the last returned row: nDCG at that row too
    CASE WHEN len(q.ideal) + 1 < len(q.gs) AND f.b > 0 THEN (f.s + f.d / f.b) / (f.n + 1)
         WHEN f.n > 0 THEN f.s / f.n
         ELSE 0.0 END)[1])[1]
ELSE 0.0 END;

-- _ndcg_trec_g(rels, ideal, gains): trec_eval G (m_G.c): the sum over the returned rows of
-- gain / log2(2 + cost - gained), cost the sum up to the row of the ideal's gains (1 where the
-- ideal's gain is below 1) and gained the sum of the returned rows' gains, over the ideal's
-- total gain; 0 when that is 0. Each row carries its gain (g) and cost (c).
CREATE OR REPLACE MACRO _ndcg_trec_g(rels, ideal, gains) AS
list_transform([{ideal: ideal, best: coalesce(list_sum(ideal), 0.0)}], lambda q:
CASE WHEN q.best > 0 THEN
    list_reduce(list_concat(
        [{g: 0.0::DOUBLE, r: 0.0::DOUBLE, c: 0.0::DOUBLE, s: 0.0::DOUBLE}],
        list_transform(rels, lambda c, i: {
            g: _ndcg_trec_gain(c, gains), r: 0.0::DOUBLE,
            c: CASE WHEN coalesce(q.ideal[i], 0) >= 1 THEN q.ideal[i] ELSE 1.0 END,
            s: 0.0::DOUBLE})),
        lambda a, x: {g: 0.0::DOUBLE, r: a.r + x.g, c: a.c + x.c,
                      s: a.s + CASE WHEN x.g <> 0 THEN x.g / log2(2 + (a.c + x.c) - (a.r + x.g))
                                    ELSE 0.0 END}).s / q.best
ELSE 0.0 END)[1];

-- _ndcg_trec_rbp(rels, judged, p, gains): trec_eval rbp (m_rbp.c): (1 - p) times the sum of
-- gain p^(position - 1) over the returned rows. The gains of the grade levels 0 .. the query's
-- highest judged grade and of gains' levels are rescaled to [0, 1] by (gain - min) / (max - min)
-- when one lies outside (trec_eval 10 starts min and max uninitialised; this is the intended
-- reading, which its test outputs match); other codes gain 0.
CREATE OR REPLACE MACRO _ndcg_trec_rbp(rels, judged, p, gains) AS
list_transform([list_concat(
    list_transform(range(0, coalesce(list_max(judged), -1)::BIGINT + 1),
                   lambda l: _ndcg_trec_gain(l, gains)),
    map_values(gains))], lambda levels:
list_transform([{lo: list_min(levels), hi: list_max(levels)}], lambda m:
    (1.0 - p) * list_reduce(list_concat(
        [{g: 0.0::DOUBLE, w: 1.0::DOUBLE, s: 0.0::DOUBLE}],
        list_transform(rels, lambda c: {
            g: CASE WHEN c < 0 THEN 0.0::DOUBLE
                    WHEN m.lo < 0 OR m.hi > 1
                    THEN (_ndcg_trec_gain(c, gains) - m.lo) / (m.hi - m.lo)
                    ELSE _ndcg_trec_gain(c, gains) END,
            w: 0.0::DOUBLE, s: 0.0::DOUBLE})),
        lambda a, x: {g: 0.0::DOUBLE, w: a.w * p,
                      s: a.s + CASE WHEN x.g <> 0 THEN x.g * a.w ELSE 0.0 END}).s)[1])[1];

-- _ndcg_trec_rbp_resid(rels, p): trec_eval rbp_resid (m_rbp_resid.c): p^n + (1 - p) times the sum
-- of p^(position - 1) over the returned rows that are not judged (code < 0), n the returned rows;
-- 0 when every returned row is judged (as trec_eval prints it).
CREATE OR REPLACE MACRO _ndcg_trec_rbp_resid(rels, p) AS
list_transform([list_reduce(list_concat(
    [{c: 0::BIGINT, w: 1.0::DOUBLE, s: 0.0::DOUBLE, u: 0::BIGINT}],
    list_transform(rels, lambda c: {c: c, w: 0.0::DOUBLE, s: 0.0::DOUBLE, u: 0::BIGINT})),
    lambda a, x: {c: 0::BIGINT, w: a.w * p, s: a.s + CASE WHEN x.c < 0 THEN a.w ELSE 0.0 END,
                  u: a.u + (x.c < 0)::BIGINT})], lambda f:
    CASE WHEN f.u > 0 THEN f.w + (1 - p) * f.s ELSE 0.0 END)[1];

-- _ndcg_trec_unj(rels, cutoff): trec_eval unj (m_unjudged.c): the returned rows among the first
-- cutoff that are not judged (code < 0), over cutoff (rows past the returned ones count as
-- judged).
CREATE OR REPLACE MACRO _ndcg_trec_unj(rels, cutoff) AS
len(list_filter(rels[1:cutoff], lambda c: c < 0)) / cutoff::DOUBLE;

-- _ndcg_trec_relstring(rels, n): trec_eval relstring (m_relstring.c): one character for each of
-- the first n returned rows: its grade 0..9, '>' above 9, '-' not in the pool, '.' pooled but
-- unjudged.
CREATE OR REPLACE MACRO _ndcg_trec_relstring(rels, n) AS
array_to_string(list_transform(rels[1:n], lambda c: CASE
    WHEN c > 9 THEN '>' WHEN c >= 0 THEN c::VARCHAR WHEN c = -1 THEN '-' WHEN c = -2 THEN '.'
    ELSE '<' END), '');
