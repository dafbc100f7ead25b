-- Every error path of training and scoring, with its SQLSTATE and message
-- (test_error, from 00_setup, prints them with DETAIL and HINT).
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_errors;
SET search_path = test_errors, public;

CREATE TABLE m2 AS SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}'::gsu.model AS m;

-- dimension mismatch between rows (buffered and streaming)
SELECT test_error($$SELECT gsu.train(x, NULL::float8[], y) FROM (VALUES ('{1,2}'::float8[], 1), ('{1,2,3}', -1)) v(x, y)$$);
SELECT test_error($$SELECT gsu.train(x, NULL::float8[], y, '{"solver": "sgd"}') FROM (VALUES ('{1,2}'::float8[], 1), ('{1}', -1)) v(x, y)$$);
SELECT test_error($$SELECT gsu.train(x, 1.0, y) FROM (VALUES ('{1,2}'::float8[], 1), ('{1,2,3}', -1)) v(x, y)$$);
-- mean vs variance length
SELECT test_error($$SELECT gsu.train('{1,2}', '{1,2,3}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{1}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train(x, v, y) FROM (VALUES ('{1,2}'::float8[], '{1,1}'::float8[], 1), ('{1,3}', '{1,1,1}', -1)) s(x, v, y)$$);
-- model vs input
SELECT test_error($$SELECT gsu.decision(m, '{1,2,3}') FROM m2$$);
SELECT test_error($$SELECT gsu.decision(m, '{1}') FROM m2$$);
SELECT test_error($$SELECT gsu.predict(m, '{1,2,3}') FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2,3}', '{1,1,1}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2,3}', ARRAY[1.0]::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2,3}', '{1,1,1}'::float8[], 1) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2,3}', ARRAY[1.0]::float8[], 1) FROM m2$$);
-- model vs variance
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{1,1,1}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{1,2,3}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2}', '{1,1,1}'::float8[], 1) FROM m2$$);

-- NULL elements
SELECT test_error($$SELECT gsu.train('{1,NULL}', NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{NULL,1}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,NULL}', 1.0, 1)$$);
SELECT test_error($$SELECT gsu.train('{NULL,2}', NULL::float8[], true)$$);
SELECT test_error($$SELECT gsu.decision(m, '{1,NULL}') FROM m2$$);
SELECT test_error($$SELECT gsu.predict(m, '{NULL,NULL}') FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{1,NULL}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,NULL}', '{1,1}'::float8[], 1) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2}', '{NULL,1}'::float8[], 1) FROM m2$$);

-- NaN and ±Infinity in a mean
SELECT test_error($$SELECT gsu.train('{1,NaN}', NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{Infinity,1}', NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,-Infinity}', NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,NaN}', 1.0, 1)$$);
SELECT test_error($$SELECT gsu.train('{1,NaN}', NULL::float8[], 1, '{"solver": "sgd"}')$$);
SELECT test_error($$SELECT gsu.decision(m, '{NaN,1}') FROM m2$$);
SELECT test_error($$SELECT gsu.predict(m, '{1,Infinity}') FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{-Infinity,1}', '{1,1}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,NaN}', ARRAY[1.0]::float8[], 1) FROM m2$$);
-- NaN, Infinity and negative values in a variance
SELECT test_error($$SELECT gsu.train('{1,2}', '{NaN,1}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{1,Infinity}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{1,-0.5}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{1,-1e-300}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', -0.5::float8, 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', 'NaN'::float8, 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', 'Infinity'::float8, 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{-1,1}'::float8[], 1, '{"solver": "sgd"}')$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{-1,1}'::float8[], 1, '{"loss": "hinge"}')$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{NaN,1}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{1,-1}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', ARRAY[-1.0]::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', ARRAY['NaN']::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2}', '{1,-Infinity}'::float8[], 1) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2}', ARRAY['-Infinity']::float8[], 1) FROM m2$$);
-- -0 is a zero variance, not a negative one
SELECT test_error($$SELECT gsu.train(x, '{-0,0}'::float8[], y) FROM (VALUES ('{1,2}'::float8[], 1), ('{-1,-2}', -1)) v(x, y)$$);
SELECT test_error($$SELECT gsu.train(x, '-0'::float8, y) FROM (VALUES ('{1,2}'::float8[], 1), ('{-1,-2}', -1)) v(x, y)$$);
SELECT gsu.confidence(m, '{1,2}', '{-0,-0}'::float8[]) AS certain FROM m2;

-- labels other than -1 and 1
SELECT test_error($$SELECT gsu.train('{1,2}', NULL::float8[], 0)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', NULL::float8[], 2)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', NULL::float8[], -2)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', 1.0, 0)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', NULL::float8[], 0, '{"solver": "sgd"}')$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2}', '{1,1}'::float8[], 0) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2}', ARRAY[1.0]::float8[], 2) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2}', ARRAY[1.0]::float8[], -2147483648) FROM m2$$);

-- empty arrays
SELECT test_error($$SELECT gsu.train('{}', NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{}', 1.0, 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.decision(m, '{}') FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{}'::float8[]) FROM m2$$);
-- arrays of more than one dimension
SELECT test_error($$SELECT gsu.train('{{1,2},{3,4}}', NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{{1,2}}', NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.decision(m, '{{1,2}}') FROM m2$$);
-- a 2-D variance is a full covariance: dim × dim, symmetric, positive semi-definite, finite, without NULLs
SELECT test_error($$SELECT gsu.train('{1,2}', '{{1,0,0},{0,1,0}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{{1}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{{1,2},{3,4}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{{1,0},{0,-1}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{{1,2},{2,1}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{{1,NULL},{NULL,1}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{{1,NaN},{NaN,1}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{{Infinity,0},{0,1}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}', '{{{1}}}'::float8[], 1)$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{{1,2},{3,4}}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{{1,0,0},{0,1,0},{0,0,1}}'::float8[]) FROM m2$$);
SELECT test_error($$SELECT gsu.expected_loss(m, '{1,2}', '{{-1,0},{0,1}}'::float8[], 1) FROM m2$$);
-- symmetric to rounding is fine
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{{1,0.30000000000000004},{0.3,1}}'::float8[]) FROM m2$$);
-- a lower bound other than 1 is fine: only the elements count
SELECT gsu.decision(m, '[0:1]={1,1}') FROM m2;

-- one class only
SELECT test_error($$SELECT gsu.train('{1,2}', NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train(mean, variance, -1) FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label) FROM pts WHERE label = 1$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}') FROM pts WHERE label = -1$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "pegasos"}') FROM pts WHERE label = -1$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label > 0) FROM pts WHERE label = 1$$);
-- one class in one group is an error for the whole query (sorted groups: which group
-- fails first must not depend on a hash table's order)
SET enable_hashagg = off;
SELECT test_error($$SELECT gsu.train(mean, variance, label) FROM pts GROUP BY id % 2$$);
RESET enable_hashagg;

-- options: unknown keys (the hint lists the valid ones; keys are case-sensitive)
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"foo": 1}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"Lambda": 1}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": 0.1, "epoch": 3}') FROM pts$$);
-- options: wrong types
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": "x"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": "0.1"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": true}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": [0.1]}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"epochs": 1.5}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"epochs": "3"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"batch_size": 2.5}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": 3}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": ["sgd"]}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": {"name": "sgd"}}') FROM pts$$);
-- options: out of range
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": 0}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": -1}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": 1e400}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"tolerance": 2}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"tolerance": 0}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"tolerance": 1}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"smoothing": 0}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"smoothing": 1.5}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"epochs": 0}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"epochs": 100001}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"batch_size": 0}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"max_iterations": 0}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"max_iterations": -5}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"seed": -1}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"seed": 1e30}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "lbfgs"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "Newton"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": "logistic"}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"loss": ""}') FROM pts$$);
-- options must be an object
SELECT test_error($$SELECT gsu.train(mean, variance, label, '[]') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '[{"lambda": 1}]') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '3') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '"sgd"') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, 'null') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, 1.0, label, '[]') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label > 0, '[]') FROM pts$$);
-- the boundaries of the valid ranges are accepted
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"smoothing": 1, "epochs": 100000, "solver": "sgd", "seed": 0, "batch_size": 1000000, "max_iterations": 1000000, "tolerance": 0.999}') FROM pts$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"seed": 9223372036854775807, "lambda": 1e-300}') FROM pts WHERE id < 10$$);

-- memory limit: 64 kB holds 1170 rows of dimension 3 with a diagonal variance
-- (7 float8 each); beyond that the buffering solvers stop, sgd does not.  The
-- limit bounds the whole training path: 1170 buffered rows fit, but the
-- solver's per-row buffers do not fit beside them, and the final function
-- refuses before allocating them; 400 rows fit with their buffers.
SET gsu.max_training_memory = '64kB';
SHOW gsu.max_training_memory;
CREATE TABLE many AS SELECT i AS id, ARRAY[(i % 7) - 3.0, (i % 5) - 2.0, (i % 3) - 1.0] AS mean,
	ARRAY[0.1, 0.2, 0.3] AS variance, CASE WHEN i % 7 + i % 5 >= 6 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 3000) i;
SELECT test_error($$SELECT gsu.train(mean, variance, label) FROM many$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "pegasos"}') FROM many$$);
SELECT test_error($$SELECT gsu.train(mean, 0.5, label) FROM many$$);
SELECT test_error($$SELECT gsu.train(mean, NULL::float8[], label) FROM many$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label) IS NOT NULL FROM many WHERE id <= 400$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label) IS NOT NULL FROM many WHERE id <= 1170$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label) IS NOT NULL FROM many WHERE id <= 1171$$);
SELECT gsu.describe(gsu.train(mean, variance, label, '{"solver": "sgd"}'))->'training'->'rows' AS rows FROM many;
SELECT test_error($$SET gsu.max_training_memory = '63kB'$$);
SELECT test_error($$SET gsu.max_training_memory = 'lots'$$);
SELECT test_error($$SET gsu.no_such_setting = 1$$);
RESET gsu.max_training_memory;
SHOW gsu.max_training_memory;
SELECT gsu.describe(gsu.train(mean, variance, label))->'training'->'rows' AS rows FROM many;
DROP TABLE many;

-- probability needs a calibrated model
SELECT test_error($$SELECT gsu.probability(m, '{1,2}') FROM m2$$);
SELECT test_error($$SELECT gsu.probability('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": {"a": -1, "b": 0}}', '{1,2,3}')$$);
SELECT test_error($$SELECT gsu.probability('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": {"a": -1, "b": 0}}', '{1,NaN}')$$);

-- the wrong argument types are not found
SELECT test_error($$SELECT gsu.train('{1,2}'::text, NULL::float8[], 1)$$);
SELECT test_error($$SELECT gsu.train('{1,2}'::float8[], NULL::float8[], 1.5)$$);
SELECT test_error($$SELECT gsu.decision('{1,2}'::float8[], '{1,2}'::float8[])$$);
