/* pg_gsu 0.1.0 — install script */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_gsu" to load this file. \quit

-- ------------------------------------------------------------ gsu.model

CREATE TYPE gsu.model;

CREATE FUNCTION gsu.model_in(cstring) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_model_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.model_out(gsu.model) RETURNS cstring
	AS 'MODULE_PATHNAME', 'gsu_model_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.model_recv(internal) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_model_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.model_send(gsu.model) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_model_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE gsu.model (
	INPUT = gsu.model_in,
	OUTPUT = gsu.model_out,
	RECEIVE = gsu.model_recv,
	SEND = gsu.model_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE gsu.model IS
	'a trained linear classifier: weights, bias, hyper-parameters and training statistics; text form is JSON';

CREATE FUNCTION gsu.model_to_jsonb(gsu.model) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_model_to_jsonb_cast' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.model_from_jsonb(jsonb) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_model_from_jsonb_cast' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (gsu.model AS jsonb) WITH FUNCTION gsu.model_to_jsonb(gsu.model);
CREATE CAST (jsonb AS gsu.model) WITH FUNCTION gsu.model_from_jsonb(jsonb);

COMMENT ON FUNCTION gsu.model_in(cstring) IS 'gsu.model text input (JSON)';
COMMENT ON FUNCTION gsu.model_out(gsu.model) IS 'gsu.model text output (JSON, shortest exact float digits)';
COMMENT ON FUNCTION gsu.model_recv(internal) IS 'gsu.model binary input';
COMMENT ON FUNCTION gsu.model_send(gsu.model) IS 'gsu.model binary output';
COMMENT ON FUNCTION gsu.model_to_jsonb(gsu.model) IS 'the model as a jsonb object (the cast gsu.model::jsonb)';
COMMENT ON FUNCTION gsu.model_from_jsonb(jsonb) IS 'a model from its jsonb form, validated (the cast jsonb::gsu.model)';

-- ------------------------------------------------------------ training

CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8, int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_iso_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_iso_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], bool, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.train_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.train_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_train_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.train_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.train_finalfn(internal) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_train_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.train_transfn(internal, float8[], float8[], int4, jsonb) IS 'gsu.train transition (diagonal variance)';
COMMENT ON FUNCTION gsu.train_transfn(internal, float8[], float8[], int4) IS 'gsu.train transition (diagonal variance, default options)';
COMMENT ON FUNCTION gsu.train_transfn(internal, float8[], float8, int4, jsonb) IS 'gsu.train transition (isotropic variance)';
COMMENT ON FUNCTION gsu.train_transfn(internal, float8[], float8, int4) IS 'gsu.train transition (isotropic variance, default options)';
COMMENT ON FUNCTION gsu.train_transfn(internal, float8[], float8[], bool, jsonb) IS 'gsu.train transition (boolean labels)';
COMMENT ON FUNCTION gsu.train_transfn(internal, float8[], float8[], bool) IS 'gsu.train transition (boolean labels, default options)';
COMMENT ON FUNCTION gsu.train_combinefn(internal, internal) IS 'gsu.train combine: merges the states of parallel workers';
COMMENT ON FUNCTION gsu.train_serialfn(internal) IS 'gsu.train state serialization';
COMMENT ON FUNCTION gsu.train_deserialfn(bytea, internal) IS 'gsu.train state deserialization (validated)';
COMMENT ON FUNCTION gsu.train_finalfn(internal) IS 'gsu.train final: runs the solver and returns the model';

CREATE AGGREGATE gsu.train(mean float8[], variance float8[], label int4, options jsonb) (
	SFUNC = gsu.train_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train(mean float8[], variance float8[], label int4) (
	SFUNC = gsu.train_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train(mean float8[], variance float8, label int4, options jsonb) (
	SFUNC = gsu.train_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train(mean float8[], variance float8, label int4) (
	SFUNC = gsu.train_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train(mean float8[], variance float8[], label bool, options jsonb) (
	SFUNC = gsu.train_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train(mean float8[], variance float8[], label bool) (
	SFUNC = gsu.train_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.train(float8[], float8[], int4, jsonb) IS
	'trains a linear SVM-GSU (expected hinge loss under each row''s Gaussian N(mean, diag(variance))); labels -1/1';
COMMENT ON AGGREGATE gsu.train(float8[], float8[], int4) IS
	'trains a linear SVM-GSU with default options';
COMMENT ON AGGREGATE gsu.train(float8[], float8, int4, jsonb) IS
	'trains a linear SVM-GSU on rows with isotropic covariance variance*I';
COMMENT ON AGGREGATE gsu.train(float8[], float8, int4) IS
	'trains a linear SVM-GSU on rows with isotropic covariance, default options';
COMMENT ON AGGREGATE gsu.train(float8[], float8[], bool, jsonb) IS
	'trains a linear SVM-GSU with boolean labels (true = 1, false = -1)';
COMMENT ON AGGREGATE gsu.train(float8[], float8[], bool) IS
	'trains a linear SVM-GSU with boolean labels, default options';

-- ------------------------------------------------------------ scoring

CREATE FUNCTION gsu.decision(model gsu.model, mean float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_decision_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.predict(model gsu.model, mean float8[]) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_predict_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.confidence(model gsu.model, mean float8[], variance float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_confidence_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.confidence(model gsu.model, mean float8[], variance float8) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_confidence_iso_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.expected_loss(model gsu.model, mean float8[], variance float8[], label int4) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_expected_loss_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.expected_loss(model gsu.model, mean float8[], variance float8, label int4) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_expected_loss_iso_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.decision(gsu.model, float8[]) IS 'the decision value w''x + b';
COMMENT ON FUNCTION gsu.predict(gsu.model, float8[]) IS 'the predicted label: 1 when w''x + b >= 0, else -1';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8[]) IS
	'probability that the predicted label holds for a point drawn from N(mean, diag(variance)): Phi(|w''x+b| / sqrt(w''Sigma w))';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8) IS
	'confidence for an isotropic Gaussian N(mean, variance*I)';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8[], int4) IS
	'expected hinge loss of the labelled Gaussian N(mean, diag(variance)) under the model';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8, int4) IS
	'expected hinge loss of the labelled isotropic Gaussian N(mean, variance*I)';

-- ------------------------------------------------------------ inspection

CREATE FUNCTION gsu.weights(model gsu.model) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_bias' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.describe(model gsu.model) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_model_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.weights(gsu.model) IS 'the weight vector w';
COMMENT ON FUNCTION gsu.bias(gsu.model) IS 'the bias b';
COMMENT ON FUNCTION gsu.describe(gsu.model) IS
	'the model without its weights as jsonb: loss, dimension, bias, hyper-parameters and training statistics';
