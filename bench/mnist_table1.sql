-- The SVM-GSU paper's MNIST experiment (Tzelepis et al., TPAMI 2018, Sect. 4.2,
-- Table 1 and Fig. 6: "1" vs "7", data sets D0-D5) in SQL with pg_gsu. Run by
-- bench/mnist_table1.sh, which sets the psql variable runs and feeds the images (COPY
-- text, from bench/mnist_data.js) on psql's stdin, then calls run_protocol in one or
-- more sessions (each with some of the data sets) and reads the view results_vs_lsvm.
-- The protocol and the choices made where the paper leaves room are in that script's
-- header.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
\set SHOW_CONTEXT errors
CREATE EXTENSION IF NOT EXISTS pg_gsu;

-- one row per image and data set: dataset 0 = D0 (original) .. 5 = D5 (t_p = 11);
-- part 'pool' (MNIST's training set) or 'test' (MNIST's test set); label +1 for a
-- "1", -1 for a "7"; the 784 pixels in [0, 1], row-major
CREATE TABLE img (dataset int, part text, id int, label int, x float8[], PRIMARY KEY (dataset, id));
\copy img FROM pstdin
ANALYZE img;

-- the training rows of the current run, size and data set, with what each method reads:
--   var    the diagonal of the Appendix-B covariance sigma^2 (g_x g_x' + g_y g_y'),
--          i.e. sigma^2 (g_x(p)^2 + g_y(p)^2) per pixel (gsu.image_variance)
--   iso    the mean of var over the 784 pixels, tr(Sigma)/784: LSVM-iso's s in s*I
--   radius sqrt(tr Sigma), the root-mean-square distance of the translated image
--          from its mean, E|dx|^2 = tr Sigma: PSVM's ball (times the setting
--          gsu_bench.radius_scale when set: the radius ablation)
--   f      the full Appendix-B covariance as its rank-2 factor L = sigma [g_x g_y]
--          (784 x 2, Sigma = L L'; gsu.image_covariance_factor), only when a "full
--          Sigma" method runs
-- (both temporary tables of the session that runs run_protocol)
-- the test images of the current data set (x) and the same images untransformed
-- (x0, D0's), in id order
-- one row per run, size, data set and method: the chosen lambda (and p), the test
-- accuracy (and on the untransformed test images), which test images it classified
-- correctly (in id order, for McNemar's test between methods of the same run), and
-- the seconds its cross-validation, training and scoring took
CREATE TABLE results (run int, size int, dataset int, method text, lambda float8, p float8,
	accuracy float8, clean_accuracy float8, correct bool[], seconds float8);
CREATE TABLE methods (method text PRIMARY KEY, ord int);
INSERT INTO methods VALUES ('LSVM', 1), ('PSVM', 2), ('LSVM-iso', 3), ('LSVM-GSU', 4),
	('LSVM-GSU (subspaces)', 5), ('LSVM-GSU (subspaces, mean kept)', 6), ('LSVM-GSU (authors'' code)', 7),
	('LSVM-GSU (full Σ)', 8), ('LSVM-GSU (full Σ, subspaces)', 9), ('LSVM-GSU (full Σ, subspaces, mean kept)', 10);

-- run r's order of the pool: md5('mnist run r, image id'); the training set of size n
-- is the first n of each class in that order (the same ids in every data set, and the
-- sets of one run nest: size 25 is part of size 50, ...)
CREATE TABLE pool_order AS
SELECT r AS run, id, label,
	   row_number() OVER (PARTITION BY r, label ORDER BY md5('mnist run ' || r || ', image ' || id)) AS rank
FROM img, generate_series(:first_run, :first_run + :runs - 1) r
WHERE dataset = 0 AND part = 'pool';
CREATE INDEX ON pool_order (run, rank);

CREATE FUNCTION lambda_of(m gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
$$;
CREATE FUNCTION p_of(m gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'hyperparameters'->>'subspace_fraction')::float8
$$;

-- record's body reads the session's temporary table te, made by run_protocol
SET check_function_bodies = off;
CREATE PROCEDURE record(r int, n int, k int, meth text, m gsu.model, t0 timestamptz, p float8 DEFAULT NULL)
LANGUAGE sql AS $$
	INSERT INTO results
	SELECT r, n, k, meth, lambda_of(m), coalesce(p, p_of(m)), avg(c::int), avg(c0::int), array_agg(c ORDER BY id),
		   extract(epoch FROM clock_timestamp() - t0)
	FROM (SELECT id, gsu.predict(m, x) = label AS c, gsu.predict(m, x0) = label AS c0 FROM te) s
$$;

-- The authors' released code (github.com/chi0tzp/svm-gsu, SvmGsuProblem::eigenDecomp,
-- diagonal covariances; full ones are "Not implemented yet") as it computes: the
-- variances sorted largest first, d = how many of them it takes until their sum passes
-- the fraction p of the total (the one that passes it included), but the kept pixels'
-- indices sorted by variance smallest first (the comparator is reversed), so row i
-- keeps the d pixels of smallest variance, with their mean values, and gives them the
-- d largest variances, the t-th smallest pixel the t-th largest variance. Its SGD
-- reads only the kept pixels, so the loss is the SVM-GSU loss of the row whose mean
-- and variance are 0 on every other pixel: this fills auth with those rows from tr.
-- Ties among equal variances (std::sort is not stable) go to the smaller index here.
CREATE PROCEDURE authors_rows(p float8)
LANGUAGE sql AS $$
	TRUNCATE auth;
	INSERT INTO auth
	WITH px AS (
		SELECT t.id, t.label, u.i, u.xi, u.vi, sum(u.vi) OVER (PARTITION BY t.id) AS total,
			   sum(u.vi) OVER (PARTITION BY t.id ORDER BY u.vi DESC, u.i ROWS UNBOUNDED PRECEDING) - u.vi AS before,
			   row_number() OVER (PARTITION BY t.id ORDER BY u.vi DESC, u.i) AS rd,
			   row_number() OVER (PARTITION BY t.id ORDER BY u.vi, u.i) AS ra
		FROM tr t, unnest(t.mean, t.var) WITH ORDINALITY AS u(xi, vi, i)),
	kept AS (SELECT id, count(*) FILTER (WHERE before <= p * total) AS d FROM px GROUP BY id)
	SELECT a.id, array_agg(CASE WHEN a.ra <= kept.d THEN a.xi ELSE 0 END ORDER BY a.i),
		   array_agg(CASE WHEN a.ra <= kept.d THEN b.vi ELSE 0 END ORDER BY a.i), a.label
	FROM px a JOIN kept USING (id) JOIN px b ON b.id = a.id AND b.rd = a.ra
	GROUP BY a.id, a.label;
$$;

-- The grid of p for the subspace methods on the full covariance, without the values
-- that give the same training rows as an earlier one (a saving of time only: the same
-- models, folds, scores and choice). The Appendix-B covariance has rank 2: row i keeps
-- one direction when its largest eigenvalue's share of the trace, l1 / (l1 + l2) of
-- L'L, is at least p, else two (gsu_subspace_factor's count_kept), and its rows
-- depend on p only through that count. Two values of p give the same rows when no
-- row's share lies between them (within 1e-9, so that rounding cannot matter:
-- such a value is kept); a rank-2 share is at least 0.5, so every p <= 0.5 keeps one
-- direction everywhere. The grid's combinations run lambda first, then p in the
-- grid's order, and ties go to the first: dropping a later value whose rows equal an
-- earlier kept value's cannot change which combination wins. p >= 1 is always kept.
CREATE FUNCTION factor_fractions(ps jsonb) RETURNS jsonb LANGUAGE plpgsql AS $f$
DECLARE
	shares float8[];
	kept float8[] := '{}';
	out jsonb := '[]';
	v jsonb;
	p float8;
	q float8;
	same bool;
	eps constant float8 := 1e-9;
BEGIN
	SELECT array_agg(((a + c) / 2 + sqrt(((a - c) / 2) ^ 2 + b * b)) / nullif(a + c, 0)) INTO shares
	FROM (SELECT sum(f[j][1] * f[j][1]) AS a, sum(f[j][1] * f[j][2]) AS b, sum(f[j][2] * f[j][2]) AS c
		  FROM tr, generate_series(1, array_length(f, 1)) j WHERE array_length(f, 2) = 2 GROUP BY id) g;
	IF (SELECT count(*) FROM tr) <> coalesce(cardinality(shares), -1)
	   OR EXISTS (SELECT FROM unnest(shares) s WHERE s IS NULL) THEN
		RETURN ps;				-- not every row a rank-2 factor: the whole grid
	END IF;
	FOR v IN SELECT e FROM jsonb_array_elements(ps) e LOOP
		p := v::text::float8;
		same := false;
		IF p < 1 THEN
			FOREACH q IN ARRAY kept LOOP
				IF q < 1 AND NOT EXISTS (SELECT FROM unnest(shares) s
										 WHERE s >= least(p, q) - eps AND s <= greatest(p, q) + eps) THEN
					same := true;
				END IF;
			END LOOP;
		END IF;
		IF NOT same THEN
			kept := kept || p;
			out := out || jsonb_build_array(v);
		END IF;
	END LOOP;
	RETURN out;
END
$f$;

-- The model run_protocol keeps for a method: gsu.train_best's cross-validation on the
-- training rows (the protocol), or, with SELECT_ON=test (gsu_bench.selection = 'test'), the
-- ablation "hyperparameters chosen on the test set": every combination of the grid trained
-- on all the training rows and scored on the test images te, the most accurate kept
-- (ties to the first combination, lambda first as in train_best). An upper bound, not a
-- protocol: it tells how much of a gap selection on the test set could explain.
CREATE FUNCTION pick_model(tbl text, meancol text, varcol text, grid jsonb, folds int, r int, opts jsonb)
RETURNS gsu.model LANGUAGE plpgsql AS $f$
DECLARE
	best gsu.model;
	best_acc float8;
	m gsu.model;
	acc float8;
	lam jsonb;
	p jsonb;
BEGIN
	IF coalesce(nullif(current_setting('gsu_bench.selection', true), ''), 'cv') = 'cv' THEN
		RETURN gsu.train_best(tbl, meancol, varcol, 'label', grid, folds, r, opts, 'accuracy', 'id');
	END IF;
	FOR lam IN SELECT e FROM jsonb_array_elements(grid -> 'lambda') e LOOP
		FOR p IN SELECT e FROM jsonb_array_elements(coalesce(grid -> 'subspace_fraction', '[null]')) e LOOP
			EXECUTE format('SELECT gsu.train(%I, %s, label, $1) FROM %I', meancol,
						   coalesce(quote_ident(varcol), 'NULL::float8[]'), tbl)
				INTO m USING opts || jsonb_build_object('lambda', lam) ||
							 CASE WHEN p = 'null' THEN '{}' ELSE jsonb_build_object('subspace_fraction', p) END;
			SELECT avg((gsu.predict(m, x) = label)::int) INTO acc FROM te;
			IF best_acc IS NULL OR acc > best_acc THEN
				best := m;
				best_acc := acc;
			END IF;
		END LOOP;
	END LOOP;
	RETURN best;
END
$f$;

CREATE PROCEDURE run_protocol(n_runs int, sizes int[], datasets int[], lambdas jsonb, pgrid jsonb,
	p_fixed jsonb, sigma2 float8, folds int, wanted text[])
LANGUAGE plpgsql AS $$
DECLARE
	r int;
	n int;
	k int;
	m gsu.model;
	t timestamptz;
	p float8;
	ps jsonb;
	best_p float8;
	best_lambda float8;
	best_metric float8;
	cand record;
	sub record;
	-- the hinge SVM at small lambda on separable images needs more than the default
	-- 1000 Newton iterations on some folds
	opts jsonb := '{"max_iterations": 5000}';
	grid jsonb := jsonb_build_object('lambda', lambdas);
	t0 timestamptz := clock_timestamp();
	-- the runs are first_run .. first_run + n_runs - 1 (FIRST_RUN of the script): runs of
	-- several sessions add up, each run's training sets depending only on its number
	first_run int := coalesce(nullif(current_setting('gsu_bench.first_run', true), '')::int, 1);
BEGIN
	CREATE TEMP TABLE IF NOT EXISTS tr (id int, mean float8[], var float8[], iso float8, radius float8, label int,
		f float8[]);
	CREATE TEMP TABLE IF NOT EXISTS te (id int, x float8[], x0 float8[], label int);
	CREATE TEMP TABLE IF NOT EXISTS auth (id int, mean float8[], var float8[], label int);
	FOREACH k IN ARRAY datasets LOOP
		TRUNCATE te;
		INSERT INTO te SELECT i.id, i.x, c.x, i.label FROM img i JOIN img c ON c.dataset = 0 AND c.id = i.id
		WHERE i.dataset = k AND i.part = 'test' ORDER BY i.id;
		FOREACH n IN ARRAY sizes LOOP
			FOR r IN first_run .. first_run + n_runs - 1 LOOP
				TRUNCATE tr;
				INSERT INTO tr
				SELECT id, x, v, s / 784,
					   sqrt(s) * coalesce(nullif(current_setting('gsu_bench.radius_scale', true), '')::float8, 1),
					   label, f
				FROM (SELECT i.id, i.x, i.label, gsu.image_variance(i.x, 28, 28, sigma2) AS v,
							 CASE WHEN wanted && ARRAY['LSVM-GSU (full Σ)', 'LSVM-GSU (full Σ, subspaces)',
									'LSVM-GSU (full Σ, subspaces, mean kept)']
								  THEN gsu.image_covariance_factor(i.x, 28, 28, sigma2) END AS f
					  FROM img i JOIN pool_order o ON o.id = i.id AND o.run = r AND o.rank <= n
					  WHERE i.dataset = k) q,
					 LATERAL (SELECT sum(e) AS s FROM unnest(q.v) e) t
				ORDER BY id;
				ANALYZE tr;
				ps := CASE WHEN p_fixed ? k::text THEN jsonb_build_array(p_fixed -> k::text) ELSE pgrid END;

				-- lambda (and p) by FOLDS-fold cross-validation on the training rows;
				-- the folds are a hash of the id column and the seed r, the same for
				-- every method; ties go to the first combination of the grid (lambdas
				-- are listed largest first)
				IF 'LSVM' = ANY (wanted) THEN
					t := clock_timestamp();
					m := pick_model('tr', 'mean', NULL, grid, folds, r, opts || '{"loss": "hinge"}');
					CALL record(r, n, k, 'LSVM', m, t);
				END IF;
				IF 'PSVM' = ANY (wanted) THEN
					t := clock_timestamp();
					m := pick_model('tr', 'mean', 'radius', grid, folds, r, opts || '{"loss": "psvm"}');
					CALL record(r, n, k, 'PSVM', m, t);
				END IF;
				IF 'LSVM-iso' = ANY (wanted) THEN
					t := clock_timestamp();
					m := pick_model('tr', 'mean', 'iso', grid, folds, r, opts);
					CALL record(r, n, k, 'LSVM-iso', m, t);
				END IF;
				IF 'LSVM-GSU' = ANY (wanted) THEN
					t := clock_timestamp();
					m := pick_model('tr', 'mean', 'var', grid, folds, r, opts);
					CALL record(r, n, k, 'LSVM-GSU', m, t);
				END IF;
				-- the full Appendix-B covariance (its rank-2 factor), as Sect. 4.2.2 states
				IF 'LSVM-GSU (full Σ)' = ANY (wanted) THEN
					t := clock_timestamp();
					m := pick_model('tr', 'mean', 'f', grid, folds, r, opts);
					CALL record(r, n, k, 'LSVM-GSU (full Σ)', m, t);
				END IF;
				-- eq. (9) as printed ("gaussian": the mean is projected onto the kept
				-- directions too) and the other reading ("covariance": only the
				-- covariance is restricted, the mean kept), on the diagonal and on the
				-- full covariance
				FOR sub IN SELECT * FROM (VALUES ('LSVM-GSU (subspaces)', 'gaussian', 'var'),
						('LSVM-GSU (subspaces, mean kept)', 'covariance', 'var'),
						('LSVM-GSU (full Σ, subspaces)', 'gaussian', 'f'),
						('LSVM-GSU (full Σ, subspaces, mean kept)', 'covariance', 'f')) v(method, mode, col) LOOP
					IF sub.method = ANY (wanted) THEN
						t := clock_timestamp();
						m := pick_model('tr', 'mean', sub.col, grid || jsonb_build_object('subspace_fraction',
												CASE WHEN sub.col = 'f' THEN factor_fractions(ps) ELSE ps END),
											folds, r, opts || jsonb_build_object('subspace_mode', sub.mode));
						CALL record(r, n, k, sub.method, m, t);
					END IF;
				END LOOP;
				-- what the authors' code computes (authors_rows), p and lambda by the same
				-- cross-validation (ties to the first p, then the first lambda)
				IF 'LSVM-GSU (authors'' code)' = ANY (wanted) THEN
					t := clock_timestamp();
					best_metric := NULL;
					FOR p IN SELECT v::float8 FROM jsonb_array_elements_text(ps) v LOOP
						CALL authors_rows(p);
						SELECT cv.lambda, cv.metric_mean INTO cand
						FROM gsu.cross_validate('auth', 'mean', 'var', 'label', grid, folds, r, opts, 'accuracy', 'id') cv
						ORDER BY cv.metric_mean DESC, cv.combination LIMIT 1;
						IF best_metric IS NULL OR cand.metric_mean > best_metric THEN
							best_metric := cand.metric_mean;
							best_lambda := cand.lambda;
							best_p := p;
						END IF;
					END LOOP;
					CALL authors_rows(best_p);
					SELECT gsu.train(mean, var, label, opts || jsonb_build_object('lambda', best_lambda)) INTO m FROM auth;
					CALL record(r, n, k, 'LSVM-GSU (authors'' code)', m, t, best_p);
				END IF;
				COMMIT;
			END LOOP;
			RAISE WARNING 'D% size % per class: % runs done, % s', k, n, n_runs,
				round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1);
		END LOOP;
	END LOOP;
END
$$;

-- McNemar's counts of each method against LSVM of the same run, size and data set:
-- b = test images it classifies correctly and LSVM does not, c = the reverse
CREATE VIEW results_vs_lsvm AS
SELECT r.*, v.b, v.c
FROM results r
LEFT JOIN LATERAL (
	SELECT count(*) FILTER (WHERE a AND NOT l) AS b, count(*) FILTER (WHERE l AND NOT a) AS c
	FROM results l0, unnest(r.correct, l0.correct) AS u(a, l)
	WHERE l0.run = r.run AND l0.size = r.size AND l0.dataset = r.dataset AND l0.method = 'LSVM'
	HAVING count(*) > 0) v ON true;

-- Each method against LSVM of the same runs, size and data set, with pg_gsu's own
-- significance aggregates: the paired t-test over the runs, plain and with Nadeau and
-- Bengio's correction (test/train ratio: the test images over the 2 * size training
-- images), and McNemar's exact test on the test images of each run (an image is
-- "right" for a method when it classified it correctly: gsu.mcnemar(right_a,
-- right_b, 1)), summarized by the median p over the runs and how many runs give p < 0.05.
CREATE VIEW significance AS
WITH pairs AS (
	SELECT a.size, a.dataset, a.method, a.run, a.accuracy AS acc_a, l.accuracy AS acc_l,
		   cardinality(a.correct) AS n_test,
		   (SELECT (gsu.mcnemar(x::int, y::int, 1) ->> 'p')::float8
			FROM unnest(a.correct, l.correct) AS u(x, y)) AS mcnemar_p
	FROM results a JOIN results l ON l.run = a.run AND l.size = a.size AND l.dataset = a.dataset
	WHERE l.method = 'LSVM' AND a.method <> 'LSVM')
SELECT size, dataset, method, count(*) AS runs,
	   (gsu.paired_ttest(acc_a, acc_l) ->> 'mean_difference')::float8 AS mean_difference,
	   (gsu.paired_ttest(acc_a, acc_l) ->> 'p')::float8 AS p_t,
	   (gsu.paired_ttest(acc_a, acc_l, n_test::float8 / (2 * size)) ->> 'p')::float8 AS p_corrected,
	   percentile_disc(0.5) WITHIN GROUP (ORDER BY mcnemar_p) AS mcnemar_median_p,
	   count(*) FILTER (WHERE mcnemar_p < 0.05) AS mcnemar_runs_below
FROM pairs GROUP BY size, dataset, method;
