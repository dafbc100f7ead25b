-- The gsu.model type: JSON text I/O, jsonb casts, binary send/recv, input
-- validation, and the inspection functions.
\set SHOW_CONTEXT never
-- this file's objects live in their own schema
CREATE SCHEMA test_model_type;
SET search_path = test_model_type, public;

-- a hand-written model: the keys not given take their defaults
SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}'::gsu.model;
SELECT gsu.weights('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}');
SELECT gsu.bias('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}');
SELECT gsu.describe('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}');
-- every key given
CREATE TABLE hand (m gsu.model);
INSERT INTO hand VALUES ('{"format": 1, "method": "linear", "loss": "hinge", "dim": 3, "weights": [-1.5, 0, 1e-300],
	"bias": -0.25, "hyperparameters": {"lambda": 0.01, "solver": "pegasos", "tolerance": 0.001, "smoothing": 0.5,
	"subspace_fraction": 0.75, "max_iterations": 7, "epochs": 3, "batch_size": 16, "seed": 9223372036854775807},
	"training": {"rows": 1000, "iterations": 42, "passes": 3, "objective": 0.125, "gradient_norm": 2.5e-9,
	"gap_estimate": 1e-12, "converged": true, "seconds": 1.5}, "calibration": {"a": -2, "b": 0.125}}');
SELECT m FROM hand;
SELECT gsu.weights(m), gsu.bias(m) FROM hand;
SELECT gsu.describe(m) FROM hand;
SELECT gsu.describe(m)->'training'->'converged' AS converged, gsu.describe(m) ? 'weights' AS has_weights FROM hand;
-- keys in any order, whitespace, integers written as floats, exponents, and null for an absent optional key
SELECT gsu.weights(m), gsu.bias(m) FROM (SELECT '  { "bias" : -2 , "weights" : [ 2.50E0 , -1e-2 ] , "dim" : 2.0 , "format" : 1 , "method" : null }  '::gsu.model AS m) s;
-- a 1-dimensional model
SELECT gsu.weights('{"format": 1, "dim": 1, "weights": [3], "bias": 0}'), gsu.decision('{"format": 1, "dim": 1, "weights": [3], "bias": 0}', '{2}');

-- text round trip is exact: the output uses the shortest digits that read back to the same float8
SELECT m::text::gsu.model::text = m::text AS same FROM hand;
CREATE TABLE trained AS
SELECT o AS options, (SELECT gsu.train(mean, variance, label, o) FROM pts) AS m
FROM unnest(ARRAY['{}', '{"solver": "pegasos"}', '{"solver": "sgd"}', '{"loss": "hinge", "lambda": 0.1}']::jsonb[]) o;
SELECT options, m::text::gsu.model::text = m::text AS same,
	gsu.weights(m::text::gsu.model) = gsu.weights(m) AND gsu.bias(m::text::gsu.model) = gsu.bias(m) AS same_weights
FROM trained;
-- awkward doubles survive the round trip bit for bit
SELECT gsu.weights(m) = ARRAY[0.1, 1.0 / 3, 5e-324, 1.7976931348623157e308, -2.2250738585072014e-308, 123456789.00000001]::float8[] AS exact,
	m::text::gsu.model::text = m::text AS same
FROM (SELECT format('{"format": 1, "dim": 6, "weights": [%s, %s, %s, %s, %s, %s], "bias": 0}',
	0.1::float8, (1.0 / 3)::float8, 5e-324::float8, 1.7976931348623157e308::float8,
	-2.2250738585072014e-308::float8, 123456789.00000001::float8)::gsu.model AS m) s;
SELECT gsu.weights('{"format": 1, "dim": 2, "weights": [0.30000000000000004, 1e-320], "bias": 0}');

-- casts to and from jsonb
SELECT ('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}'::gsu.model)::jsonb;
SELECT m::jsonb::gsu.model::text = m::text AS same FROM hand;
SELECT options, m::jsonb::gsu.model::text = m::text AS same FROM trained;
SELECT (m::jsonb - 'weights') = gsu.describe(m) AS describe_is_jsonb_without_weights FROM hand;
SELECT '{"format": 1, "dim": 1, "weights": [7], "bias": 1}'::jsonb::gsu.model;
SELECT gsu.bias(jsonb_set(m::jsonb, '{bias}', '3')::gsu.model) AS new_bias FROM hand;
SELECT test_error($$SELECT '[1, 2]'::jsonb::gsu.model$$);
SELECT test_error($$SELECT '3'::jsonb::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1], "bias": 0}'::jsonb::gsu.model$$);

-- binary round trip: COPY out and in with FORMAT binary (gsu.model_send, gsu.model_recv)
CREATE TABLE copied (options jsonb, m gsu.model);
SELECT regress_file('model_type') AS regress_file \gset
COPY (SELECT options, m FROM trained UNION ALL SELECT NULL, m FROM hand) TO :'regress_file' (FORMAT binary);
COPY copied FROM :'regress_file' (FORMAT binary);
SELECT count(*) AS n, bool_and(c.m::text = t.m::text) AS same
FROM copied c JOIN (SELECT options, m FROM trained UNION ALL SELECT NULL, m FROM hand) t ON c.options IS NOT DISTINCT FROM t.options;
-- the binary form: the header fields in network order, then the data block as float8
SELECT length(gsu.model_send(m)) AS bytes, substr(gsu.model_send(m), 1, 12) AS head FROM hand;

-- hostile binary values: recv_model writes bytes as a binary COPY file and reads them back as a gsu.model
CREATE TABLE recv_tmp (m gsu.model);
CREATE FUNCTION recv_model(b bytea) RETURNS gsu.model LANGUAGE plpgsql AS $$
DECLARE
	r gsu.model;
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, public.regress_file('model_type'));
	TRUNCATE recv_tmp;
	EXECUTE format('COPY recv_tmp FROM %L (FORMAT binary)', public.regress_file('model_type'));
	SELECT m INTO r FROM recv_tmp;
	RETURN r;
END
$$;
-- offsets (1-based): format 1, flags 3, dim 5, input_dim 9, nclasses 13, loss 17, solver 18, map_kind 19,
-- robust_q 20, epochs 21, batch_size 25, max_iterations 29, map_landmarks 33, map_len 37, subspace_mode 41 (format 3), reserved 42,
-- seed 45, map_seed 53, lambda 61, tolerance 69, smoothing 77, subspace_fraction 85, gamma 93,
-- delta_scale 101, epsilon 109, map_sigma 117, rows 125, iterations 133, passes 141, objective 149,
-- gradient_norm 157, gap_estimate 165, seconds 173, then the data: classes 181, class weights 197,
-- weights 213, bias 213 + 8·dim, Platt a and b after the bias
CREATE TABLE wire AS SELECT gsu.model_send('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}') AS b;
SELECT length(b) AS bytes, substr(b, 213, 8) AS w1, substr(b, 229, 8) AS bias FROM wire;
SELECT recv_model(b)::text = '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5}'::gsu.model::text AS same FROM wire;
-- wrong lengths
SELECT test_error($$SELECT recv_model('') FROM wire$$);
SELECT test_error($$SELECT recv_model(substr(b, 1, 100)) FROM wire$$);
SELECT test_error($$SELECT recv_model(substr(b, 1, length(b) - 1)) FROM wire$$);
SELECT test_error($$SELECT recv_model(b || '\x00'::bytea) FROM wire$$);
SELECT test_error($$SELECT recv_model(b || b) FROM wire$$);
-- header fields
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0001' from 1 for 2)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0000' from 1 for 2)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0040' from 3 for 2)) FROM wire$$);
-- the flag "missing_nan" (0x0020) needs the flag "missing" and its moments
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0020' from 3 for 2)) FROM wire$$);
-- the flag "missing" (0x0010) needs its moments block, and format 4 never had it
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0010' from 3 for 2)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(overlay(b placing '\x0004' from 1 for 2) placing '\x0010' from 3 for 2)) FROM wire$$);
-- the flag "history" needs its block (format 5), and format 4 never had it
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0008' from 3 for 2)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(overlay(b placing '\x0004' from 1 for 2) placing '\x0008' from 3 for 2)) FROM wire$$);
-- the flag "standardized" needs its statistics block (format 4), and format 3 never had it
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0004' from 3 for 2)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(overlay(b placing '\x0003' from 1 for 2) placing '\x0004' from 3 for 2)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x8000' from 3 for 2)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000000' from 5 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xffffffff' from 5 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x7fffffff' from 5 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000003' from 5 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000001' from 5 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000003' from 9 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000000' from 13 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000003' from 13 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x7fffffff' from 13 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(set_byte(b, 16, 7)) FROM wire$$);
SELECT test_error($$SELECT recv_model(set_byte(b, 17, 5)) FROM wire$$);
SELECT test_error($$SELECT recv_model(set_byte(b, 18, 4)) FROM wire$$);
-- map kind 3 is poly2, whose mapped dimension must be p(p+1)/2
SELECT test_error($$SELECT recv_model(set_byte(b, 18, 3)) FROM wire$$);
SELECT test_error($$SELECT recv_model(set_byte(b, 19, 1)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000000' from 21 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xffffffff' from 25 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x80000000' from 29 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000001' from 33 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000001' from 37 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xffffffff' from 37 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x00000001' from 41 for 4)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xffffffffffffffff' from 45 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0000000000000001' from 53 for 8)) FROM wire$$);
-- hyperparameters
SELECT test_error($$SELECT recv_model(overlay(b placing '\x7ff8000000000000' from 61 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xbff0000000000000' from 61 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0000000000000000' from 61 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x7ff0000000000000' from 69 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xbff0000000000000' from 77 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0000000000000000' from 85 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x4000000000000000' from 85 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x3ff0000000000000' from 93 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x3ff0000000000000' from 109 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x3ff0000000000000' from 117 for 8)) FROM wire$$);
-- training statistics
SELECT test_error($$SELECT recv_model(overlay(b placing '\xffffffffffffffff' from 125 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xffffffffffffffff' from 141 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x7ff8000000000000' from 149 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xbff0000000000000' from 157 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xfff0000000000000' from 173 for 8)) FROM wire$$);
-- classes: int4 values, ascending; class weights positive
SELECT test_error($$SELECT recv_model(overlay(b placing '\x3ff8000000000000' from 181 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x41f0000000000000' from 189 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xbff0000000000000' from 189 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x0000000000000000' from 197 for 8)) FROM wire$$);
SELECT gsu.classes(recv_model(overlay(b placing '\x4014000000000000' from 189 for 8))) AS classes FROM wire;
-- calibration: only with its flag, and finite
SELECT test_error($$SELECT recv_model(overlay(b placing '\x3ff0000000000000' from 237 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(overlay(b placing '\x0002' from 3 for 2) placing '\x7ff8000000000000' from 245 for 8)) FROM wire$$);
SELECT gsu.describe(recv_model(overlay(overlay(b placing '\x0002' from 3 for 2) placing '\xbff0000000000000' from 237 for 8)))->'calibration' AS calibration FROM wire;
-- weights and bias
SELECT test_error($$SELECT recv_model(overlay(b placing '\x7ff0000000000000' from 213 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\xfff8000000000000' from 221 for 8)) FROM wire$$);
SELECT test_error($$SELECT recv_model(overlay(b placing '\x7ff8000000000000' from 229 for 8)) FROM wire$$);
-- a subnormal weight is a valid value
SELECT (gsu.weights(recv_model(overlay(b placing '\x0000000000000001' from 213 for 8))))[1] = 5e-324 AS subnormal FROM wire;

-- text input: not JSON, not an object
SELECT test_error($$SELECT 'x'::gsu.model$$);
SELECT test_error($$SELECT ''::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0.5'::gsu.model$$);
SELECT test_error($$SELECT '[1, 2]'::gsu.model$$);
SELECT test_error($$SELECT '"model"'::gsu.model$$);
SELECT test_error($$SELECT 'null'::gsu.model$$);
SELECT test_error($$SELECT '42'::gsu.model$$);
-- missing keys
SELECT test_error($$SELECT '{}'::gsu.model$$);
SELECT test_error($$SELECT '{"dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": null}'::gsu.model$$);
-- unknown key: the hint lists the valid keys
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "foo": 1}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "Bias": 1}'::gsu.model$$);
-- format
SELECT test_error($$SELECT '{"format": 6, "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 0, "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": -1, "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1.5, "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": "1", "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
-- method, loss
SELECT test_error($$SELECT '{"format": 1, "method": "rbf", "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "method": 1, "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "loss": "tsvc", "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "loss": ["gsu"], "dim": 2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
-- dim
SELECT test_error($$SELECT '{"format": 1, "dim": 0, "weights": [], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": -2, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 1000001, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2.5, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": "2", "weights": [1, 2], "bias": 0}'::gsu.model$$);
-- dim vs the number of weights
SELECT test_error($$SELECT '{"format": 1, "dim": 3, "weights": [1, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 1, "weights": [1, 2], "bias": 0}'::gsu.model$$);
-- weights
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, "a"], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, null], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [[1], 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, true], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": {"a": 1, "b": 2}, "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 1, "weights": 1, "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 1e400], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [-1e309, 1], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 1e400}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": "0"}'::gsu.model$$);
-- JSON has no NaN or Infinity
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [NaN, 2], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [Infinity, 2], "bias": 0}'::gsu.model$$);
-- a number too small for float8 reads as 0
SELECT gsu.weights('{"format": 1, "dim": 2, "weights": [1e-400, 2], "bias": 0}');
-- hyperparameters
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"foo": 1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": []}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"solver": "adam"}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"lambda": -1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"lambda": 0}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"lambda": "0.1"}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"tolerance": 0}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"smoothing": -1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"epochs": 0}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"batch_size": 1.5}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"max_iterations": 2147483648}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"seed": -1}}'::gsu.model$$);
-- training
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": {"foo": 1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": 1}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": {"rows": -1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": {"rows": 1.5}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": {"iterations": -1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": {"gradient_norm": -1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": {"seconds": -0.5}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": {"objective": 1e999}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "training": {"converged": "yes"}}'::gsu.model$$);
-- subspace_fraction
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"subspace_fraction": 0}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"subspace_fraction": 1.5}}'::gsu.model$$);
SELECT gsu.describe('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "hyperparameters": {"subspace_fraction": 1e-3}}')->'hyperparameters'->'subspace_fraction' AS p;
-- calibration: an object with a and b, or null
SELECT gsu.describe('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": {"a": -1, "b": 0.5}}')->'calibration' AS calibration;
SELECT gsu.describe('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": null}')->'calibration' AS calibration;
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": {"a": -1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": {"a": -1, "b": 0, "c": 1}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": {"a": "x", "b": 0}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": {"a": 1e400, "b": 0}}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "calibration": [1, 0]}'::gsu.model$$);
-- the input function is also what a cast from text and a table column use
SELECT test_error($$SELECT '{"format": 1, "dim": 2, "weights": [1], "bias": 0}'::text::gsu.model$$);
SELECT test_error($$INSERT INTO hand VALUES ('{"format": 1, "dim": 2, "weights": [1, 2], "bias": 0, "loss": "x"}')$$);
SELECT count(*) FROM hand;
