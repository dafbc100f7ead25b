-- pg_gsu upgrade script from 0.1.0 to 0.2.0 (ALTER EXTENSION pg_gsu UPDATE)

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_gsu UPDATE TO '0.2.0'" to load this file. \quit

-- Every SQL object that src/sql/ adds or changes after 0.1.0 gets its statement
-- here (CREATE for a new object, CREATE OR REPLACE / ALTER / DROP for a changed
-- one, COMMENT ON as in src/sql), so that a database updated from 0.1.0 ends with
-- the same catalog as a fresh CREATE EXTENSION pg_gsu. sql/upgrade.sql compares
-- the two and lists every difference (docs/upgrade.md).
--
-- The stored values of gsu.model, gsu.projection, gsu.refset and gsu.partial
-- need nothing here: their formats are the same in 0.1.0 and 0.2.0, and the
-- library reads every earlier format (docs/upgrade.md, formats).
-- ------------------------------------------------------------ explanations

CREATE FUNCTION gsu.explain(model gsu.model, mean float8[])
	RETURNS TABLE (class int4, feature int4, contribution float8, variance_share float8)
	AS 'MODULE_PATHNAME', 'gsu_explain_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.explain(model gsu.model, mean float8[], variance float8[])
	RETURNS TABLE (class int4, feature int4, contribution float8, variance_share float8)
	AS 'MODULE_PATHNAME', 'gsu_explain_variance_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.explain(model gsu.model, mean float8[], variance float8)
	RETURNS TABLE (class int4, feature int4, contribution float8, variance_share float8)
	AS 'MODULE_PATHNAME', 'gsu_explain_iso_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.explain(gsu.model, float8[]) IS
	'per class (two classes: the second), a row for the bias (feature NULL) and one per feature j with its contribution w_j x_j to the decision value; the contributions add up to the decision value; variance_share is 0 (a certain point)';
COMMENT ON FUNCTION gsu.explain(gsu.model, float8[], float8[]) IS
	'gsu.explain for a Gaussian N(mean, Sigma), Sigma diagonal (1-D) or full (2-D): variance_share is w_j (Sigma w)_j, the shares add up to the decision''s variance w''Sigma w (a full Sigma can give negative shares)';
COMMENT ON FUNCTION gsu.explain(gsu.model, float8[], float8) IS
	'gsu.explain for an isotropic Gaussian N(mean, variance*I): variance_share is variance * w_j^2';

-- ------------------------------------------- EEG band powers (Welch) and Fisher's score

CREATE TYPE gsu.welch_result AS (mean float8[], variance float8[], band text[], low float8[],
	high float8[], segments int8);
COMMENT ON TYPE gsu.welch_result IS
	'result of gsu.welch: per band, the mean and variance over segments of the log band power, the band names and edges (Hz), and the number of segments';

CREATE FUNCTION gsu.welch(signal float8[], sampling_rate float8, options jsonb DEFAULT '{}')
	RETURNS gsu.welch_result
	AS 'MODULE_PATHNAME', 'gsu_welch_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION gsu.welch(float8[], float8, jsonb) IS
	'Welch''s method: mean and variance over Hann-windowed, overlapping segments of the log power in each frequency band (theta, slow alpha, alpha, beta, gamma by default); options segment_length, overlap, window, detrend, bands, scale, floor, estimator';

CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], bool, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn_bool' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn_bool' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_finalfn(internal) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.fisher_score_transfn(internal, float8[], int4, jsonb) IS 'gsu.fisher_score transition: Welford update of the row''s class';
COMMENT ON FUNCTION gsu.fisher_score_transfn(internal, float8[], int4) IS 'gsu.fisher_score transition: Welford update of the row''s class, default options';
COMMENT ON FUNCTION gsu.fisher_score_transfn(internal, float8[], bool, jsonb) IS 'gsu.fisher_score transition for boolean labels (true = 1)';
COMMENT ON FUNCTION gsu.fisher_score_transfn(internal, float8[], bool) IS 'gsu.fisher_score transition for boolean labels (true = 1), default options';
COMMENT ON FUNCTION gsu.fisher_score_combinefn(internal, internal) IS 'gsu.fisher_score combine: Chan et al. merge of each class''s moments';
COMMENT ON FUNCTION gsu.fisher_score_serialfn(internal) IS 'gsu.fisher_score state serialization';
COMMENT ON FUNCTION gsu.fisher_score_deserialfn(bytea, internal) IS 'gsu.fisher_score state deserialization (validated)';
COMMENT ON FUNCTION gsu.fisher_score_finalfn(internal) IS 'gsu.fisher_score final: (mu+ - mu-)^2 / (var+ + var-) per feature';

CREATE AGGREGATE gsu.fisher_score(features float8[], label int4, options jsonb) (
	SFUNC = gsu.fisher_score_transfn, STYPE = internal, FINALFUNC = gsu.fisher_score_finalfn,
	COMBINEFUNC = gsu.fisher_score_combinefn, SERIALFUNC = gsu.fisher_score_serialfn,
	DESERIALFUNC = gsu.fisher_score_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.fisher_score(features float8[], label int4) (
	SFUNC = gsu.fisher_score_transfn, STYPE = internal, FINALFUNC = gsu.fisher_score_finalfn,
	COMBINEFUNC = gsu.fisher_score_combinefn, SERIALFUNC = gsu.fisher_score_serialfn,
	DESERIALFUNC = gsu.fisher_score_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.fisher_score(features float8[], label bool, options jsonb) (
	SFUNC = gsu.fisher_score_transfn, STYPE = internal, FINALFUNC = gsu.fisher_score_finalfn,
	COMBINEFUNC = gsu.fisher_score_combinefn, SERIALFUNC = gsu.fisher_score_serialfn,
	DESERIALFUNC = gsu.fisher_score_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.fisher_score(features float8[], label bool) (
	SFUNC = gsu.fisher_score_transfn, STYPE = internal, FINALFUNC = gsu.fisher_score_finalfn,
	COMBINEFUNC = gsu.fisher_score_combinefn, SERIALFUNC = gsu.fisher_score_serialfn,
	DESERIALFUNC = gsu.fisher_score_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.fisher_score(float8[], int4, jsonb) IS
	'Fisher''s discriminant score per feature, (mu+ - mu-)^2 / (var+ + var-), labels -1/1; options {"estimator": "sample"|"population"}';
COMMENT ON AGGREGATE gsu.fisher_score(float8[], int4) IS
	'Fisher''s discriminant score per feature, (mu+ - mu-)^2 / (var+ + var-), labels -1/1, sample variances';
COMMENT ON AGGREGATE gsu.fisher_score(float8[], bool, jsonb) IS
	'Fisher''s discriminant score per feature for boolean labels (true = 1); options {"estimator": "sample"|"population"}';
COMMENT ON AGGREGATE gsu.fisher_score(float8[], bool) IS
	'Fisher''s discriminant score per feature for boolean labels (true = 1), sample variances';

-- gsu.hessian: the scans of gsu.fit's solver newton

CREATE FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8, float8) IS
	'gsu.hessian transition: adds one row''s loss, gradient and Hessian, updating the state in place';
CREATE FUNCTION gsu.hessian_final(gsu.partial) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_hessian_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.hessian_final(gsu.partial) IS
	'gsu.hessian final function: checks that the sums are finite';

CREATE AGGREGATE gsu.hessian(mean float8[], variance float8[], label int4, at gsu.model, smoothing float8, band float8) (
	SFUNC = gsu.hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.hessian(float8[], float8[], int4, gsu.model, float8, float8) IS
	'sum of the rows'' losses, gradients and Hessians (packed upper triangle) at the model''s weights, with the loss smoothed by smoothing, and with band > 0 the certain rows within band of the margin: one scan of gsu.fit''s solver newton; exactly combinable';
COMMENT ON FUNCTION gsu.fit(regclass, text, text, text, jsonb) IS
	'trains on a relation of any size in a few scans: solver newton (default; a sample trained in memory, then Newton steps with the exact Hessian from scans of gsu.hessian) or lbfgs (passes of gsu.gradient); column names are quoted as identifiers; variance may be NULL';
