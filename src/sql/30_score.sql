-- ------------------------------------------------------------ scoring

CREATE FUNCTION gsu.decision(model gsu.model, mean float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_decision_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.decisions(model gsu.model, mean float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_decisions_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.predict(model gsu.model, mean float8[]) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_predict_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.confidence(model gsu.model, mean float8[], variance float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_confidence_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.confidence(model gsu.model, mean float8[], variance float8) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_confidence_iso_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.expected_loss(model gsu.model, mean float8[], variance float8[], label int4) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_expected_loss_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.expected_loss(model gsu.model, mean float8[], variance float8, label int4) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_expected_loss_iso_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.decision(gsu.model, float8[]) IS
	'the decision value w''x + b of a two-class model (positive: its second class)';
COMMENT ON FUNCTION gsu.decisions(gsu.model, float8[]) IS
	'one decision value per class, in the order of gsu.classes (two classes: -f and f; more: the one-vs-rest values)';
COMMENT ON FUNCTION gsu.predict(gsu.model, float8[]) IS
	'the predicted class: two classes, the second when w''x + b >= 0; more, the class of the largest one-vs-rest decision value';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8[]) IS
	'probability that the predicted label holds for a point drawn from N(mean, diag(variance)): Phi(|w''x+b| / sqrt(w''Sigma w)); more than two classes: that the predicted class''s one-vs-rest classifier claims the point';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8) IS
	'confidence for an isotropic Gaussian N(mean, variance*I)';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8[], int4) IS
	'expected hinge loss of the labelled Gaussian N(mean, diag(variance)) under the model (more than two classes: summed over the one-vs-rest classifiers)';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8, int4) IS
	'expected hinge loss of the labelled isotropic Gaussian N(mean, variance*I)';

-- ------------------------------------------------------------ inspection

CREATE FUNCTION gsu.weights(model gsu.model) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_bias' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.weights(model gsu.model, class int4) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_class_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model, class int4) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_class_bias' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.classes(model gsu.model) RETURNS int4[]
	AS 'MODULE_PATHNAME', 'gsu_model_classes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.describe(model gsu.model) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_model_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.weights(gsu.model) IS
	'the weight vector w (a model of more than two classes: one row per class)';
COMMENT ON FUNCTION gsu.bias(gsu.model) IS 'the bias b of a two-class model';
COMMENT ON FUNCTION gsu.weights(gsu.model, int4) IS
	'the weight vector that scores the class (two classes: -w for the first, w for the second)';
COMMENT ON FUNCTION gsu.bias(gsu.model, int4) IS 'the bias that goes with gsu.weights(model, class)';
COMMENT ON FUNCTION gsu.classes(gsu.model) IS 'the classes (labels) of the model, ascending';
COMMENT ON FUNCTION gsu.describe(gsu.model) IS
	'the model without its weights as jsonb: loss, dimension, bias, hyper-parameters and training statistics';

-- weights in original units (option "standardize")
CREATE FUNCTION gsu.weights(model gsu.model, units text) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model, units text) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_bias' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.weights(model gsu.model, class int4, units text) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_class_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model, class int4, units text) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_class_bias' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsu.weights(gsu.model, text) IS
	'gsu.weights(model) in units ''trained'' (as the solver found them) or ''original'' (a model trained with "standardize": w/s, in the units of the rows)';
COMMENT ON FUNCTION gsu.bias(gsu.model, text) IS
	'gsu.bias(model) in units ''trained'' or ''original'' (a model trained with "standardize": b - (w/s)''m)';
COMMENT ON FUNCTION gsu.weights(gsu.model, int4, text) IS
	'gsu.weights(model, class) in units ''trained'' or ''original''';
COMMENT ON FUNCTION gsu.bias(gsu.model, int4, text) IS
	'gsu.bias(model, class) in units ''trained'' or ''original''';
