-- gsu.partial and the aggregates on it: gsu.gradient (the exact loss and
-- gradient sums at a point), gsu.sum (combining partials computed
-- elsewhere), gsu.to_model; text and binary I/O and hostile input.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_partial;
SET search_path = test_partial, public;

-- vec(p): the partial's vector; field(p, key): a number of its text form
CREATE FUNCTION vec(p gsu.partial) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg(x::float8 ORDER BY i) FROM jsonb_array_elements_text(p::text::jsonb->'vector') WITH ORDINALITY v(x, i)
$$;
CREATE FUNCTION field(p gsu.partial, key text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (p::text::jsonb->>key)::float8
$$;
-- ∇F = (1/n)·Σ∇L + λ·(w, 0), from a gradient partial at m
CREATE FUNCTION full_gradient(p gsu.partial, m gsu.model) RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
	SELECT array_agg(g / field(p, 'rows') + (gsu.describe(m)->'hyperparameters'->>'lambda')::float8 * coalesce(w, 0) ORDER BY i)
	FROM unnest(vec(p), gsu.weights(m)) WITH ORDINALITY u(g, w, i)
$$;
CREATE FUNCTION norm(v float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum(x * x)) FROM unnest(v) x
$$;
-- ‖a − b‖ / ‖b‖ for the vectors of two partials
CREATE FUNCTION rel_diff(a gsu.partial, b gsu.partial) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT sqrt(sum((x - y) ^ 2)) / norm(vec(b)) FROM unnest(vec(a), vec(b)) u(x, y)
$$;
-- the objective λ/2‖w‖² + mean loss over pts, through gsu.expected_loss (a zero variance is a certain row)
CREATE FUNCTION pts_objective(m gsu.model) RETURNS float8 LANGUAGE sql STABLE AS $$
	SELECT 0.5 * (gsu.describe(m)->'hyperparameters'->>'lambda')::float8
		* (SELECT sum(w * w) FROM unnest(gsu.weights(m)) w)
		+ avg(gsu.expected_loss(m, mean, coalesce(variance, '{0,0,0}'), label))
	FROM pts
$$;
-- m with weight j (or the bias, j = dim + 1) moved by eps
CREATE FUNCTION perturb(m gsu.model, j int, eps float8) RETURNS gsu.model LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN j <= array_length(gsu.weights(m), 1)
		THEN jsonb_set(m::jsonb, ARRAY['weights', (j - 1)::text], to_jsonb((gsu.weights(m))[j] + eps))
		ELSE jsonb_set(m::jsonb, '{bias}', to_jsonb(gsu.bias(m) + eps)) END::gsu.model
$$;

-- the newton optimum of pts, and a point that is not optimal
CREATE TABLE newton AS SELECT gsu.train(mean, variance, label ORDER BY id) AS m FROM pts;
CREATE TABLE point AS SELECT '{"format": 1, "dim": 3, "weights": [0.5, 0.2, 0.1], "bias": 0.1,
	"hyperparameters": {"lambda": 0.01}}'::gsu.model AS m;
CREATE TABLE at_point AS SELECT gsu.gradient(mean, variance, label, (SELECT m FROM point), 0) AS p FROM pts;

-- a gradient partial: its text form
SELECT jsonb_object_keys(p::text::jsonb) AS key FROM (SELECT gsu.gradient(mean, variance, label, m, 0) p FROM pts, newton) s ORDER BY 1;
SELECT p::text::jsonb->'kind' AS kind, p::text::jsonb->'dim' AS dim, p::text::jsonb->'rows' AS rows, p::text::jsonb->'positives' AS positives,
	p::text::jsonb->'steps' AS steps, p::text::jsonb->'smoothing' AS smoothing, p::text::jsonb->'lambda' AS lambda,
	p::text::jsonb->'loss' AS loss, p::text::jsonb->'subspace_fraction' AS p, jsonb_array_length(p::text::jsonb->'vector') AS n_vector
FROM (SELECT gsu.gradient(mean, variance, label, m, 1e-5) p FROM pts, newton) s;

-- at the newton optimum, with the smoothing newton ends with (1e-5), ∇F = (1/n)·Σ∇L + λ·(w, 0) vanishes
SELECT norm(full_gradient(p, m)) < 1e-5 AS stationary FROM (SELECT gsu.gradient(mean, variance, label, (SELECT m FROM newton), 1e-5) p FROM pts) s, newton;
-- ... and so does the unsmoothed gradient when every row has a variance (the objective is smooth)
CREATE TABLE allvar AS SELECT id, mean, coalesce(variance, '{0.2,0.2,0.2}') AS variance, label FROM pts;
CREATE TABLE allvar_newton AS SELECT gsu.train(mean, variance, label) m FROM allvar;
SELECT norm(full_gradient(p, m)) < 1e-5 AS stationary
FROM (SELECT gsu.gradient(mean, variance, label, (SELECT m FROM allvar_newton), 0) p FROM allvar) s, allvar_newton;
-- (without the smoothing, the rows without variance that sit on the margin leave a kink: not stationary)
SELECT norm(full_gradient(p, m)) > 1e-5 AS kink FROM (SELECT gsu.gradient(mean, variance, label, (SELECT m FROM newton), 0) p FROM pts) s, newton;
-- ... but not at another point
SELECT norm(full_gradient(p, m)) > 1e-2 AS not_stationary FROM at_point, point;
-- the loss sum is the sum of gsu.expected_loss: loss_sum/n + λ/2‖w‖² is the objective
SELECT abs(field(p, 'loss_sum') / field(p, 'rows') + 0.005 * (0.25 + 0.04 + 0.01) - pts_objective(m)) < 1e-12 * pts_objective(m) AS objective
FROM at_point, point;
-- the gradient is a central finite difference of that objective (h = 1e-6), for every weight and the bias
SELECT j, abs((pts_objective(perturb(m, j, 1e-6)) - pts_objective(perturb(m, j, -1e-6))) / 2e-6 - (full_gradient(p, m))[j]) < 1e-6 AS matches
FROM at_point, point, generate_series(1, 4) j ORDER BY j;
-- smoothing μ adds Gaussian noise to the decision value (d_Σ² grows by μ²): the loss sum grows, by at most
-- μ/(2√π) a row
SELECT field(s, 'loss_sum') > field(u, 'loss_sum') AS smoothed_above,
	field(s, 'loss_sum') - field(u, 'loss_sum') <= 400 * 0.1 / (2 * sqrt(pi())) AS bounded
FROM (SELECT gsu.gradient(mean, variance, label, m, 0.1) s, gsu.gradient(mean, variance, label, m, 0) u FROM pts, point) t;

-- at NULL means θ = 0: every row loses 1, the gradient is -Σ y·(x, 1)
SELECT field(p, 'loss_sum') AS loss_sum, field(p, 'rows') AS rows, field(p, 'positives') AS positives, field(p, 'lambda') AS lambda,
	norm(ARRAY[(vec(p))[1] + y1, (vec(p))[2] + y2, (vec(p))[3] + y3, (vec(p))[4] + y]) < 1e-9 AS gradient
FROM (SELECT gsu.gradient(mean, variance, label, NULL, 0) p, sum(label * mean[1]) y1, sum(label * mean[2]) y2, sum(label * mean[3]) y3,
	sum(label) y FROM pts) s;
-- a NULL smoothing is 0
SELECT p::text = q::text AS same FROM (SELECT gsu.gradient(mean, variance, label, m, NULL ORDER BY id) p, gsu.gradient(mean, variance, label, m, 0 ORDER BY id) q FROM pts, point) s;
-- the model's loss and subspace fraction count: a hinge model ignores the variances
SELECT vec(h) = vec(n) AND field(h, 'loss_sum') = field(n, 'loss_sum') AS same, h::text::jsonb->'loss' AS loss
FROM (SELECT gsu.gradient(mean, variance, label, jsonb_set(m::jsonb, '{loss}', '"hinge"')::gsu.model, 0 ORDER BY id) h,
	gsu.gradient(mean, NULL, label, m, 0 ORDER BY id) n FROM pts, point) s;
-- ... subspace_fraction 0.5 of (v1, v2, v3) keeps the largest variances that carry half the trace
SELECT p::text::jsonb->'subspace_fraction' AS p, vec(p) <> vec(q) AS differs
FROM (SELECT gsu.gradient(mean, variance, label, jsonb_set(m::jsonb, '{hyperparameters,subspace_fraction}', '0.5')::gsu.model, 0) p,
	gsu.gradient(mean, variance, label, m, 0) q FROM pts, point) s;

-- gsu.sum: the partials of a table split in 3 parts add up to the partial of the whole table
CREATE TABLE thirds AS SELECT id % 3 AS part, gsu.gradient(mean, variance, label, (SELECT m FROM point), 1e-3) AS p FROM pts GROUP BY id % 3;
CREATE TABLE whole AS SELECT gsu.gradient(mean, variance, label, m, 1e-3) AS p FROM pts, point;
SELECT field(s, 'rows') AS rows, field(s, 'positives') AS positives,
	abs(field(s, 'loss_sum') - field(w.p, 'loss_sum')) <= 1e-12 * field(w.p, 'loss_sum') AS loss_sum,
	rel_diff(s, w.p) <= 1e-12 AS vector,
	field(s, 'min_dsigma') = field(w.p, 'min_dsigma') AS min_dsigma, field(s, 'smoothing') AS smoothing
FROM (SELECT gsu.sum(p ORDER BY part) s FROM thirds) t, whole w;
-- in another order (equal to rounding), with NULLs among the partials (skipped)
SELECT rel_diff(c, a) <= 1e-12 AS other_order FROM (SELECT gsu.sum(p ORDER BY part) a, gsu.sum(p ORDER BY -part) c FROM thirds) s;
SELECT gsu.sum(p ORDER BY part)::text = (SELECT gsu.sum(p ORDER BY part)::text FROM thirds) AS nulls_skipped
FROM (SELECT part, p FROM thirds UNION ALL SELECT 5, NULL UNION ALL SELECT -1, NULL) s;
-- one partial is its own sum; no partials give NULL
SELECT gsu.sum(p)::text = p::text AS same FROM whole GROUP BY p::text;
SELECT gsu.sum(p) IS NULL AS is_null FROM whole WHERE false;
SELECT gsu.sum(NULL::gsu.partial) IS NULL AS is_null;
-- one sum per group, and as a window aggregate (a running sum)
SELECT part % 2 AS g, field(gsu.sum(p), 'rows') AS rows FROM thirds GROUP BY part % 2 ORDER BY 1;
SELECT part, field(gsu.sum(p) OVER (ORDER BY part), 'rows') AS running_rows FROM thirds ORDER BY part;

-- text round trip is exact; a partial survives jsonb as text, and a binary COPY
SELECT p::text::gsu.partial::text = p::text AS text_same FROM thirds ORDER BY part;
SELECT (p::text::jsonb)::text::gsu.partial::text = p::text AS via_jsonb FROM whole;
CREATE TABLE copied (part int, p gsu.partial);
SELECT regress_file('partial') AS regress_file \gset
COPY thirds TO :'regress_file' (FORMAT binary);
COPY copied FROM :'regress_file' (FORMAT binary);
SELECT count(*) AS n, bool_and(c.p::text = t.p::text) AS binary_same FROM copied c JOIN thirds t USING (part);
-- the binary form: a fixed header, then dim + 1 float8
SELECT length(gsu.partial_send(p)) AS bytes FROM whole;
-- hostile binary values: recv_partial writes bytes as a binary COPY file and reads them back
CREATE TABLE recv_tmp (p gsu.partial);
CREATE FUNCTION recv_partial(b bytea) RETURNS gsu.partial LANGUAGE plpgsql AS $$
DECLARE
	r gsu.partial;
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, public.regress_file('partial'));
	TRUNCATE recv_tmp;
	EXECUTE format('COPY recv_tmp FROM %L (FORMAT binary)', public.regress_file('partial'));
	SELECT p INTO r FROM recv_tmp;
	RETURN r;
END
$$;
-- offsets (1-based): format 1, kind 3, dim 5, rows 9, positives 17, steps 25, loss 33, subspace_mode 37 (format 3), flags 39 (format 4),
-- point 41 (format 2), loss_sum 49, smoothing 57, min_dsigma 65, lambda 73, subspace_fraction 81, vector 89
CREATE TABLE wire AS SELECT gsu.partial_send(p) AS b FROM whole;
SELECT recv_partial(b)::text = (SELECT p::text FROM whole) AS same FROM wire;
SELECT test_error($$SELECT recv_partial('') FROM wire$$);
SELECT test_error($$SELECT recv_partial(substr(b, 1, 88)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(substr(b, 1, length(b) - 1)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(b || '\x00'::bytea) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x0005'::bytea from 1)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x0000'::bytea from 1)) FROM wire$$);
-- format 1 (no point) is still read: the same value at an unknown point
SELECT recv_partial(overlay(substr(b, 1, 40) placing '\x0001'::bytea from 1) || substr(b, 49))::text::jsonb - 'point'
	= (SELECT p::text::jsonb - 'point' FROM whole) AS format1_same FROM wire;
SELECT test_error($$SELECT recv_partial(overlay(substr(b, 1, 40) placing '\x0001'::bytea from 1) || substr(b, 41)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x0007'::bytea from 3)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x00000004'::bytea from 5)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\xffffffffffffffff'::bytea from 9)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x0000000000100000'::bytea from 17)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x00000001'::bytea from 37)) FROM wire$$);
-- format 4: flags on a gradient partial, and a flag this build does not know
SELECT test_error($$SELECT recv_partial(overlay(overlay(b placing '\x0004'::bytea from 1) placing '\x0001'::bytea from 39)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(overlay(b placing '\x0004'::bytea from 1) placing '\x0004'::bytea from 39)) FROM wire$$);
-- a loss code text cannot name (a negative one passed the range check once)
SELECT test_error($$SELECT recv_partial(overlay(b placing '\xfffffffe'::bytea from 33)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x7ff8000000000000'::bytea from 49)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\xbff0000000000000'::bytea from 57)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x0000000000000000'::bytea from 73)) FROM wire$$);
SELECT test_error($$SELECT recv_partial(overlay(b placing '\x7ff0000000000000'::bytea from 89)) FROM wire$$);

-- hand-written text: the keys not given take their defaults
SELECT '{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, 2, 3]}'::gsu.partial;
SELECT '{"format": 1, "kind": "sgd", "dim": 1, "rows": 4, "positives": 1, "steps": 4, "loss_sum": 2, "lambda": 0.5, "vector": [1, -1]}'::gsu.partial;
-- hostile text inputs
SELECT test_error($$SELECT '{}'::gsu.partial$$);
SELECT test_error($$SELECT '{"kind": "gradient", "dim": 2, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 5, "kind": "gradient", "dim": 2, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "point": "00000000000000ff", "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 2, "kind": "gradient", "dim": 2, "point": "ff", "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 2, "kind": "gradient", "dim": 2, "point": "000000000000000g", "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 2, "kind": "gradient", "dim": 2, "point": "0000000000000000", "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 2, "kind": "sgd", "dim": 2, "point": "00000000000000ff", "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT '{"format": 2, "kind": "gradient", "dim": 2, "point": "00000000000000ff", "vector": [1, 2, 3]}'::gsu.partial;
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "newton", "dim": 2, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": 1, "dim": 2, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 0, "vector": [1]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 1e9, "vector": [1]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, 2]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, 2, 3, 4]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "vector": {"a": 1}}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, "2", 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, null, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, 1e999, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, "NaN", 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "rows": -1, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "rows": 1.5, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "rows": 3, "positives": 4, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "positives": 1, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "steps": -1, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "loss_sum": -1, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "loss_sum": 1e999, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "smoothing": -1, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "min_dsigma": -1, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "lambda": 0, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "subspace_fraction": 0, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "subspace_fraction": 1.5, "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "loss": "log", "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 1, "kind": "gradient", "dim": 2, "weights": [1, 2], "vector": [1, 2, 3]}'::gsu.partial$$);
SELECT test_error($$SELECT '[1, 2, 3]'::gsu.partial$$);
SELECT test_error($$SELECT '3'::gsu.partial$$);
SELECT test_error($$SELECT 'x'::gsu.partial$$);
SELECT test_error($$SELECT ''::gsu.partial$$);

-- gsu.to_model: an sgd partial holds a model, a gradient partial does not
SELECT gsu.weights(m), gsu.bias(m), gsu.describe(m)->'hyperparameters'->>'solver' AS solver, gsu.describe(m)->'training'->'rows' AS rows
FROM gsu.to_model('{"format": 1, "kind": "sgd", "dim": 1, "rows": 4, "positives": 1, "steps": 4, "loss_sum": 2, "lambda": 0.5, "vector": [1, -1]}') m;
SELECT test_error($$SELECT gsu.to_model(p) FROM whole$$);
SELECT test_error($$SELECT gsu.to_model('{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, 2, 3]}')$$);

-- errors of gsu.gradient
-- dimension of the rows against the model and against earlier rows
SELECT test_error($$SELECT gsu.gradient('{1,2}', NULL, 1, m, 0) FROM point$$);
SELECT test_error($$SELECT gsu.gradient(x, NULL, 1, NULL, 0) FROM (VALUES ('{1,2}'::float8[]), ('{1,2,3}')) v(x)$$);
SELECT test_error($$SELECT gsu.gradient('{1,2,3}', '{1,2}', 1, m, 0) FROM point$$);
-- labels, smoothing, bad values
SELECT test_error($$SELECT gsu.gradient('{1,2,3}', NULL, 0, m, 0) FROM point$$);
SELECT test_error($$SELECT gsu.gradient('{1,2,3}', NULL, 1, m, -1) FROM point$$);
SELECT test_error($$SELECT gsu.gradient('{1,2,3}', NULL, 1, m, 'Infinity') FROM point$$);
SELECT test_error($$SELECT gsu.gradient('{1,2,3}', NULL, 1, m, 'NaN') FROM point$$);
SELECT test_error($$SELECT gsu.gradient('{1,NaN,3}', NULL, 1, m, 0) FROM point$$);
SELECT test_error($$SELECT gsu.gradient('{1,2,3}', '{1,-1,1}', 1, m, 0) FROM point$$);
-- rows with a NULL mean or label are skipped; none left gives NULL
SELECT gsu.gradient(mean, variance, label, m, 0 ORDER BY id)::text = (SELECT gsu.gradient(mean, variance, label, m, 0 ORDER BY id)::text FROM pts, point) AS same
FROM (SELECT id, mean, variance, label FROM pts UNION ALL SELECT 1000, NULL, '{1,1,1}', 1 UNION ALL SELECT 1001, '{1,2,3}', NULL, NULL) s, point;
SELECT gsu.gradient(mean, variance, label, m, 0) IS NULL AS is_null FROM pts, point WHERE false;
-- combining partials of different dimensions, kinds or smoothing
SELECT test_error($$SELECT gsu.sum(p) FROM (VALUES ('{"format": 1, "kind": "gradient", "dim": 2, "vector": [1, 2, 3]}'::gsu.partial),
	('{"format": 1, "kind": "gradient", "dim": 1, "vector": [1, 2]}')) v(p)$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (VALUES ('{"format": 1, "kind": "gradient", "dim": 1, "vector": [1, 2]}'::gsu.partial),
	('{"format": 1, "kind": "sgd", "dim": 1, "vector": [1, 2]}')) v(p)$$);
SELECT test_error($$SELECT gsu.sum(p) FROM (VALUES ('{"format": 1, "kind": "gradient", "dim": 1, "smoothing": 0.1, "vector": [1, 2]}'::gsu.partial),
	('{"format": 1, "kind": "gradient", "dim": 1, "smoothing": 0.01, "vector": [1, 2]}')) v(p)$$);
SELECT test_error($$SELECT gsu.sum(p ORDER BY g) FROM (SELECT id % 2 AS g, gsu.gradient(mean, variance, label, (SELECT m FROM point), CASE WHEN id % 2 = 0 THEN 0 ELSE 1e-3 END) p FROM pts GROUP BY id % 2) s$$);
-- the state functions cannot be called directly
SELECT test_error($$SELECT gsu.partial_combine(NULL, NULL)$$);
SELECT test_error($$SELECT gsu.gradient_transfn(NULL, '{1}', NULL, 1, NULL, 0)$$);

-- a parallel plan gives the partial of the serial plan: 6000 rows like pts, without the leader so that
-- both workers get rows
CREATE TABLE big AS
SELECT i AS id, ARRAY[l * 1.0 + pnorm(i, 1), l * 0.5 + pnorm(i, 2), pnorm(i, 3)] AS mean,
	CASE WHEN i % 10 = 0 THEN NULL
		 ELSE ARRAY[0.05 + 0.5 * prand(i, 4), 0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6)] END AS variance,
	l AS label
FROM generate_series(1, 6000) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE big SET (parallel_workers = 2);
ANALYZE big;
CREATE TABLE serial AS SELECT gsu.gradient(mean, variance, label, (SELECT m FROM point), 1e-3) AS p FROM big;
-- 600 partials of big, to be summed in parallel
CREATE TABLE shards AS SELECT id % 600 AS shard, gsu.gradient(mean, variance, label, (SELECT m FROM point), 1e-3) AS p FROM big GROUP BY id % 600;
ALTER TABLE shards SET (parallel_workers = 2);
ANALYZE shards;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.gradient(mean, variance, label, (SELECT m FROM point), 1e-3) FROM big;
EXPLAIN (COSTS OFF) SELECT gsu.sum(p) FROM shards;
SELECT field(gsu.sum(p), 'rows') AS rows, rel_diff(gsu.sum(p), (SELECT p FROM serial)) <= 1e-12 AS same FROM shards;
CREATE TABLE par AS SELECT gsu.gradient(mean, variance, label, (SELECT m FROM point), 1e-3) AS p FROM big;
SELECT field(p.p, 'rows') AS rows, field(p.p, 'positives') AS positives,
	abs(field(p.p, 'loss_sum') - field(s.p, 'loss_sum')) <= 1e-12 * field(s.p, 'loss_sum') AS loss_sum,
	rel_diff(p.p, s.p) <= 1e-12 AS vector,
	field(p.p, 'min_dsigma') = field(s.p, 'min_dsigma') AS min_dsigma
FROM par p, serial s;
-- at NULL in the workers, and an error raised in a worker
SELECT field(gsu.gradient(mean, variance, label, NULL, 0), 'loss_sum') AS loss_sum FROM big;
SELECT test_error($$SELECT gsu.gradient(mean, variance, CASE WHEN id = 5000 THEN 0 ELSE label END, NULL, 0) FROM big$$);
SELECT gsu.gradient(mean, variance, label, NULL, 0) IS NULL AS is_null FROM big WHERE id < 0;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
-- a computed options argument: every row's options are read, and must agree within a group
SELECT test_error($$SELECT gsu.train_sgd(ARRAY[i::float8], NULL, CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END, CASE WHEN i = 5 THEN '{"lambda": 0.5}' ELSE '{"lambda": 0.1}' END::jsonb ORDER BY i) FROM generate_series(1, 10) i$$);
SELECT gsu.describe(gsu.train_sgd(ARRAY[i::float8], NULL, CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END, ('{"lambda": 0.1, "seed": ' || (i % 1) || '}')::jsonb ORDER BY i))->'hyperparameters'->'lambda' AS lambda FROM generate_series(1, 10) i;
