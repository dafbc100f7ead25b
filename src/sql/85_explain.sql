-- ------------------------------------------------------------ explanations

-- one form (untyped parameters resolve): variance NULL or left out is a certain
-- point, one element s the isotropic s*I, one per feature a diagonal, 2-D full
CREATE FUNCTION gsu.explain(model gsu.model, mean float8[], variance float8[] DEFAULT NULL)
	RETURNS TABLE (class int4, feature int4, contribution float8, variance_share float8)
	AS 'MODULE_PATHNAME', 'gsu_explain_variance_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 5000 ROWS 51;

COMMENT ON FUNCTION gsu.explain(gsu.model, float8[], float8[]) IS
	'per class (two classes: the second), a row for the bias (feature NULL) and one per feature j with its contribution w_j x_j to the decision value (they add up to it), and its variance_share w_j (Sigma w)_j of the decision''s variance w''Sigma w under N(mean, Sigma) (0 for a certain point; a full Sigma can give negative shares); variance: NULL for a certain row, one element s for s*I, one per feature (diagonal) or a 2-D matrix (full); NULL model or mean: no rows';
