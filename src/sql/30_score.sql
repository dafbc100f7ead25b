-- ------------------------------------------------------------ scoring

CREATE FUNCTION gsu.decision(model gsu.model, mean float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_decision_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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

COMMENT ON FUNCTION gsu.decision(gsu.model, float8[]) IS 'the decision value w''x + b';
COMMENT ON FUNCTION gsu.predict(gsu.model, float8[]) IS 'the predicted label: 1 when w''x + b >= 0, else -1';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8[]) IS
	'probability that the predicted label holds for a point drawn from N(mean, diag(variance)): Phi(|w''x+b| / sqrt(w''Sigma w))';
COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8) IS
	'confidence for an isotropic Gaussian N(mean, variance*I)';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8[], int4) IS
	'expected hinge loss of the labelled Gaussian N(mean, diag(variance)) under the model';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8, int4) IS
	'expected hinge loss of the labelled isotropic Gaussian N(mean, variance*I)';

-- ------------------------------------------------------------ inspection

CREATE FUNCTION gsu.weights(model gsu.model) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_weights' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_bias' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.describe(model gsu.model) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_model_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.weights(gsu.model) IS 'the weight vector w';
COMMENT ON FUNCTION gsu.bias(gsu.model) IS 'the bias b';
COMMENT ON FUNCTION gsu.describe(gsu.model) IS
	'the model without its weights as jsonb: loss, dimension, bias, hyper-parameters and training statistics';
