-- Bi & Zhang (NIPS 2004), Sect. 6 and Table 1's "Digits" column, on MNIST standing in for
-- NIST; run by bench/tsvc_digits.sh after it has loaded bench/tsvc_digits.js's images into
-- the table img(part, trial, id, label, px).
--
-- psql variables: ells ('{100,500}'), trials (50), tune_trials, oracle_trials, folds,
-- svc_lambdas, tsvc_gammas, tsvc_deltas, alt_lambdas, alt_deltas (float8[] literals),
-- scale_floor (0: the paper's standardization).
--
-- The protocol (Sect. 6): odd digits against even ones; the first l digits of the database
-- train, the last 2,000 test; every training digit rotated by an angle uniform in [-8, 8]
-- degrees (bench/tsvc_digits.js: one draw per digit and trial, the trials differ only in
-- these draws); the training digits standardized to mean 0 and standard deviation 1 per
-- pixel (population sd over the l digits of the trial; a pixel constant over them is
-- centred only, its value 0 in every training row, so a linear model's weight on it is 0
-- and the test value there never counts), the test digits with the training statistics;
-- the linear kernel; TSVC by the convex relaxation (8), whose dual is the paper's problem
-- (9): pg_gsu's loss tsvc, ||w|| <= gamma, row i's margin shifted by gamma * delta_i, and
-- lambda 1e-6 (problem (8) has no Tikhonov term); every delta_i = delta: the rows get the
-- isotropic variance 1 and "delta_scale": delta, so delta_i = delta * sqrt(1) (the paper's
-- delta bounds ||dx|| in standardized units, and so does this one). The relaxation runs
-- with "tolerance" 1e-4 (its duality gap, relative) where the default is 1e-6: ten times
-- faster, and on trial 1 at l = 500 (gamma 0.3, delta 1.4) the weights agree with the
-- default's to cosine 0.99997 and the signs on the training rows differ in one row of 500.
--
-- Choices the paper leaves open, ours: the paper reports one tuned delta per l (1.38 and
-- 1.43), so each method's hyperparameters are chosen once per l and then fixed for the
-- 50 trials, either (cv) by folds-fold cross-validation error on the (standardized)
-- training rows of trials 1..tune_trials, averaged over them (folds by id mod folds; the
-- rows were standardized with all l rows, as the paper standardizes before anything), or
-- (test) by mean test error over trials 1..oracle_trials — selection on the test set, an
-- upper bound and not a protocol, which the paper's "tuned" may be. Ties go to the first
-- grid point (grids in the order written). The test digits are scored as they are ("clean
-- test data", the paper's Sect. 7) and, as an ablation, rotated (test_rotated).
-- Methods (family, subset of its grid):
--   SVC                          hinge, lambda from svc_lambdas
--   TSVC                         tsvc relaxation, gamma x delta (delta > 0, gamma*delta < 1)
--   TSVC (delta = 1.4)           the same with delta fixed at 1.4 (the paper's 1.38 / 1.43)
--   SVC (norm bound, delta = 0)  the relaxation with delta ~ 0 (1e-12): SVC in the same
--                                constrained form, which isolates the delta shift
--   TSVC (Algorithm 1)           tsvc_algorithm alternating, lambda x delta
-- scale_floor > 0 is the ablation of standardization: each pixel's scale is at least
-- scale_floor (in units of the bytes / 255), so rare pixels are not blown up.

\set ON_ERROR_STOP 1
SET client_min_messages = error;  -- the relaxation warns when its bound is inactive; the report shows ||w|| / gamma
SET max_parallel_workers_per_gather = 0;

SET digits.folds = :'folds';
SET digits.scale_floor = :'scale_floor';
SET digits.ells = :'ells';
SET digits.trials = :'trials';
SET digits.tune_trials = :'tune_trials';
SET digits.oracle_trials = :'oracle_trials';

CREATE TABLE grid (ord int, family text, options jsonb, delta float8);
INSERT INTO grid
SELECT row_number() OVER (ORDER BY fo, o1, o2), family, options, delta FROM (
	SELECT 1 AS fo, o AS o1, 0 AS o2, 'svc' AS family, jsonb_build_object('loss', 'hinge', 'lambda', l) AS options, NULL::float8 AS delta
	FROM unnest(:'svc_lambdas'::float8[]) WITH ORDINALITY a(l, o)
	UNION ALL
	SELECT 2, ob, oa, 'tsvc', jsonb_build_object('loss', 'tsvc', 'lambda', 1e-6, 'gamma', g, 'delta_scale', d, 'tolerance', 1e-4), d
	FROM unnest(:'tsvc_deltas'::float8[]) WITH ORDINALITY b(d, ob), unnest(:'tsvc_gammas'::float8[]) WITH ORDINALITY a(g, oa)
	WHERE g * d < 1
	UNION ALL
	SELECT 3, ob, oa, 'alternating', jsonb_build_object('loss', 'tsvc', 'tsvc_algorithm', 'alternating', 'lambda', l, 'delta_scale', d), d
	FROM unnest(:'alt_deltas'::float8[]) WITH ORDINALITY b(d, ob), unnest(:'alt_lambdas'::float8[]) WITH ORDINALITY a(l, oa)) s;

CREATE TABLE methods (ord int, method text, family text, delta_min float8, delta_max float8);
INSERT INTO methods VALUES
	(1, 'SVC', 'svc', NULL, NULL),
	(2, 'TSVC', 'tsvc', 1e-6, 1e9),
	(3, 'TSVC (δ = 1.4)', 'tsvc', 1.4, 1.4),
	(4, 'SVC (norm bound, δ = 0)', 'tsvc', 0, 1e-6),
	(5, 'TSVC (Algorithm 1)', 'alternating', 0, 1e9);

CREATE TABLE tune (ell int, selection text, trial int, ord int, error float8);
CREATE TABLE runs (ell int, trial int, ord int, error float8, error_rotated float8, wnorm float8, seconds float8);

-- the training rows of (l, t), standardized: temp table tr(id, label, x), and stz, the
-- standardization as a model's "standardization" key (the test digits are scored raw by
-- the model carrying it: exactly the standardized test digits under w and b)
CREATE PROCEDURE prepare(l int, t int)
LANGUAGE plpgsql AS $$
BEGIN
	DROP TABLE IF EXISTS st, tr, stz;
	CREATE TEMP TABLE st AS
	SELECT j, avg(v) AS m,
		   CASE WHEN stddev_pop(v) > 0 THEN greatest(stddev_pop(v), current_setting('digits.scale_floor')::float8) ELSE 1 END AS s
	FROM img, unnest(px) WITH ORDINALITY u(v, j)
	WHERE part = 'train' AND trial = t AND id < l GROUP BY j;
	CREATE TEMP TABLE tr AS
	SELECT i.id, i.label, array_agg((u.v - st.m) / st.s ORDER BY u.j) AS x
	FROM img i, unnest(i.px) WITH ORDINALITY u(v, j) JOIN st USING (j)
	WHERE i.part = 'train' AND i.trial = t AND i.id < l GROUP BY i.id, i.label;
	CREATE TEMP TABLE stz AS
	SELECT jsonb_build_object('mean', jsonb_agg(m ORDER BY j), 'scale', jsonb_agg(s ORDER BY j)) AS z FROM st;
END $$;

SET check_function_bodies = off;  -- attach reads the temp table stz that prepare creates
CREATE FUNCTION attach(m gsu.model) RETURNS gsu.model LANGUAGE sql STABLE AS $$
	SELECT gsu.model_from_jsonb(jsonb_set(gsu.model_to_jsonb(m), '{hyperparameters,standardize}', 'true')
								|| jsonb_build_object('standardization', (SELECT z FROM stz))) $$;

-- cross-validation error of every grid point on (l, t)
CREATE PROCEDURE tune_cv(l int, t int)
LANGUAGE plpgsql AS $$
DECLARE
	g record;
	k int;
	m gsu.model;
	errs float8[];
	folds int := current_setting('digits.folds')::int;
BEGIN
	FOR g IN SELECT * FROM grid ORDER BY ord LOOP
		errs := '{}';
		FOR k IN 0 .. folds - 1 LOOP
			SELECT gsu.train(x, 1.0::float8, label, g.options) INTO m FROM tr WHERE id % folds <> k;
			errs := errs || (SELECT avg((gsu.predict(m, x) <> label)::int)::float8 FROM tr WHERE id % folds = k);
		END LOOP;
		INSERT INTO tune SELECT l, 'cv', t, g.ord, avg(e) FROM unnest(errs) e;
		COMMIT;
	END LOOP;
END $$;

-- train one grid point on all of (l, t)'s rows and score it on both test sets
CREATE PROCEDURE run_point(l int, t int, o int, sel text)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	m gsu.model;
	ms gsu.model;
BEGIN
	SELECT gsu.train(x, 1.0::float8, label, options) INTO m FROM tr, grid WHERE grid.ord = o;
	ms := attach(m);
	IF sel = 'test' THEN
		INSERT INTO tune SELECT l, 'test', t, o, avg((gsu.predict(ms, px) <> label)::int) FROM img WHERE part = 'test';
	ELSE
		INSERT INTO runs
		SELECT l, t, o,
			   avg((gsu.predict(ms, px) <> label)::int) FILTER (WHERE part = 'test'),
			   avg((gsu.predict(ms, px) <> label)::int) FILTER (WHERE part = 'test_rotated'),
			   (SELECT sqrt(sum(w * w)) FROM unnest(gsu.weights(m)) w),
			   extract(epoch FROM clock_timestamp() - t0)
		FROM img WHERE part IN ('test', 'test_rotated');
	END IF;
END $$;

-- each method's options per l and selection: the least mean tuning error, ties to the first
-- grid point (the error rounded to 1e-9 first: a mean of float8 means depends on the order
-- of summation, which a plan may change, and exact ties are common with 2,000 test digits);
-- fixed in the table choice once the tuning of l is done, so that the evaluation and the
-- report use the same choice
CREATE VIEW choice_v AS
SELECT DISTINCT ON (t.ell, t.selection, me.ord) t.ell, t.selection, me.ord AS method_ord, me.method, t.ord, g.options, t.err
FROM (SELECT ell, selection, ord, round(avg(error)::numeric, 9) AS err FROM tune GROUP BY 1, 2, 3) t
JOIN grid g USING (ord)
JOIN methods me ON me.family = g.family AND (me.delta_min IS NULL OR g.delta BETWEEN me.delta_min AND me.delta_max)
ORDER BY t.ell, t.selection, me.ord, t.err, t.ord;
CREATE TABLE choice AS SELECT * FROM choice_v WHERE false;

DO $$
DECLARE
	l int; t int; o int;
BEGIN
	FOREACH l IN ARRAY current_setting('digits.ells')::int[] LOOP
		FOR t IN 1 .. current_setting('digits.tune_trials')::int LOOP
			CALL prepare(l, t);
			CALL tune_cv(l, t);
			COMMIT;
		END LOOP;
		FOR t IN 1 .. current_setting('digits.oracle_trials')::int LOOP
			CALL prepare(l, t);
			FOR o IN SELECT ord FROM grid ORDER BY ord LOOP
				CALL run_point(l, t, o, 'test');
				COMMIT;
			END LOOP;
		END LOOP;
		INSERT INTO choice SELECT * FROM choice_v WHERE ell = l;
		COMMIT;
		FOR t IN 1 .. current_setting('digits.trials')::int LOOP
			CALL prepare(l, t);
			FOR o IN SELECT DISTINCT ord FROM choice WHERE ell = l ORDER BY ord LOOP
				CALL run_point(l, t, o, 'eval');
				COMMIT;
			END LOOP;
		END LOOP;
	END LOOP;
END $$;
