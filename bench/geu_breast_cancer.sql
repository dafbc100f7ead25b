-- The GEU paper's protocol (Laakom et al., IEEE Access 2022) on the Wisconsin
-- breast-cancer data, entirely in SQL with pg_gsu: 5-fold cross-validation;
-- inside each training part, an inner 5-fold cross-validation chooses the
-- output dimension d in {1, 2, 4, 8} and sigma (GEU) or epsilon (RLDA, RMFA)
-- in {0.001, 0.1, 0.2, 0.4, 0.8, 1, 2}; the chosen setting is refitted on the
-- whole training part and scored by 1-NN in the projected space on the test
-- part.  Features are standardized with the training part's mean and standard
-- deviation.  GEU variances are estimated from the training rows with
-- gsu.nn_variance (U: nearest other row; S: nearest other row of the class).
-- Run by bench/geu_breast_cancer.sh, which loads the table bc_raw first and
-- sets the psql variables k1 and k2 (MFA neighbourhoods).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_gsu;

CREATE TABLE bc AS
SELECT row_number() OVER ()::int AS id, f[1:30]::float8[] AS x, f[31]::int AS y
FROM (SELECT string_to_array(line, ',') AS f FROM bc_raw) s;

-- deterministic shuffles: outer folds, and inner folds within each training part
CREATE TABLE folds AS
SELECT id, (row_number() OVER (ORDER BY md5('outer' || id)) - 1) % 5 AS outer_fold,
	(row_number() OVER (ORDER BY md5('inner' || id)) - 1) % 5 AS inner_fold
FROM bc;

-- the current split: rows of one training part standardized, with the fold
-- they fall in, and the train/test flag of the fit being evaluated
CREATE TABLE std (id int, x float8[], y int, outer_train bool, inner_fold int);
CREATE TABLE cur (id int, x float8[], y int, train bool);

CREATE TABLE methods (name text PRIMARY KEY, ord int, method text, var_mode text, tuned text, paper numeric);
INSERT INTO methods VALUES
	('LDA', 1, 'lda', 'none', 'none', 0.932), ('RLDA', 2, 'lda', 'none', 'eps', 0.958),
	('GEU-LDA-U', 3, 'lda', 'U', 'sigma', 0.951), ('GEU-LDA-S', 4, 'lda', 'S', 'sigma', 0.950),
	('MFA', 5, 'mfa', 'none', 'none', 0.858), ('RMFA', 6, 'mfa', 'none', 'eps', 0.851),
	('GEU-MFA-U', 7, 'mfa', 'U', 'sigma', 0.866), ('GEU-MFA-S', 8, 'mfa', 'S', 'sigma', 0.894);
CREATE TABLE grid (param float8);
INSERT INTO grid VALUES (0.001), (0.1), (0.2), (0.4), (0.8), (1), (2);

-- 1-NN accuracy on the test rows of cur for d = 1, 2, 4, 8 of one fit on its
-- training rows (the leading d directions of a dims-8 fit are the dims-d
-- fit); NULL when the fit fails (a singular scatter matrix)
CREATE FUNCTION eval_config(meth text, var_mode text, param float8, k1 int, k2 int)
RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
	opts jsonb := jsonb_build_object('method', meth, 'dims', 8);
	p gsu.projection;
	ref gsu.refset;
	acc float8[] := '{}';
	a float8;
	d int;
BEGIN
	IF meth = 'mfa' THEN
		opts := opts || jsonb_build_object('k1', k1, 'k2', k2);
	END IF;
	IF var_mode = 'none' THEN
		IF param > 0 THEN
			opts := opts || jsonb_build_object('regularization', param);
		END IF;
		SELECT gsu.geu_fit(x, NULL, y, opts) INTO p FROM cur WHERE train;
	ELSE
		SELECT gsu.geu_fit(x, gsu.nn_variance(r, x, y, param, var_mode = 'S'), y, opts) INTO p
		FROM cur, (SELECT gsu.refset_agg(x, y) AS r FROM cur WHERE train) q WHERE train;
	END IF;
	FOREACH d IN ARRAY '{1, 2, 4, 8}'::int[] LOOP
		SELECT gsu.refset_agg((gsu.project(p, x))[1:d], y) INTO ref FROM cur WHERE train;
		SELECT avg((gsu.knn_predict(ref, (gsu.project(p, x))[1:d], 1) = y)::int) INTO a
		FROM cur WHERE NOT train;
		acc := acc || a;
	END LOOP;
	RETURN acc;
EXCEPTION WHEN data_exception THEN
	RETURN NULL;
END
$$;

CREATE TABLE cv (name text, outer_fold int, inner_fold int, param float8, d int, acc float8);
CREATE TABLE chosen (name text, outer_fold int, param float8, d int, inner_acc float8, test_acc float8);

CREATE PROCEDURE run_protocol(k1 int, k2 int) LANGUAGE plpgsql AS $$
DECLARE
	f int;
	k int;
	m record;
	g record;
	accs float8[];
	best record;
	dims int[] := '{1, 2, 4, 8}';
BEGIN
	FOR f IN 0 .. 4 LOOP
		-- standardize with the training part's statistics
		TRUNCATE std;
		INSERT INTO std
		SELECT b.id, (SELECT array_agg((b.x[j] - s.mu[j]) / s.sd[j] ORDER BY j) FROM generate_series(1, 30) j),
			b.y, fo.outer_fold <> f, fo.inner_fold
		FROM bc b JOIN folds fo USING (id),
			(SELECT array_agg(mu ORDER BY j) AS mu, array_agg(sd ORDER BY j) AS sd FROM (
				SELECT j, avg(b.x[j]) AS mu, stddev(b.x[j]) AS sd
				FROM bc b JOIN folds fo USING (id), generate_series(1, 30) j
				WHERE fo.outer_fold <> f GROUP BY j) q) s;
		-- inner cross-validation on the training part
		FOR k IN 0 .. 4 LOOP
			TRUNCATE cur;
			INSERT INTO cur SELECT id, x, y, inner_fold <> k FROM std WHERE outer_train;
			FOR m IN SELECT * FROM methods LOOP
				FOR g IN SELECT param FROM grid WHERE m.tuned <> 'none' UNION ALL SELECT 0 WHERE m.tuned = 'none' LOOP
					accs := eval_config(m.method, m.var_mode, g.param, k1, k2);
					INSERT INTO cv SELECT m.name, f, k, g.param, dims[i], accs[i] FROM generate_series(1, 4) i;
				END LOOP;
			END LOOP;
		END LOOP;
		-- refit the best setting (all inner folds solvable; ties: smaller d, then smaller parameter)
		TRUNCATE cur;
		INSERT INTO cur SELECT id, x, y, outer_train FROM std;
		FOR m IN SELECT * FROM methods LOOP
			SELECT cv.param, cv.d, avg(cv.acc) AS inner_acc INTO best FROM cv
			WHERE cv.name = m.name AND cv.outer_fold = f GROUP BY cv.param, cv.d HAVING count(cv.acc) = 5
			ORDER BY avg(cv.acc) DESC, cv.d, cv.param LIMIT 1;
			IF NOT FOUND THEN
				INSERT INTO chosen VALUES (m.name, f, NULL, NULL, NULL, NULL);
				CONTINUE;
			END IF;
			accs := eval_config(m.method, m.var_mode, best.param, k1, k2);
			INSERT INTO chosen VALUES (m.name, f, best.param, best.d, best.inner_acc,
									   accs[array_position(dims, best.d)]);
		END LOOP;
		COMMIT;
	END LOOP;
END
$$;

\timing on
CALL run_protocol(:k1, :k2);
\timing off

\echo
\echo 'Wisconsin breast cancer (569 rows, 30 features), 5-fold CV, 1-NN in the projected space'
\echo 'd and sigma/epsilon chosen by inner 5-fold CV; MFA with k1 =' :k1 ', k2 =' :k2
SELECT c.name AS method, round(avg(test_acc)::numeric, 3) AS accuracy,
	round(stddev(test_acc)::numeric, 3) AS std, m.paper AS paper,
	round(avg(test_acc)::numeric - m.paper, 3) AS difference,
	count(test_acc) AS folds_solved,
	string_agg(coalesce('d=' || d || CASE WHEN m.tuned = 'none' THEN '' ELSE ' ' || m.tuned || '=' || param END, 'failed'),
			   '; ' ORDER BY outer_fold) AS chosen
FROM chosen c JOIN methods m USING (name) GROUP BY c.name, m.ord, m.paper ORDER BY m.ord;

\echo 'inner-CV fits that failed (singular scatter matrix), by method'
SELECT name, count(*) FILTER (WHERE acc IS NULL) / 4 AS failed_fits, count(*) / 4 AS fits
FROM cv GROUP BY name ORDER BY name;
