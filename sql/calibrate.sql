-- gsu.calibrate and gsu.probability: Platt's sigmoid P(y = 1 | f) =
-- 1/(1 + exp(a·f + b)) fitted on held-out rows, checked against closed forms
-- and a Newton iteration written in PL/pgSQL.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_calibrate;
SET search_path = test_calibrate, public;

-- a model trained on the first 300 rows of pts, calibrated on the last 100
CREATE TABLE base AS SELECT gsu.train(mean, variance, label ORDER BY id) AS m FROM pts WHERE id <= 300;
CREATE TABLE cal AS SELECT gsu.calibrate(b.m, p.mean, p.label ORDER BY p.id) AS m FROM pts p, base b WHERE p.id > 300;
CREATE FUNCTION platt_a(m gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (m::jsonb->'calibration'->>'a')::float8
$$;
CREATE FUNCTION platt_b(m gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (m::jsonb->'calibration'->>'b')::float8
$$;

-- the model gets "calibration": {"a", "b"}; everything else is the trained model's
SELECT jsonb_typeof(m::jsonb->'calibration') AS uncalibrated FROM base;
SELECT jsonb_object_keys(m::jsonb->'calibration') AS key FROM cal ORDER BY 1;
SELECT gsu.describe(m)->'calibration' = m::jsonb->'calibration' AS describe_shows_it FROM cal;
SELECT (c.m::jsonb - 'calibration') = (b.m::jsonb - 'calibration') AS rest_unchanged FROM cal c, base b;
-- a sensible model: a < 0 (a larger decision value is more likely positive), a balanced set: b near 0
SELECT platt_a(m) < -0.5 AS a_negative, abs(platt_b(m)) < 0.5 AS b_small FROM cal;
-- the ordinary functions ignore the calibration
SELECT bool_and(gsu.decision(c.m, mean) = gsu.decision(b.m, mean) AND gsu.predict(c.m, mean) = gsu.predict(b.m, mean)) AS same
FROM pts, cal c, base b;

-- gsu.probability: in (0, 1), increasing in the decision value, 1/(1 + exp(a·f + b))
SELECT bool_and(gsu.probability(m, mean) > 0 AND gsu.probability(m, mean) < 1) AS in_open_interval FROM pts, cal;
SELECT count(*) FILTER (WHERE f > f_prev AND NOT p > p_prev) AS not_increasing, count(*) AS pairs
FROM (SELECT gsu.decision(m, mean) f, gsu.probability(m, mean) p,
	lag(gsu.decision(m, mean)) OVER w f_prev, lag(gsu.probability(m, mean)) OVER w p_prev
	FROM pts, cal WINDOW w AS (ORDER BY gsu.decision(m, mean))) s WHERE f_prev IS NOT NULL;
SELECT max(abs(gsu.probability(m, mean) - 1 / (1 + exp(platt_a(m) * gsu.decision(m, mean) + platt_b(m))))) < 1e-15 AS matches_formula
FROM pts, cal;
-- on the boundary f = -b/a the probability is 1/2
SELECT abs(gsu.probability(m, ARRAY[-(gsu.bias(m) + platt_b(m) / platt_a(m)) / (gsu.weights(m))[1], 0, 0]) - 0.5) < 1e-12 AS half
FROM cal;
-- it is informative on the held-out rows: positives get a higher mean probability, and the
-- mean probability is close to the fraction of positives
SELECT avg(gsu.probability(m, mean)) FILTER (WHERE label = 1) > avg(gsu.probability(m, mean)) FILTER (WHERE label = -1) + 0.3 AS separates,
	abs(avg(gsu.probability(m, mean)) - avg((label = 1)::int)) < 0.05 AS mean_matches
FROM pts, cal WHERE id > 300;

-- the fit is the maximum of the likelihood with Platt's smoothed targets t = (N₊+1)/(N₊+2) and 1/(N₋+2):
-- the gradient Σ f·(t − p), Σ (t − p) vanishes (the solver stops below 1e-5)
SELECT abs(sum(gsu.decision(m, mean) * (t - gsu.probability(m, mean)))) < 1e-5 AS da_zero,
	abs(sum(t - gsu.probability(m, mean))) < 1e-5 AS db_zero
FROM (SELECT p.*, c.m, CASE WHEN label = 1 THEN (np + 1.0) / (np + 2) ELSE 1.0 / (nn + 2) END AS t
	FROM pts p, cal c, (SELECT count(*) FILTER (WHERE label = 1) np, count(*) FILTER (WHERE label = -1) nn FROM pts WHERE id > 300) n
	WHERE p.id > 300) s;
-- ... and it is the point a Newton iteration written here reaches
CREATE FUNCTION platt_newton(f float8[], y int[]) RETURNS float8[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	np float8 := 0;
	nn float8 := 0;
	hi float8;
	lo float8;
	a float8 := 0;
	b float8;
	g1 float8; g2 float8; h11 float8; h12 float8; h22 float8;
	p float8; t float8; det float8;
BEGIN
	FOR i IN 1 .. array_length(f, 1) LOOP
		IF y[i] > 0 THEN np := np + 1; ELSE nn := nn + 1; END IF;
	END LOOP;
	hi := (np + 1) / (np + 2);
	lo := 1 / (nn + 2);
	b := ln((nn + 1) / (np + 1));
	FOR it IN 1 .. 50 LOOP
		g1 := 0; g2 := 0; h11 := 0; h12 := 0; h22 := 0;
		FOR i IN 1 .. array_length(f, 1) LOOP
			p := 1 / (1 + exp(a * f[i] + b));
			t := CASE WHEN y[i] > 0 THEN hi ELSE lo END;
			g1 := g1 + f[i] * (t - p);
			g2 := g2 + (t - p);
			h11 := h11 + f[i] * f[i] * p * (1 - p);
			h12 := h12 + f[i] * p * (1 - p);
			h22 := h22 + p * (1 - p);
		END LOOP;
		det := h11 * h22 - h12 * h12;
		a := a - (h22 * g1 - h12 * g2) / det;
		b := b - (h11 * g2 - h12 * g1) / det;
	END LOOP;
	RETURN ARRAY[a, b];
END
$$;
SELECT abs(platt_a(c.m) - r[1]) < 1e-6 * abs(r[1]) AS a_matches, abs(platt_b(c.m) - r[2]) < 1e-6 AS b_matches
FROM cal c, (SELECT platt_newton(array_agg(gsu.decision(b.m, mean) ORDER BY id), array_agg(label ORDER BY id)) r
	FROM pts, base b WHERE id > 300) n;

-- hand-made data sets on a 1-dimensional model f(x) = x, where the maximum is known in closed form
CREATE TABLE unit AS SELECT '{"format": 1, "dim": 1, "weights": [1], "bias": 0}'::gsu.model AS m;
-- two decision values, one per class: the sigmoid fits the targets exactly, p(1) = 31/32, p(-1) = 1/12
-- (30 positives at f = 1, 10 negatives at f = -1), so a + b = -ln 31 and -a + b = ln 11 (the solver
-- stops when |Σ (t − p)| < 1e-5, which leaves a, b a few 1e-6 away here: p(1 − p) is small)
SELECT abs(platt_a(c) - (-ln(31) - ln(11)) / 2) < 1e-4 AS a_exact, abs(platt_b(c) - (ln(11) - ln(31)) / 2) < 1e-4 AS b_exact,
	abs(gsu.probability(c, '{1}') - 31.0 / 32) < 1e-6 AS p_pos, abs(gsu.probability(c, '{-1}') - 1.0 / 12) < 1e-6 AS p_neg
FROM (SELECT gsu.calibrate(m, ARRAY[CASE WHEN i <= 30 THEN 1 ELSE -1 END]::float8[], CASE WHEN i <= 30 THEN 1 ELSE -1 END) c
	FROM unit, generate_series(1, 40) i) s;
-- perfectly separated decision values ±0.01 (50 of each): the smoothed targets keep a finite,
-- a = -ln(51)/0.01 ≈ -393, b = 0
SELECT abs(platt_a(c) + ln(51) / 0.01) < 1e-6 * ln(51) / 0.01 AS a_exact, abs(platt_b(c)) < 1e-9 AS b_zero,
	round(platt_a(c)::numeric, 3) AS a
FROM (SELECT gsu.calibrate(m, ARRAY[CASE WHEN i % 2 = 0 THEN 0.01 ELSE -0.01 END]::float8[], CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) c
	FROM unit, generate_series(1, 100) i) s;
-- ... and the same at ±100: a = -ln(51)/100
SELECT abs(platt_a(c) + ln(51) / 100) < 1e-6 * ln(51) / 100 AS a_exact, abs(platt_b(c)) < 1e-9 AS b_zero
FROM (SELECT gsu.calibrate(m, ARRAY[CASE WHEN i % 2 = 0 THEN 100 ELSE -100 END]::float8[], CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) c
	FROM unit, generate_series(1, 100) i) s;
-- every decision value 0: a = 0 and the probability is the mean target,
-- (N₊(N₊+1)/(N₊+2) + N₋/(N₋+2)) / N with N₊ = 3, N₋ = 7
SELECT platt_a(c) = 0 AS a_zero, abs(gsu.probability(c, '{5}') - (3 * 4.0 / 5 + 7 * 1.0 / 9) / 10) < 1e-6 AS base_rate
FROM (SELECT gsu.calibrate(m, '{0}', CASE WHEN i <= 3 THEN 1 ELSE -1 END) c FROM unit, generate_series(1, 10) i) s;
-- overlapping classes: the Newton iteration of this file again
SELECT abs(platt_a(c) - r[1]) < 1e-6 * abs(r[1]) AS a_matches, abs(platt_b(c) - r[2]) < 1e-6 AS b_matches, platt_a(c) < 0 AS a_negative
FROM (SELECT gsu.calibrate(m, ARRAY[pnorm(i, 11) + 0.7 * l], l) c, platt_newton(array_agg(pnorm(i, 11) + 0.7 * l), array_agg(l)) r
	FROM unit, generate_series(1, 60) i, LATERAL (SELECT CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END AS l) y) s;
-- a wrong-way model gets a > 0 (its probability decreases with the decision value)
SELECT platt_a(c) > 0 AS a_positive
FROM (SELECT gsu.calibrate('{"format": 1, "dim": 3, "weights": [-1, -0.5, 0], "bias": 0}'::gsu.model, mean, label) c FROM pts) s;
-- scaling the model by 10 divides a by 10 and keeps b and the probabilities
SELECT abs(platt_a(s10) * 10 - platt_a(c.m)) < 1e-6 * abs(platt_a(c.m)) AS a_scaled, abs(platt_b(s10) - platt_b(c.m)) < 1e-6 AS b_same
FROM cal c, (SELECT gsu.calibrate(jsonb_set(jsonb_set(b.m::jsonb, '{weights}',
		to_jsonb(ARRAY[(gsu.weights(b.m))[1] * 10, (gsu.weights(b.m))[2] * 10, (gsu.weights(b.m))[3] * 10])),
		'{bias}', to_jsonb(gsu.bias(b.m) * 10))::gsu.model, mean, label ORDER BY id) s10
	FROM pts, base b WHERE id > 300) s;
-- calibrating a calibrated model again gives the same a, b (the decision values do not change)
SELECT platt_a(r) = platt_a(c.m) AND platt_b(r) = platt_b(c.m) AS same
FROM cal c, (SELECT gsu.calibrate(c.m, mean, label ORDER BY id) r FROM pts, cal c WHERE id > 300) s;
-- the row order changes only the rounding
SELECT abs(platt_a(r) - platt_a(c.m)) < 1e-9 * abs(platt_a(c.m)) AND abs(platt_b(r) - platt_b(c.m)) < 1e-9 AS same
FROM cal c, (SELECT gsu.calibrate(b.m, mean, label ORDER BY -id) r FROM pts, base b WHERE id > 300) s;
-- a hand-written calibration: a = -2, b = 0
SELECT gsu.probability('{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": -2, "b": 0}}', '{0}') AS half,
	abs(gsu.probability('{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": -2, "b": 0}}', '{1}')
		- 1 / (1 + exp(-2))) < 1e-15 AS at_one;
-- extreme decision values do not overflow: the probability tends to 0 and 1
SELECT gsu.probability('{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": -2, "b": 0}}', '{1e6}') AS one,
	gsu.probability('{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": -2, "b": 0}}', '{-1e6}') AS zero;

-- a calibrated model round-trips through text, jsonb and binary COPY
SELECT m::text::gsu.model::text = m::text AS text_same, m::jsonb::gsu.model::text = m::text AS jsonb_same FROM cal;
SELECT platt_a(m::text::gsu.model) = platt_a(m) AND platt_b(m::text::gsu.model) = platt_b(m) AS exact FROM cal;
CREATE TABLE copied (m gsu.model);
SELECT regress_file('calibrate') AS regress_file \gset
COPY cal TO :'regress_file' (FORMAT binary);
COPY copied FROM :'regress_file' (FORMAT binary);
SELECT c.m::text = k.m::text AS binary_same FROM cal c, copied k;
SELECT bool_and(gsu.probability(c.m, mean) = gsu.probability(k.m, mean)) AS same_probabilities FROM pts, cal c, copied k;
-- calibration values that are not finite, or without both keys, are refused
SELECT test_error($$SELECT '{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": -2}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": -2, "b": 0, "c": 1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": "NaN", "b": 0}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 1, "weights": [1], "bias": 0, "calibration": {"a": 1e999, "b": 0}}'::gsu.model$$);

-- NULL arguments: the row is skipped
SELECT platt_a(n) = platt_a(c.m) AND platt_b(n) = platt_b(c.m) AS nulls_skipped
FROM cal c, (SELECT gsu.calibrate(mm, mean, label ORDER BY id) n
	FROM (SELECT id, b.m AS mm, mean, label FROM pts, base b WHERE id > 300
		UNION ALL SELECT 1001, NULL, '{1,2,3}', 1 FROM base
		UNION ALL SELECT 1002, b.m, NULL, 1 FROM base b
		UNION ALL SELECT 1003, b.m, '{1,2}', NULL FROM base b
		UNION ALL SELECT 0, b.m, NULL, 7 FROM base b) s) t;
-- no rows, or only skipped rows: NULL
SELECT gsu.calibrate(m, mean, label) IS NULL AS is_null FROM pts, base WHERE false;
SELECT gsu.calibrate(m, NULL, label) IS NULL AS is_null FROM pts, base;
SELECT gsu.calibrate(NULL, mean, label) IS NULL AS is_null FROM pts;
-- one model per group
SELECT id % 2 = 0 AS even, platt_a(c) < 0 AS a_negative
FROM (SELECT id % 2 AS id, gsu.calibrate(m, mean, CASE WHEN id % 4 < 2 THEN label ELSE -label END) c FROM pts, base GROUP BY id % 2) s ORDER BY 1;

-- errors
-- an uncalibrated model
SELECT test_error($$SELECT gsu.probability(m, '{1,2,3}') FROM base$$);
SELECT test_error($$SELECT gsu.probability('{"format": 1, "dim": 1, "weights": [1], "bias": 0}', '{1}')$$);
-- one class only
SELECT test_error($$SELECT gsu.calibrate(m, mean, label) FROM pts, base WHERE label = 1$$);
SELECT test_error($$SELECT gsu.calibrate(m, mean, label) FROM pts, base WHERE id = 3$$);
-- dimension mismatch, in the first row and in a later one
SELECT test_error($$SELECT gsu.calibrate(m, '{1,2}', 1) FROM base$$);
SELECT test_error($$SELECT gsu.calibrate(m, CASE WHEN id = 350 THEN '{1,2,3,4}' ELSE mean END, label ORDER BY id) FROM pts, base WHERE id > 300$$);
SELECT test_error($$SELECT gsu.probability(m, '{1,2}') FROM cal$$);
SELECT test_error($$SELECT gsu.probability(m, '{1,2,3,4}') FROM cal$$);
-- labels other than -1 and 1
SELECT test_error($$SELECT gsu.calibrate(m, mean, CASE WHEN id = 350 THEN 0 ELSE label END) FROM pts, base WHERE id > 300$$);
SELECT test_error($$SELECT gsu.calibrate(m, mean, 2) FROM pts, base$$);
-- NULL, NaN and infinite elements
SELECT test_error($$SELECT gsu.calibrate(m, '{1,NULL,3}', 1) FROM base$$);
SELECT test_error($$SELECT gsu.calibrate(m, '{1,NaN,3}', 1) FROM base$$);
SELECT test_error($$SELECT gsu.probability(m, '{1,Infinity,3}') FROM cal$$);
SELECT test_error($$SELECT gsu.probability(m, '{1,NULL,3}') FROM cal$$);

-- a parallel plan gives the a, b of the serial plan: 6000 rows like pts, without the leader so
-- that both workers get rows
CREATE TABLE held AS
SELECT i AS id, ARRAY[l * 1.0 + pnorm(i, 1), l * 0.5 + pnorm(i, 2), pnorm(i, 3)] AS mean, l AS label
FROM generate_series(1, 6000) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE held SET (parallel_workers = 2);
ANALYZE held;
-- (workers_launched, from 00_setup: the "Workers ..." lines of EXPLAIN ANALYZE)
CREATE TABLE serial AS SELECT gsu.calibrate((SELECT m FROM base), mean, label) AS m FROM held;
CREATE TABLE serial300 AS SELECT gsu.calibrate((SELECT m FROM base), mean, label) AS m FROM held WHERE id <= 300;
SET parallel_setup_cost = 0;
SET gsu.parallel_training = on;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.calibrate((SELECT m FROM base), mean, label) FROM held;
SELECT workers_launched($$CREATE TABLE par AS SELECT gsu.calibrate((SELECT m FROM base), mean, label) AS m FROM held$$);
SELECT abs(platt_a(p.m) - platt_a(s.m)) < 1e-9 * abs(platt_a(s.m)) AS a_same, abs(platt_b(p.m) - platt_b(s.m)) < 1e-9 AS b_same,
	(p.m::jsonb - 'calibration') = (s.m::jsonb - 'calibration') AS rest_same
FROM par p, serial s;
-- errors raised in a worker reach the client
SELECT test_error($$SELECT gsu.calibrate((SELECT m FROM base), mean, CASE WHEN id = 5000 THEN 3 ELSE label END) FROM held$$);
SELECT test_error($$SELECT gsu.calibrate((SELECT m FROM base), mean, 1) FROM held$$);
SELECT test_error($$SELECT gsu.calibrate((SELECT m FROM base), CASE WHEN id = 5000 THEN '{1,2}' ELSE mean END, label) FROM held$$);
-- rows in one worker only, and no rows in any worker
SELECT abs(platt_a(c) - platt_a(s.m)) < 1e-9 * abs(platt_a(s.m)) AND abs(platt_b(c) - platt_b(s.m)) < 1e-9 AS same
FROM serial300 s, (SELECT gsu.calibrate((SELECT m FROM base), mean, label) c FROM held WHERE id <= 300) p;
SELECT gsu.calibrate((SELECT m FROM base), mean, label) IS NULL AS is_null FROM held WHERE id < 0;
RESET parallel_setup_cost;
RESET gsu.parallel_training;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
