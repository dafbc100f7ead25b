-- ------------------------------------------------------------ calibration

CREATE FUNCTION gsu.calibrate_transfn(internal, gsu.model, float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_calibrate_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
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
	AS 'MODULE_PATHNAME', 'gsu_probability_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION gsu.probability(gsu.model, float8[]) IS
	'Platt-calibrated probability of the second class (label 1 for -1/1 labels) of a two-class model (the model must come from gsu.calibrate)';
CREATE FUNCTION gsu.probabilities(model gsu.model, mean float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_probabilities_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION gsu.probabilities(gsu.model, float8[]) IS
	'calibrated probability of each class, in the order of gsu.classes (more than two classes: the one-vs-rest probabilities normalized to sum to 1)';
