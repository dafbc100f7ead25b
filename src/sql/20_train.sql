-- ------------------------------------------------------------ training

CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8, int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_iso_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_iso_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], bool, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_transfn(internal, float8[], float8[], int4, float8, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_weighted_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
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
