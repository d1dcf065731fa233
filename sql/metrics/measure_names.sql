-- Measures as IR people write them, read in SQL: the names of the three grammars (ir_measures,
-- trec_eval, ranx) as data, and parse_measures, which reads a string of them into one row per
-- measure. The same reading as Python's duckdb_ndcg.measures.parse_measures (the spec; tests
-- compare the two), for the measures measures_report computes; a string the SQL reader does not
-- take (ir_measures gains, trec_eval's own gain and RBP measures) is an error that says so.

-- _ndcg_measure_names() -> TABLE(family, name, target, metric, params, at_param, summary, rel,
--                                dcg, cuts, note)  (internal)
-- One row per name of a grammar: for ir_measures a measure (target NULL: metric, the parameters
-- it takes, what @x sets, how queries combine), an alias (target the measure, rel a fixed rel) or
-- a measure not computed (note); for trec_eval its ir_measures measure (target), what its .list
-- sets (at_param) and the list without one (cuts); for ranx its measure and fixed dcg. A name
-- with a note is an error whose message is the note.
CREATE OR REPLACE MACRO _ndcg_measure_names() AS TABLE
SELECT * FROM (VALUES
    ('ir_measures', 'nDCG', NULL, 'ndcg', ['cutoff', 'dcg', 'gains', 'judged_only'], 'cutoff', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'P', NULL, 'precision_at_k', ['cutoff', 'rel', 'judged_only'], 'cutoff', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'R', NULL, 'recall_at_k', ['cutoff', 'rel', 'judged_only'], 'cutoff', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'AP', NULL, 'average_precision', ['cutoff', 'rel', 'judged_only'], 'cutoff', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'RR', NULL, 'reciprocal_rank', ['cutoff', 'rel', 'judged_only'], 'cutoff', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'Rprec', NULL, 'r_precision', ['rel', 'judged_only'], NULL, 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'Bpref', NULL, 'bpref', ['rel'], NULL, 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'Judged', NULL, 'judged_at_k', ['cutoff'], 'cutoff', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'Success', NULL, 'hit_rate', ['cutoff', 'rel', 'judged_only'], 'cutoff', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'RBP', NULL, 'rbp', ['cutoff', 'p', 'rel'], 'cutoff', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'IPrec', NULL, 'iprec', ['recall', 'rel', 'judged_only'], 'recall', 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'SetP', NULL, 'precision_at_k', ['rel', 'judged_only'], NULL, 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'SetR', NULL, 'recall_at_k', ['rel'], NULL, 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'SetF', NULL, 'f1_at_k', ['rel', 'beta', 'judged_only'], NULL, 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'SetAP', NULL, 'set_ap', ['rel', 'judged_only'], NULL, 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'SetRelP', NULL, 'set_rel_p', ['rel', 'judged_only'], NULL, 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'infAP', NULL, 'infap', ['rel'], NULL, 'mean', NULL, NULL, NULL, NULL),
    ('ir_measures', 'NumQ', NULL, 'num_q', []::VARCHAR[], NULL, 'sum', NULL, NULL, NULL, NULL),
    ('ir_measures', 'NumRet', NULL, 'num_ret', ['rel'], NULL, 'sum', NULL, NULL, NULL, NULL),
    ('ir_measures', 'NumRel', NULL, 'num_rel', ['rel'], NULL, 'sum', NULL, NULL, NULL, NULL),
    ('ir_measures', 'MAP', 'AP', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ir_measures', 'MRR', 'RR', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ir_measures', 'Precision', 'P', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ir_measures', 'Recall', 'R', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ir_measures', 'NumRelRet', 'NumRet', NULL, NULL, NULL, NULL, 1, NULL, NULL, NULL),
    ('ir_measures', 'ERR', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures ERR is not computed by this engine'),
    ('ir_measures', 'SDCG', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures SDCG is not computed by this engine'),
    ('ir_measures', 'NERR8', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures NERR8 is not computed by this engine'),
    ('ir_measures', 'NERR9', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures NERR9 is not computed by this engine'),
    ('ir_measures', 'NERR10', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures NERR10 is not computed by this engine'),
    ('ir_measures', 'NERR11', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures NERR11 is not computed by this engine'),
    ('ir_measures', 'INST', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures INST is not computed by this engine'),
    ('ir_measures', 'INSQ', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures INSQ is not computed by this engine'),
    ('ir_measures', 'BPM', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures BPM is not computed by this engine'),
    ('ir_measures', 'Compat', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures Compat is not computed by this engine'),
    ('ir_measures', 'Accuracy', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures Accuracy is not computed by this engine'),
    ('ir_measures', 'StRecall', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures StRecall is not computed by this engine'),
    ('ir_measures', 'alpha_nDCG', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures alpha_nDCG is not computed by this engine'),
    ('ir_measures', 'NRBP', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ir_measures NRBP is not computed by this engine'),
    -- trec_eval, in the order it prints its measures; cuts: its default cutoffs or recall levels
    ('trec_eval', 'runid', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval runid is not computed by this engine'),
    ('trec_eval', 'num_q', 'NumQ', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'num_ret', 'NumRet', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'num_rel', 'NumRel', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'num_rel_ret', 'NumRet', NULL, NULL, NULL, NULL, 1, NULL, NULL, NULL),
    ('trec_eval', 'map', 'AP', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'gm_map', 'AP', NULL, NULL, NULL, 'gmean', NULL, NULL, NULL, NULL),
    ('trec_eval', 'Rprec', 'Rprec', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'bpref', 'Bpref', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'recip_rank', 'RR', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'iprec_at_recall', 'IPrec', NULL, NULL, 'recall', NULL, NULL, NULL, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], NULL),
    ('trec_eval', 'P', 'P', NULL, NULL, 'cutoff', NULL, NULL, NULL, [5, 10, 15, 20, 30, 100, 200, 500, 1000], NULL),
    ('trec_eval', 'recall', 'R', NULL, NULL, 'cutoff', NULL, NULL, NULL, [5, 10, 15, 20, 30, 100, 200, 500, 1000], NULL),
    ('trec_eval', 'infAP', 'infAP', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'gm_bpref', 'Bpref', NULL, NULL, NULL, 'gmean', NULL, NULL, NULL, NULL),
    ('trec_eval', 'ndcg', 'nDCG', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'ndcg_cut', 'nDCG', NULL, NULL, 'cutoff', NULL, NULL, NULL, [5, 10, 15, 20, 30, 100, 200, 500, 1000], NULL),
    ('trec_eval', 'map_cut', 'AP', NULL, NULL, 'cutoff', NULL, NULL, NULL, [5, 10, 15, 20, 30, 100, 200, 500, 1000], NULL),
    ('trec_eval', 'success', 'Success', NULL, NULL, 'cutoff', NULL, NULL, NULL, [1, 5, 10], NULL),
    ('trec_eval', 'set_P', 'SetP', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'set_relative_P', 'SetRelP', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'set_recall', 'SetR', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'set_map', 'SetAP', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'set_F', 'SetF', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('trec_eval', 'num_nonrel_judged_ret', 'NumNonRelJudgedRet', 'num_nonrel_judged_ret', []::VARCHAR[], NULL, 'sum', 1, NULL, NULL, NULL),
    ('trec_eval', 'relstring', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval relstring is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'unj', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval unj is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'rbp', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval rbp is read by duckdb-ndcg trec, not in SQL (RBP(rel=1) is binary RBP)'),
    ('trec_eval', 'rbp_resid', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval rbp_resid is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'utility', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval utility is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', '11pt_avg', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval 11pt_avg is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'relative_P', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval relative_P is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'Rprec_mult', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval Rprec_mult is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'ndcg_rel', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval ndcg_rel is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'Rndcg', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval Rndcg is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'binG', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval binG is read by duckdb-ndcg trec, not in SQL'),
    ('trec_eval', 'G', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'trec_eval G is read by duckdb-ndcg trec, not in SQL'),
    -- ranx
    ('ranx', 'ndcg', 'nDCG', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ranx', 'ndcg_burges', 'nDCG', NULL, NULL, NULL, NULL, NULL, 'exp-log2', NULL, NULL),
    ('ranx', 'map', 'AP', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ranx', 'mrr', 'RR', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ranx', 'precision', 'P', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ranx', 'recall', 'R', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ranx', 'hit_rate', 'Success', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ranx', 'r-precision', 'Rprec', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ranx', 'f1', 'SetF', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    ('ranx', 'hits', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ranx hits (a count of relevant items) is not computed; use precision@k'),
    ('ranx', 'bpref', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ranx bpref differs from trec_eval''s and is not computed; Bpref is trec_eval''s'),
    ('ranx', 'rbp', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ranx rbp weighs grades and is not computed; RBP(p=..., rel=1) is binary RBP'),
    ('ranx', 'dcg', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ranx dcg is not computed here; use the dcg aggregate'),
    ('ranx', 'dcg_burges', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ranx dcg_burges is not computed here; use the dcg aggregate')
) AS names(family, name, target, metric, params, at_param, summary, rel, dcg, cuts, note);

-- _ndcg_measure_quote(text) -> VARCHAR: text quoted as Python's repr quotes it, for the messages
-- (internal).
CREATE OR REPLACE MACRO _ndcg_measure_quote(text) AS
CASE WHEN contains(text, '''') AND NOT contains(text, '"') THEN '"' || text || '"'
     ELSE '''' || text || '''' END;

-- _ndcg_measure_value_error(token, param, v, after_at) -> VARCHAR: the error of a parameter's value v
-- (its text as written; after_at: written after @, a string to ir_measures), NULL when it is good
-- (internal): cutoff a whole number >= 1, recall a level in [0, 1], rel a whole grade,
-- judged_only True or False, dcg 'log2' or 'exp-log2', p in (0, 1), beta 1.
CREATE OR REPLACE MACRO _ndcg_measure_value_error(token, param, v, after_at) AS
CASE WHEN CASE param
        WHEN 'cutoff' THEN NOT coalesce(regexp_matches(trim(v), '^[0-9]+$')
                                        AND TRY_CAST(trim(v) AS HUGEINT) >= 1, false)
        WHEN 'recall' THEN NOT coalesce(TRY_CAST(trim(v) AS DOUBLE) BETWEEN 0 AND 1, false)
        WHEN 'rel' THEN NOT regexp_matches(v, '^[+-]?[0-9]+$')
        WHEN 'judged_only' THEN v NOT IN ('True', 'False')
        WHEN 'dcg' THEN v NOT IN ('''log2''', '"log2"', '''exp-log2''', '"exp-log2"')
        WHEN 'p' THEN NOT coalesce(
            regexp_matches(v, '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$')
            AND TRY_CAST(v AS DOUBLE) > 0 AND TRY_CAST(v AS DOUBLE) < 1, false)
        WHEN 'beta' THEN NOT coalesce(TRY_CAST(v AS DOUBLE) = 1 OR v = 'True', false)
     END THEN
    'measure ' || _ndcg_measure_quote(token) || ': ' || param || ' must be ' || CASE param
        WHEN 'cutoff' THEN 'a whole number >= 1'
        WHEN 'recall' THEN 'a recall level between 0 and 1'
        WHEN 'rel' THEN 'a whole number (the least relevant grade)'
        WHEN 'judged_only' THEN 'True or False'
        WHEN 'dcg' THEN '''log2'' or ''exp-log2'''
        WHEN 'p' THEN 'a number between 0 and 1'
        WHEN 'beta' THEN '1 (only beta=1, F1, is computed)'
    END || ', got ' || CASE WHEN after_at THEN _ndcg_measure_quote(v) ELSE v END
END;

-- _ndcg_measure_param(ps, name) -> VARCHAR: the text of the last parameter called name in ps, a
-- list of {k, v, after_at}; NULL when none (internal).
CREATE OR REPLACE MACRO _ndcg_measure_param(ps, name) AS
list_filter(ps, lambda x: x.k = name)[-1].v;

-- _ndcg_measure_from(token, spec, ps, min_grade, full_ideal, summary, rounding)
--   -> STRUCT(error VARCHAR, m STRUCT(...))  (internal)
-- The measure of the ir_measures measure spec (a row of _ndcg_measure_names) with the parameters
-- ps (a list of {k, v, after_at}, the last of a name winning), as Python's measures._measure reads it:
-- its canonical label (the parameters that differ from their defaults, in one order; @ the cutoff
-- or recall level; GM_ when queries combine by geometric mean), the engine metric and its
-- options; or the error of a parameter the measure does not take or a bad value. min_grade: ranx
-- -lN on nDCG; full_ideal: false for ranx's nDCG without @k; rounding: trec_eval 10's IPrec.
CREATE OR REPLACE MACRO _ndcg_measure_from(token, spec, ps, min_grade, full_ideal, summary,
                                           rounding) AS
CASE
    WHEN len(list_filter(ps, lambda x: NOT list_contains(spec.params, x.k))) > 0 THEN
        {error: 'measure ' || _ndcg_measure_quote(token) || ': ' || spec.name
                || ' does not take '
                || list_filter(ps, lambda x: NOT list_contains(spec.params, x.k))[1].k
                || ' (takes ' || CASE WHEN len(spec.params) = 0 THEN 'no parameters'
                                      ELSE array_to_string(spec.params, ', ') END || ')',
         m: NULL}
    WHEN len(list_filter(ps, lambda x: _ndcg_measure_value_error(token, x.k, x.v, x.after_at) IS NOT NULL)) > 0 THEN
        {error: list_filter(list_transform(ps, lambda x: _ndcg_measure_value_error(token, x.k, x.v, x.after_at)),
                            lambda e: e IS NOT NULL)[1],
         m: NULL}
    WHEN spec.name = 'RBP' AND _ndcg_measure_param(ps, 'rel') IS NULL THEN
        {error: 'measure ' || _ndcg_measure_quote(token) || ': RBP without rel weighs grades, '
                || 'which this engine does not compute; write RBP(rel=1) for binary RBP', m: NULL}
    WHEN spec.name = 'IPrec' AND _ndcg_measure_param(ps, 'recall') IS NULL THEN
        {error: 'measure ' || _ndcg_measure_quote(token)
                || ': IPrec needs a recall level, as in IPrec@0.5', m: NULL}
    ELSE list_transform([{
        cutoff: TRY_CAST(trim(_ndcg_measure_param(ps, 'cutoff')) AS BIGINT),
        recall: TRY_CAST(trim(_ndcg_measure_param(ps, 'recall')) AS DOUBLE),
        rel: TRY_CAST(_ndcg_measure_param(ps, 'rel') AS BIGINT),
        judged_only: _ndcg_measure_param(ps, 'judged_only') = 'True',
        exp: replace(_ndcg_measure_param(ps, 'dcg'), '"', '''') = '''exp-log2''',
        p: TRY_CAST(_ndcg_measure_param(ps, 'p') AS DOUBLE),
        summary: coalesce(summary, spec.summary)}], lambda o: {error: NULL, m: {
        measure: CASE WHEN o.summary = 'gmean' THEN 'GM_' ELSE '' END
            || CASE WHEN rounding = 'trec_eval_10' THEN spec.name || '(rounding=10)'
                    ELSE spec.name END
            || coalesce('(' || nullif(concat_ws(',',
                   CASE WHEN o.exp THEN 'dcg=''exp-log2''' END,
                   CASE WHEN o.judged_only THEN 'judged_only=True' END,
                   CASE WHEN o.rel IS NOT NULL AND (o.rel <> 1 OR spec.name IN ('RBP', 'NumRet'))
                        THEN 'rel=' || o.rel END,
                   CASE WHEN o.p IS NOT NULL AND o.p <> 0.8 THEN 'p=' || o.p::VARCHAR END,
                   CASE WHEN min_grade IS NOT NULL THEN 'min_rel=' || min_grade END,
                   CASE WHEN spec.metric = 'ndcg' AND o.cutoff IS NULL AND NOT full_ideal
                        THEN 'full_ideal=False' END), '') || ')', '')
            || CASE WHEN spec.at_param = 'cutoff' AND o.cutoff IS NOT NULL THEN '@' || o.cutoff
                    WHEN spec.at_param = 'recall' AND o.recall IS NOT NULL
                    THEN '@' || o.recall::VARCHAR
                    ELSE '' END,
        metric: CASE WHEN spec.name = 'NumRet' AND o.rel IS NOT NULL THEN 'num_rel_ret'
                     ELSE spec.metric END,
        k: o.cutoff,
        threshold: o.rel,
        gain: CASE WHEN spec.metric = 'ndcg' AND o.exp THEN 'exponential' END,
        p: CASE WHEN spec.metric = 'rbp' THEN coalesce(o.p, 0.8) END,
        recall: CASE WHEN spec.metric = 'iprec' THEN o.recall END,
        rounding: rounding,
        judged_only: coalesce(o.judged_only, false),
        min_grade: min_grade::BIGINT,
        full_ideal: CASE WHEN spec.metric = 'ndcg' THEN o.cutoff IS NULL AND full_ideal END,
        summary: o.summary}})[1]
END;

-- parse_measures(text, grammar := NULL)
--   -> TABLE(position BIGINT, measure VARCHAR, metric VARCHAR, k BIGINT, threshold BIGINT,
--            gain VARCHAR, p DOUBLE, recall DOUBLE, rounding VARCHAR, judged_only BOOLEAN,
--            min_grade BIGINT, full_ideal BOOLEAN, summary VARCHAR)
-- Reads whitespace-separated measures written in the grammars of ir_measures
-- (Name[(param=value, ...)][@cutoff], any case, aliases MAP, MRR, NumRelRet ...), trec_eval
-- (name[.list]: ndcg_cut.5,10, P_5, map, recip_rank, nicknames official and all_trec) or ranx
-- (name[@k][-lN]: ndcg@10, precision@5-l2, ndcg_burges@10) into one row per measure, in the
-- order given, each once: measure its canonical label (ir_measures' spelling, nDCG@10,
-- P(rel=2)@5, RR, GM_AP for trec_eval gm_map), metric the engine's computation and its options
-- (k the cutoff, threshold the least relevant grade (NULL: 1), gain, p (RBP), recall (IPrec),
-- rounding (trec_eval 10's IPrec level), judged_only (unjudged returned rows dropped first),
-- min_grade (ranx -lN: grades below it unjudged), full_ideal (nDCG without cutoff: the ideal over
-- every judged row)), summary how queries combine ('mean', 'sum' for the counts, 'gmean':
-- exp(mean(ln(max(value, 1e-5)))), trec_eval gm_map). The reading of Python's
-- duckdb_ndcg.measures.parse_measures; what that reads and this does not (ir_measures gains,
-- trec_eval's own gain, RBP and list measures such as ndcg.1=3, rbp, utility) is an error saying so.
--   grammar  'ir_measures', 'trec_eval', 'ranx' or NULL: every grammar that knows the string,
--            an error when two read it differently (ndcg: trec_eval's ideal is every judged row,
--            ranx's is cut at the run's length): write the canonical label or pass the grammar.
-- A bad string is a one-line error naming it (for an unknown name, the closest known names).
-- Example: SELECT measure, metric, k FROM parse_measures('nDCG@10 P(rel=2)@5 MRR ndcg_cut.5,10');
CREATE OR REPLACE MACRO parse_measures(text, grammar := NULL) AS TABLE
WITH _ndcg_names AS MATERIALIZED (
    SELECT * FROM _ndcg_measure_names()
),
_ndcg_specs AS MATERIALIZED (
    SELECT {name: name, metric: metric, params: params, at_param: at_param, summary: summary}
               AS spec, name AS spec_name
    FROM _ndcg_names
    WHERE family = 'ir_measures' AND target IS NULL AND note IS NULL
),
_ndcg_tokens AS MATERIALIZED (
    -- whitespace separates measures, except inside parentheses: RBP(p=0.9, rel=1)
    SELECT t.pos, t.token
    FROM (SELECT unnest(list_transform(
              regexp_extract_all(coalesce(
                  CASE WHEN typeof(text) IN ('VARCHAR', 'NULL') THEN text::VARCHAR
                       ELSE error('duckdb_ndcg: measures must be text (''nDCG@10 P@5''), got '
                                  || text::VARCHAR) END, ''),
                  '(?:[^\s(]|\([^)]*\)?)+'),
              lambda t, i: {pos: i, token: t})) AS t)
),
_ndcg_ir AS (
    SELECT pos, token,
           regexp_matches(token, '^[A-Za-z_][A-Za-z_0-9]*(\(.*\))?(@[^@()]*)?$') AS shaped,
           regexp_extract(token, '^([A-Za-z_][A-Za-z_0-9]*)', 1) AS head,
           nullif(regexp_extract(token, '^[A-Za-z_][A-Za-z_0-9]*(\(.*\))?(@[^@()]*)?$', 1), '')
               AS args,
           nullif(regexp_extract(token, '^[A-Za-z_][A-Za-z_0-9]*(\(.*\))?(@[^@()]*)?$', 2), '')
               AS at_text
    FROM _ndcg_tokens
),
_ndcg_ir_read AS (
    SELECT _ndcg_ir.pos, _ndcg_ir.token, n.name AS written, n.note, n.rel AS fixed_rel,
           s.spec, at_text,
           -- the parameters as written: name=value, separated by commas
           list_transform(list_filter(string_split(trim(coalesce(args[2:-2], '')), ','),
                                      lambda a: trim(coalesce(args[2:-2], '')) <> ''),
                          lambda a: {k: trim(regexp_extract(a, '^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=', 1)),
                                     v: trim(regexp_extract(a, '=(.*)$', 1)),
                                     named: regexp_matches(a, '^\s*[A-Za-z_][A-Za-z_0-9]*\s*=\s*\S')})
               AS kws,
           args
    FROM _ndcg_ir
    LEFT JOIN _ndcg_names AS n
        ON n.family = 'ir_measures' AND lower(n.name) = lower(_ndcg_ir.head) AND shaped
    LEFT JOIN _ndcg_specs AS s ON s.spec_name = coalesce(n.target, n.name)
),
_ndcg_ir_requests AS (
    -- one request per token: a failure found here (kind, error), else the measure's spec and
    -- its parameters (ps) for _ndcg_measure_from
    SELECT pos, token, token AS part, 1 AS grammar_order, 'ir_measures' AS family,
           1 AS part_order, 1 AS value_order, NULL::DOUBLE AS sort_key, CASE
        WHEN written IS NULL OR (at_text IS NOT NULL AND contains(at_text, '-l')) THEN 'unknown'
        WHEN note IS NOT NULL THEN 'not computed'
        WHEN contains(args, '{') THEN 'not in SQL'
        WHEN len(list_filter(kws, lambda x: NOT x.named)) > 0
             OR (at_text IS NOT NULL AND spec.at_param IS NULL)
             OR (spec.name IN ('P', 'Success', 'Judged') AND at_text IS NULL
                 AND NOT list_contains(list_transform(kws, lambda x: x.k), 'cutoff')) THEN 'error'
    END AS kind, CASE
        WHEN written IS NULL OR (at_text IS NOT NULL AND contains(at_text, '-l')) THEN NULL
        WHEN note IS NOT NULL THEN note
        WHEN contains(args, '{') THEN 'gains is read by duckdb_ndcg.measures (Python), not in SQL'
        WHEN len(list_filter(kws, lambda x: NOT x.named)) > 0 THEN
            'parameters must be named, as in P(rel=2)@5'
        WHEN at_text IS NOT NULL AND spec.at_param IS NULL THEN spec.name || ' takes no @cutoff'
        WHEN spec.name IN ('P', 'Success', 'Judged') AND at_text IS NULL
             AND NOT list_contains(list_transform(kws, lambda x: x.k), 'cutoff') THEN
            spec.name || ' needs a cutoff, as in ' || spec.name || '@10'
    END AS error, spec,
           list_concat(
               CASE WHEN fixed_rel IS NOT NULL
                    THEN [{k: 'rel', v: fixed_rel::VARCHAR, after_at: false}] ELSE [] END,
               list_transform(kws, lambda x: {k: x.k, v: x.v, after_at: false}),
               CASE WHEN at_text IS NOT NULL
                    THEN [{k: spec.at_param, v: at_text[2:], after_at: true}] ELSE [] END) AS ps,
           NULL::BIGINT AS min_grade, true AS full_ideal, NULL::VARCHAR AS summary,
           NULL::VARCHAR AS rounding
    FROM _ndcg_ir_read
),
_ndcg_trec AS (
    -- a nickname stands for trec_eval's list of measures (the ones this engine computes)
    SELECT pos, token, p.part, p.part_order
    FROM (SELECT pos, token, unnest(list_transform(CASE token
        WHEN 'official' THEN ['num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map',
                              'Rprec', 'bpref', 'recip_rank', 'iprec_at_recall', 'P']
        WHEN 'all_trec' THEN ['num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map',
                              'Rprec', 'bpref', 'recip_rank', 'iprec_at_recall', 'P', 'recall',
                              'infAP', 'gm_bpref', 'ndcg', 'success', 'map_cut', 'ndcg_cut',
                              'set_P', 'set_recall', 'set_relative_P', 'set_map', 'set_F',
                              'num_nonrel_judged_ret']
        ELSE [token] END, lambda x, i: {part: x, part_order: i})) AS p
          FROM _ndcg_tokens)
),
_ndcg_trec_split AS (
    -- name.list, or pytrec_eval's name_list (P_5)
    SELECT pos, token, part, part_order,
           CASE WHEN contains(part, '.') THEN split_part(part, '.', 1)
                WHEN part NOT IN (SELECT name FROM _ndcg_names WHERE family = 'trec_eval')
                     AND regexp_extract(part, '^([A-Za-z0-9_]+?)[._]([0-9][0-9.,]*)$', 1)
                         IN (SELECT name FROM _ndcg_names WHERE family = 'trec_eval')
                THEN regexp_extract(part, '^([A-Za-z0-9_]+?)[._]([0-9][0-9.,]*)$', 1)
                ELSE part END AS name,
           CASE WHEN contains(part, '.') THEN part[strpos(part, '.') + 1:]
                WHEN part NOT IN (SELECT name FROM _ndcg_names WHERE family = 'trec_eval')
                     AND regexp_extract(part, '^([A-Za-z0-9_]+?)[._]([0-9][0-9.,]*)$', 1)
                         IN (SELECT name FROM _ndcg_names WHERE family = 'trec_eval')
                THEN regexp_extract(part, '^([A-Za-z0-9_]+?)[._]([0-9][0-9.,]*)$', 2)
                END AS args
    FROM _ndcg_trec
),
_ndcg_trec_read AS (
    SELECT t.pos, t.token, t.part, t.part_order, t.args, n.name, n.note, n.target, n.rel,
           n.at_param, n.cuts, n.summary, n.metric,
           -- num_nonrel_judged_ret has no ir_measures measure: its own label
           coalesce(s.spec, CASE WHEN n.metric IS NOT NULL THEN {name: n.target,
               metric: n.metric, params: ['rel'], at_param: NULL, summary: n.summary} END) AS spec,
           -- the .list's values (or the defaults), each checked; trec_eval reads a cutoff with
           -- atol (23.4 is 23)
           list_transform(CASE WHEN t.args IS NULL THEN n.cuts::VARCHAR[]
                               ELSE string_split(t.args, ',') END,
                          lambda v: CASE WHEN n.at_param = 'cutoff'
                                         THEN regexp_replace(trim(v), '^([0-9]+)\.[0-9]*$', '\1')
                                         ELSE trim(v) END) AS vs
    FROM _ndcg_trec_split AS t
    LEFT JOIN _ndcg_names AS n ON n.family = 'trec_eval' AND n.name = t.name
    LEFT JOIN _ndcg_specs AS s ON s.spec_name = n.target
),
_ndcg_trec_requests AS (
    -- one request per measure of a part: a failure of the part (kind, error), else each value of
    -- its list (in the order written: the first bad one fails), or the part itself
    SELECT pos, token, part, 2 AS grammar_order, 'trec_eval' AS family, part_order,
           v.i AS value_order, TRY_CAST(v.v AS DOUBLE) AS sort_key, kind, error, spec,
           list_concat(CASE WHEN rel IS NOT NULL
                            THEN [{k: 'rel', v: rel::VARCHAR, after_at: false}] ELSE [] END,
                       CASE WHEN v.v IS NOT NULL
                            THEN [{k: at_param, v: v.v, after_at: true}] ELSE [] END) AS ps,
           NULL::BIGINT AS min_grade, true AS full_ideal, summary,
           CASE WHEN target = 'IPrec' THEN 'trec_eval_10' END AS rounding
    FROM (
        SELECT *, unnest(CASE WHEN kind IS NOT NULL OR at_param IS NULL THEN [{i: 1, v: NULL}]
                              ELSE list_transform(vs, lambda x, i: {i: i, v: x}) END) AS v
        FROM (
            SELECT *, CASE
                WHEN name IS NULL THEN 'unknown'
                WHEN note IS NOT NULL THEN
                    CASE WHEN contains(note, 'not in SQL') THEN 'not in SQL' ELSE 'not computed' END
                WHEN name = 'ndcg' AND args IS NOT NULL THEN 'not in SQL'
                WHEN args IS NOT NULL AND (at_param IS NULL OR trim(args) = '') THEN 'error'
            END AS kind, CASE
                WHEN name IS NULL THEN NULL
                WHEN note IS NOT NULL THEN note
                WHEN name = 'ndcg' AND args IS NOT NULL THEN
                    'trec_eval ndcg with gains is read by duckdb-ndcg trec, not in SQL'
                WHEN args IS NOT NULL AND at_param IS NULL THEN
                    'trec_eval ' || name || ' takes no parameters'
                WHEN args IS NOT NULL AND trim(args) = '' THEN 'an empty parameter list'
            END AS error
            FROM _ndcg_trec_read
        )
    )
),
_ndcg_ranx AS (
    SELECT pos, token,
           regexp_matches(token, '^([a-z0-9_\-]+?)(@[^@]*?)?(-l.*)?$') AS shaped,
           regexp_extract(token, '^([a-z0-9_\-]+?)(@[^@]*?)?(-l.*)?$', 1) AS head,
           nullif(regexp_extract(token, '^([a-z0-9_\-]+?)(@[^@]*?)?(-l.*)?$', 2), '') AS at_text,
           nullif(regexp_extract(token, '^([a-z0-9_\-]+?)(@[^@]*?)?(-l.*)?$', 3), '') AS level
    FROM _ndcg_tokens
),
_ndcg_ranx_read AS (
    SELECT r.*, n.name, n.note, n.dcg, n.target,
           -- ranx without @k reads the whole run: P and R over the returned rows
           CASE WHEN r.at_text IS NULL AND n.target IN ('P', 'R') THEN 'Set' || n.target
                ELSE n.target END AS spec_name
    FROM _ndcg_ranx AS r
    LEFT JOIN _ndcg_names AS n
        ON n.family = 'ranx'
       AND n.name = CASE WHEN regexp_matches(r.token, '^rbp[.@]') THEN 'rbp' ELSE r.head END
       AND (r.shaped OR regexp_matches(r.token, '^rbp[.@]'))
),
_ndcg_ranx_requests AS (
    SELECT pos, token, token AS part, 3 AS grammar_order, 'ranx' AS family, 1 AS part_order,
           1 AS value_order, NULL::DOUBLE AS sort_key, CASE
        WHEN name IS NULL THEN 'unknown'
        WHEN note IS NOT NULL THEN 'not computed'
        WHEN (level IS NOT NULL AND NOT regexp_matches(level[3:], '^-?[0-9]+$'))
             OR (spec_name = 'SetF' AND at_text IS NOT NULL)
             OR (spec_name = 'Success' AND at_text IS NULL) THEN 'error'
    END AS kind, CASE
        WHEN name IS NULL THEN NULL
        WHEN note IS NOT NULL THEN note
        WHEN level IS NOT NULL AND NOT regexp_matches(level[3:], '^-?[0-9]+$') THEN
            '-l must be a whole grade, got ' || _ndcg_measure_quote(level[3:])
        WHEN spec_name = 'SetF' AND at_text IS NOT NULL THEN
            'f1@k is not computed (ir_measures has no F@k); f1 without @k is SetF'
        WHEN spec_name = 'Success' AND at_text IS NULL THEN
            'hit_rate needs a cutoff, as in hit_rate@10'
    END AS error, s.spec,
           list_concat(
               CASE WHEN dcg IS NOT NULL THEN [{k: 'dcg', v: '''' || dcg || '''', after_at: false}]
                    ELSE [] END,
               CASE WHEN at_text IS NOT NULL THEN [{k: 'cutoff', v: at_text[2:], after_at: true}]
                    ELSE [] END,
               CASE WHEN level IS NOT NULL AND spec_name <> 'nDCG'
                    THEN [{k: 'rel', v: level[3:], after_at: false}] ELSE [] END) AS ps,
           CASE WHEN spec_name = 'nDCG' THEN TRY_CAST(level[3:] AS BIGINT) END AS min_grade,
           at_text IS NOT NULL AS full_ideal, NULL::VARCHAR AS summary, NULL::VARCHAR AS rounding
    FROM _ndcg_ranx_read
    LEFT JOIN _ndcg_specs AS s USING (spec_name)
),
_ndcg_built AS MATERIALIZED (
    SELECT *, CASE WHEN kind IS NULL THEN _ndcg_measure_from(part, spec, ps, min_grade,
                                                             full_ideal, summary, rounding) END
                  AS built
    FROM (SELECT * FROM _ndcg_ir_requests
          UNION ALL BY NAME SELECT * FROM _ndcg_trec_requests
          UNION ALL BY NAME SELECT * FROM _ndcg_ranx_requests)
),
_ndcg_readings AS (
    -- a grammar's reading of a token: its first failure, else its measures in order
    SELECT pos, token, grammar_order, family,
           {kind: failure.kind, error: failure.error,
            ms: CASE WHEN failure.kind = 'ok' THEN ms END} AS reading
    FROM (
    SELECT pos, token, grammar_order, family, CASE
        WHEN count(*) FILTER (WHERE kind IS NOT NULL OR built.error IS NOT NULL) > 0 THEN
            arg_min({kind: coalesce(kind, 'error'),
                     error: CASE WHEN kind = 'unknown' THEN NULL
                                 WHEN kind IS NULL THEN built.error
                                 ELSE 'measure ' || _ndcg_measure_quote(part) || ': ' || error
                            END},
                   [part_order, value_order])
                FILTER (WHERE kind IS NOT NULL OR built.error IS NOT NULL)
        ELSE {kind: 'ok', error: NULL}
    END AS failure,
    list(built.m ORDER BY part_order, sort_key) FILTER (WHERE built.m IS NOT NULL) AS ms
    FROM _ndcg_built
    GROUP BY pos, token, grammar_order, family
    )
),
_ndcg_closest AS (
    -- an unknown name's closest known names: the same name in another case first
    SELECT pos, string_agg(name, ', ' ORDER BY same DESC, score DESC, name) AS names
    FROM (
        SELECT pos, name, same, score,
               row_number() OVER (PARTITION BY pos ORDER BY same DESC, score DESC, name) AS nth
        FROM (
            SELECT DISTINCT t.pos, n.name,
                   lower(n.name) = lower(regexp_extract(t.token, '^[^@(.\-]*')) AS same,
                   jaro_winkler_similarity(lower(n.name),
                                           lower(regexp_extract(t.token, '^[^@(.\-]*'))) AS score
            FROM _ndcg_tokens AS t, _ndcg_names AS n
            WHERE n.family = coalesce(grammar, n.family) AND n.note IS NULL
        )
        WHERE same OR score >= 0.8
    )
    WHERE nth <= 4
    GROUP BY pos
),
_ndcg_token_results AS MATERIALIZED (
    -- one reading per token: the grammar asked for, else the one meaning every grammar that
    -- knows the string gives it (a grammar that knows the name but not this use of it only
    -- when none reads it)
    SELECT r.pos, r.token, CASE
        WHEN grammar IS NOT NULL THEN
            first(r.reading) FILTER (WHERE r.family = grammar)
        WHEN count(*) FILTER (WHERE r.reading.kind NOT IN ('unknown', 'error')) = 0 THEN
            coalesce(arg_min(r.reading, r.grammar_order) FILTER (WHERE r.reading.kind = 'error'),
                     {kind: 'unknown', error: NULL, ms: NULL})
        WHEN count(DISTINCT coalesce(r.reading.error, r.reading.ms::VARCHAR))
                 FILTER (WHERE r.reading.kind NOT IN ('unknown', 'error')) = 1
             OR count(*) FILTER (WHERE r.reading.kind = 'ok') = 0 THEN
            arg_min(r.reading, r.grammar_order)
                FILTER (WHERE r.reading.kind NOT IN ('unknown', 'error'))
        ELSE {kind: 'ambiguous', error: 'measure ' || _ndcg_measure_quote(r.token)
                  || ' is ambiguous (' || string_agg(r.family || ': ' || CASE
                      WHEN r.reading.kind = 'ok'
                      THEN array_to_string(list_transform(r.reading.ms, lambda m: m.measure), ' ')
                      ELSE r.reading.error END, '; ' ORDER BY r.grammar_order)
                      FILTER (WHERE r.reading.kind NOT IN ('unknown', 'error'))
                  || '): write the canonical label or pass the grammar', ms: NULL}
    END AS reading
    FROM _ndcg_readings AS r
    GROUP BY r.pos, r.token
),
_ndcg_checks AS (
    SELECT CASE
        WHEN grammar IS NOT NULL AND grammar NOT IN ('ir_measures', 'trec_eval', 'ranx') THEN
            error('duckdb_ndcg: grammar must be ''ir_measures'', ''trec_eval'' or ''ranx'', got '
                  || _ndcg_measure_quote(grammar::VARCHAR))
        WHEN (SELECT count(*) FROM _ndcg_tokens) = 0 THEN
            error('duckdb_ndcg: measures must name at least one measure, got '
                  || coalesce(_ndcg_measure_quote(text::VARCHAR), 'NULL'))
        WHEN count(*) FILTER (WHERE reading.kind <> 'ok') > 0 THEN
            error('duckdb_ndcg: ' || arg_min(CASE
                WHEN reading.kind = 'unknown' THEN 'unknown measure ' || _ndcg_measure_quote(token)
                    || coalesce('; closest: ' || (SELECT names FROM _ndcg_closest AS c
                                                  WHERE c.pos = _ndcg_token_results.pos), '')
                ELSE reading.error END, pos) FILTER (WHERE reading.kind <> 'ok'))
    END AS _failed
    FROM _ndcg_token_results
),
_ndcg_measures AS (
    SELECT pos, nth, m
    FROM (SELECT pos, unnest(reading.ms) AS m, generate_subscripts(reading.ms, 1) AS nth
          FROM _ndcg_token_results)
    QUALIFY row_number() OVER (PARTITION BY m ORDER BY pos, nth) = 1
)
SELECT row_number() OVER (ORDER BY pos, nth) AS position, m.*
FROM _ndcg_measures CROSS JOIN _ndcg_checks
WHERE _failed IS NULL
ORDER BY position;
