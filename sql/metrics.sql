CREATE EXTENSION IF NOT EXISTS pg_gsu;
-- evaluation aggregates: gsu.confusion, gsu.roc_auc, gsu.average_precision,
-- gsu.roc_curve, gsu.pr_curve, gsu.log_loss; expected values worked by hand
-- (derivations in docs/metrics.md and test/test_metrics.c)
CREATE FUNCTION metrics_err(sql text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql;
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE '%: %', SQLSTATE, SQLERRM;
END $$;
-- scikit-learn's documentation example: y = [0,0,1,1] as -1/1, scores [0.1,0.4,0.35,0.8]
CREATE TABLE metrics_sk (s float8, y int4);
INSERT INTO metrics_sk VALUES (0.1, -1), (0.4, -1), (0.35, 1), (0.8, 1);

-- ---------------------------------------------------------------- roc_auc
-- pairs (0.35>0.1) (0.35<0.4) (0.8>0.1) (0.8>0.4): 3/4
SELECT gsu.roc_auc(s, y) FROM metrics_sk;
SELECT gsu.roc_auc(s, y = 1) FROM metrics_sk;
-- ties count 1/2: pos {1,2,2} vs neg {0,2}: (0+1) + (1/2+1) + (1/2+1) = 4 of 6 pairs
SELECT round(gsu.roc_auc(s, y)::numeric, 15) FROM (VALUES (1, 1), (2, 1), (2, 1), (0, -1), (2, -1)) v(s, y);
-- every score tied: 1/2; perfect: 1; reversed: 0
SELECT gsu.roc_auc(0.3, y) FROM (VALUES (1), (-1), (1)) v(y);
SELECT gsu.roc_auc(s, y) FROM (VALUES (2, 1), (3, 1), (0, -1), (1, -1)) v(s, y);
SELECT gsu.roc_auc(-s, y) FROM (VALUES (2, 1), (3, 1), (0, -1), (1, -1)) v(s, y);
-- infinite scores are ranked like any other
SELECT gsu.roc_auc(s, y) FROM (VALUES ('Infinity'::float8, 1), ('-Infinity', -1), ('Infinity', -1), (0, 1)) v(s, y);
-- one class only, or no rows: NULL
SELECT gsu.roc_auc(s, 1) IS NULL AS one_class FROM metrics_sk;
SELECT gsu.roc_auc(s, -1) IS NULL AS one_class FROM metrics_sk;
SELECT gsu.roc_auc(s, y) IS NULL AS empty FROM metrics_sk WHERE false;
-- rows with a NULL score or label are skipped
SELECT gsu.roc_auc(s, y) FROM (SELECT * FROM metrics_sk UNION ALL VALUES (NULL, 1), (0.9, NULL), (NULL, NULL)) v;
-- NULL per group instead of an error for the group with one class
SELECT g, gsu.roc_auc(s, y) FROM (SELECT 1 AS g, * FROM metrics_sk UNION ALL VALUES (2, 0.5, 1)) v GROUP BY g ORDER BY g;
-- as a window function: the AUC of the rows so far (rows are added after a sort)
SELECT s, y, round(gsu.roc_auc(s, y) OVER w::numeric, 12) AS auc, round(gsu.average_precision(s, y) OVER w::numeric, 12) AS ap
FROM (VALUES (1, 0.5, 1), (2, 0.2, -1), (3, 0.1, 1), (4, 0.9, -1), (5, 0.3, 1)) v(i, s, y) WINDOW w AS (ORDER BY i);

-- ------------------------------------------------------ average_precision
-- t=0.8: R .5, P 1 -> .5; t=0.4: no new positive; t=0.35: R 1, P 2/3 -> 1/3; AP = 5/6
SELECT round(gsu.average_precision(s, y)::numeric, 15) FROM metrics_sk;
SELECT round(gsu.average_precision(s, y = 1)::numeric, 15) FROM metrics_sk;
-- pos {1,3}, neg {2,2}: .5·1 + .5·(2/4) = 0.75
SELECT gsu.average_precision(s, y) FROM (VALUES (1, 1), (3, 1), (2, -1), (2, -1)) v(s, y);
-- one tie group {pos, pos, neg}: R 1 at P 2/3
SELECT round(gsu.average_precision(0.5, y)::numeric, 15) FROM (VALUES (1), (1), (-1)) v(y);
-- only positives: 1; no positive: NULL; no rows: NULL
SELECT gsu.average_precision(s, 1) FROM metrics_sk;
SELECT gsu.average_precision(s, -1) IS NULL AS no_positive FROM metrics_sk;
SELECT gsu.average_precision(s, y) IS NULL AS empty FROM metrics_sk WHERE false;

-- ---------------------------------------------------------------- curves
-- sklearn roc_curve(drop_intermediate=False): fpr [0,0,.5,.5,1], tpr [0,.5,.5,1,1]
SELECT gsu.roc_curve(s, y) FROM metrics_sk;
SELECT gsu.roc_curve(s, y = 1) = gsu.roc_curve(s, y) AS same FROM metrics_sk;
-- as rows, for plotting
SELECT * FROM jsonb_to_recordset((SELECT gsu.roc_curve(s, y) FROM metrics_sk)) AS p(threshold float8, fpr float8, tpr float8);
-- sklearn precision_recall_curve, reversed, without its artificial (recall 0, precision 1) end
SELECT gsu.pr_curve(s, y) FROM metrics_sk;
SELECT gsu.pr_curve(s, y = 1) = gsu.pr_curve(s, y) AS same FROM metrics_sk;
SELECT threshold, round(precision::numeric, 15) AS precision, recall FROM jsonb_to_recordset((SELECT gsu.pr_curve(s, y) FROM metrics_sk)) AS p(threshold float8, precision float8, recall float8);
-- ties: one point per distinct score
SELECT gsu.roc_curve(s, y) FROM (VALUES (1, 1), (2, 1), (2, 1), (0, -1), (2, -1)) v(s, y);
SELECT gsu.pr_curve(s, y) FROM (VALUES (1, 1), (2, 1), (2, 1), (0, -1), (2, -1)) v(s, y);
-- infinite scores: the threshold is written as a string, which float8 reads back
SELECT gsu.roc_curve(s, y) FROM (VALUES ('Infinity'::float8, 1), ('-Infinity', -1)) v(s, y);
SELECT threshold FROM jsonb_to_recordset((SELECT gsu.pr_curve(s, y) FROM (VALUES ('Infinity'::float8, 1), ('-Infinity', -1)) v(s, y))) AS p(threshold float8);
-- one class: the ROC curve is undefined; the PR curve needs a positive
SELECT gsu.roc_curve(s, 1) IS NULL AS one_class FROM metrics_sk;
SELECT gsu.pr_curve(s, 1) FROM metrics_sk;
SELECT gsu.pr_curve(s, -1) IS NULL AS no_positive FROM metrics_sk;
SELECT gsu.roc_curve(s, y) IS NULL AS empty, gsu.pr_curve(s, y) IS NULL AS empty FROM metrics_sk WHERE false;

-- ------------------------------------------------------------- log_loss
-- sklearn: P(spam) .9 .1 .2 .65 for spam ham ham spam: mean(-ln .9, -ln .9, -ln .8, -ln .65)
SELECT round(gsu.log_loss(p, y)::numeric, 15) FROM (VALUES (0.9, 1), (0.1, -1), (0.2, -1), (0.65, 1)) v(p, y);
SELECT round(gsu.log_loss(p, y = 1)::numeric, 15) FROM (VALUES (0.9, 1), (0.1, -1), (0.2, -1), (0.65, 1)) v(p, y);
-- clipped to [2^-52, 1 - 2^-52]: a certain wrong answer costs 52 ln 2, a certain right one ~2^-52
SELECT round(gsu.log_loss(0, 1)::numeric, 12), round((52 * ln(2))::numeric, 12);
SELECT round(gsu.log_loss(1, -1)::numeric, 12);
SELECT gsu.log_loss(1, 1) BETWEEN 2.2e-16 AND 2.3e-16 AS tiny, gsu.log_loss(0, -1) BETWEEN 2.2e-16 AND 2.3e-16 AS tiny;
-- NULL rows skipped; no rows: NULL
SELECT round(gsu.log_loss(p, y)::numeric, 15) FROM (VALUES (0.8, 1), (NULL, 1), (0.3, NULL)) v(p, y);
SELECT gsu.log_loss(0.5, 1) IS NULL AS empty FROM metrics_sk WHERE false;

-- ------------------------------------------------------------ confusion
-- y_true [1,1,1,-1], y_pred [1,-1,1,1]: tp 2 fp 1 tn 0 fn 1; MCC (0 - 1)/sqrt(3·3·1·1) = -1/3
SELECT gsu.confusion(p, a) FROM (VALUES (1, 1), (-1, 1), (1, 1), (1, -1)) v(p, a);
SELECT gsu.confusion(p = 1, a = 1) = gsu.confusion(p, a) AS same FROM (VALUES (1, 1), (-1, 1), (1, 1), (1, -1)) v(p, a);
-- multi-class: y_true [0,0,1,1,2,2], y_pred [0,1,1,1,0,0]: class 2 is never predicted
-- (precision null, excluded from the macro precision); MCC 6/sqrt(432)
SELECT c - 'mcc' AS c, round((c->>'mcc')::numeric, 15) AS mcc, round(6 / sqrt(432::numeric), 15) AS hand
FROM (SELECT gsu.confusion(p, a) AS c FROM (VALUES (0, 0), (1, 0), (1, 1), (1, 1), (0, 2), (0, 2)) v(p, a)) s;
-- all correct negatives: precision, recall, F1, MCC undefined
SELECT gsu.confusion(-1, -1) FROM generate_series(1, 3);
-- never predicts 1: precision null, recall 0, F1 0
SELECT c->'precision' AS precision, c->'recall' AS recall, c->'f1' AS f1, c->'mcc' AS mcc
FROM (SELECT gsu.confusion(-1, a) AS c FROM (VALUES (1), (1), (-1)) v(a)) s;
-- 0/1 labels are two classes, not a binary problem: no tp/fp/tn/fn at the top
SELECT c ? 'tp' AS has_tp, c->'classes'->1 AS class_1 FROM (SELECT gsu.confusion(p, a) AS c FROM (VALUES (1, 1), (0, 1), (0, 0)) v(p, a)) s;
-- NULL rows skipped; no rows: NULL
SELECT gsu.confusion(p, a)->'n' AS n FROM (VALUES (1, 1), (NULL, 1), (1, NULL)) v(p, a);
SELECT gsu.confusion(1, 1) IS NULL AS empty FROM metrics_sk WHERE false;
-- extreme labels
SELECT gsu.confusion(p, a)->'classes' FROM (VALUES (-2147483648, 2147483647), (2147483647, 2147483647)) v(p, a);

-- ------------------------------------ against SQL definitions on larger data
-- 2000 rows, scores rounded to 0.1 (many ties), labels correlated with them
CREATE TABLE metrics_d AS
SELECT i, round((sin(i * 1.3) + sin(i * 2.1))::numeric, 1)::float8 AS s,
       CASE WHEN sin(i * 1.3) + 0.8 * cos(i * 0.37) > 0 THEN 1 ELSE -1 END AS y,
       (1 + sin(i * 0.77)) / 2 AS p,
       (hashint4(i) & 3) - 1 AS pred, (hashint4(i * 7) & 3) - 1 AS act
FROM generate_series(1, 2000) i;
-- AUC: Mann–Whitney over every pair
SELECT abs(gsu.roc_auc(s, y) - (SELECT avg(CASE WHEN a.s > b.s THEN 1 WHEN a.s = b.s THEN 0.5 ELSE 0 END)
  FROM metrics_d a, metrics_d b WHERE a.y = 1 AND b.y = -1)) < 1e-12 AS auc_ok FROM metrics_d;
-- AP: sum over distinct thresholds of (new positives / P) · precision
SELECT abs(gsu.average_precision(s, y) - (
  WITH g AS (SELECT s, count(*) FILTER (WHERE y = 1) gp, count(*) FILTER (WHERE y = -1) gn FROM metrics_d GROUP BY s),
       c AS (SELECT gp, sum(gp) OVER w AS tp, sum(gn) OVER w AS fp FROM g WINDOW w AS (ORDER BY s DESC))
  SELECT sum(gp::float8 / (SELECT count(*) FROM metrics_d WHERE y = 1) * tp / (tp + fp)) FROM c)) < 1e-12 AS ap_ok FROM metrics_d;
-- curves: one point per distinct score (+ the ROC origin), last point = (P, N)
SELECT jsonb_array_length(gsu.roc_curve(s, y)) = count(DISTINCT s) + 1 AS roc_points,
       jsonb_array_length(gsu.pr_curve(s, y)) = count(DISTINCT s) AS pr_points,
       gsu.roc_curve(s, y)->-1->>'tp' = count(*) FILTER (WHERE y = 1)::text AS last_tp,
       gsu.pr_curve(s, y)->-1->>'fp' = count(*) FILTER (WHERE y = -1)::text AS last_fp
FROM metrics_d;
-- the trapezoidal area under the ROC points is the AUC
SELECT abs(sum((fpr - pf) * (tpr + pt) / 2) - (SELECT gsu.roc_auc(s, y) FROM metrics_d)) < 1e-12 AS area_ok
FROM (SELECT fpr, tpr, lag(fpr, 1, 0::float8) OVER () AS pf, lag(tpr, 1, 0::float8) OVER () AS pt
      FROM jsonb_to_recordset((SELECT gsu.roc_curve(s, y) FROM metrics_d)) AS p(fpr float8, tpr float8)) q;
-- log loss by its formula
SELECT abs(gsu.log_loss(p, y) - avg(CASE WHEN y = 1 THEN -ln(greatest(p, 2.0 ^ (-52))) ELSE -ln(greatest(1 - p, 2.0 ^ (-52))) END)) < 1e-12 AS ll_ok
FROM metrics_d;
-- confusion: per-class counts and MCC (Gorodkin's formula from the class totals)
WITH c AS (SELECT gsu.confusion(pred, act) AS c FROM metrics_d),
     k AS (SELECT * FROM jsonb_to_recordset((SELECT c->'classes' FROM c)) AS x(label int, tp int, fp int, fn int, tn int))
SELECT bool_and(k.tp = (SELECT count(*) FROM metrics_d WHERE pred = label AND act = label)
            AND k.fp = (SELECT count(*) FROM metrics_d WHERE pred = label AND act <> label)
            AND k.fn = (SELECT count(*) FROM metrics_d WHERE pred <> label AND act = label)
            AND k.tn = (SELECT count(*) FROM metrics_d WHERE pred <> label AND act <> label)) AS counts_ok,
       count(*) AS classes FROM k;
WITH t AS (SELECT act AS l, count(*) AS n FROM metrics_d GROUP BY act),
     pp AS (SELECT pred AS l, count(*) AS n FROM metrics_d GROUP BY pred),
     s AS (SELECT (SELECT count(*) FROM metrics_d WHERE pred = act)::float8 AS c, 2000::float8 AS n,
                  (SELECT sum(t.n * pp.n) FROM t JOIN pp USING (l))::float8 AS spt,
                  (SELECT sum(n * n) FROM pp)::float8 AS spp, (SELECT sum(n * n) FROM t)::float8 AS stt)
SELECT abs((SELECT (gsu.confusion(pred, act)->>'mcc')::float8 FROM metrics_d)
           - (c * n - spt) / sqrt((n * n - spp) * (n * n - stt))) < 1e-12 AS mcc_ok FROM s;
-- binary MCC by Matthews' formula
SELECT abs((c->>'mcc')::float8 - ((c->>'tp')::float8 * (c->>'tn')::float8 - (c->>'fp')::float8 * (c->>'fn')::float8)
  / sqrt(((c->>'tp')::float8 + (c->>'fp')::float8) * ((c->>'tp')::float8 + (c->>'fn')::float8)
       * ((c->>'tn')::float8 + (c->>'fp')::float8) * ((c->>'tn')::float8 + (c->>'fn')::float8))) < 1e-12 AS mcc_ok
FROM (SELECT gsu.confusion(CASE WHEN s > 0 THEN 1 ELSE -1 END, y) AS c FROM metrics_d) q;

-- ------------------------------------------------------------- parallel
CREATE TABLE metrics_serial AS
SELECT gsu.roc_auc(s, y) AS auc, gsu.average_precision(s, y) AS ap, gsu.roc_curve(s, y) AS roc,
       gsu.pr_curve(s, y) AS pr, gsu.log_loss(p, y) AS ll, gsu.confusion(pred, act) AS conf
FROM metrics_d;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT gsu.roc_auc(s, y), gsu.confusion(pred, act), gsu.log_loss(p, y) FROM metrics_d;
SELECT gsu.roc_auc(s, y) = auc AS auc, gsu.average_precision(s, y) = ap AS ap,
       gsu.roc_curve(s, y) = roc AS roc, gsu.pr_curve(s, y) = pr AS pr,
       abs(gsu.log_loss(p, y) - ll) < 1e-14 AS ll, gsu.confusion(pred, act) = conf AS conf
FROM metrics_d, metrics_serial GROUP BY auc, ap, roc, pr, ll, conf;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- ---------------------------------------------------------------- errors
-- labels other than -1/1
SELECT metrics_err('SELECT gsu.roc_auc(0.5, 0)');
SELECT metrics_err('SELECT gsu.average_precision(0.5, 2)');
SELECT metrics_err('SELECT gsu.roc_curve(0.5, 0)');
SELECT metrics_err('SELECT gsu.pr_curve(0.5, -2)');
SELECT metrics_err('SELECT gsu.log_loss(0.5, 0)');
-- NaN scores
SELECT metrics_err('SELECT gsu.roc_auc(''NaN'', 1)');
SELECT metrics_err('SELECT gsu.average_precision(''NaN'', true)');
SELECT metrics_err('SELECT gsu.roc_curve(''NaN'', -1)');
SELECT metrics_err('SELECT gsu.pr_curve(''NaN'', 1)');
-- probabilities
SELECT metrics_err('SELECT gsu.log_loss(''NaN'', 1)');
SELECT metrics_err('SELECT gsu.log_loss(-0.1, 1)');
SELECT metrics_err('SELECT gsu.log_loss(1.5, false)');
SELECT metrics_err('SELECT gsu.log_loss(''Infinity'', -1)');
-- memory: 64 kB hold 8192 scores, or 2048 confusion cells
SET gsu.max_training_memory = 64;
SELECT metrics_err('SELECT gsu.roc_auc(i, 1) FROM generate_series(1, 10000) i');
SELECT metrics_err('SELECT gsu.confusion(i, 1) FROM generate_series(1, 3000) i');
SELECT gsu.roc_auc(i, CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) FROM generate_series(1, 8000) i;
RESET gsu.max_training_memory;
-- size limits of the results
SELECT metrics_err('SELECT gsu.confusion(i, i) FROM generate_series(1, 100001) i');
SELECT metrics_err('SELECT gsu.roc_curve(i, CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) FROM generate_series(1, 1000000) i');
-- support functions called outside an aggregate (through a C alias, as SQL cannot pass internal)
CREATE FUNCTION metrics_probe(bytea) RETURNS float8 AS 'pg_gsu', 'gsu_roc_auc_finalfn' LANGUAGE C;
SELECT metrics_err('SELECT metrics_probe(NULL)');
DROP FUNCTION metrics_probe(bytea);
-- hostile serialized states: a strict aggregate over bytea whose transition is a
-- deserialization function, so that its first row reaches it as the state
-- (only invalid states may be given: a valid one would be returned as bytea)
CREATE FUNCTION metrics_deser_r(bytea, bytea) RETURNS bytea AS 'pg_gsu', 'gsu_ranking_deserialfn' LANGUAGE C STRICT;
CREATE FUNCTION metrics_deser_c(bytea, bytea) RETURNS bytea AS 'pg_gsu', 'gsu_confusion_deserialfn' LANGUAGE C STRICT;
CREATE FUNCTION metrics_deser_l(bytea, bytea) RETURNS bytea AS 'pg_gsu', 'gsu_log_loss_deserialfn' LANGUAGE C STRICT;
CREATE AGGREGATE metrics_deser_r(bytea) (SFUNC = metrics_deser_r, STYPE = bytea);
CREATE AGGREGATE metrics_deser_c(bytea) (SFUNC = metrics_deser_c, STYPE = bytea);
CREATE AGGREGATE metrics_deser_l(bytea) (SFUNC = metrics_deser_l, STYPE = bytea);
-- ranking: magic, reserved, n_pos, n_neg (little-endian), scores; confusion: magic,
-- reserved, n, ncells, pad, cells (int32, int32, int64); log loss: magic, reserved, n, s, c
SELECT metrics_err($$SELECT metrics_deser_r(b) FROM (VALUES ('\x5255'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_r(b) FROM (VALUES ('\x525553480000000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_r(b) FROM (VALUES ('\x525553470100000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_r(b) FROM (VALUES ('\x5255534700000000ffffffffffffffff0000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_r(b) FROM (VALUES ('\x525553470000000001000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_r(b) FROM (VALUES ('\x525553470000000000000000000000000100000000000000000000000000f87f'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_c(b) FROM (VALUES ('\x4355534700000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_c(b) FROM (VALUES ('\x435553480000000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_c(b) FROM (VALUES ('\x435553470000000000000000000000000000000001000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_c(b) FROM (VALUES ('\x435553470000000001000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_c(b) FROM (VALUES ('\x435553470000000001000000000000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_c(b) FROM (VALUES ('\x4355534700000000010000000000000001000000000000000100000001000000ffffffffffffffff'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_c(b) FROM (VALUES ('\x43555347000000000200000000000000010000000000000001000000010000000100000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_l(b) FROM (VALUES ('\x4c555347'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_l(b) FROM (VALUES ('\x4c55534800000000000000000000000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_l(b) FROM (VALUES ('\x4c55534701000000000000000000000000000000000000000000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_l(b) FROM (VALUES ('\x4c555347000000000100000000000000000000000000f87f0000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_l(b) FROM (VALUES ('\x4c555347000000000100000000000000000000000000f0bf0000000000000000'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_l(b) FROM (VALUES ('\x4c5553470000000000000000000000000000000000000000000000000000f03f'::bytea), ('\x')) v(b)$$);
SELECT metrics_err($$SELECT metrics_deser_l(b) FROM (VALUES ('\x4c55534700000000ffffffffffffffff00000000000000000000000000000000'::bytea), ('\x')) v(b)$$);

DROP AGGREGATE metrics_deser_r(bytea);
DROP AGGREGATE metrics_deser_c(bytea);
DROP AGGREGATE metrics_deser_l(bytea);
DROP FUNCTION metrics_deser_r(bytea, bytea);
DROP FUNCTION metrics_deser_c(bytea, bytea);
DROP FUNCTION metrics_deser_l(bytea, bytea);
DROP TABLE metrics_sk, metrics_d, metrics_serial;
DROP FUNCTION metrics_err(text);
