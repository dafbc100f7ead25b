-- The GEU paper's Tables 1 and 2 on Cancer (Laakom et al., IEEE Access 2022,
-- Sect. IV) with its noise levels, entirely in SQL with pg_gsu.  Run by
-- bench/geu_table2.sh, which loads the table bc_raw first and sets the psql
-- variables first_run, runs, noises (a float8[] literal), methods (a text[]
-- literal of method names, see the table methods), k1, k2, noise_kind and dir_scale.
-- The protocol and the choices made where the paper is silent are in the
-- script's head comment.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_gsu;

CREATE TABLE IF NOT EXISTS bc AS
SELECT row_number() OVER ()::int AS id, f[1:30]::float8[] AS x, f[31]::int AS y
FROM (SELECT string_to_array(line, ',') AS f FROM bc_raw) s;

-- each feature's standard deviation over the 569 rows: the scale of the added noise
CREATE TABLE IF NOT EXISTS bc_sd AS
SELECT array_agg(sd ORDER BY j) AS sd FROM (
	SELECT j, stddev_samp(x[j]) AS sd FROM bc, generate_series(1, 30) j GROUP BY j) q;

-- a standard normal number from a string (Box-Muller on two 32-bit slices of its md5)
CREATE OR REPLACE FUNCTION hash_normal(key text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(-2 * ln((('x' || substr(h, 1, 8))::bit(32)::bigint + 1) / 4294967297.0))
		* cos(2 * pi() * ('x' || substr(h, 9, 8))::bit(32)::bigint / 4294967296.0)
	FROM md5(key) h
$$;

-- the current run: noisy rows, folds, one training part standardized, and the
-- train/test flag of the fit being evaluated
CREATE TABLE IF NOT EXISTS noisy (id int, x float8[], y int, outer_fold int, inner_fold int);
CREATE TABLE IF NOT EXISTS std (id int, x float8[], y int, outer_train bool, inner_fold int);
CREATE TABLE IF NOT EXISTS cur (id int, x float8[], y int, train bool);

CREATE TABLE IF NOT EXISTS methods (name text PRIMARY KEY, ord int, method text, var_mode text,
	tuned text, regularize text, tbl int);
INSERT INTO methods VALUES
	('LDA', 1, 'lda', 'none', 'none', NULL, 2), ('RLDA', 2, 'lda', 'none', 'eps', 'penalty', 2),
	('GEU-LDA-U', 3, 'lda', 'U', 'sigma', NULL, 2), ('GEU-LDA-S', 4, 'lda', 'S', 'sigma', NULL, 2),
	('MFA', 5, 'mfa', 'none', 'none', NULL, 1), ('RMFA', 6, 'mfa', 'none', 'eps', 'penalty', 1),
	('GEU-MFA-U', 7, 'mfa', 'U', 'sigma', NULL, 1), ('GEU-MFA-S', 8, 'mfa', 'S', 'sigma', NULL, 1),
	('RLDA-both', 9, 'lda', 'none', 'eps', 'both', 2), ('RMFA-both', 10, 'mfa', 'none', 'eps', 'both', 1)
ON CONFLICT DO NOTHING;
-- the paper's Tables 1 (MFA family) and 2 (LDA family), Cancer rows
CREATE TABLE IF NOT EXISTS paper (name text, noise float8, acc numeric, PRIMARY KEY (name, noise));
INSERT INTO paper VALUES
	('LDA', 0, 0.932), ('LDA', 0.1, 0.896), ('LDA', 0.2, 0.895),
	('RLDA', 0, 0.958), ('RLDA', 0.1, 0.919), ('RLDA', 0.2, 0.909),
	('GEU-LDA-U', 0, 0.951), ('GEU-LDA-U', 0.1, 0.917), ('GEU-LDA-U', 0.2, 0.904),
	('GEU-LDA-S', 0, 0.950), ('GEU-LDA-S', 0.1, 0.918), ('GEU-LDA-S', 0.2, 0.901),
	('RSLDA', 0, 0.882), ('RSLDA', 0.1, 0.858), ('RSLDA', 0.2, 0.829),
	('ULDA', 0, 0.528), ('ULDA', 0.1, 0.541), ('ULDA', 0.2, 0.505),
	('MFA', 0, 0.858), ('MFA', 0.1, 0.833), ('MFA', 0.2, 0.806),
	('RMFA', 0, 0.851), ('RMFA', 0.1, 0.870), ('RMFA', 0.2, 0.825),
	('GEU-MFA-U', 0, 0.866), ('GEU-MFA-U', 0.1, 0.884), ('GEU-MFA-U', 0.2, 0.835),
	('GEU-MFA-S', 0, 0.894), ('GEU-MFA-S', 0.1, 0.890), ('GEU-MFA-S', 0.2, 0.849)
ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS grid (param float8);
TRUNCATE grid;
INSERT INTO grid VALUES (0.001), (0.1), (0.2), (0.4), (0.8), (1), (2);

-- z scaled element by element by w
CREATE OR REPLACE FUNCTION scaled(z float8[], w float8[]) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg(z[i] * w[i] ORDER BY i) FROM generate_series(1, array_length(z, 1)) i
$$;

-- 1-NN accuracy on the test rows of cur for d = 1, 2, 4, 8 of one fit on its
-- training rows (the leading d directions of a dims-8 fit are the dims-d
-- fit); NULL when the fit fails (a singular scatter matrix).  With
-- dir_scale 'paper', an LDA direction v (unit S_t-norm, eigenvalue mu) is
-- scaled to unit norm in the paper's penalty matrix S_b (+ eps I, + its GEU
-- term): v'S_b v = 1 - mu, so by 1/sqrt(1 - mu) (left alone when 1 - mu is
-- below 1e-12: plain LDA's directions beyond the first, which the paper's
-- S_b cannot normalize).
CREATE OR REPLACE FUNCTION eval_config(meth text, var_mode text, reg text, param float8, k1 int, k2 int,
	dir_scale text DEFAULT 'unit')
RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
	opts jsonb := jsonb_build_object('method', meth, 'dims', 8);
	p gsu.projection;
	ref gsu.refset;
	acc float8[] := '{}';
	a float8;
	d int;
	w float8[];
BEGIN
	IF meth = 'mfa' THEN
		opts := opts || jsonb_build_object('k1', k1, 'k2', k2);
	END IF;
	IF var_mode = 'none' THEN
		IF param > 0 THEN
			opts := opts || jsonb_build_object('regularization', param, 'regularize', reg);
		END IF;
		SELECT gsu.geu_fit(x, NULL, y, opts) INTO p FROM cur WHERE train;
	ELSE
		SELECT gsu.geu_fit(x, gsu.nn_variance(r, x, y, param, var_mode = 'S'), y, opts) INTO p
		FROM cur, (SELECT gsu.refset_agg(x, y) AS r FROM cur WHERE train) q WHERE train;
	END IF;
	SELECT array_agg(CASE WHEN meth = 'lda' AND dir_scale = 'paper' AND 1 - e >= 1e-12
						  THEN 1 / sqrt(1 - e) ELSE 1 END ORDER BY k)
	INTO w FROM unnest(gsu.eigenvalues(p)) WITH ORDINALITY u(e, k);
	FOREACH d IN ARRAY '{1, 2, 4, 8}'::int[] LOOP
		SELECT gsu.refset_agg((scaled(gsu.project(p, x), w))[1:d], y) INTO ref FROM cur WHERE train;
		SELECT avg((gsu.knn_predict(ref, (scaled(gsu.project(p, x), w))[1:d], 1) = y)::int) INTO a
		FROM cur WHERE NOT train;
		acc := acc || a;
	END LOOP;
	RETURN acc;
EXCEPTION WHEN data_exception THEN
	RETURN NULL;
END
$$;

CREATE TABLE IF NOT EXISTS cv (run int, noise float8, name text, outer_fold int, inner_fold int,
	param float8, d int, acc float8);
CREATE TABLE IF NOT EXISTS chosen (run int, noise float8, name text, outer_fold int, param float8,
	d int, inner_acc float8, test_acc float8);

-- one run (its folds and noise draw) at one noise level, every method in meths
CREATE OR REPLACE PROCEDURE run_one(r int, lvl float8, meths text[], k1 int, k2 int, kind text,
	dir_scale text)
LANGUAGE plpgsql AS $$
DECLARE
	f int;
	k int;
	m record;
	g record;
	accs float8[];
	best record;
	dims int[] := '{1, 2, 4, 8}';
BEGIN
	-- the noisy data of this run: x_ij + lvl * sd_j * z_ij (kind 'sd'), z_ij a
	-- standard normal draw of (run, row, feature), the same at every level;
	-- random 5-fold partitions (outer, and inner within each outer
	-- training part by the same order) fixed for every method
	TRUNCATE noisy;
	INSERT INTO noisy
	SELECT b.id,
		(SELECT array_agg(b.x[j] + lvl * CASE kind WHEN 'sd' THEN s.sd[j] ELSE abs(b.x[j]) END
			* hash_normal(r || ' ' || b.id || ' ' || j) ORDER BY j) FROM generate_series(1, 30) j),
		b.y, (row_number() OVER (ORDER BY md5('outer ' || r || ' ' || b.id)) - 1) % 5, NULL
	FROM bc b, bc_sd s;
	UPDATE noisy n SET inner_fold = q.k FROM (
		SELECT id, (row_number() OVER (PARTITION BY outer_fold ORDER BY md5('inner ' || r || ' ' || id)) - 1) % 5 AS k
		FROM noisy) q WHERE q.id = n.id;
	FOR f IN 0 .. 4 LOOP
		-- standardize with the training part's statistics
		TRUNCATE std;
		INSERT INTO std
		SELECT b.id, (SELECT array_agg((b.x[j] - s.mu[j]) / s.sd[j] ORDER BY j) FROM generate_series(1, 30) j),
			b.y, b.outer_fold <> f, b.inner_fold
		FROM noisy b,
			(SELECT array_agg(mu ORDER BY j) AS mu, array_agg(sd ORDER BY j) AS sd FROM (
				SELECT j, avg(b.x[j]) AS mu, stddev(b.x[j]) AS sd
				FROM noisy b, generate_series(1, 30) j
				WHERE b.outer_fold <> f GROUP BY j) q) s;
		-- inner cross-validation on the training part (folds: the rows' inner_fold
		-- among the other outer folds)
		FOR k IN 0 .. 4 LOOP
			TRUNCATE cur;
			INSERT INTO cur SELECT id, x, y, inner_fold <> k FROM std WHERE outer_train;
			FOR m IN SELECT * FROM methods WHERE name = ANY (meths) LOOP
				FOR g IN SELECT param FROM grid WHERE m.tuned <> 'none' UNION ALL SELECT 0 WHERE m.tuned = 'none' LOOP
					accs := eval_config(m.method, m.var_mode, m.regularize, g.param, k1, k2, dir_scale);
					INSERT INTO cv SELECT r, lvl, m.name, f, k, g.param, dims[i], accs[i] FROM generate_series(1, 4) i;
				END LOOP;
			END LOOP;
		END LOOP;
		-- refit the best setting (all inner folds solvable; ties: smaller d, then smaller parameter)
		TRUNCATE cur;
		INSERT INTO cur SELECT id, x, y, outer_train FROM std;
		FOR m IN SELECT * FROM methods WHERE name = ANY (meths) LOOP
			SELECT cv.param, cv.d, avg(cv.acc) AS inner_acc INTO best FROM cv
			WHERE cv.run = r AND cv.noise = lvl AND cv.name = m.name AND cv.outer_fold = f
			GROUP BY cv.param, cv.d HAVING count(cv.acc) = 5
			ORDER BY avg(cv.acc) DESC, cv.d, cv.param LIMIT 1;
			IF NOT FOUND THEN
				INSERT INTO chosen VALUES (r, lvl, m.name, f, NULL, NULL, NULL, NULL);
				CONTINUE;
			END IF;
			accs := eval_config(m.method, m.var_mode, m.regularize, best.param, k1, k2, dir_scale);
			INSERT INTO chosen VALUES (r, lvl, m.name, f, best.param, best.d, best.inner_acc,
									   accs[array_position(dims, best.d)]);
		END LOOP;
	END LOOP;
END
$$;

CREATE OR REPLACE PROCEDURE run_all(first_run int, runs int, noises float8[], meths text[],
	k1 int, k2 int, kind text, dir_scale text)
LANGUAGE plpgsql AS $$
DECLARE
	lvl float8;
BEGIN
	FOR r IN first_run .. first_run + runs - 1 LOOP
		FOREACH lvl IN ARRAY noises LOOP
			DELETE FROM cv WHERE run = r AND noise = lvl AND name = ANY (meths);
			DELETE FROM chosen WHERE run = r AND noise = lvl AND name = ANY (meths);
			CALL run_one(r, lvl, meths, k1, k2, kind, dir_scale);
			COMMIT;
			RAISE WARNING 'run % noise % done', r, lvl;
		END LOOP;
	END LOOP;
END
$$;

CALL run_all(:first_run, :runs, :'noises', :'methods', :k1, :k2, :'noise_kind', :'dir_scale');
