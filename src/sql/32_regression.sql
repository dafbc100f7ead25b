
-- ------------------------------------------------------------ regression (issue 33)

-- gsu.train_regression: its own name, so that no call of gsu.train changes
-- resolution (a float8 "target" overload of gsu.train would capture untyped
-- parameters and int8 labels); the state, combine, serial, deserial and final
-- functions are gsu.train's
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8, float8, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_iso_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_iso_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8, float8, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_weighted_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;

COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8, jsonb) IS 'gsu.train_regression transition (variance array)';
COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8) IS 'gsu.train_regression transition (variance array, default options)';
COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8, float8, jsonb) IS 'gsu.train_regression transition (isotropic variance)';
COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8, float8) IS 'gsu.train_regression transition (isotropic variance, default options)';
COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8, float8, jsonb) IS 'gsu.train_regression transition (per-row weight)';

CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8[], target float8, options jsonb) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8[], target float8) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8, target float8, options jsonb) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8, target float8) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8[], target float8, weight float8, options jsonb) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.train_regression(float8[], float8[], float8, jsonb) IS
	'trains a linear regression on Gaussian inputs N(mean, Sigma) with real targets: SVR-GSU (loss epsilon_insensitive, the default: expected epsilon-insensitive loss) or ridge-GSU (loss squared: expected squared loss, closed form); variance: NULL for a certain row, one element s for s*I, one per feature (diagonal), a 2-D matrix (full) or a d x r factor L (Sigma = L L'')';
COMMENT ON AGGREGATE gsu.train_regression(float8[], float8[], float8) IS
	'trains SVR-GSU (epsilon 0.1) with default options';
COMMENT ON AGGREGATE gsu.train_regression(float8[], float8, float8, jsonb) IS
	'trains a regression on rows with isotropic covariance variance*I';
COMMENT ON AGGREGATE gsu.train_regression(float8[], float8, float8) IS
	'trains SVR-GSU on rows with isotropic covariance, default options';
COMMENT ON AGGREGATE gsu.train_regression(float8[], float8[], float8, float8, jsonb) IS
	'trains a regression with a weight per row (finite, >= 0; a NULL or 0 weight skips the row) multiplying its loss';

-- the predictive distribution of w'z + b for z ~ N(mean, Sigma): its mean
-- w'mean + b and its standard deviation sqrt(w'Sigma w)
CREATE FUNCTION gsu.predictive(model gsu.model, mean float8[], variance float8[] DEFAULT NULL,
	OUT prediction float8, OUT sd float8) RETURNS record
	AS 'MODULE_PATHNAME', 'gsu_predictive_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 100
	SUPPORT gsu.score_support;
COMMENT ON FUNCTION gsu.predictive(gsu.model, float8[], float8[]) IS
	'a regression model''s prediction for the Gaussian input N(mean, Sigma): prediction = w''mean + b (gsu.decision) and sd = sqrt(w''Sigma w), the standard deviation that the input''s uncertainty gives the prediction (no residual noise); variance: NULL for a certain row (sd 0), one element s for s*I, one per feature (diagonal), a 2-D matrix (full) or a d x r factor; NULL model or mean: NULL';

-- regression metrics: one float8[5] state (n, the target's mean and sum of
-- squared deviations, the mean squared and the mean absolute error), updated
-- with running means (Welford) and combined exactly (Chan et al.)
CREATE FUNCTION gsu.regression_metrics_transfn(float8[], float8, float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_regression_metrics_transfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.nlpd_transfn(float8[], float8, float8, float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_nlpd_transfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.regression_metrics_combinefn(float8[], float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_regression_metrics_combinefn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.rmse_finalfn(float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_rmse_finalfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.mae_finalfn(float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_mae_finalfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.r2_finalfn(float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_r2_finalfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.nlpd_finalfn(float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_nlpd_finalfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.regression_metrics_transfn(float8[], float8, float8) IS 'gsu.rmse, gsu.mae, gsu.r2 transition';
COMMENT ON FUNCTION gsu.nlpd_transfn(float8[], float8, float8, float8) IS 'gsu.nlpd transition';
COMMENT ON FUNCTION gsu.regression_metrics_combinefn(float8[], float8[]) IS 'regression metrics combine: merges the running means of parallel workers';
COMMENT ON FUNCTION gsu.rmse_finalfn(float8[]) IS 'gsu.rmse final';
COMMENT ON FUNCTION gsu.mae_finalfn(float8[]) IS 'gsu.mae final';
COMMENT ON FUNCTION gsu.r2_finalfn(float8[]) IS 'gsu.r2 final';
COMMENT ON FUNCTION gsu.nlpd_finalfn(float8[]) IS 'gsu.nlpd final';

CREATE AGGREGATE gsu.rmse(prediction float8, target float8) (
	SFUNC = gsu.regression_metrics_transfn, STYPE = float8[], INITCOND = '{0,0,0,0,0}',
	FINALFUNC = gsu.rmse_finalfn, COMBINEFUNC = gsu.regression_metrics_combinefn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.mae(prediction float8, target float8) (
	SFUNC = gsu.regression_metrics_transfn, STYPE = float8[], INITCOND = '{0,0,0,0,0}',
	FINALFUNC = gsu.mae_finalfn, COMBINEFUNC = gsu.regression_metrics_combinefn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.r2(prediction float8, target float8) (
	SFUNC = gsu.regression_metrics_transfn, STYPE = float8[], INITCOND = '{0,0,0,0,0}',
	FINALFUNC = gsu.r2_finalfn, COMBINEFUNC = gsu.regression_metrics_combinefn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.nlpd(mean float8, sd float8, target float8) (
	SFUNC = gsu.nlpd_transfn, STYPE = float8[], INITCOND = '{0,0,0,0,0}',
	FINALFUNC = gsu.nlpd_finalfn, COMBINEFUNC = gsu.regression_metrics_combinefn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.rmse(float8, float8) IS
	'root mean squared error sqrt(mean((prediction - target)^2)); rows with a NULL skipped; no rows: NULL';
COMMENT ON AGGREGATE gsu.mae(float8, float8) IS
	'mean absolute error mean(|prediction - target|); rows with a NULL skipped; no rows: NULL';
COMMENT ON AGGREGATE gsu.r2(float8, float8) IS
	'coefficient of determination 1 - sum((prediction - target)^2) / sum((target - mean(target))^2); NULL for fewer than two rows or a constant target';
COMMENT ON AGGREGATE gsu.nlpd(float8, float8, float8) IS
	'mean negative log predictive density of the targets under the Gaussian predictions N(mean, sd^2) (natural log); sd must be positive; rows with a NULL skipped; no rows: NULL';
