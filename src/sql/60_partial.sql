-- ------------------------------------------------------------ gsu.partial

CREATE TYPE gsu.partial;

CREATE FUNCTION gsu.partial_in(cstring) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_partial_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.partial_out(gsu.partial) RETURNS cstring
	AS 'MODULE_PATHNAME', 'gsu_partial_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.partial_recv(internal) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_partial_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.partial_send(gsu.partial) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_partial_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE gsu.partial (
	INPUT = gsu.partial_in,
	OUTPUT = gsu.partial_out,
	RECEIVE = gsu.partial_recv,
	SEND = gsu.partial_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE gsu.partial IS
	'a partial training state as a SQL value: a gradient sum at a point (gsu.gradient), combinable with gsu.sum';
COMMENT ON FUNCTION gsu.partial_in(cstring) IS 'gsu.partial text input (JSON)';
COMMENT ON FUNCTION gsu.partial_out(gsu.partial) IS 'gsu.partial text output (JSON, exact floats)';
COMMENT ON FUNCTION gsu.partial_recv(internal) IS 'gsu.partial binary input';
COMMENT ON FUNCTION gsu.partial_send(gsu.partial) IS 'gsu.partial binary output';

CREATE FUNCTION gsu.gradient_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_gradient_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION gsu.partial_combine(gsu.partial, gsu.partial) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_partial_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.gradient_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8) IS
	'gsu.gradient transition: adds one row''s loss and gradient, updating the state in place';
COMMENT ON FUNCTION gsu.partial_combine(gsu.partial, gsu.partial) IS
	'adds two gradient partials (averages two sgd partials), updating the state in place';

CREATE AGGREGATE gsu.gradient(mean float8[], variance float8[], label int4, at gsu.model, smoothing float8) (
	SFUNC = gsu.gradient_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.gradient(float8[], float8[], int4, gsu.model, float8) IS
	'sum of the rows'' expected hinge losses and their gradients at the model''s weights (zero weights when the model is NULL), with the loss smoothed by smoothing; exactly combinable';

CREATE AGGREGATE gsu.sum(gsu.partial) (
	SFUNC = gsu.partial_combine, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.sum(gsu.partial) IS
	'combines partial training states computed elsewhere (shards, foreign servers)';

CREATE FUNCTION gsu.to_model(gsu.partial) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_partial_to_model' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.to_model(gsu.partial) IS 'the model held by an sgd partial (a classifier, or a regression model for a partial of a regression loss)';

-- ------------------------------------------------------------ streaming SGD on a SQL state

CREATE FUNCTION gsu.sgd_partial_transfn(gsu.partial, float8[], float8[], int4, jsonb) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_sgd_partial_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.sgd_partial_transfn(gsu.partial, float8[], float8[], int4, jsonb) IS
	'gsu.train_sgd transition: one SGD step per row, updating the state in place';

CREATE AGGREGATE gsu.train_sgd(mean float8[], variance float8[], label int4, options jsonb) (
	SFUNC = gsu.sgd_partial_transfn, STYPE = gsu.partial, FINALFUNC = gsu.to_model,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.train_sgd(float8[], float8[], int4, jsonb) IS
	'streaming SGD (one pass) whose state is the SQL type gsu.partial, so partial aggregation can run on other servers; workers are averaged with row weights';

CREATE AGGREGATE gsu.sgd_partial(mean float8[], variance float8[], label int4, options jsonb) (
	SFUNC = gsu.sgd_partial_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.sgd_partial(float8[], float8[], int4, jsonb) IS
	'the partial state of gsu.train_sgd, to be combined elsewhere with gsu.sum and turned into a model with gsu.to_model';

-- ------------------------------------------------------------ gsu.hessian (gsu.fit's solver newton)

CREATE FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8, float8) IS
	'gsu.hessian transition: adds one row''s loss, gradient and Hessian, updating the state in place';
CREATE FUNCTION gsu.hessian_final(gsu.partial) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_hessian_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.hessian_final(gsu.partial) IS
	'gsu.hessian final function: checks that the sums are finite';

CREATE AGGREGATE gsu.hessian(mean float8[], variance float8[], label int4, at gsu.model, smoothing float8, band float8) (
	SFUNC = gsu.hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.hessian(float8[], float8[], int4, gsu.model, float8, float8) IS
	'sum of the rows'' losses, gradients and Hessians (packed upper triangle) at the model''s weights, with the loss smoothed by smoothing, and with band > 0 the certain rows within band of the margin: one scan of gsu.fit''s solver newton; exactly combinable';

-- ------------------------------------------------------------ weighted passes (gsu.fit's row and class weights)

CREATE FUNCTION gsu.gradient_transfn(gsu.partial, float8[], float8[], int4, float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_gradient_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.gradient_transfn(gsu.partial, float8[], float8[], int4, float8, gsu.model, float8) IS
	'weighted gsu.gradient transition: adds one row''s loss and gradient times its weight, updating the state in place';

CREATE AGGREGATE gsu.gradient(mean float8[], variance float8[], label int4, weight float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.gradient_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.gradient(float8[], float8[], int4, float8, gsu.model, float8) IS
	'gsu.gradient with row weights: each row''s loss and gradient times its weight (finite, >= 0; a row of weight NULL or 0 is skipped); exactly combinable';

CREATE FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, float8, gsu.model, float8, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, float8, gsu.model, float8, float8) IS
	'weighted gsu.hessian transition: adds one row''s loss, gradient and Hessian times its weight, updating the state in place';

CREATE AGGREGATE gsu.hessian(mean float8[], variance float8[], label int4, weight float8, at gsu.model, smoothing float8, band float8) (
	SFUNC = gsu.hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.hessian(float8[], float8[], int4, float8, gsu.model, float8, float8) IS
	'gsu.hessian with row weights: each row''s sums times its weight (finite, >= 0; a row of weight NULL or 0 is skipped), band rows with their weights; exactly combinable';

CREATE FUNCTION gsu.fit(relation regclass, mean text, variance text, label text, weight text,
						options jsonb) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_fit' LANGUAGE C VOLATILE PARALLEL UNSAFE COST 1000000;
COMMENT ON FUNCTION gsu.fit(regclass, text, text, text, text, jsonb) IS
	'gsu.fit with row weights: the column weight (finite, >= 0; NULL or 0 skips the row) multiplies each row''s loss, the objective normalized by the weight sum, as gsu.train''s weighted form';

-- ------------------------------------------------------------ gsu.regression_hessian (gsu.fit's regression scans)
CREATE FUNCTION gsu.regression_hessian_transfn(gsu.partial, float8[], float8[], float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION gsu.regression_hessian_transfn(gsu.partial, float8[], float8[], float8, gsu.model, float8) IS
	'gsu.regression_hessian transition: adds one row''s expected regression loss, gradient and Hessian, updating the state in place';
CREATE AGGREGATE gsu.regression_hessian(mean float8[], variance float8[], target float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.regression_hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_hessian(float8[], float8[], float8, gsu.model, float8) IS
	'sum of the rows'' expected regression losses (the loss of the regression model at: squared or epsilon_insensitive, smoothed by smoothing), their gradients and Hessians (packed upper triangle) at its weights: the scan of gsu.fit''s regression; exactly combinable';
CREATE FUNCTION gsu.regression_hessian_transfn(gsu.partial, float8[], float8[], float8, float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION gsu.regression_hessian_transfn(gsu.partial, float8[], float8[], float8, float8, gsu.model, float8) IS
	'weighted gsu.regression_hessian transition: adds one row''s sums times its weight, updating the state in place';
CREATE AGGREGATE gsu.regression_hessian(mean float8[], variance float8[], target float8, weight float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.regression_hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_hessian(float8[], float8[], float8, float8, gsu.model, float8) IS
	'gsu.regression_hessian with row weights: each row''s sums times its weight (finite, >= 0; a row of weight NULL or 0 is skipped); exactly combinable';

-- ------------------------------------------------------------ regression's streaming SGD on a SQL state
-- (names of their own: a float8 target overload of gsu.train_sgd or gsu.sgd_partial would capture the
-- untyped integer labels of classification calls)
CREATE FUNCTION gsu.regression_sgd_partial_transfn(gsu.partial, float8[], float8[], float8, jsonb) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_sgd_partial_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.regression_sgd_partial_transfn(gsu.partial, float8[], float8[], float8, jsonb) IS
	'gsu.train_regression_sgd transition: one SGD step per row on the expected regression loss, updating the state in place';

CREATE AGGREGATE gsu.train_regression_sgd(mean float8[], variance float8[], target float8, options jsonb) (
	SFUNC = gsu.regression_sgd_partial_transfn, STYPE = gsu.partial, FINALFUNC = gsu.to_model,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.train_regression_sgd(float8[], float8[], float8, jsonb) IS
	'streaming SGD (one pass) of a regression on Gaussian inputs (the options of gsu.train_regression with solver sgd: loss, epsilon, lambda, init) whose state is the SQL type gsu.partial, so partial aggregation can run on other servers; workers are averaged with row weights';

CREATE AGGREGATE gsu.regression_sgd_partial(mean float8[], variance float8[], target float8, options jsonb) (
	SFUNC = gsu.regression_sgd_partial_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_sgd_partial(float8[], float8[], float8, jsonb) IS
	'the partial state of gsu.train_regression_sgd, to be combined elsewhere with gsu.sum and turned into a regression model with gsu.to_model';

-- ------------------------------------------------------------ gsu.regression_gradient (regression's gsu.gradient)
CREATE FUNCTION gsu.regression_gradient_transfn(gsu.partial, float8[], float8[], float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_gradient_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.regression_gradient_transfn(gsu.partial, float8[], float8[], float8, gsu.model, float8) IS
	'gsu.regression_gradient transition: adds one row''s expected regression loss and gradient, updating the state in place';
CREATE AGGREGATE gsu.regression_gradient(mean float8[], variance float8[], target float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.regression_gradient_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_gradient(float8[], float8[], float8, gsu.model, float8) IS
	'sum of the rows'' expected regression losses (the loss of the regression model at: squared or epsilon_insensitive, smoothed by smoothing) and their gradients at its weights, a gradient partial: gsu.gradient for a regression model; exactly combinable';
CREATE FUNCTION gsu.regression_gradient_transfn(gsu.partial, float8[], float8[], float8, float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_gradient_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.regression_gradient_transfn(gsu.partial, float8[], float8[], float8, float8, gsu.model, float8) IS
	'weighted gsu.regression_gradient transition: adds one row''s loss and gradient times its weight, updating the state in place';
CREATE AGGREGATE gsu.regression_gradient(mean float8[], variance float8[], target float8, weight float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.regression_gradient_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_gradient(float8[], float8[], float8, float8, gsu.model, float8) IS
	'gsu.regression_gradient with row weights: each row''s loss and gradient times its weight (finite, >= 0; a row of weight NULL or 0 is skipped); exactly combinable';
