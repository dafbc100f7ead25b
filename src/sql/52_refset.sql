
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
	AS 'MODULE_PATHNAME', 'gsu_refset_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 30000;
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
	AS 'MODULE_PATHNAME', 'gsu_nn_variance_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 6000;
COMMENT ON FUNCTION gsu.nn_variance(gsu.refset, float8[], int4, float8, bool) IS
	'GEU uncertainty estimate sigma*(x - x*)^2, x* the nearest other reference row (of the same label when supervised); one reference row equal to x is skipped as x itself; NULL label allowed when not supervised';

CREATE FUNCTION gsu.knn_predict(refset gsu.refset, point float8[], k int4) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_knn_predict_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 9000;
COMMENT ON FUNCTION gsu.knn_predict(gsu.refset, float8[], int4) IS
	'the majority label of the k nearest reference rows (exact Euclidean search); ties go to the label of the nearer neighbour';
