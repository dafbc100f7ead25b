
-- ------------------------------------------------------------ GEU fitting

CREATE FUNCTION gsu.geu_fit_transfn(internal, float8[], float8[], int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_geu_fit_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 500;
CREATE FUNCTION gsu.geu_fit_transfn(internal, float8[], float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_geu_fit_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 500;
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
	AS 'MODULE_PATHNAME', 'gsu_project_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 70;
-- variance: NULL a certain row, one element s the isotropic s*I, one per input
-- feature a diagonal, 2-D a full matrix (one form: untyped parameters resolve)
CREATE FUNCTION gsu.project_variance(projection gsu.projection, variance float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_project_variance_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 70;
CREATE FUNCTION gsu.project_covariance(projection gsu.projection, variance float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_project_covariance_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 100;

COMMENT ON FUNCTION gsu.project(gsu.projection, float8[]) IS 'the projected mean V''x';
COMMENT ON FUNCTION gsu.project_variance(gsu.projection, float8[]) IS
	'the diagonal of V''Sigma V: the per-dimension variances of the projected Gaussian; variance: NULL for a certain row (zeros), one element s for s*I, one per input feature (diagonal) or a 2-D matrix (full); NULL projection: NULL';
COMMENT ON FUNCTION gsu.project_covariance(gsu.projection, float8[]) IS
	'the full projected covariance V''Sigma V (dims x dims); variance as for gsu.project_variance';
