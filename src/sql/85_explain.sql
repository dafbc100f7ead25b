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
