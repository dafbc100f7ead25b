
-- ------------------------------------------------------------ equality
-- gsu.model, gsu.projection and gsu.refset compare equal when their canonical
-- bytes are equal (src/gsu_equality.c): = and <> with a hash operator class,
-- so that DISTINCT, GROUP BY, UNION and hash joins work on them. There is no
-- order.

CREATE FUNCTION gsu.model_eq(gsu.model, gsu.model) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.model_ne(gsu.model, gsu.model) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.model_hash(gsu.model) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.model_hash_extended(gsu.model, int8) RETURNS int8
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR gsu.= (
	LEFTARG = gsu.model, RIGHTARG = gsu.model, FUNCTION = gsu.model_eq,
	COMMUTATOR = OPERATOR(gsu.=), NEGATOR = OPERATOR(gsu.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR gsu.<> (
	LEFTARG = gsu.model, RIGHTARG = gsu.model, FUNCTION = gsu.model_ne,
	COMMUTATOR = OPERATOR(gsu.<>), NEGATOR = OPERATOR(gsu.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR CLASS gsu.model_ops DEFAULT FOR TYPE gsu.model USING hash AS
	OPERATOR 1 gsu.= (gsu.model, gsu.model),
	FUNCTION 1 gsu.model_hash(gsu.model),
	FUNCTION 2 gsu.model_hash_extended(gsu.model, int8);
COMMENT ON FUNCTION gsu.model_eq(gsu.model, gsu.model) IS
	'whether two values of gsu.model are equal (the same canonical bytes): the operator =';
COMMENT ON FUNCTION gsu.model_ne(gsu.model, gsu.model) IS 'the operator <> of gsu.model';
COMMENT ON FUNCTION gsu.model_hash(gsu.model) IS 'hash of a gsu.model (its canonical bytes), for the hash operator class';
COMMENT ON FUNCTION gsu.model_hash_extended(gsu.model, int8) IS 'seeded 64-bit hash of a gsu.model, for the hash operator class';
COMMENT ON OPERATOR gsu.= (gsu.model, gsu.model) IS 'equal: the same canonical bytes';
COMMENT ON OPERATOR gsu.<> (gsu.model, gsu.model) IS 'not equal';

CREATE FUNCTION gsu.projection_eq(gsu.projection, gsu.projection) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.projection_ne(gsu.projection, gsu.projection) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.projection_hash(gsu.projection) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.projection_hash_extended(gsu.projection, int8) RETURNS int8
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR gsu.= (
	LEFTARG = gsu.projection, RIGHTARG = gsu.projection, FUNCTION = gsu.projection_eq,
	COMMUTATOR = OPERATOR(gsu.=), NEGATOR = OPERATOR(gsu.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR gsu.<> (
	LEFTARG = gsu.projection, RIGHTARG = gsu.projection, FUNCTION = gsu.projection_ne,
	COMMUTATOR = OPERATOR(gsu.<>), NEGATOR = OPERATOR(gsu.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR CLASS gsu.projection_ops DEFAULT FOR TYPE gsu.projection USING hash AS
	OPERATOR 1 gsu.= (gsu.projection, gsu.projection),
	FUNCTION 1 gsu.projection_hash(gsu.projection),
	FUNCTION 2 gsu.projection_hash_extended(gsu.projection, int8);
COMMENT ON FUNCTION gsu.projection_eq(gsu.projection, gsu.projection) IS
	'whether two values of gsu.projection are equal (the same canonical bytes): the operator =';
COMMENT ON FUNCTION gsu.projection_ne(gsu.projection, gsu.projection) IS 'the operator <> of gsu.projection';
COMMENT ON FUNCTION gsu.projection_hash(gsu.projection) IS 'hash of a gsu.projection (its canonical bytes), for the hash operator class';
COMMENT ON FUNCTION gsu.projection_hash_extended(gsu.projection, int8) IS 'seeded 64-bit hash of a gsu.projection, for the hash operator class';
COMMENT ON OPERATOR gsu.= (gsu.projection, gsu.projection) IS 'equal: the same canonical bytes';
COMMENT ON OPERATOR gsu.<> (gsu.projection, gsu.projection) IS 'not equal';

CREATE FUNCTION gsu.refset_eq(gsu.refset, gsu.refset) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.refset_ne(gsu.refset, gsu.refset) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.refset_hash(gsu.refset) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.refset_hash_extended(gsu.refset, int8) RETURNS int8
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR gsu.= (
	LEFTARG = gsu.refset, RIGHTARG = gsu.refset, FUNCTION = gsu.refset_eq,
	COMMUTATOR = OPERATOR(gsu.=), NEGATOR = OPERATOR(gsu.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR gsu.<> (
	LEFTARG = gsu.refset, RIGHTARG = gsu.refset, FUNCTION = gsu.refset_ne,
	COMMUTATOR = OPERATOR(gsu.<>), NEGATOR = OPERATOR(gsu.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR CLASS gsu.refset_ops DEFAULT FOR TYPE gsu.refset USING hash AS
	OPERATOR 1 gsu.= (gsu.refset, gsu.refset),
	FUNCTION 1 gsu.refset_hash(gsu.refset),
	FUNCTION 2 gsu.refset_hash_extended(gsu.refset, int8);
COMMENT ON FUNCTION gsu.refset_eq(gsu.refset, gsu.refset) IS
	'whether two values of gsu.refset are equal (the same canonical bytes): the operator =';
COMMENT ON FUNCTION gsu.refset_ne(gsu.refset, gsu.refset) IS 'the operator <> of gsu.refset';
COMMENT ON FUNCTION gsu.refset_hash(gsu.refset) IS 'hash of a gsu.refset (its canonical bytes), for the hash operator class';
COMMENT ON FUNCTION gsu.refset_hash_extended(gsu.refset, int8) IS 'seeded 64-bit hash of a gsu.refset, for the hash operator class';
COMMENT ON OPERATOR gsu.= (gsu.refset, gsu.refset) IS 'equal: the same canonical bytes';
COMMENT ON OPERATOR gsu.<> (gsu.refset, gsu.refset) IS 'not equal';
