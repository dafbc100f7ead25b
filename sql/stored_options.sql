-- The stored options (GSU_STORED_OPTIONS in src/gsu_options.h, the options a
-- trained model keeps): every one of them, set to a value other than its
-- default, survives the model's text, jsonb and binary forms and gsu.train's
-- serialized state in a parallel plan.  A new stored option adds a key to
-- "hyperparameters" (or is the loss), so it shows up in the first query below
-- until an option set here moves it too.
\set SHOW_CONTEXT never
CREATE SCHEMA test_stored;
SET search_path = test_stored, public;

-- three option sets that between them move every stored option off its default
\set tsvc '{"loss": "tsvc", "lambda": 0.02, "solver": "pegasos", "tolerance": 0.0001, "smoothing": 0.01, "subspace_fraction": 0.5, "subspace_mode": "gaussian", "max_iterations": 77, "epochs": 3, "batch_size": 2, "seed": 42, "gamma": 0.7, "delta_scale": 0.3}'
\set robust_norm '{"loss": "robust", "norm": 1}'
\set robust_confidence '{"loss": "robust", "confidence": 0.9}'
CREATE TABLE opts (name text, options jsonb);
INSERT INTO opts VALUES ('tsvc', :'tsvc'), ('robust_norm', :'robust_norm'),
	('robust_confidence', :'robust_confidence');

-- 4000 rows like pts
CREATE TABLE big AS
SELECT i AS id, ARRAY[l * 1.0 + pnorm(i, 1), l * 0.5 + pnorm(i, 2), pnorm(i, 3)] AS mean,
	ARRAY[0.05 + 0.5 * prand(i, 4), 0.05 + 0.5 * prand(i, 5), 0.05 + 0.5 * prand(i, 6)] AS variance,
	l AS label
FROM generate_series(1, 4000) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c;
ALTER TABLE big SET (parallel_workers = 2);
ANALYZE big;

-- the serial models (the warnings of the models' fit are not this test's
-- subject: tsvc's norm bound ends near its gamma, on one side or the other
-- as the rows' order goes)
SET client_min_messages = error;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial AS
SELECT o.name, o.options, gsu.train(b.mean, b.variance, b.label, o.options) AS m
FROM opts o CROSS JOIN big b GROUP BY o.name, o.options;
RESET client_min_messages;

-- a model's hyperparameters when its text gives none: the defaults of its loss
CREATE FUNCTION default_hyper(loss text) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT gsu.describe(jsonb_build_object('format', 5, 'dim', 1, 'loss', loss,
		'weights', jsonb_build_array(0), 'bias', 0)::gsu.model)->'hyperparameters'
$$;

-- every stored option is off its default in at least one model
SELECT key, bool_or(value IS DISTINCT FROM default_hyper(d->>'loss')->key) AS moved
FROM serial, LATERAL (SELECT gsu.describe(m) AS d) x, jsonb_each(d->'hyperparameters')
GROUP BY key
UNION ALL
SELECT 'loss', bool_or(gsu.describe(m)->>'loss' <> 'gsu') FROM serial
ORDER BY key;

-- the stored values are the options' (robust_confidence: epsilon = 1 - confidence, gamma its quantile)
SELECT name, gsu.describe(m)->>'loss' AS loss, gsu.describe(m)->'hyperparameters' AS hyperparameters
FROM serial ORDER BY name;

-- text and jsonb round trips give the same value
SELECT name, m::text::gsu.model OPERATOR(gsu.=) m AS text_same,
	m::jsonb::gsu.model OPERATOR(gsu.=) m AS jsonb_same,
	gsu.model_send(m::text::gsu.model) = gsu.model_send(m) AS same_bytes
FROM serial ORDER BY name;

-- binary round trip: COPY out and in with FORMAT binary (gsu.model_send, gsu.model_recv)
CREATE TABLE copied (name text, m gsu.model);
SELECT regress_file('stored_options') AS regress_file \gset
COPY (SELECT name, m FROM serial) TO :'regress_file' (FORMAT binary);
COPY copied FROM :'regress_file' (FORMAT binary);
SELECT s.name, c.m OPERATOR(gsu.=) s.m AS same, gsu.model_send(c.m) = gsu.model_send(s.m) AS same_bytes
FROM serial s JOIN copied c USING (name) ORDER BY s.name;

-- the binary form of a model with every hyperparameter set, pinned byte for
-- byte (the bytes that the hand-written field lists sent before the header
-- was declared as a list): its length, digest and 180 bytes of header
CREATE TABLE hand AS
SELECT '{"format": 5, "loss": "tsvc", "dim": 2, "classes": [-1, 1], "class_weight": [1, 2],
	"weights": [1.5, -2], "bias": 0.25,
	"hyperparameters": {"lambda": 0.02, "solver": "pegasos", "tolerance": 0.0001, "smoothing": 0.01,
		"subspace_fraction": 0.5, "subspace_mode": "gaussian", "max_iterations": 77, "epochs": 3,
		"batch_size": 2, "seed": 42, "gamma": 0.7, "delta_scale": 0.3, "q": 2},
	"training": {"rows": 10, "iterations": 20, "passes": 30, "objective": 0.5, "gradient_norm": 0.1,
		"seconds": 1.5}}'::gsu.model AS m;
SELECT length(gsu.model_send(m)) AS bytes, md5(gsu.model_send(m)) FROM hand;
SELECT encode(substr(gsu.model_send(m), 1, 180), 'hex') AS header FROM hand;

-- gsu.train's serialized state: the same options in a parallel plan without
-- the leader, so that both workers' states are serialized, read back (their
-- options parsed again and compared) and combined
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET gsu.parallel_training = on;
SET client_min_messages = error;
SELECT workers_launched(format($$CREATE TABLE par AS
SELECT gsu.train(mean, variance, label, %L) AS tsvc,
	gsu.train(mean, variance, label, %L) AS robust_norm,
	gsu.train(mean, variance, label, %L) AS robust_confidence
FROM big$$, :'tsvc', :'robust_norm', :'robust_confidence'));
RESET client_min_messages;
-- every row was counted once, and the hyperparameters are the serial models'
SELECT s.name, gsu.describe(p.m)->'training'->'rows' AS rows,
	gsu.describe(p.m)->'hyperparameters' = gsu.describe(s.m)->'hyperparameters' AS same_hyperparameters,
	gsu.describe(p.m)->>'loss' = gsu.describe(s.m)->>'loss' AS same_loss
FROM serial s JOIN (SELECT 'tsvc' AS name, tsvc AS m FROM par
	UNION ALL SELECT 'robust_norm', robust_norm FROM par
	UNION ALL SELECT 'robust_confidence', robust_confidence FROM par) p USING (name)
ORDER BY s.name;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
RESET gsu.parallel_training;

DROP SCHEMA test_stored CASCADE;
