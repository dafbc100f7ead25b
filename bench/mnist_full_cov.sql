-- LSVM-GSU with the full Appendix-B covariance against its diagonal, on the
-- training images of mnist_table1.sql's runs (Tzelepis et al., TPAMI 2018,
-- Sect. 4.1): for each data set D0-D5 and each lambda of the grid, gsu.train
-- with the 784 x 784 covariance sigma^2 (g_x g_x' + g_y g_y') of every training
-- image (gsu.image_covariance) and with its diagonal (gsu.image_variance), the
-- test accuracy of both, and the full covariance's training statistics. Run by
-- bench/mnist_table1.sh fullcov, which sets the psql variables runs, lambdas
-- and sigma2 and feeds the images on psql's stdin. No cross-validation: the
-- accuracy at every lambda of the grid is printed.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_gsu;

CREATE TABLE img (dataset int, id int, label int, x float8[], PRIMARY KEY (dataset, id));
\copy img FROM pstdin
ANALYZE img;

-- run r's training images: mnist_table1.sql's split (25 of each class, the first
-- in the order of md5('mnist run r, image id')); every other image is a test image
CREATE TABLE split AS
SELECT r AS run, id, rn <= 25 AS train
FROM (SELECT r, id, row_number() OVER (PARTITION BY r, label ORDER BY md5('mnist run ' || r || ', image ' || id)) AS rn
	  FROM img, generate_series(1, :runs) r WHERE dataset = 0) s;
CREATE TABLE tr (id int, mean float8[], var float8[], cov float8[], label int);
CREATE TABLE results (run int, dataset int, lambda float8, diag_accuracy float8, full_accuracy float8,
	full_seconds float8, full_passes int8, full_converged bool, full_objective float8);

CREATE PROCEDURE run_full_cov(n_runs int, lambdas float8[], sigma2 float8)
LANGUAGE plpgsql AS $$
DECLARE
	r int;
	k int;
	lam float8;
	md gsu.model;
	mf gsu.model;
	t0 timestamptz := clock_timestamp();
BEGIN
	FOR r IN 1 .. n_runs LOOP
		FOR k IN 0 .. 5 LOOP
			TRUNCATE tr;
			INSERT INTO tr
			SELECT i.id, i.x, gsu.image_variance(i.x, 28, 28, sigma2),
				gsu.image_covariance(i.x, 28, 28, sigma2), i.label
			FROM img i JOIN split s ON s.id = i.id AND s.run = r AND s.train
			WHERE i.dataset = k ORDER BY i.id;
			FOREACH lam IN ARRAY lambdas LOOP
				SELECT gsu.train(mean, var, label, jsonb_build_object('lambda', lam, 'max_iterations', 5000) ORDER BY id),
					gsu.train(mean, cov, label, jsonb_build_object('lambda', lam, 'max_iterations', 5000) ORDER BY id)
				INTO md, mf FROM tr;
				INSERT INTO results
				SELECT r, k, lam, avg((gsu.predict(md, i.x) = i.label)::int), avg((gsu.predict(mf, i.x) = i.label)::int),
					(gsu.describe(mf)->'training'->>'seconds')::float8,
					(gsu.describe(mf)->'training'->>'passes')::int8,
					(gsu.describe(mf)->'training'->>'converged')::bool,
					(gsu.describe(mf)->'training'->>'objective')::float8
				FROM img i JOIN split s ON s.id = i.id AND s.run = r AND NOT s.train
				WHERE i.dataset = k;
			END LOOP;
			COMMIT;
		END LOOP;
		RAISE WARNING 'run % of % done, % s', r, n_runs, round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1);
	END LOOP;
END
$$;

CALL run_full_cov(:runs, :'lambdas', :sigma2);

\pset footer off
\echo 'Test accuracy of LSVM-GSU (gsu.train, solver newton) with the diagonal and with the full covariance, mean over the runs, per data set and lambda; the full covariance training time (describe seconds), passes, and the runs that converged:'
\echo
SELECT 'D' || dataset AS data, lambda,
	round(avg(diag_accuracy)::numeric, 4) AS diagonal,
	round(avg(full_accuracy)::numeric, 4) AS "full",
	round(avg(full_accuracy - diag_accuracy)::numeric, 4) AS "full - diagonal",
	round(avg(full_seconds)::numeric, 2) AS "full: seconds",
	round(avg(full_passes)) AS "full: passes",
	count(*) FILTER (WHERE full_converged) || ' of ' || count(*) AS "full: converged"
FROM results GROUP BY dataset, lambda ORDER BY dataset, lambda;
\echo
\echo 'The best lambda of the grid per data set (by test accuracy, so an upper bound on what cross-validation would give), mean over the runs:'
\echo
SELECT 'D' || dataset AS data,
	round(max(d)::numeric, 4) AS "diagonal, best lambda",
	round(max(f)::numeric, 4) AS "full, best lambda"
FROM (SELECT dataset, lambda, avg(diag_accuracy) AS d, avg(full_accuracy) AS f FROM results GROUP BY dataset, lambda) s
GROUP BY dataset ORDER BY dataset;
