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
--          from its mean, E|dx|^2 = tr Sigma: PSVM's ball
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
	('LSVM-GSU (subspaces)', 5);

-- run r's order of the pool: md5('mnist run r, image id'); the training set of size n
-- is the first n of each class in that order (the same ids in every data set, and the
-- sets of one run nest: size 25 is part of size 50, ...)
CREATE TABLE pool_order AS
SELECT r AS run, id, label,
	   row_number() OVER (PARTITION BY r, label ORDER BY md5('mnist run ' || r || ', image ' || id)) AS rank
FROM img, generate_series(1, :runs) r
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
CREATE PROCEDURE record(r int, n int, k int, meth text, m gsu.model, t0 timestamptz)
LANGUAGE sql AS $$
	INSERT INTO results
	SELECT r, n, k, meth, lambda_of(m), p_of(m), avg(c::int), avg(c0::int), array_agg(c ORDER BY id),
		   extract(epoch FROM clock_timestamp() - t0)
	FROM (SELECT id, gsu.predict(m, x) = label AS c, gsu.predict(m, x0) = label AS c0 FROM te) s
$$;

CREATE PROCEDURE run_protocol(n_runs int, sizes int[], datasets int[], lambdas jsonb, pgrid jsonb,
	p_fixed jsonb, sigma2 float8, folds int, mode text, wanted text[])
LANGUAGE plpgsql AS $$
DECLARE
	r int;
	n int;
	k int;
	m gsu.model;
	t timestamptz;
	-- the hinge SVM at small lambda on separable images needs more than the default
	-- 1000 Newton iterations on some folds
	opts jsonb := '{"max_iterations": 5000}';
	grid jsonb := jsonb_build_object('lambda', lambdas);
	t0 timestamptz := clock_timestamp();
BEGIN
	CREATE TEMP TABLE IF NOT EXISTS tr (id int, mean float8[], var float8[], iso float8, radius float8, label int);
	CREATE TEMP TABLE IF NOT EXISTS te (id int, x float8[], x0 float8[], label int);
	FOREACH k IN ARRAY datasets LOOP
		TRUNCATE te;
		INSERT INTO te SELECT i.id, i.x, c.x, i.label FROM img i JOIN img c ON c.dataset = 0 AND c.id = i.id
		WHERE i.dataset = k AND i.part = 'test' ORDER BY i.id;
		FOREACH n IN ARRAY sizes LOOP
			FOR r IN 1 .. n_runs LOOP
				TRUNCATE tr;
				INSERT INTO tr
				SELECT id, x, v, s / 784, sqrt(s), label
				FROM (SELECT i.id, i.x, i.label, gsu.image_variance(i.x, 28, 28, sigma2) AS v
					  FROM img i JOIN pool_order o ON o.id = i.id AND o.run = r AND o.rank <= n
					  WHERE i.dataset = k) q,
					 LATERAL (SELECT sum(e) AS s FROM unnest(q.v) e) t
				ORDER BY id;
				ANALYZE tr;

				-- lambda (and p) by FOLDS-fold cross-validation on the training rows;
				-- the folds are a hash of the id column and the seed r, the same for
				-- every method; ties go to the first combination of the grid (lambdas
				-- are listed largest first)
				IF 'LSVM' = ANY (wanted) THEN
					t := clock_timestamp();
					m := gsu.train_best('tr', 'mean', NULL, 'label', grid, folds, r, opts || '{"loss": "hinge"}', 'accuracy', 'id');
					CALL record(r, n, k, 'LSVM', m, t);
				END IF;
				IF 'PSVM' = ANY (wanted) THEN
					t := clock_timestamp();
					m := gsu.train_best('tr', 'mean', 'radius', 'label', grid, folds, r, opts || '{"loss": "psvm"}', 'accuracy', 'id');
					CALL record(r, n, k, 'PSVM', m, t);
				END IF;
				IF 'LSVM-iso' = ANY (wanted) THEN
					t := clock_timestamp();
					m := gsu.train_best('tr', 'mean', 'iso', 'label', grid, folds, r, opts, 'accuracy', 'id');
					CALL record(r, n, k, 'LSVM-iso', m, t);
				END IF;
				IF 'LSVM-GSU' = ANY (wanted) THEN
					t := clock_timestamp();
					m := gsu.train_best('tr', 'mean', 'var', 'label', grid, folds, r, opts, 'accuracy', 'id');
					CALL record(r, n, k, 'LSVM-GSU', m, t);
				END IF;
				IF 'LSVM-GSU (subspaces)' = ANY (wanted) THEN
					t := clock_timestamp();
					m := gsu.train_best('tr', 'mean', 'var', 'label',
										grid || jsonb_build_object('subspace_fraction', CASE WHEN p_fixed ? k::text THEN jsonb_build_array(p_fixed -> k::text) ELSE pgrid END),
										folds, r, opts || jsonb_build_object('subspace_mode', mode), 'accuracy', 'id');
					CALL record(r, n, k, 'LSVM-GSU (subspaces)', m, t);
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
