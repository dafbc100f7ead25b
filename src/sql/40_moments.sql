-- ------------------------------------------------------------ moments of raw observations

CREATE TYPE gsu.moments_result AS (mean float8[], variance float8[], count int8);
COMMENT ON TYPE gsu.moments_result IS
	'result of gsu.moments: the mean vector, the variance (1-D per feature, or the 2-D covariance matrix) and the number of observations';

CREATE FUNCTION gsu.moments_transfn(internal, float8[], jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_moments_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 1000;
CREATE FUNCTION gsu.moments_transfn(internal, float8[]) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_moments_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
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

-- ------------------------------------------------------------ gsu.missing_moments (issue 33)
CREATE FUNCTION gsu.missing_moments_transfn(internal, float8[], float8[], jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION gsu.missing_moments_transfn(internal, float8[], float8[]) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION gsu.missing_moments_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.missing_moments_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.missing_moments_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.missing_moments_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.missing_moments_transfn(internal, float8[], float8[], jsonb) IS 'gsu.missing_moments transition: Welford update of each present feature';
COMMENT ON FUNCTION gsu.missing_moments_transfn(internal, float8[], float8[]) IS 'gsu.missing_moments transition: Welford update of each present feature, default options';
COMMENT ON FUNCTION gsu.missing_moments_combinefn(internal, internal) IS 'gsu.missing_moments combine: Chan et al. merge of each feature, for parallel workers';
COMMENT ON FUNCTION gsu.missing_moments_serialfn(internal) IS 'gsu.missing_moments state serialization';
COMMENT ON FUNCTION gsu.missing_moments_deserialfn(bytea, internal) IS 'gsu.missing_moments state deserialization (validated)';
COMMENT ON FUNCTION gsu.missing_moments_finalfn(internal) IS 'gsu.missing_moments final: the options of "missing" with the moments, and the counts';
CREATE AGGREGATE gsu.missing_moments(mean float8[], variance float8[], options jsonb) (
	SFUNC = gsu.missing_moments_transfn, STYPE = internal, FINALFUNC = gsu.missing_moments_finalfn,
	COMBINEFUNC = gsu.missing_moments_combinefn, SERIALFUNC = gsu.missing_moments_serialfn,
	DESERIALFUNC = gsu.missing_moments_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.missing_moments(mean float8[], variance float8[]) (
	SFUNC = gsu.missing_moments_transfn, STYPE = internal, FINALFUNC = gsu.missing_moments_finalfn,
	COMBINEFUNC = gsu.missing_moments_combinefn, SERIALFUNC = gsu.missing_moments_serialfn,
	DESERIALFUNC = gsu.missing_moments_deserialfn, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.missing_moments(float8[], float8[], jsonb) IS
	'the feature moments that "missing": "feature_moments" fills a NULL mean element with (each feature''s mean over the rows where it is present, its variance by the law of total variance) as options for the training aggregates, with the counts; options {"missing_nan": true} reads NaN as missing';
COMMENT ON AGGREGATE gsu.missing_moments(float8[], float8[]) IS
	'the feature moments that "missing": "feature_moments" fills a NULL mean element with, as options for the training aggregates, with the counts';
