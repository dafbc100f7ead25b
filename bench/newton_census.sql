-- bench/newton_census.sql: does newton certify its optimum at small lambda on the full
-- Appendix-B covariance? Run by `bash bench/mnist_table1.sh census` after
-- bench/mnist_table1.sql has loaded the images (tables img and pool_order); psql variables
-- runs, first_run, datasets (an int[] literal), lambdas (a float8[] literal), sigma2.
--
-- For each run r and data set k: the run's 50 training images (the same rows as the
-- Table 1 protocol's, pool_order rank <= 25 per class) as mean and rank-2 factor
-- (gsu.image_covariance_factor), and one model per lambda trained on all 50 rows, with the
-- bench's 5,000-iteration cap, in two modes: the whole covariance ("none") and the
-- covariance kept to its principal directions with the mean kept (subspace_mode
-- "covariance", subspace_fraction 0.9). Each row of the table census is what
-- gsu.describe reports of that model's training.
\set ON_ERROR_STOP 1

CREATE TABLE census (run int, dataset int, lambda float8, mode text, iterations int,
	converged bool, gap_estimate float8, objective float8, seconds float8);

CREATE PROCEDURE newton_census(n_runs int, first_run int, datasets int[], lambdas float8[], sigma2 float8)
LANGUAGE plpgsql AS $$
DECLARE
	r int;
	k int;
	lam float8;
	md text;
	m gsu.model;
	t jsonb;
BEGIN
	CREATE TEMP TABLE IF NOT EXISTS ctr (id int, mean float8[], f float8[], label int);
	FOREACH k IN ARRAY datasets LOOP
		FOR r IN first_run .. first_run + n_runs - 1 LOOP
			TRUNCATE ctr;
			INSERT INTO ctr
			SELECT i.id, i.x, gsu.image_covariance_factor(i.x, 28, 28, sigma2), i.label
			FROM img i JOIN pool_order o ON o.id = i.id AND o.run = r AND o.rank <= 25
			WHERE i.dataset = k ORDER BY i.id;
			FOREACH lam IN ARRAY lambdas LOOP
				FOREACH md IN ARRAY ARRAY['none', 'covariance'] LOOP
					SELECT gsu.train(mean, f, label, jsonb_build_object('lambda', lam, 'max_iterations', 5000) ||
							CASE WHEN md = 'none' THEN '{}'::jsonb
								 ELSE '{"subspace_mode": "covariance", "subspace_fraction": 0.9}' END)
					INTO m FROM ctr;
					t := gsu.describe(m) -> 'training';
					INSERT INTO census VALUES (r, k, lam, md, (t ->> 'iterations')::int,
						(t ->> 'converged')::bool, (t ->> 'gap_estimate')::float8,
						(t ->> 'objective')::float8, (t ->> 'seconds')::float8);
					COMMIT;
				END LOOP;
			END LOOP;
		END LOOP;
	END LOOP;
END
$$;

SET client_min_messages = warning;
CALL newton_census(:runs, :first_run, :'datasets', :'lambdas', :sigma2);
