-- ------------------------------------------- EEG band powers (Welch) and Fisher's score

CREATE TYPE gsu.welch_result AS (mean float8[], variance float8[], band text[], low float8[],
	high float8[], segments int8);
COMMENT ON TYPE gsu.welch_result IS
	'result of gsu.welch: per band, the mean and variance over segments of the log band power, the band names and edges (Hz), and the number of segments';

CREATE FUNCTION gsu.welch(signal float8[], sampling_rate float8, options jsonb DEFAULT '{}')
	RETURNS gsu.welch_result
	AS 'MODULE_PATHNAME', 'gsu_welch_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 6000;
COMMENT ON FUNCTION gsu.welch(float8[], float8, jsonb) IS
	'Welch''s method: mean and variance over Hann-windowed, overlapping segments of the log power in each frequency band (theta, slow alpha, alpha, beta, gamma by default); options segment_length, overlap, window, detrend, bands, scale, floor, estimator';

CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], bool, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn_bool' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn_bool' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
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
