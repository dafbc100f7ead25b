-- The SVM-GSU paper's sampling experiment (Tzelepis, Mezaris & Patras, TPAMI 2018,
-- Sect. 4.1, Figs. 3 and 4), run by bench/sampling.sh: how many samples per Gaussian a
-- linear SVM trained on samples (LSVM-sampling) needs to find LSVM-GSU's hyperplane.
--
-- psql variables: dims ('{2,3}'), per_class, lambda, ns ('{1,10,...}'), reps, seed,
-- spread, offset.
--
-- The toy data (the paper does not print its own): per dimension d, per_class Gaussians
-- per class; class y's means are y * offset * (1, ..., 1) + N(0, 0.8^2 I); each
-- covariance is Sigma = L L' with L lower triangular, L_ij ~ N(0, spread^2) below the
-- diagonal and L_ii = |N(0, spread^2)| + 0.05 (so every Gaussian has its own shape and
-- orientation; bench/sampling.sh's defaults: offset 1, spread 1).
-- LSVM trains on the means (loss hinge), LSVM-GSU on the means and Sigma (loss gsu),
-- LSVM-sampling with the loss hinge on N draws x = m + L z, z ~ N(0, I), of every
-- Gaussian, all three at the same lambda. Both objectives are lambda/2 |w|^2 plus the
-- mean loss over the rows, so as N grows the sampled objective tends to LSVM-GSU's
-- (its loss is the expected hinge under each Gaussian) and the angle between the two
-- normals w tends to 0. Normals: from the uniform draws of PostgreSQL's random() after
-- setseed, by Box-Muller; every query below runs serially, so a run is repeatable.

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS pg_gsu;

DROP TABLE IF EXISTS toy, toy_models, sampling_runs;

-- l: the 3 x 3 factor, row major (the unused rows and columns of d = 2 are 0)
CREATE TABLE toy (dim int, id int, label int, mean float8[], l float8[], cov float8[]);

CREATE FUNCTION pg_temp.normal() RETURNS float8 LANGUAGE sql VOLATILE
	AS $$ SELECT sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) $$;

SELECT setseed(:seed / 1000.0) \g /dev/null
INSERT INTO toy (dim, id, label, mean, l)
SELECT d, i, y,
	   array(SELECT y * :offset + 0.8 * pg_temp.normal() + 0 * i FROM generate_series(1, d)),
	   array(SELECT CASE WHEN r > d OR c > d OR c > r THEN 0
						 WHEN c = r THEN abs(:spread * pg_temp.normal()) + 0.05
						 ELSE :spread * pg_temp.normal() END
			 FROM generate_series(1, 3) r, generate_series(1, 3) c
			 WHERE i > 0 ORDER BY r, c)
FROM unnest(:'dims'::int[]) d, (VALUES (-1), (1)) AS c(y), generate_series(1, :per_class) i
ORDER BY d, y, i;
-- Sigma = L L' (d x d)
UPDATE toy SET cov = (
	SELECT array_agg(row ORDER BY r) FROM (
		SELECT r, array_agg((SELECT sum(l[(r - 1) * 3 + k] * l[(c - 1) * 3 + k]) FROM generate_series(1, 3) k)
							ORDER BY c) AS row
		FROM generate_series(1, dim) r, generate_series(1, dim) c GROUP BY r) rows);

-- the models without sampling
CREATE TABLE toy_models AS
SELECT dim, 'LSVM'::text AS method,
	   gsu.train(mean, NULL::float8[], label, jsonb_build_object('loss', 'hinge', 'lambda', :lambda)) AS model
FROM toy GROUP BY dim
UNION ALL
SELECT dim, 'LSVM-GSU', gsu.train(mean, cov, label, jsonb_build_object('lambda', :lambda))
FROM toy GROUP BY dim;

-- the angle in degrees between two normals
CREATE FUNCTION pg_temp.angle(a float8[], b float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE
	AS $$ SELECT degrees(acos(least(1, greatest(-1,
		(SELECT sum(x * y) / sqrt(sum(x * x) * sum(y * y)) FROM unnest(a, b) AS u(x, y)))))) $$;

CREATE TABLE sampling_runs (dim int, n int, rep int, angle float8, lsvm_angle float8,
							w float8[], b float8, rows int8, seconds float8);

-- one LSVM-sampling model: N draws of every Gaussian of dimension d
CREATE PROCEDURE pg_temp.sample_run(d int, n int, rep int, lam float8, seed int)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	m gsu.model;
BEGIN
	PERFORM setseed(((seed * 7919 + d * 104729 + n * 31 + rep) % 1000003) / 1000003.0);
	SELECT gsu.train(x, NULL::float8[], label, jsonb_build_object('loss', 'hinge', 'lambda', lam)) INTO m
	FROM (SELECT label,
				 (ARRAY[mean[1] + l[1] * z1,
						mean[2] + l[4] * z1 + l[5] * z2,
						coalesce(mean[3], 0) + l[7] * z1 + l[8] * z2 + l[9] * z3])[1:d] AS x
		  FROM (SELECT t.label, t.mean, t.l, pg_temp.normal() z1, pg_temp.normal() z2,
					   CASE WHEN d = 3 THEN pg_temp.normal() ELSE 0 END z3
				FROM toy t, generate_series(1, n) k WHERE t.dim = d OFFSET 0) s) r;
	INSERT INTO sampling_runs
	SELECT d, n, rep,
		   pg_temp.angle(gsu.weights(m), (SELECT gsu.weights(model) FROM toy_models WHERE dim = d AND method = 'LSVM-GSU')),
		   pg_temp.angle(gsu.weights(m), (SELECT gsu.weights(model) FROM toy_models WHERE dim = d AND method = 'LSVM')),
		   gsu.weights(m), gsu.bias(m), n::int8 * (SELECT count(*) FROM toy WHERE dim = d),
		   extract(epoch FROM clock_timestamp() - t0);
END $$;

SET sampling.dims = :'dims';
SET sampling.ns = :'ns';
SET sampling.reps = :'reps';
SET sampling.lambda = :'lambda';
SET sampling.seed = :'seed';
DO $$
DECLARE
	d int; n int; r int;
BEGIN
	FOREACH d IN ARRAY current_setting('sampling.dims')::int[] LOOP
		FOREACH n IN ARRAY current_setting('sampling.ns')::int[] LOOP
			FOR r IN 1 .. current_setting('sampling.reps')::int LOOP
				CALL pg_temp.sample_run(d, n, r, current_setting('sampling.lambda')::float8,
										current_setting('sampling.seed')::int);
				COMMIT;
			END LOOP;
		END LOOP;
	END LOOP;
END $$;
