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

