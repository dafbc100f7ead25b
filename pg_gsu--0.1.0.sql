-- pg_gsu install script, built by the Makefile from the fragments in src/sql, in name order

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_gsu" to load this file. \quit


-- The schema gsu must belong to the role installing pg_gsu. CREATE EXTENSION
-- adopts an existing schema of that name whoever owns it, and its owner could
-- then rename it and plant functions under the names pg_gsu's code calls, to be
-- run by the next superuser who calls them. Every name here is qualified: this
-- runs with the schema gsu in search_path.
DO $$
DECLARE
	owner name := (SELECT r.rolname FROM pg_catalog.pg_namespace n
				   JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
				   WHERE n.nspname OPERATOR(pg_catalog.=) 'gsu');
BEGIN
	IF owner IS DISTINCT FROM CURRENT_USER THEN
		RAISE EXCEPTION 'schema "gsu" is owned by role "%", not by the role installing pg_gsu ("%")',
			owner, CURRENT_USER
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'pg_gsu installs into the schema gsu, and the owner of that schema could replace the functions it calls.',
				  HINT = 'Drop the schema gsu, or make the installing role its owner (ALTER SCHEMA gsu OWNER TO ...), then run CREATE EXTENSION again.';
	END IF;
END
$$;
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
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], int4, float8, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_weighted_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.train_combine_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_combine_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.train_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT gsu.train_combine_support;
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
COMMENT ON FUNCTION gsu.train_transfn(internal, float8[], float8[], int4, float8, jsonb) IS 'gsu.train transition (per-row weight)';
COMMENT ON FUNCTION gsu.train_combinefn(internal, internal) IS 'gsu.train combine: merges the states of parallel workers';
COMMENT ON FUNCTION gsu.train_combine_support(internal) IS
	'planner support of gsu.train_combinefn: prices the combine step so that gsu.train stays serial unless gsu.parallel_training is on';
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
CREATE AGGREGATE gsu.train(mean float8[], variance float8[], label int4, weight float8, options jsonb) (
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
COMMENT ON AGGREGATE gsu.train(float8[], float8[], int4, float8, jsonb) IS
	'trains a linear SVM-GSU with a weight per row (finite, >= 0; a NULL or 0 weight skips the row) multiplying its loss';
-- ------------------------------------------------------------ scoring

CREATE FUNCTION gsu.decision(model gsu.model, mean float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_decision_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.decisions(model gsu.model, mean float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_decisions_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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

COMMENT ON FUNCTION gsu.decision(gsu.model, float8[]) IS
	'the decision value w''x + b of a two-class model (positive: its second class)';
COMMENT ON FUNCTION gsu.decisions(gsu.model, float8[]) IS
	'one decision value per class, in the order of gsu.classes (two classes: -f and f; more: the one-vs-rest values)';
COMMENT ON FUNCTION gsu.predict(gsu.model, float8[]) IS
	'the predicted class: two classes, the second when w''x + b >= 0; more, the class of the largest one-vs-rest decision value';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8[]) IS
	'probability that the predicted label holds for a point drawn from N(mean, diag(variance)): Phi(|w''x+b| / sqrt(w''Sigma w)); more than two classes: that the predicted class''s one-vs-rest classifier claims the point';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8) IS
	'confidence for an isotropic Gaussian N(mean, variance*I)';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8[], int4) IS
	'expected hinge loss of the labelled Gaussian N(mean, diag(variance)) under the model (more than two classes: summed over the one-vs-rest classifiers)';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8, int4) IS
	'expected hinge loss of the labelled isotropic Gaussian N(mean, variance*I)';

-- ------------------------------------------------------------ inspection

CREATE FUNCTION gsu.weights(model gsu.model) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_bias' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.weights(model gsu.model, class int4) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_class_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model, class int4) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_class_bias' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.classes(model gsu.model) RETURNS int4[]
	AS 'MODULE_PATHNAME', 'gsu_model_classes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.describe(model gsu.model) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_model_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.weights(gsu.model) IS
	'the weight vector w (a model of more than two classes: one row per class)';
COMMENT ON FUNCTION gsu.bias(gsu.model) IS 'the bias b of a two-class model';
COMMENT ON FUNCTION gsu.weights(gsu.model, int4) IS
	'the weight vector that scores the class (two classes: -w for the first, w for the second)';
COMMENT ON FUNCTION gsu.bias(gsu.model, int4) IS 'the bias that goes with gsu.weights(model, class)';
COMMENT ON FUNCTION gsu.classes(gsu.model) IS 'the classes (labels) of the model, ascending';
COMMENT ON FUNCTION gsu.describe(gsu.model) IS
	'the model without its weights as jsonb: loss, dimension, bias, hyper-parameters and training statistics';
-- ------------------------------------------------------------ calibration

CREATE FUNCTION gsu.calibrate_transfn(internal, gsu.model, float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_calibrate_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.calibrate_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_calibrate_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.calibrate_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_calibrate_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.calibrate_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_calibrate_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.calibrate_finalfn(internal) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_calibrate_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.calibrate_transfn(internal, gsu.model, float8[], int4) IS 'gsu.calibrate transition';
COMMENT ON FUNCTION gsu.calibrate_combinefn(internal, internal) IS 'gsu.calibrate combine';
COMMENT ON FUNCTION gsu.calibrate_serialfn(internal) IS 'gsu.calibrate state serialization';
COMMENT ON FUNCTION gsu.calibrate_deserialfn(bytea, internal) IS 'gsu.calibrate state deserialization (validated)';
COMMENT ON FUNCTION gsu.calibrate_finalfn(internal) IS 'gsu.calibrate final: fits Platt''s sigmoid';

CREATE AGGREGATE gsu.calibrate(model gsu.model, mean float8[], label int4) (
	SFUNC = gsu.calibrate_transfn, STYPE = internal, FINALFUNC = gsu.calibrate_finalfn,
	COMBINEFUNC = gsu.calibrate_combinefn, SERIALFUNC = gsu.calibrate_serialfn,
	DESERIALFUNC = gsu.calibrate_deserialfn, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.calibrate(gsu.model, float8[], int4) IS
	'the model with Platt''s sigmoid P(y=1|f) = 1/(1+exp(A f + B)) fitted on held-out rows (one per class for more than two)';

CREATE FUNCTION gsu.probability(model gsu.model, mean float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_probability_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsu.probability(gsu.model, float8[]) IS
	'Platt-calibrated probability of the second class (label 1 for -1/1 labels) of a two-class model (the model must come from gsu.calibrate)';
CREATE FUNCTION gsu.probabilities(model gsu.model, mean float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_probabilities_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsu.probabilities(gsu.model, float8[]) IS
	'calibrated probability of each class, in the order of gsu.classes (more than two classes: the one-vs-rest probabilities normalized to sum to 1)';
-- ------------------------------------------------------------ moments of raw observations

CREATE TYPE gsu.moments_result AS (mean float8[], variance float8[], count int8);
COMMENT ON TYPE gsu.moments_result IS
	'result of gsu.moments: the mean vector, the variance (1-D per feature, or the 2-D covariance matrix) and the number of observations';

CREATE FUNCTION gsu.moments_transfn(internal, float8[], jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_moments_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.moments_transfn(internal, float8[]) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_moments_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.moments_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_moments_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.moments_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_moments_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.moments_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_moments_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.moments_finalfn(internal) RETURNS gsu.moments_result
	AS 'MODULE_PATHNAME', 'gsu_moments_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.moments_transfn(internal, float8[], jsonb) IS 'gsu.moments transition: Welford update';
COMMENT ON FUNCTION gsu.moments_transfn(internal, float8[]) IS 'gsu.moments transition: Welford update, default options';
COMMENT ON FUNCTION gsu.moments_combinefn(internal, internal) IS 'gsu.moments combine: Chan et al. merge of the states of parallel workers';
COMMENT ON FUNCTION gsu.moments_serialfn(internal) IS 'gsu.moments state serialization';
COMMENT ON FUNCTION gsu.moments_deserialfn(bytea, internal) IS 'gsu.moments state deserialization (validated)';
COMMENT ON FUNCTION gsu.moments_finalfn(internal) IS 'gsu.moments final: mean, variance and count';

CREATE AGGREGATE gsu.moments(observation float8[], options jsonb) (
	SFUNC = gsu.moments_transfn, STYPE = internal, FINALFUNC = gsu.moments_finalfn,
	COMBINEFUNC = gsu.moments_combinefn, SERIALFUNC = gsu.moments_serialfn,
	DESERIALFUNC = gsu.moments_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.moments(observation float8[]) (
	SFUNC = gsu.moments_transfn, STYPE = internal, FINALFUNC = gsu.moments_finalfn,
	COMBINEFUNC = gsu.moments_combinefn, SERIALFUNC = gsu.moments_serialfn,
	DESERIALFUNC = gsu.moments_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.moments(float8[], jsonb) IS
	'mean, variance and count of a group of observation vectors; options {"estimator": "sample"|"population", "covariance": "diagonal"|"full"}';
COMMENT ON AGGREGATE gsu.moments(float8[]) IS
	'mean, per-feature sample variance (n-1) and count of a group of observation vectors';
-- ------------------------------------------------------------ image translation uncertainty

CREATE FUNCTION gsu.image_variance(image float8[], width int4, height int4, sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_variance_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.image_variance(image float8[], sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_variance_2d_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.image_covariance(image float8[], width int4, height int4, sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_covariance_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.image_covariance(image float8[], sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_covariance_2d_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.image_variance(float8[], int4, int4, float8) IS
	'per-pixel variance sigma2*(gx^2 + gy^2) of a row-major image under a random translation t ~ N(0, sigma2*I2), to first order';
COMMENT ON FUNCTION gsu.image_variance(float8[], float8) IS
	'per-pixel translation variance of a 2-D (height x width) image, returned as a height x width array';
COMMENT ON FUNCTION gsu.image_covariance(float8[], int4, int4, float8) IS
	'n x n covariance sigma2*J*J'' (J = [gx gy], n = width*height pixels in row-major order) of a row-major image under a random translation';
COMMENT ON FUNCTION gsu.image_covariance(float8[], float8) IS
	'n x n translation covariance of a 2-D (height x width) image, pixels in row-major order';

-- ------------------------------------------------------------ gsu.projection
-- A learned linear projection z = V'x (GEU / LDA / MFA): input dimension,
-- output dimension, method, the eigenvalues of the kept directions and the
-- directions themselves.  Text form is JSON; binary send/recv; validated.

CREATE TYPE gsu.projection;

CREATE FUNCTION gsu.projection_in(cstring) RETURNS gsu.projection
	AS 'MODULE_PATHNAME', 'gsu_projection_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.projection_out(gsu.projection) RETURNS cstring
	AS 'MODULE_PATHNAME', 'gsu_projection_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.projection_recv(internal) RETURNS gsu.projection
	AS 'MODULE_PATHNAME', 'gsu_projection_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.projection_send(gsu.projection) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_projection_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE gsu.projection (
	INPUT = gsu.projection_in,
	OUTPUT = gsu.projection_out,
	RECEIVE = gsu.projection_recv,
	SEND = gsu.projection_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE gsu.projection IS
	'a learned linear projection z = V''x (LDA or MFA, with or without the GEU uncertainty terms); text form is JSON';

CREATE FUNCTION gsu.projection_to_jsonb(gsu.projection) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_projection_to_jsonb' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.projection_from_jsonb(jsonb) RETURNS gsu.projection
	AS 'MODULE_PATHNAME', 'gsu_projection_from_jsonb' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (gsu.projection AS jsonb) WITH FUNCTION gsu.projection_to_jsonb(gsu.projection);
CREATE CAST (jsonb AS gsu.projection) WITH FUNCTION gsu.projection_from_jsonb(jsonb);

COMMENT ON FUNCTION gsu.projection_in(cstring) IS 'gsu.projection text input (JSON)';
COMMENT ON FUNCTION gsu.projection_out(gsu.projection) IS 'gsu.projection text output (JSON, shortest exact float digits)';
COMMENT ON FUNCTION gsu.projection_recv(internal) IS 'gsu.projection binary input';
COMMENT ON FUNCTION gsu.projection_send(gsu.projection) IS 'gsu.projection binary output';
COMMENT ON FUNCTION gsu.projection_to_jsonb(gsu.projection) IS 'the projection as a jsonb object (the cast gsu.projection::jsonb)';
COMMENT ON FUNCTION gsu.projection_from_jsonb(jsonb) IS 'a projection from its jsonb form, validated (the cast jsonb::gsu.projection)';

CREATE FUNCTION gsu.describe_projection(projection gsu.projection) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_projection_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.eigenvalues(projection gsu.projection) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_projection_eigenvalues' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.vectors(projection gsu.projection) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_projection_vectors' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.describe_projection(gsu.projection) IS
	'the projection without its vectors as jsonb: method, dimensions, uncertainty, regularization, k1, k2, classes, rows, eigenvalues';
COMMENT ON FUNCTION gsu.eigenvalues(gsu.projection) IS
	'the generalized eigenvalues lambda = v''Sv / v''S^pv of the kept directions, ascending';
COMMENT ON FUNCTION gsu.vectors(gsu.projection) IS
	'the projection directions as a dims x dim array: row j is the j-th direction v_j';

-- ------------------------------------------------------------ GEU fitting

CREATE FUNCTION gsu.geu_fit_transfn(internal, float8[], float8[], int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_geu_fit_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.geu_fit_transfn(internal, float8[], float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_geu_fit_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.geu_fit_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_geu_fit_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.geu_fit_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_geu_fit_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.geu_fit_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_geu_fit_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.geu_fit_finalfn(internal) RETURNS gsu.projection
	AS 'MODULE_PATHNAME', 'gsu_geu_fit_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.geu_fit_transfn(internal, float8[], float8[], int4, jsonb) IS 'gsu.geu_fit transition';
COMMENT ON FUNCTION gsu.geu_fit_transfn(internal, float8[], float8[], int4) IS 'gsu.geu_fit transition (default options)';
COMMENT ON FUNCTION gsu.geu_fit_combinefn(internal, internal) IS 'gsu.geu_fit combine: merges the states of parallel workers';
COMMENT ON FUNCTION gsu.geu_fit_serialfn(internal) IS 'gsu.geu_fit state serialization';
COMMENT ON FUNCTION gsu.geu_fit_deserialfn(bytea, internal) IS 'gsu.geu_fit state deserialization (validated)';
COMMENT ON FUNCTION gsu.geu_fit_finalfn(internal) IS 'gsu.geu_fit final: builds the scatter matrices and solves the generalized eigenproblem';

CREATE AGGREGATE gsu.geu_fit(mean float8[], variance float8[], label int4, options jsonb) (
	SFUNC = gsu.geu_fit_transfn, STYPE = internal, FINALFUNC = gsu.geu_fit_finalfn,
	COMBINEFUNC = gsu.geu_fit_combinefn, SERIALFUNC = gsu.geu_fit_serialfn,
	DESERIALFUNC = gsu.geu_fit_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.geu_fit(mean float8[], variance float8[], label int4) (
	SFUNC = gsu.geu_fit_transfn, STYPE = internal, FINALFUNC = gsu.geu_fit_finalfn,
	COMBINEFUNC = gsu.geu_fit_combinefn, SERIALFUNC = gsu.geu_fit_serialfn,
	DESERIALFUNC = gsu.geu_fit_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.geu_fit(float8[], float8[], int4, jsonb) IS
	'learns an LDA or MFA projection from Gaussian rows N(mean, variance) (GEU: the expected scatter matrices); options method, dims, regularization, k1, k2';
COMMENT ON AGGREGATE gsu.geu_fit(float8[], float8[], int4) IS
	'learns a GEU-LDA projection with default options (dims = classes - 1)';

-- ------------------------------------------------------------ using a projection

CREATE FUNCTION gsu.project(projection gsu.projection, mean float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_project_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.project_variance(projection gsu.projection, variance float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_project_variance_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.project_variance(projection gsu.projection, variance float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_project_variance_iso_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.project_covariance(projection gsu.projection, variance float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_project_covariance_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.project(gsu.projection, float8[]) IS 'the projected mean V''x';
COMMENT ON FUNCTION gsu.project_variance(gsu.projection, float8[]) IS
	'the diagonal of V''Sigma V for a diagonal (1-D variance) or full (2-D) covariance Sigma: the per-dimension variances of the projected Gaussian';
COMMENT ON FUNCTION gsu.project_variance(gsu.projection, float8) IS
	'the diagonal of V''(variance*I)V for an isotropic covariance';
COMMENT ON FUNCTION gsu.project_covariance(gsu.projection, float8[]) IS
	'the full projected covariance V''Sigma V (dims x dims) for a diagonal (1-D) or full (2-D) Sigma';

-- ------------------------------------------------------------ gsu.refset
-- A reference set: rows (and optionally labels) held in one value, for GEU
-- uncertainty estimation and k-NN classification inside queries.

CREATE TYPE gsu.refset;

CREATE FUNCTION gsu.refset_in(cstring) RETURNS gsu.refset
	AS 'MODULE_PATHNAME', 'gsu_refset_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.refset_out(gsu.refset) RETURNS cstring
	AS 'MODULE_PATHNAME', 'gsu_refset_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.refset_recv(internal) RETURNS gsu.refset
	AS 'MODULE_PATHNAME', 'gsu_refset_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.refset_send(gsu.refset) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_refset_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE gsu.refset (
	INPUT = gsu.refset_in,
	OUTPUT = gsu.refset_out,
	RECEIVE = gsu.refset_recv,
	SEND = gsu.refset_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE gsu.refset IS
	'a reference set of rows with optional int4 labels, for nearest-neighbour estimation and classification; text form is JSON';

COMMENT ON FUNCTION gsu.refset_in(cstring) IS 'gsu.refset text input (JSON)';
COMMENT ON FUNCTION gsu.refset_out(gsu.refset) IS 'gsu.refset text output (JSON, shortest exact float digits)';
COMMENT ON FUNCTION gsu.refset_recv(internal) IS 'gsu.refset binary input';
COMMENT ON FUNCTION gsu.refset_send(gsu.refset) IS 'gsu.refset binary output';

CREATE FUNCTION gsu.describe_refset(refset gsu.refset) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_refset_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsu.describe_refset(gsu.refset) IS
	'the reference set without its rows as jsonb: dimension, row count, and rows per label';

CREATE FUNCTION gsu.refset_agg_transfn(internal, float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_refset_agg_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.refset_agg_transfn(internal, float8[]) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_refset_agg_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.refset_agg_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_refset_agg_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.refset_agg_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_refset_agg_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.refset_agg_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_refset_agg_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.refset_agg_finalfn(internal) RETURNS gsu.refset
	AS 'MODULE_PATHNAME', 'gsu_refset_agg_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.refset_agg_transfn(internal, float8[], int4) IS 'gsu.refset_agg transition (labelled)';
COMMENT ON FUNCTION gsu.refset_agg_transfn(internal, float8[]) IS 'gsu.refset_agg transition (unlabelled)';
COMMENT ON FUNCTION gsu.refset_agg_combinefn(internal, internal) IS 'gsu.refset_agg combine: concatenates the rows of parallel workers';
COMMENT ON FUNCTION gsu.refset_agg_serialfn(internal) IS 'gsu.refset_agg state serialization';
COMMENT ON FUNCTION gsu.refset_agg_deserialfn(bytea, internal) IS 'gsu.refset_agg state deserialization (validated)';
COMMENT ON FUNCTION gsu.refset_agg_finalfn(internal) IS 'gsu.refset_agg final: builds the gsu.refset value';

CREATE AGGREGATE gsu.refset_agg(mean float8[], label int4) (
	SFUNC = gsu.refset_agg_transfn, STYPE = internal, FINALFUNC = gsu.refset_agg_finalfn,
	COMBINEFUNC = gsu.refset_agg_combinefn, SERIALFUNC = gsu.refset_agg_serialfn,
	DESERIALFUNC = gsu.refset_agg_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.refset_agg(mean float8[]) (
	SFUNC = gsu.refset_agg_transfn, STYPE = internal, FINALFUNC = gsu.refset_agg_finalfn,
	COMBINEFUNC = gsu.refset_agg_combinefn, SERIALFUNC = gsu.refset_agg_serialfn,
	DESERIALFUNC = gsu.refset_agg_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.refset_agg(float8[], int4) IS
	'collects labelled rows into a gsu.refset (bounded by gsu.max_training_memory); rows with a NULL mean or label are skipped';
COMMENT ON AGGREGATE gsu.refset_agg(float8[]) IS
	'collects unlabelled rows into a gsu.refset (bounded by gsu.max_training_memory)';

-- ------------------------------------------------------------ searches

CREATE FUNCTION gsu.nn_variance(refset gsu.refset, mean float8[], label int4, sigma float8,
								supervised bool) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_nn_variance_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.nn_variance(gsu.refset, float8[], int4, float8, bool) IS
	'GEU uncertainty estimate sigma*(x - x*)^2, x* the nearest other reference row (of the same label when supervised); one reference row equal to x is skipped as x itself; NULL label allowed when not supervised';

CREATE FUNCTION gsu.knn_predict(refset gsu.refset, point float8[], k int4) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_knn_predict_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsu.knn_predict(gsu.refset, float8[], int4) IS
	'the majority label of the k nearest reference rows (exact Euclidean search); ties go to the label of the nearer neighbour';
-- ------------------------------------------------------------ gsu.partial

CREATE TYPE gsu.partial;

CREATE FUNCTION gsu.partial_in(cstring) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_partial_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.partial_out(gsu.partial) RETURNS cstring
	AS 'MODULE_PATHNAME', 'gsu_partial_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.partial_recv(internal) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_partial_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.partial_send(gsu.partial) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_partial_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE gsu.partial (
	INPUT = gsu.partial_in,
	OUTPUT = gsu.partial_out,
	RECEIVE = gsu.partial_recv,
	SEND = gsu.partial_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE gsu.partial IS
	'a partial training state as a SQL value: a gradient sum at a point (gsu.gradient), combinable with gsu.sum';
COMMENT ON FUNCTION gsu.partial_in(cstring) IS 'gsu.partial text input (JSON)';
COMMENT ON FUNCTION gsu.partial_out(gsu.partial) IS 'gsu.partial text output (JSON, exact floats)';
COMMENT ON FUNCTION gsu.partial_recv(internal) IS 'gsu.partial binary input';
COMMENT ON FUNCTION gsu.partial_send(gsu.partial) IS 'gsu.partial binary output';

CREATE FUNCTION gsu.gradient_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_gradient_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.partial_combine(gsu.partial, gsu.partial) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_partial_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.gradient_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8) IS
	'gsu.gradient transition: adds one row''s loss and gradient, updating the state in place';
COMMENT ON FUNCTION gsu.partial_combine(gsu.partial, gsu.partial) IS
	'adds two gradient partials (averages two sgd partials), updating the state in place';

CREATE AGGREGATE gsu.gradient(mean float8[], variance float8[], label int4, at gsu.model, smoothing float8) (
	SFUNC = gsu.gradient_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.gradient(float8[], float8[], int4, gsu.model, float8) IS
	'sum of the rows'' expected hinge losses and their gradients at the model''s weights (zero weights when the model is NULL), with the loss smoothed by smoothing; exactly combinable';

CREATE AGGREGATE gsu.sum(gsu.partial) (
	SFUNC = gsu.partial_combine, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.sum(gsu.partial) IS
	'combines partial training states computed elsewhere (shards, foreign servers)';

CREATE FUNCTION gsu.to_model(gsu.partial) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_partial_to_model' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsu.to_model(gsu.partial) IS 'the model held by an sgd partial';

-- ------------------------------------------------------------ gsu.fit

CREATE FUNCTION gsu.fit(relation regclass, mean text, variance text, label text,
						options jsonb DEFAULT NULL) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_fit' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gsu.fit(regclass, text, text, text, jsonb) IS
	'trains on a relation of any size by passes of gsu.gradient driven by L-BFGS; column names are quoted as identifiers; variance may be NULL';

-- ------------------------------------------------------------ streaming SGD on a SQL state

CREATE FUNCTION gsu.sgd_partial_transfn(gsu.partial, float8[], float8[], int4, jsonb) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_sgd_partial_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.sgd_partial_transfn(gsu.partial, float8[], float8[], int4, jsonb) IS
	'gsu.train_sgd transition: one SGD step per row, updating the state in place';

CREATE AGGREGATE gsu.train_sgd(mean float8[], variance float8[], label int4, options jsonb) (
	SFUNC = gsu.sgd_partial_transfn, STYPE = gsu.partial, FINALFUNC = gsu.to_model,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.train_sgd(float8[], float8[], int4, jsonb) IS
	'streaming SGD (one pass) whose state is the SQL type gsu.partial, so partial aggregation can run on other servers; workers are averaged with row weights';

CREATE AGGREGATE gsu.sgd_partial(mean float8[], variance float8[], label int4, options jsonb) (
	SFUNC = gsu.sgd_partial_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.sgd_partial(float8[], float8[], int4, jsonb) IS
	'the partial state of gsu.train_sgd, to be combined elsewhere with gsu.sum and turned into a model with gsu.to_model';

-- ------------------------------------------------------------ evaluation metrics

-- confusion matrix: counts per (predicted, actual) pair, combined exactly

CREATE FUNCTION gsu.confusion_transfn(internal, int4, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_confusion_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.confusion_transfn(internal, bool, bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_confusion_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.confusion_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_confusion_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.confusion_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_confusion_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.confusion_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_confusion_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.confusion_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_confusion_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.confusion_transfn(internal, int4, int4) IS 'gsu.confusion transition';
COMMENT ON FUNCTION gsu.confusion_transfn(internal, bool, bool) IS 'gsu.confusion transition (boolean labels: true = 1, false = -1)';
COMMENT ON FUNCTION gsu.confusion_combinefn(internal, internal) IS 'gsu.confusion combine: adds the counts of parallel workers';
COMMENT ON FUNCTION gsu.confusion_serialfn(internal) IS 'gsu.confusion state serialization';
COMMENT ON FUNCTION gsu.confusion_deserialfn(bytea, internal) IS 'gsu.confusion state deserialization (validated)';
COMMENT ON FUNCTION gsu.confusion_finalfn(internal) IS 'gsu.confusion final: the statistics as jsonb';

CREATE AGGREGATE gsu.confusion(predicted int4, actual int4) (
	SFUNC = gsu.confusion_transfn, STYPE = internal, FINALFUNC = gsu.confusion_finalfn,
	COMBINEFUNC = gsu.confusion_combinefn, SERIALFUNC = gsu.confusion_serialfn,
	DESERIALFUNC = gsu.confusion_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.confusion(predicted bool, actual bool) (
	SFUNC = gsu.confusion_transfn, STYPE = internal, FINALFUNC = gsu.confusion_finalfn,
	COMBINEFUNC = gsu.confusion_combinefn, SERIALFUNC = gsu.confusion_serialfn,
	DESERIALFUNC = gsu.confusion_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.confusion(int4, int4) IS
	'confusion-matrix statistics as jsonb: accuracy, MCC, per-class one-vs-rest counts, precision, recall, F1 and macro averages; tp/fp/tn/fn, precision, recall, F1 of class 1 when every label is -1 or 1';
COMMENT ON AGGREGATE gsu.confusion(bool, bool) IS
	'binary confusion-matrix statistics with true as the positive class (1) and false as -1';

-- ranking metrics: the scores of each class buffered (8 bytes a row); one state
-- serves roc_auc, average_precision, roc_curve and pr_curve in the same query

CREATE FUNCTION gsu.ranking_transfn(internal, float8, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_ranking_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.ranking_transfn(internal, float8, bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_ranking_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.ranking_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_ranking_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.ranking_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_ranking_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.ranking_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_ranking_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.roc_auc_finalfn(internal) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_roc_auc_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.average_precision_finalfn(internal) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_average_precision_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.roc_curve_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_roc_curve_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.pr_curve_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_pr_curve_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.ranking_transfn(internal, float8, int4) IS 'transition of the ranking metrics: buffers the score by label (-1/1)';
COMMENT ON FUNCTION gsu.ranking_transfn(internal, float8, bool) IS 'transition of the ranking metrics: buffers the score by label (true = 1)';
COMMENT ON FUNCTION gsu.ranking_combinefn(internal, internal) IS 'ranking metrics combine: concatenates the scores of parallel workers';
COMMENT ON FUNCTION gsu.ranking_serialfn(internal) IS 'ranking metrics state serialization';
COMMENT ON FUNCTION gsu.ranking_deserialfn(bytea, internal) IS 'ranking metrics state deserialization (validated)';
COMMENT ON FUNCTION gsu.roc_auc_finalfn(internal) IS 'gsu.roc_auc final: Mann-Whitney AUC of the buffered scores';
COMMENT ON FUNCTION gsu.average_precision_finalfn(internal) IS 'gsu.average_precision final';
COMMENT ON FUNCTION gsu.roc_curve_finalfn(internal) IS 'gsu.roc_curve final: one point per distinct score';
COMMENT ON FUNCTION gsu.pr_curve_finalfn(internal) IS 'gsu.pr_curve final: one point per distinct score';

-- the final functions sort the buffered scores in place and mark them sorted; the
-- multiset, and so every result, is unchanged and later rows may still be added,
-- so the default FINALFUNC_MODIFY = READ_ONLY holds (and allows window use)
CREATE AGGREGATE gsu.roc_auc(score float8, label int4) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.roc_auc_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.roc_auc(score float8, label bool) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.roc_auc_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.average_precision(score float8, label int4) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.average_precision_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.average_precision(score float8, label bool) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.average_precision_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.roc_curve(score float8, label int4) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.roc_curve_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.roc_curve(score float8, label bool) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.roc_curve_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.pr_curve(score float8, label int4) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.pr_curve_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.pr_curve(score float8, label bool) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.pr_curve_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.roc_auc(float8, int4) IS
	'area under the ROC curve (Mann-Whitney, ties count 1/2) of scores against labels -1/1; NULL when only one class is present';
COMMENT ON AGGREGATE gsu.roc_auc(float8, bool) IS
	'area under the ROC curve with boolean labels (true = positive)';
COMMENT ON AGGREGATE gsu.average_precision(float8, int4) IS
	'average precision as scikit-learn defines it: sum over distinct thresholds of (R_k - R_{k-1}) P_k; NULL without positive rows';
COMMENT ON AGGREGATE gsu.average_precision(float8, bool) IS
	'average precision with boolean labels (true = positive)';
COMMENT ON AGGREGATE gsu.roc_curve(float8, int4) IS
	'ROC curve as a jsonb array of {threshold, tp, fp, fpr, tpr}, from the origin (threshold null) down through every distinct score';
COMMENT ON AGGREGATE gsu.roc_curve(float8, bool) IS
	'ROC curve with boolean labels (true = positive)';
COMMENT ON AGGREGATE gsu.pr_curve(float8, int4) IS
	'precision-recall curve as a jsonb array of {threshold, tp, fp, precision, recall}, one point per distinct score, highest first';
COMMENT ON AGGREGATE gsu.pr_curve(float8, bool) IS
	'precision-recall curve with boolean labels (true = positive)';

-- log loss: a row count and a compensated sum

CREATE FUNCTION gsu.log_loss_transfn(internal, float8, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_log_loss_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.log_loss_transfn(internal, float8, bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_log_loss_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.log_loss_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_log_loss_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.log_loss_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_log_loss_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.log_loss_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_log_loss_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.log_loss_finalfn(internal) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_log_loss_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.log_loss_transfn(internal, float8, int4) IS 'gsu.log_loss transition (labels -1/1)';
COMMENT ON FUNCTION gsu.log_loss_transfn(internal, float8, bool) IS 'gsu.log_loss transition (boolean labels)';
COMMENT ON FUNCTION gsu.log_loss_combinefn(internal, internal) IS 'gsu.log_loss combine: adds the partial sums of parallel workers';
COMMENT ON FUNCTION gsu.log_loss_serialfn(internal) IS 'gsu.log_loss state serialization';
COMMENT ON FUNCTION gsu.log_loss_deserialfn(bytea, internal) IS 'gsu.log_loss state deserialization (validated)';
COMMENT ON FUNCTION gsu.log_loss_finalfn(internal) IS 'gsu.log_loss final: the mean cross-entropy';

CREATE AGGREGATE gsu.log_loss(probability float8, label int4) (
	SFUNC = gsu.log_loss_transfn, STYPE = internal, FINALFUNC = gsu.log_loss_finalfn,
	COMBINEFUNC = gsu.log_loss_combinefn, SERIALFUNC = gsu.log_loss_serialfn,
	DESERIALFUNC = gsu.log_loss_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.log_loss(probability float8, label bool) (
	SFUNC = gsu.log_loss_transfn, STYPE = internal, FINALFUNC = gsu.log_loss_finalfn,
	COMBINEFUNC = gsu.log_loss_combinefn, SERIALFUNC = gsu.log_loss_serialfn,
	DESERIALFUNC = gsu.log_loss_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.log_loss(float8, int4) IS
	'mean cross-entropy of the predicted probabilities of label 1 against labels -1/1, probabilities clipped to [2^-52, 1 - 2^-52]';
COMMENT ON AGGREGATE gsu.log_loss(float8, bool) IS
	'mean cross-entropy with boolean labels (true = positive)';
-- ------------------------------------------------------------ cross-validation

-- The fold of a row: a hash of the whole row's text and the seed, so the
-- assignment depends only on the data and the seed, not on scan order. The row
-- is t.*, not t, which would mean a column of that name if the relation had one.
-- A bool label column is scored as +1/-1, and a float8 (isotropic) variance
-- column defaults to 0 in expected_loss, so every input gsu.train takes works.
CREATE FUNCTION gsu.cross_validate(relation regclass, mean text, variance text, label text,
								   lambdas float8[], folds int4 DEFAULT 5, seed int4 DEFAULT 1,
								   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
								   id_column text DEFAULT NULL)
RETURNS TABLE (lambda float8, metric_mean float8, metric_stddev float8, fold_count int4)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	lam float8;
	f int4;
	score float8;
	scores float8[];
	opts jsonb;
	var_expr text := CASE WHEN variance IS NULL THEN 'NULL::float8[]' ELSE format('%I', variance) END;
	zero_var text;
	label_expr text;
	fold_expr text;
	fit record;					-- fit.m: the fold's model (no type named here: see ext)
	n_rows bigint;
	-- pg_gsu's own schema, from the extension's catalog entry: the statements below
	-- call its functions, whatever a search_path or a renamed schema would resolve
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	IF relation IS NULL OR mean IS NULL OR label IS NULL OR lambdas IS NULL THEN
		RAISE EXCEPTION 'gsu.cross_validate needs a relation, the mean and label column names and a list of lambdas'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF folds IS NULL OR folds < 2 THEN
		RAISE EXCEPTION 'folds must be at least 2, not %', folds USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- more folds than rows would train the same models over and over (up to 2^31 times)
	EXECUTE format('SELECT count(*) FROM %s', relation) INTO n_rows;
	IF folds > n_rows THEN
		RAISE EXCEPTION 'folds must be at most the number of rows (%), not %', n_rows, folds
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'With as many folds as rows, each fold leaves one row out.';
	END IF;
	IF cardinality(lambdas) = 0 THEN
		RAISE EXCEPTION 'lambdas must not be empty' USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF metric NOT IN ('accuracy', 'roc_auc', 'expected_loss') THEN
		RAISE EXCEPTION 'unknown metric "%"', metric
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Valid metrics are: accuracy, roc_auc, expected_loss.';
	END IF;
	-- every lambda before any training; NaN is larger than every number in SQL, so it
	-- passes l > 0: test it by name
	SELECT l INTO lam FROM unnest(lambdas) l
	WHERE l IS NULL OR NOT (l > 0) OR l IN ('NaN', 'Infinity') LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'every lambda must be a positive finite number, not %', lam
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF options IS NULL OR jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF options ? 'lambda' THEN
		RAISE EXCEPTION 'options must not hold "lambda": the lambdas argument gives it'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- folds from a hash of the whole row, or of the id column when one is named (then
	-- the folds do not change with the other columns, e.g. another variance definition)
	fold_expr := format('mod(abs(hashtextextended(%s::text, %s)), %s)',
						CASE WHEN id_column IS NULL THEN 't.*' ELSE format('t.%I', id_column) END,
						seed, folds);
	label_expr := format('%I', label);
	zero_var := format('array_fill(0::float8, ARRAY[cardinality(%I)])', mean);
	IF (SELECT atttypid FROM pg_attribute WHERE attrelid = relation AND attname = label
			AND attnum > 0 AND NOT attisdropped) = 'bool'::regtype THEN
		label_expr := format('CASE WHEN %1$I THEN 1 WHEN NOT %1$I THEN -1 END', label);
	END IF;
	IF (SELECT atttypid FROM pg_attribute WHERE attrelid = relation AND attname = variance
			AND attnum > 0 AND NOT attisdropped) = 'float8'::regtype THEN
		zero_var := '0::float8';
	END IF;

	FOREACH lam IN ARRAY lambdas LOOP
		opts := options || jsonb_build_object('lambda', lam);
		scores := '{}';
		FOR f IN 0 .. folds - 1 LOOP
			EXECUTE format('SELECT %s.train(%I, %s, %I, $1) AS m FROM %s t WHERE %s <> $2',
						   ext, mean, var_expr, label, relation, fold_expr)
				INTO fit USING opts, f;
			IF fit.m IS NULL THEN
				CONTINUE;		-- no training rows in this split
			END IF;
			EXECUTE format(CASE metric
							   WHEN 'accuracy' THEN
								   'SELECT avg((%7$s.predict($1, %1$I) = %3$s)::int) FROM %4$s t WHERE %5$s = $2'
							   WHEN 'roc_auc' THEN
								   'SELECT %7$s.roc_auc(%7$s.decision($1, %1$I), %3$s) FROM %4$s t WHERE %5$s = $2'
							   ELSE
								   'SELECT avg(%7$s.expected_loss($1, %1$I, coalesce(%2$s, %6$s), %3$s)) FROM %4$s t WHERE %5$s = $2'
						   END,
						   mean, var_expr, label_expr, relation, fold_expr, zero_var, ext)
				INTO score USING fit.m, f;
			IF score IS NOT NULL THEN
				scores := scores || score;
			END IF;
			RAISE NOTICE 'gsu.cross_validate: lambda %, fold % of %: % %', lam, f + 1, folds, metric, score;
		END LOOP;
		lambda := lam;
		metric_mean := (SELECT avg(x) FROM unnest(scores) x);
		metric_stddev := (SELECT stddev_samp(x) FROM unnest(scores) x);
		fold_count := cardinality(scores);
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION gsu.cross_validate(regclass, text, text, text, float8[], int4, int4, jsonb, text, text) IS
	'k-fold cross-validation of gsu.train over a list of lambdas: one row per lambda with the mean and spread of the metric (accuracy, roc_auc or expected_loss) over the folds';

CREATE FUNCTION gsu.train_best(relation regclass, mean text, variance text, label text,
							   lambdas float8[], folds int4 DEFAULT 5, seed int4 DEFAULT 1,
							   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
							   id_column text DEFAULT NULL)
RETURNS gsu.model
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	best float8;
	fit record;
	-- pg_gsu's own schema (see gsu.cross_validate)
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	-- the best mean metric (lowest for expected_loss); ties go to the larger lambda
	EXECUTE format('SELECT cv.lambda FROM %s.cross_validate($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) cv
					WHERE cv.metric_mean IS NOT NULL
					ORDER BY CASE WHEN $9 = ''expected_loss'' THEN cv.metric_mean ELSE -cv.metric_mean END,
						cv.lambda DESC
					LIMIT 1', ext)
		INTO best USING relation, mean, variance, label, lambdas, folds, seed, options, metric, id_column;
	IF best IS NULL THEN
		RETURN NULL;
	END IF;
	EXECUTE format('SELECT %s.train(%I, %s, %I, $1) AS m FROM %s',
				   ext, mean, CASE WHEN variance IS NULL THEN 'NULL::float8[]' ELSE format('%I', variance) END,
				   label, relation)
		INTO fit USING options || jsonb_build_object('lambda', best);
	RETURN fit.m;
END
$$;
COMMENT ON FUNCTION gsu.train_best(regclass, text, text, text, float8[], int4, int4, jsonb, text, text) IS
	'the model retrained on every row with the lambda that gsu.cross_validate finds best';
