-- A worked regression example on real data with real measurement errors
-- (issue 33 part 3): WDBC's cell-nucleus measurements as shipped by Debian's
-- python3-sklearn, each a mean over the nuclei of an image with its standard
-- error. One mean feature (psql variable target, default 4 = mean area) is
-- regressed on the other nine mean features, whose squared standard errors are
-- the rows' diagonal variances. SVR-GSU and ridge-GSU against the same models
-- trained with no variance (plain epsilon-SVR and ridge), on held-out rows of
-- several random splits, with a paired t-test over the splits.
-- Run by bench/regression_example.sh (psql variables splits, target, lambda,
-- epsilon; the CSV on stdin).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_gsu;

SELECT format('CREATE TABLE bc_raw (%s, target int4)',
			  string_agg(format('c%s float8', j), ', ' ORDER BY j))
FROM generate_series(1, 30) j \gexec
\copy bc_raw FROM pstdin WITH (FORMAT csv, HEADER true)

-- one row per sample: the 10 mean features m[1..10] and their standard errors se[1..10]
CREATE TABLE bc AS
SELECT row_number() OVER (ORDER BY ctid)::int AS id,
	ARRAY[c1, c2, c3, c4, c5, c6, c7, c8, c9, c10] AS m,
	ARRAY[c11, c12, c13, c14, c15, c16, c17, c18, c19, c20] AS se
FROM bc_raw;

-- the inputs: the nine features other than the target
CREATE TABLE inputs AS SELECT j FROM generate_series(1, 10) j WHERE j <> :target;

-- split k: the 20 % of rows (114) first in the order of md5('regression split k, row id') are its test part
CREATE TABLE splits AS
SELECT k AS split, id,
	row_number() OVER (PARTITION BY k ORDER BY md5('regression split ' || k || ', row ' || id)) <= 114 AS test
FROM bc, generate_series(0, :splits - 1) k;

-- per split and input feature: the training part's mean and sample sd (inputs and target
-- are standardized with them; a variance se^2 becomes se^2 / sd^2)
CREATE TABLE stats AS
SELECT s.split, i.j, avg(b.m[i.j]) AS mu, stddev_samp(b.m[i.j]) AS sd,
	avg(b.m[:target]) AS y_mu, stddev_samp(b.m[:target]) AS y_sd
FROM splits s JOIN bc b USING (id), inputs i
WHERE NOT s.test
GROUP BY s.split, i.j;

CREATE TABLE rows AS
SELECT s.split, s.id, s.test,
	array_agg((b.m[t.j] - t.mu) / t.sd ORDER BY t.j) AS mean,
	array_agg((b.se[t.j] / t.sd) ^ 2 ORDER BY t.j) AS variance,
	(b.m[:target] - min(t.y_mu)) / min(t.y_sd) AS y
FROM splits s JOIN bc b USING (id) JOIN stats t USING (split)
GROUP BY s.split, s.id, s.test, b.m;

CREATE TABLE methods (name text PRIMARY KEY, ord int, uses_variance bool, options jsonb);
INSERT INTO methods VALUES
	('SVR-GSU', 1, true, jsonb_build_object('loss', 'epsilon_insensitive', 'epsilon', :epsilon, 'lambda', :lambda)),
	('SVR (no variance)', 2, false, jsonb_build_object('loss', 'epsilon_insensitive', 'epsilon', :epsilon, 'lambda', :lambda)),
	('ridge-GSU', 3, true, jsonb_build_object('loss', 'squared', 'lambda', :lambda)),
	('ridge (no variance)', 4, false, jsonb_build_object('loss', 'squared', 'lambda', :lambda));

-- one model per split and method
CREATE TABLE models AS
SELECT r.split, me.name,
	gsu.train_regression(r.mean, CASE WHEN me.uses_variance THEN r.variance END, r.y, me.options) AS model
FROM rows r, methods me
WHERE NOT r.test
GROUP BY r.split, me.name, me.options;

-- the training residual's rmse of each model (the noise term of its predictive density)
CREATE TABLE train_rmse AS
SELECT m.split, m.name, gsu.rmse(gsu.decision(m.model, r.mean), r.y) AS rmse
FROM models m JOIN rows r USING (split)
WHERE NOT r.test
GROUP BY m.split, m.name;

-- test metrics per split and method. The predictive sd of a GSU model is
-- sqrt(w' Sigma w + rmse_train^2) with the test row's own variances; a model trained
-- without variances is scored as it would be used, with sd = rmse_train
-- ("propagated" adds w' Sigma w to it as well, for comparison).
CREATE TABLE results AS
SELECT m.split, m.name,
	gsu.rmse(p.prediction, r.y) AS rmse,
	gsu.mae(p.prediction, r.y) AS mae,
	gsu.r2(p.prediction, r.y) AS r2,
	gsu.nlpd(p.prediction, CASE WHEN me.uses_variance THEN sqrt(p.sd ^ 2 + t.rmse ^ 2) ELSE t.rmse END, r.y) AS nlpd,
	gsu.nlpd(p.prediction, sqrt(p.sd ^ 2 + t.rmse ^ 2), r.y) AS nlpd_propagated
FROM models m JOIN methods me USING (name) JOIN train_rmse t USING (split, name)
	JOIN rows r USING (split),
	LATERAL gsu.predictive(m.model, r.mean, r.variance) p
WHERE r.test
GROUP BY m.split, m.name;

\echo
\echo Test metrics over the splits (mean and sample sd; target and inputs standardized with each split training part)
SELECT name AS method,
	round(avg(rmse)::numeric, 4) AS rmse, round(stddev_samp(rmse)::numeric, 4) AS "± rmse",
	round(avg(mae)::numeric, 4) AS mae, round(stddev_samp(mae)::numeric, 4) AS "± mae",
	round(avg(r2)::numeric, 4) AS r2, round(stddev_samp(r2)::numeric, 4) AS "± r2",
	round(avg(nlpd)::numeric, 4) AS nlpd, round(stddev_samp(nlpd)::numeric, 4) AS "± nlpd",
	round(avg(nlpd_propagated)::numeric, 4) AS "nlpd, w'Σw added"
FROM results JOIN methods USING (name)
GROUP BY name, ord ORDER BY ord;

\echo
\echo Wins of the GSU model over the same model without variances (splits where its metric is better)
SELECT g.name || ' vs ' || x.name AS pair,
	count(*) FILTER (WHERE g.rmse < x.rmse) || '/' || count(*) AS "rmse lower",
	count(*) FILTER (WHERE g.mae < x.mae) || '/' || count(*) AS "mae lower",
	count(*) FILTER (WHERE g.r2 > x.r2) || '/' || count(*) AS "r2 higher",
	count(*) FILTER (WHERE g.nlpd < x.nlpd) || '/' || count(*) AS "nlpd lower"
FROM results g JOIN results x USING (split)
WHERE (g.name, x.name) IN (('SVR-GSU', 'SVR (no variance)'), ('ridge-GSU', 'ridge (no variance)'))
GROUP BY g.name, x.name ORDER BY g.name DESC;

\echo
\echo Paired t-test over the splits (GSU minus plain; corrected: Nadeau and Bengio, ratio 114/455)
SELECT g.name || ' vs ' || x.name AS pair, v.metric,
	round(avg(v.a - v.b)::numeric, 5) AS "mean difference",
	round((gsu.paired_ttest(v.a, v.b)->>'t')::numeric, 3) AS t,
	round((gsu.paired_ttest(v.a, v.b)->>'p')::numeric, 4) AS p,
	round((gsu.paired_ttest(v.a, v.b, 114.0 / 455)->>'p')::numeric, 4) AS "corrected p"
FROM results g JOIN results x USING (split),
	LATERAL (VALUES ('rmse', 1, g.rmse, x.rmse), ('mae', 2, g.mae, x.mae), ('r2', 3, g.r2, x.r2),
					('nlpd', 4, g.nlpd, x.nlpd)) v(metric, ord, a, b)
WHERE (g.name, x.name) IN (('SVR-GSU', 'SVR (no variance)'), ('ridge-GSU', 'ridge (no variance)'))
GROUP BY g.name, x.name, v.metric, v.ord ORDER BY g.name DESC, v.ord;

\echo
\echo The models of split 0 (standardized units)
SELECT name, array(SELECT round(w::numeric, 3) FROM unnest(gsu.weights(model)) w) AS w,
	round(gsu.bias(model)::numeric, 3) AS b
FROM models JOIN methods USING (name) WHERE split = 0 ORDER BY ord;
