-- The SVM-GSU paper's MNIST experiment (Tzelepis et al., TPAMI 2018, Sect. 4.1,
-- Table 1: "1" vs "7", data sets D0-D5) in SQL with pg_gsu. Run by
-- bench/mnist_table1.sh, which sets the psql variables runs, n_test, lambdas,
-- pgrid, sigma2 and folds and feeds the images (COPY text, from
-- bench/mnist_table1.js) on psql's stdin. The protocol and the choices made where
-- the paper leaves room are in that script's header.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
\set SHOW_CONTEXT errors
CREATE EXTENSION IF NOT EXISTS pg_gsu;

-- one row per image and data set: dataset 0 = D0 (original) .. 5 = D5 (t_p = 11),
-- label +1 for a "1", -1 for a "7", the 784 pixels in [0, 1], row-major
CREATE TABLE img (dataset int, id int, label int, x float8[], PRIMARY KEY (dataset, id));
\copy img FROM pstdin
ANALYZE img;

-- the training rows of the current run and data set, with what each method reads:
--   var    the diagonal of the Appendix-B covariance sigma^2 (g_x g_x' + g_y g_y'),
--          i.e. sigma^2 (g_x(p)^2 + g_y(p)^2) per pixel (gsu.image_variance)
--   iso    the mean of var over the 784 pixels, tr(Sigma)/784: LSVM-iso's s in s*I
--   radius sqrt(tr Sigma), the root-mean-square distance of the translated image
--          from its mean, E|dx|^2 = tr Sigma: PSVM's ball
CREATE TABLE tr (id int, mean float8[], var float8[], iso float8, radius float8, label int);
CREATE TABLE split (run int, id int, part text, PRIMARY KEY (run, id));
CREATE TABLE results (run int, dataset int, method text, lambda float8, p float8, accuracy float8);
CREATE TABLE methods (method text PRIMARY KEY, ord int);
INSERT INTO methods VALUES ('LSVM', 1), ('PSVM', 2), ('LSVM-iso', 3), ('LSVM-GSU', 4),
	('LSVM-GSU (subspaces)', 5);

-- run r: 25 images of each class for training, the first in the order of
-- md5('mnist run r, image id'); the test part is every other image (or, with n_test
-- > 0, the n_test of them that come next in that order, any class). The same ids in
-- every data set, so the columns of a run share their split.
INSERT INTO split
SELECT r, id, CASE WHEN rn_class <= 25 THEN 'train'
				   WHEN :n_test <= 0 OR rn_rest <= :n_test THEN 'test' END
FROM (SELECT r, id, rn_class,
			 row_number() OVER (PARTITION BY r, rn_class <= 25 ORDER BY o) AS rn_rest
	  FROM (SELECT r, id, md5('mnist run ' || r || ', image ' || id) AS o,
				   row_number() OVER (PARTITION BY r, label ORDER BY md5('mnist run ' || r || ', image ' || id)) AS rn_class
			FROM img, generate_series(1, :runs) r WHERE dataset = 0) s) s2;
DELETE FROM split WHERE part IS NULL;

CREATE FUNCTION test_accuracy(m gsu.model, r int, k int) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT avg((gsu.predict(m, i.x) = i.label)::int)
	FROM img i JOIN split s ON s.id = i.id AND s.run = r AND s.part = 'test'
	WHERE i.dataset = k
$$;

CREATE FUNCTION lambda_of(m gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
$$;

CREATE PROCEDURE run_protocol(n_runs int, lambdas float8[], pgrid float8[], sigma2 float8, folds int)
LANGUAGE plpgsql AS $$
DECLARE
	r int;
	k int;
	m gsu.model;
	p float8;
	best_lambda float8;
	best_metric float8;
	best_p float8;
	cand record;
	-- the hinge SVM at small lambda on 50 separable images needs more than the
	-- default 1000 Newton iterations on some folds
	opts jsonb := '{"max_iterations": 5000}';
	t0 timestamptz := clock_timestamp();
BEGIN
	FOR r IN 1 .. n_runs LOOP
		FOR k IN 0 .. 5 LOOP
			TRUNCATE tr;
			INSERT INTO tr
			SELECT id, x, v, s / 784, sqrt(s), label
			FROM (SELECT i.id, i.x, i.label, gsu.image_variance(i.x, 28, 28, sigma2) AS v
				  FROM img i JOIN split sp ON sp.id = i.id AND sp.run = r AND sp.part = 'train'
				  WHERE i.dataset = k) q,
				 LATERAL (SELECT sum(e) AS s FROM unnest(q.v) e) t
			ORDER BY id;

			-- the folds are a hash of the id column and the seed r: the same for every method
			m := gsu.train_best('tr', 'mean', NULL, 'label', lambdas, folds, r, opts || '{"loss": "hinge"}', 'accuracy', 'id');
			INSERT INTO results VALUES (r, k, 'LSVM', lambda_of(m), NULL, test_accuracy(m, r, k));
			m := gsu.train_best('tr', 'mean', 'radius', 'label', lambdas, folds, r, opts || '{"loss": "psvm"}', 'accuracy', 'id');
			INSERT INTO results VALUES (r, k, 'PSVM', lambda_of(m), NULL, test_accuracy(m, r, k));
			m := gsu.train_best('tr', 'mean', 'iso', 'label', lambdas, folds, r, opts, 'accuracy', 'id');
			INSERT INTO results VALUES (r, k, 'LSVM-iso', lambda_of(m), NULL, test_accuracy(m, r, k));
			m := gsu.train_best('tr', 'mean', 'var', 'label', lambdas, folds, r, opts, 'accuracy', 'id');
			INSERT INTO results VALUES (r, k, 'LSVM-GSU', lambda_of(m), NULL, test_accuracy(m, r, k));

			-- subspaces: (p, lambda) by the same cross-validation; ties go to the larger
			-- lambda, then to the larger p
			best_metric := NULL;
			FOREACH p IN ARRAY pgrid LOOP
				SELECT cv.lambda, cv.metric_mean INTO cand
				FROM gsu.cross_validate('tr', 'mean', 'var', 'label', lambdas, folds, r,
										opts || jsonb_build_object('subspace_fraction', p), 'accuracy', 'id') cv
				ORDER BY cv.metric_mean DESC, cv.lambda DESC LIMIT 1;
				IF best_metric IS NULL OR cand.metric_mean >= best_metric THEN
					best_lambda := cand.lambda;
					best_metric := cand.metric_mean;
					best_p := p;
				END IF;
			END LOOP;
			SELECT gsu.train(mean, var, label, opts || jsonb_build_object('lambda', best_lambda, 'subspace_fraction', best_p))
				INTO m FROM tr;
			INSERT INTO results VALUES (r, k, 'LSVM-GSU (subspaces)', best_lambda, best_p, test_accuracy(m, r, k));
		END LOOP;
		RAISE WARNING 'run % of % done, % s', r, n_runs, round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1);
		COMMIT;
	END LOOP;
END
$$;

CALL run_protocol(:runs, :'lambdas', :'pgrid', :sigma2, :folds);

