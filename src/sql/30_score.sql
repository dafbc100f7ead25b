-- ------------------------------------------------------------ scoring

-- the scoring functions' planner support: it answers no request, but the
-- planner's call to it loads the library, whose join-path hook lets parallel
-- workers score with a cross-joined model (gsu_model_score.c, docs/performance.md)
CREATE FUNCTION gsu.score_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_score_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsu.score_support(internal) IS
	'planner support of the scoring functions: loads pg_gsu when a query that scores is planned, so that a parallel plan materializes a cross-joined model in each worker instead of rescanning it per row';

CREATE FUNCTION gsu.decision(model gsu.model, mean float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_decision_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50
	SUPPORT gsu.score_support;
CREATE FUNCTION gsu.decisions(model gsu.model, mean float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_decisions_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50
	SUPPORT gsu.score_support;
CREATE FUNCTION gsu.predict(model gsu.model, mean float8[]) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_predict_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50
	SUPPORT gsu.score_support;
-- one form per argument kind, so that untyped parameters resolve (a client
-- that sends '{...}' or NULL): variance is float8[] -- NULL a certain row, one
-- element s the isotropic s*I, one per feature a diagonal, 2-D a full matrix
CREATE FUNCTION gsu.confidence(model gsu.model, mean float8[], variance float8[] DEFAULT NULL) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_confidence_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 100
	SUPPORT gsu.score_support;
CREATE FUNCTION gsu.expected_loss(model gsu.model, mean float8[], variance float8[], label int4) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_expected_loss_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 100
	SUPPORT gsu.score_support;

COMMENT ON FUNCTION gsu.decision(gsu.model, float8[]) IS
	'the decision value w''x + b of a two-class model (positive: its second class)';
COMMENT ON FUNCTION gsu.decisions(gsu.model, float8[]) IS
	'one decision value per class, in the order of gsu.classes (two classes: -f and f; more: the one-vs-rest values)';
COMMENT ON FUNCTION gsu.predict(gsu.model, float8[]) IS
	'the predicted class: two classes, the second when w''x + b >= 0; more, the class of the largest one-vs-rest decision value';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8[]) IS
	'probability that the predicted label holds for a point drawn from N(mean, Sigma): Phi(|w''x+b| / sqrt(w''Sigma w)); more than two classes: that the predicted class''s one-vs-rest classifier claims the point; variance: NULL for a certain row, one element s for s*I, one per feature (diagonal) or a 2-D matrix (full); NULL model or mean: NULL';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8[], int4) IS
	'expected hinge loss of the labelled Gaussian N(mean, Sigma) under the model (more than two classes: summed over the one-vs-rest classifiers); variance: NULL for a certain row, one element s for s*I, one per feature (diagonal) or a 2-D matrix (full); NULL model, mean or label: NULL';

-- ------------------------------------------------------------ inspection

CREATE FUNCTION gsu.weights(model gsu.model, class int4 DEFAULT NULL, units text DEFAULT NULL) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_weights_any' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.bias(model gsu.model, class int4 DEFAULT NULL, units text DEFAULT NULL) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_bias_any' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 20;
CREATE FUNCTION gsu.classes(model gsu.model) RETURNS int4[]
	AS 'MODULE_PATHNAME', 'gsu_model_classes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 40;
CREATE FUNCTION gsu.describe(model gsu.model) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_model_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 8000;

COMMENT ON FUNCTION gsu.weights(gsu.model, int4, text) IS
	'the weights: without class, the weight vector w (more than two classes: one row per class); with class, the vector that scores it (two classes: -w for the first, w for the second); units ''trained'' (NULL, the default: as the solver found them) or ''original'' (a model trained with "standardize": w/s, in the units of the rows)';
COMMENT ON FUNCTION gsu.bias(gsu.model, int4, text) IS
	'the bias that goes with gsu.weights(model, class, units): without class, b of a two-class model; units ''trained'' or ''original'' (b - (w/s)''m)';
COMMENT ON FUNCTION gsu.classes(gsu.model) IS 'the classes (labels) of the model, ascending';
COMMENT ON FUNCTION gsu.describe(gsu.model) IS
	'the model without its weights as jsonb: loss, dimension, bias, hyper-parameters and training statistics';

CREATE FUNCTION gsu.training_info(model gsu.model,
	OUT class int4, OUT pass int8, OUT objective float8, OUT gradient_norm float8,
	OUT gap float8, OUT elapsed_ms float8) RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'gsu_model_training_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 2000 ROWS 64;
COMMENT ON FUNCTION gsu.training_info(gsu.model) IS
	'the per-pass history the training kept in the model (the first 32 and the last 32 passes of each class vector): class (the vector''s positive class), pass, objective, gradient norm and gap where the solver measured them (else NULL), milliseconds since the training started; no rows for a model trained before format 5 or by the streaming solver sgd';
