
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
	AS 'MODULE_PATHNAME', 'gsu_projection_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2000;
CREATE FUNCTION gsu.eigenvalues(projection gsu.projection) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_projection_eigenvalues' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.vectors(projection gsu.projection) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_projection_vectors' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 300;

COMMENT ON FUNCTION gsu.describe_projection(gsu.projection) IS
	'the projection without its vectors as jsonb: method, dimensions, uncertainty, regularization, k1, k2, classes, rows, eigenvalues';
COMMENT ON FUNCTION gsu.eigenvalues(gsu.projection) IS
	'the generalized eigenvalues lambda = v''Sv / v''S^pv of the kept directions, ascending';
COMMENT ON FUNCTION gsu.vectors(gsu.projection) IS
	'the projection directions as a dims x dim array: row j is the j-th direction v_j';
