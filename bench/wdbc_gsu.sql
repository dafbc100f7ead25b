-- The SVM-GSU paper's WDBC experiment (Tzelepis et al., TPAMI 2018, Sect. 4.3)
-- entirely in SQL with pg_gsu. Run by bench/wdbc_gsu.sh, which sets the psql
-- variables splits, folds, lambdas and scale and feeds the data file on psql's stdin; the protocol and the
-- interpretation of its ambiguous points are described in that script's header.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
\set SHOW_CONTEXT always
CREATE EXTENSION IF NOT EXISTS pg_gsu;

-- ------------------------------------------------------------------ the data
-- 30 features (10 means, their 10 standard errors, 10 worst values) and the
-- target (0 malignant, 1 benign); the file's first line is a header.
SELECT format('CREATE TABLE bc_raw (%s, target int4)',
			  string_agg(format('c%s float8', j), ', ' ORDER BY j))
FROM generate_series(1, 30) j \gexec
\copy bc_raw FROM pstdin WITH (FORMAT csv, HEADER true)

-- one row per sample: the 30 features, the standard errors of the 10 mean
-- features, label +1 benign, -1 malignant; ids in file order
CREATE TABLE bc AS
SELECT row_number() OVER (ORDER BY ctid)::int AS id,
	ARRAY[c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15,
		  c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30] AS x,
	CASE target WHEN 1 THEN 1 ELSE -1 END AS y
FROM bc_raw;

-- ---------------------------------------------------------------- the splits
-- split k: the 57 rows (10 %, rounded up) first in the order of md5('wdbc split
-- k, row id') are the test part, the other 512 the training part
CREATE TABLE splits AS
SELECT k AS split, id,
	row_number() OVER (PARTITION BY k ORDER BY md5('wdbc split ' || k || ', row ' || id)) <= 57 AS test
FROM bc, generate_series(0, :splits - 1) k;

-- the current split, standardized with its training part's statistics; the
-- training part is the relation gsu.cross_validate / gsu.train_best read
CREATE TABLE tr (mean float8[], variance float8[], label int4);
-- the same rows without variances for LSVM, so that its folds (a hash of the
-- whole row) do not depend on how the variances are defined
CREATE TABLE tr_lsvm (mean float8[], label int4);
CREATE TABLE te (id int, mean float8[], variance float8[], label int4);
-- the same training rows with an isotropic variance s (LSVM-iso)
CREATE TABLE tr_iso (mean float8[], variance float8, label int4);
-- the same training rows with the radius of a ball (PSVM): sqrt of the trace of
-- the row's diagonal covariance, the root-mean-square distance of a draw from
-- N(mean, Sigma) from its mean
CREATE TABLE tr_psvm (mean float8[], radius float8, label int4);

CREATE TABLE methods (name text PRIMARY KEY, ord int, paper numeric, note text);
INSERT INTO methods VALUES
	('LSVM', 1, 0.9515, 'loss hinge, variances ignored; lambda by CV'),
	('PSVM', 2, 0.9637, 'loss psvm, each row a ball of radius sqrt(trace Sigma_i); lambda by CV'),
	('LSVM-iso', 3, 0.9653, 'Sigma = s*I for every row; (s, lambda) by CV'),
	('LSVM-iso (s = mean variance)', 4, NULL, 'Sigma = s*I, s the mean diagonal variance of the training rows; lambda by CV'),
	('LSVM-GSU', 5, 0.9714, 'diagonal variances from the standard errors; lambda by CV');
-- the isotropic variances tried for LSVM-iso, in standardized units
CREATE TABLE iso_grid (s float8);
INSERT INTO iso_grid VALUES (0.001), (0.01), (0.1), (0.3), (1), (3), (10);

CREATE TABLE iso_cv (split int, s float8, lambda float8, metric_mean float8, metric_stddev float8, fold_count int);
CREATE TABLE results (name text, split int, lambda float8, s float8, cv_accuracy float8, test_accuracy float8);
-- every method's prediction of every test row of every split, for McNemar's test
CREATE TABLE preds (name text, split int, id int, prediction int4, label int4, PRIMARY KEY (name, split, id));

-- the test accuracy of m on the current split's test rows, whose predictions
-- it records under name
CREATE FUNCTION test_accuracy(m gsu.model, name text, k int) RETURNS float8 LANGUAGE sql VOLATILE AS $$
	INSERT INTO preds SELECT name, k, id, gsu.predict(m, mean), label FROM te;
	SELECT avg((prediction = label)::int) FROM preds p WHERE p.name = test_accuracy.name AND p.split = k;
$$;

CREATE PROCEDURE run_protocol(n_splits int, folds int, lambdas float8[], var_scale text) LANGUAGE plpgsql AS $$
DECLARE
	k int;
	m gsu.model;
	s_mean float8;
	g record;
	best record;
	-- the hinge SVM at lambda = 1e-6 needs up to ~1500 Newton iterations on
	-- some folds (near-separable data); the default 1000 would warn
	opts jsonb := '{"max_iterations": 5000}';
BEGIN
	FOR k IN 0 .. n_splits - 1 LOOP
		TRUNCATE tr, tr_lsvm, te, tr_iso, tr_psvm;
		-- z-scores with the training part's mean and standard deviation; the
		-- standard error se of mean feature j (j <= 10) becomes se/sd_j; its
		-- variance (se/sd_j)^2 is scaled, per feature, so that the largest over
		-- the training rows is 0.8 * the range of the standardized training
		-- values of feature j (var_scale 'variance'), or its square root is
		-- ('sd'), or not scaled ('none'); the other 20 features get 1e-6
		WITH part AS (
			SELECT b.id, b.y, s.test, j, b.x[j] AS v, CASE WHEN j <= 10 THEN b.x[j + 10] END AS se
			FROM bc b JOIN splits s ON s.id = b.id AND s.split = k, generate_series(1, 30) j
		), stat AS (
			SELECT j, avg(v) AS mu, stddev_samp(v) AS sd FROM part WHERE NOT test GROUP BY j
		), z AS (
			SELECT p.id, p.y, p.test, p.j, (p.v - st.mu) / st.sd AS z, (p.se / st.sd) ^ 2 AS se2
			FROM part p JOIN stat st USING (j)
		), scale AS (
			SELECT j, CASE var_scale WHEN 'variance' THEN 0.8 * (max(z) - min(z)) / max(se2)
							WHEN 'sd' THEN (0.8 * (max(z) - min(z))) ^ 2 / max(se2)
							WHEN 'none' THEN 1 END AS c
			FROM z WHERE NOT test AND j <= 10 GROUP BY j
		), rows AS (
			SELECT z.id, z.y, z.test, array_agg(z.z ORDER BY z.j) AS mean,
				array_agg(coalesce(z.se2 * sc.c, 1e-6) ORDER BY z.j) AS variance
			FROM z LEFT JOIN scale sc USING (j) GROUP BY z.id, z.y, z.test
		), ins AS (
			INSERT INTO te SELECT id, mean, variance, y FROM rows WHERE test
		)
		-- training rows in id order, so that every run builds the same table
		INSERT INTO tr SELECT mean, variance, y FROM rows WHERE NOT test ORDER BY id;
		INSERT INTO tr_lsvm SELECT mean, label FROM tr;

		-- LSVM: the plain hinge loss, no variances
		m := gsu.train_best('tr_lsvm', 'mean', NULL, 'label', lambdas, folds, k + 1, opts || '{"loss": "hinge"}');
		INSERT INTO results VALUES ('LSVM', k, (gsu.describe(m)->'hyperparameters'->>'lambda')::float8,
									NULL, NULL, test_accuracy(m, 'LSVM', k));
		-- PSVM: the hinge loss of the best point of each row's ball
		INSERT INTO tr_psvm SELECT mean, sqrt((SELECT sum(v) FROM unnest(variance) v)), label FROM tr;
		m := gsu.train_best('tr_psvm', 'mean', 'radius', 'label', lambdas, folds, k + 1, opts || '{"loss": "psvm"}');
		INSERT INTO results VALUES ('PSVM', k, (gsu.describe(m)->'hyperparameters'->>'lambda')::float8,
									NULL, NULL, test_accuracy(m, 'PSVM', k));
		-- LSVM-GSU: the diagonal variances
		m := gsu.train_best('tr', 'mean', 'variance', 'label', lambdas, folds, k + 1, opts);
		INSERT INTO results VALUES ('LSVM-GSU', k, (gsu.describe(m)->'hyperparameters'->>'lambda')::float8,
									NULL, NULL, test_accuracy(m, 'LSVM-GSU', k));
		-- LSVM-iso, s the mean of all diagonal variances of the training rows
		SELECT avg(v) INTO s_mean FROM tr, unnest(variance) v;
		INSERT INTO tr_iso SELECT mean, s_mean, label FROM tr;
		m := gsu.train_best('tr_iso', 'mean', 'variance', 'label', lambdas, folds, k + 1, opts);
		INSERT INTO results VALUES ('LSVM-iso (s = mean variance)', k,
									(gsu.describe(m)->'hyperparameters'->>'lambda')::float8,
									s_mean, NULL, test_accuracy(m, 'LSVM-iso (s = mean variance)', k));
		-- LSVM-iso, (s, lambda) by CV: one gsu.cross_validate per s (the folds
		-- hash the whole row, s included, so they differ between the values of s)
		FOR g IN SELECT s FROM iso_grid ORDER BY s LOOP
			TRUNCATE tr_iso;
			INSERT INTO tr_iso SELECT mean, g.s, label FROM tr;
			INSERT INTO iso_cv SELECT k, g.s, cv.*
			FROM gsu.cross_validate('tr_iso', 'mean', 'variance', 'label', lambdas, folds, k + 1, opts) cv;
		END LOOP;
		-- the best mean CV accuracy; ties go to the larger lambda, then the larger s
		SELECT * INTO best FROM iso_cv WHERE split = k AND metric_mean IS NOT NULL
		ORDER BY metric_mean DESC, lambda DESC, s DESC LIMIT 1;
		SELECT gsu.train(mean, best.s, label, opts || jsonb_build_object('lambda', best.lambda)) INTO m FROM tr;
		INSERT INTO results VALUES ('LSVM-iso', k, best.lambda, best.s, best.metric_mean, test_accuracy(m, 'LSVM-iso', k));
		COMMIT;
	END LOOP;
END
$$;

\timing on
CALL run_protocol(:splits, :folds, :'lambdas', :'scale');
\timing off

\echo
\echo 'Wisconsin diagnostic breast cancer (569 rows, 30 features),' :splits 'random 90/10 splits,'
\echo 'lambda from' :lambdas 'by' :folds'-fold cross-validation on each training part;'
\echo 'variances of the 10 mean features: SCALE =' :scale '(see bench/wdbc_gsu.sh)'
SELECT r.name AS method,
	round(100 * avg(test_accuracy)::numeric, 2) || ' ± ' || coalesce(round(100 * stddev_samp(test_accuracy)::numeric, 2)::text, '-') AS "accuracy % (mean ± sd)",
	round(100 * m.paper, 2) AS "paper %",
	round(100 * (avg(test_accuracy)::numeric - m.paper), 2) AS difference,
	count(*) AS splits,
	string_agg(lambda::text || coalesce(' s=' || round(s::numeric, 3), ''), '; ' ORDER BY split) AS "chosen lambda (s)"
FROM results r JOIN methods m USING (name)
GROUP BY r.name, m.ord, m.paper ORDER BY m.ord;

\echo 'test accuracy per split'
SELECT split, string_agg(r.name || ' ' || round(test_accuracy::numeric, 3), ', ' ORDER BY m.ord) AS accuracies
FROM results r JOIN methods m USING (name) GROUP BY split ORDER BY split;

-- significance of the differences between LSVM-GSU and each other method:
-- McNemar's exact test on the pooled test predictions of all splits (a row in
-- the test part of several splits counts once per split), and the paired
-- t-test over the splits' test accuracies, plain and with Nadeau and Bengio's
-- correction for the overlapping training parts (ratio n_test/n_train = 57/512)
\echo 'LSVM-GSU against each method: McNemar on the pooled test predictions, paired t-tests over the splits'
SELECT o.name AS "LSVM-GSU vs",
	round(100 * (t->>'mean_difference')::numeric, 2) AS "mean diff (points)",
	(mc->>'b') || ' / ' || (mc->>'c') AS "McNemar b / c",
	round((mc->>'p')::numeric, 4) AS "McNemar p",
	round((t->>'t')::numeric, 3) AS t,
	round((t->>'p')::numeric, 4) AS "paired t p",
	round((tc->>'t')::numeric, 3) AS "corrected t",
	round((tc->>'p')::numeric, 4) AS "corrected t p (Nadeau-Bengio)"
FROM methods o,
	LATERAL (SELECT gsu.mcnemar(g.prediction, x.prediction, g.label) AS mc
			 FROM preds g JOIN preds x USING (split, id)
			 WHERE g.name = 'LSVM-GSU' AND x.name = o.name) m,
	LATERAL (SELECT gsu.paired_ttest(g.test_accuracy, x.test_accuracy) AS t,
				gsu.paired_ttest(g.test_accuracy, x.test_accuracy, 57.0 / 512) AS tc
			 FROM results g JOIN results x USING (split)
			 WHERE g.name = 'LSVM-GSU' AND x.name = o.name) p
WHERE o.name <> 'LSVM-GSU'
ORDER BY o.ord;
