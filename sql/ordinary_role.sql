-- Every public function and aggregate of pg_gsu as an ordinary role (issue 29):
-- a role with no grant other than PostgreSQL's defaults (USAGE on schema gsu and
-- EXECUTE on its functions are PUBLIC's, TEMP on the database is PUBLIC's) trains,
-- scores and runs gsu.fit and the cross-validation on its own tables. Its tables
-- are temporary: PostgreSQL 15 gives PUBLIC no CREATE on the schema public.
--
-- The list at the end names every function and aggregate this file calls; the
-- query after it lists the public ones it does not call (a public one: any in the
-- schema gsu that is not a support function of an aggregate, a type, a cast, an
-- operator, an operator class or the planner), and must return no row. A new
-- public function fails this test until a call to it as the ordinary role is
-- added here and its signature to the list.
\set SHOW_CONTEXT never
CREATE ROLE regress_gsu_plain;
SET ROLE regress_gsu_plain;
SET client_min_messages = warning;
-- no superuser, no role membership, no privilege of its own
SELECT r.rolsuper, r.rolcreatedb, r.rolcreaterole, r.rolbypassrls,
	(SELECT count(*) FROM pg_auth_members m WHERE m.member = r.oid) AS memberships,
	has_database_privilege(current_database(), 'CREATE') AS db_create,
	has_schema_privilege('public', 'CREATE') AS public_create,
	has_schema_privilege('gsu', 'USAGE') AS gsu_usage
FROM pg_roles r WHERE r.rolname = current_user;

CREATE TEMP TABLE pts AS
SELECT i AS id, ARRAY[s * 1.0 + 0.1 * (i % 7), s * 0.5 - 0.05 * (i % 5)]::float8[] AS mean,
	ARRAY[0.1, 0.2]::float8[] AS variance, 0.05::float8 AS iso, s AS label, s > 0 AS flag,
	(1 + i % 3)::float8 AS weight
FROM generate_series(1, 60) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS s) c;
SELECT c.relpersistence, pg_get_userbyid(c.relowner) = current_user AS own_table
FROM pg_class c WHERE c.oid = 'pts'::regclass;

-- ------------------------------------------------------------ training (every form of gsu.train)
CREATE TEMP TABLE models AS
SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') AS m,
	gsu.train(mean, variance, label) AS m_default,
	gsu.train(mean, iso, label, '{"lambda": 0.1}') AS m_iso,
	gsu.train(mean, iso, label) AS m_iso_default,
	gsu.train(mean, variance, flag, '{"lambda": 0.1}') AS m_bool,
	gsu.train(mean, variance, flag) AS m_bool_default,
	gsu.train(mean, variance, label, weight, '{"lambda": 0.1}') AS m_weighted
FROM pts;
SELECT gsu.classes(m) AS classes, gsu.classes(m_bool) AS bool_classes,
	num_nulls(m, m_default, m_iso, m_iso_default, m_bool, m_bool_default, m_weighted) AS null_models
FROM models;

-- ------------------------------------------------------------ scoring and inspection
SELECT count(*) FILTER (WHERE gsu.predict(m, mean) = label) AS correct,
	count(*) FILTER (WHERE sign(gsu.decision(m, mean)) = label) AS decision_sign,
	count(*) FILTER (WHERE (gsu.decisions(m, mean))[2] = gsu.decision(m, mean)) AS decisions,
	count(*) FILTER (WHERE gsu.confidence(m, mean, variance) BETWEEN 0.5 AND 1) AS confidence,
	count(*) FILTER (WHERE gsu.expected_loss(m, mean, variance, label) >= 0) AS expected_loss,
	count(*) AS total
FROM pts, models;
SELECT count(*) > 0 AS training_info FROM models, gsu.training_info(m);
SELECT cardinality(gsu.weights(m)) AS weights, gsu.bias(m) IS NOT NULL AS bias,
	gsu.describe(m)->'training'->>'rows' AS rows,
	(SELECT count(*) FROM gsu.explain(m, ARRAY[1, 0.5]::float8[], ARRAY[0.1, 0.2]::float8[])) AS explain_rows
FROM models;
-- equality, the jsonb casts
SELECT (SELECT count(*) FROM (SELECT DISTINCT x FROM (VALUES (m), (m_default), (m)) v(x)) d) AS distinct_models,
	(m::jsonb)::gsu.model OPERATOR(gsu.=) m AS jsonb_round_trip, m OPERATOR(gsu.<>) m_default AS differ
FROM models;

-- ------------------------------------------------------------ calibration
CREATE TEMP TABLE calibrated AS SELECT gsu.calibrate(m, mean, label) AS c FROM pts, models GROUP BY m;
SELECT count(*) FILTER (WHERE gsu.probability(c, mean) BETWEEN 0 AND 1) AS probability,
	count(*) FILTER (WHERE round((gsu.probabilities(c, mean))[1] + (gsu.probabilities(c, mean))[2]) = 1) AS probabilities
FROM pts, calibrated;

-- ------------------------------------------------------------ metrics
SELECT (gsu.confusion(gsu.predict(m, mean), label))->>'accuracy' AS accuracy,
	(gsu.confusion(gsu.predict(m, mean) > 0, flag))->>'accuracy' AS bool_accuracy,
	round(gsu.roc_auc(gsu.decision(m, mean), label)::numeric, 6) AS roc_auc,
	round(gsu.roc_auc(gsu.decision(m, mean), flag)::numeric, 6) AS bool_roc_auc,
	round(gsu.average_precision(gsu.decision(m, mean), label)::numeric, 6) AS average_precision,
	round(gsu.average_precision(gsu.decision(m, mean), flag)::numeric, 6) AS bool_average_precision,
	jsonb_typeof(gsu.roc_curve(gsu.decision(m, mean), label)) AS roc_curve,
	jsonb_typeof(gsu.roc_curve(gsu.decision(m, mean), flag)) AS bool_roc_curve,
	jsonb_typeof(gsu.pr_curve(gsu.decision(m, mean), label)) AS pr_curve,
	jsonb_typeof(gsu.pr_curve(gsu.decision(m, mean), flag)) AS bool_pr_curve,
	gsu.log_loss(gsu.probability(c, mean), label) >= 0 AS log_loss,
	gsu.log_loss(gsu.probability(c, mean), flag) >= 0 AS bool_log_loss
FROM pts, models, calibrated;
SELECT (gsu.mcnemar(gsu.predict(m, mean), 1, label))->>'n' AS mcnemar_rows,
	(gsu.paired_ttest(gsu.decision(m, mean), 0))->>'runs' AS ttest_runs,
	(gsu.paired_ttest(gsu.decision(m, mean), 0, 0.5))->>'test_train_ratio' AS ttest_ratio
FROM pts, models;

-- ------------------------------------------------------------ gsu.fit, passes over a table, SQL states
SELECT gsu.describe(gsu.fit('pts', 'mean', 'variance', 'label', '{"lambda": 0.1}'))->'training'->>'rows' AS fit_rows,
	gsu.describe(gsu.fit('pts', 'mean', 'variance', 'label', 'weight', '{"lambda": 0.1}'))->'training'->>'rows' AS weighted_fit_rows;
SELECT (gsu.gradient(mean, variance, label, m, 0))::text IS NOT NULL AS gradient,
	(gsu.gradient(mean, variance, label, weight, m, 0))::text IS NOT NULL AS weighted_gradient,
	(gsu.hessian(mean, variance, label, m, 0, 0))::text IS NOT NULL AS hessian,
	(gsu.hessian(mean, variance, label, weight, m, 0, 0))::text IS NOT NULL AS weighted_hessian,
	cardinality(gsu.weights(gsu.train_sgd(mean, variance, label, '{"lambda": 0.1}'))) AS sgd_weights
FROM pts, models GROUP BY m;
SELECT cardinality(gsu.weights(gsu.to_model(gsu.sum(p)))) AS summed_sgd_weights
FROM (SELECT gsu.sgd_partial(mean, variance, label, '{"lambda": 0.1}') AS p FROM pts GROUP BY id % 2) q;

-- ------------------------------------------------------------ cross-validation (every form)
SELECT lambda, fold_count FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[0.1, 1]::float8[], 3) ORDER BY lambda;
SELECT combination, fold_count FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', '{"lambda": [0.1, 1]}'::jsonb, 3) ORDER BY combination;
SELECT lambda, fold_count FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', '{0.1, 1}', 3) ORDER BY lambda;
SELECT gsu.describe(gsu.train_best('pts', 'mean', 'variance', 'label', ARRAY[0.1, 1]::float8[], 3))->'training'->>'rows' AS best_rows,
	gsu.describe(gsu.train_best('pts', 'mean', 'variance', 'label', '{"lambda": [0.1, 1]}'::jsonb, 3))->'training'->>'rows' AS best_grid_rows,
	gsu.describe(gsu.train_best('pts', 'mean', 'variance', 'label', '{0.1, 1}', 3))->'training'->>'rows' AS best_text_rows,
	gsu.lambda_list('{0.1, 1}') AS lambda_list;

-- ------------------------------------------------------------ moments, images, Welch, Fisher
SELECT (gsu.moments(mean)).count AS moments, (gsu.moments(mean, '{"covariance": "full"}')).count AS full_moments,
	gsu.missing_moments(mean, variance)->'counts'->'rows' AS missing_moments,
	gsu.missing_moments(mean, variance, '{"missing_nan": true}')->'missing_nan' AS missing_moments_nan,
	gsu.fisher_score(mean, label) IS NOT NULL AS fisher, gsu.fisher_score(mean, label, '{"estimator": "population"}') IS NOT NULL AS fisher_options,
	gsu.fisher_score(mean, flag) IS NOT NULL AS fisher_bool, gsu.fisher_score(mean, flag, '{}') IS NOT NULL AS fisher_bool_options
FROM pts;
SELECT cardinality(gsu.image_variance(ARRAY[1, 2, 4, 8, 4, 6, 9, 16, 9, 13, 15, 26]::float8[], 4, 3, 2)) AS image_variance,
	cardinality(gsu.image_variance(ARRAY[[1, 2, 4, 8], [4, 6, 9, 16], [9, 13, 15, 26]]::float8[], 2)) AS image_variance_2d,
	cardinality(gsu.image_covariance(ARRAY[1, 2, 4, 8, 4, 6, 9, 16, 9, 13, 15, 26]::float8[], 4, 3, 2)) AS image_covariance,
	cardinality(gsu.image_covariance(ARRAY[[1, 2, 4, 8], [4, 6, 9, 16], [9, 13, 15, 26]]::float8[], 2)) AS image_covariance_2d,
	cardinality(gsu.image_covariance_factor(ARRAY[1, 2, 4, 8, 4, 6, 9, 16, 9, 13, 15, 26]::float8[], 4, 3, 2)) AS image_covariance_factor,
	cardinality(gsu.image_covariance_factor(ARRAY[[1, 2, 4, 8], [4, 6, 9, 16], [9, 13, 15, 26]]::float8[], 2)) AS image_covariance_factor_2d;
SELECT w.band, w.segments FROM gsu.welch((SELECT array_agg(sin(2 * pi() * 10 * t / 128.0) ORDER BY t) FROM generate_series(0, 511) t), 128) w;

-- ------------------------------------------------------------ GEU projections, reference sets
CREATE TEMP TABLE projections AS
SELECT gsu.geu_fit(mean, variance, label) AS p, gsu.geu_fit(mean, variance, label, '{"dims": 1}') AS p_options FROM pts;
SELECT gsu.describe_projection(p)->>'method' AS method, cardinality(gsu.eigenvalues(p)) AS eigenvalues,
	cardinality(gsu.vectors(p)) AS vectors, p OPERATOR(gsu.=) p_options AS same,
	(p::jsonb)::gsu.projection OPERATOR(gsu.=) p AS jsonb_round_trip,
	cardinality(gsu.project(p, ARRAY[1, 0.5]::float8[])) AS project,
	cardinality(gsu.project_variance(p, ARRAY[0.1, 0.2]::float8[])) AS project_variance,
	cardinality(gsu.project_covariance(p, ARRAY[0.1, 0.2]::float8[])) AS project_covariance
FROM projections;
CREATE TEMP TABLE refsets AS SELECT gsu.refset_agg(mean, label) AS r, gsu.refset_agg(mean) AS r_unlabelled FROM pts;
SELECT gsu.describe_refset(r)->>'rows' AS rows, gsu.describe_refset(r_unlabelled)->>'rows' AS unlabelled_rows,
	r OPERATOR(gsu.=) r AND r OPERATOR(gsu.<>) r_unlabelled AS equality,
	(SELECT count(*) FILTER (WHERE gsu.knn_predict(r, mean, 3) = label) FROM pts) AS knn_correct,
	(SELECT count(*) FILTER (WHERE cardinality(gsu.nn_variance(r, mean, label, 1, true)) = 2) FROM pts) AS nn_variance
FROM refsets;

-- ------------------------------------------------------------ regression (every form of gsu.train_regression)
CREATE TEMP TABLE reg_models AS
SELECT gsu.train_regression(mean, variance, label + 0.5 * mean[1], '{"lambda": 0.1}') AS m,
	gsu.train_regression(mean, variance, label + 0.5 * mean[1]) AS m_default,
	gsu.train_regression(mean, iso, label + 0.5 * mean[1], '{"loss": "squared"}') AS m_iso,
	gsu.train_regression(mean, iso, label + 0.5 * mean[1]) AS m_iso_default,
	gsu.train_regression(mean, variance, label + 0.5 * mean[1], weight, '{"lambda": 0.1}') AS m_weighted
FROM pts;
SELECT gsu.describe(m)->>'task' AS task, gsu.describe(m_iso)->>'loss' AS iso_loss,
	gsu.describe(m_weighted)->'training'->>'rows' AS weighted_rows
FROM reg_models;
SELECT round(gsu.rmse(p.prediction, label + 0.5 * mean[1])::numeric, 2) < 1 AS rmse_small,
	gsu.mae(p.prediction, label + 0.5 * mean[1]) IS NOT NULL AS mae,
	gsu.r2(p.prediction, label + 0.5 * mean[1]) > 0 AS r2_positive,
	gsu.nlpd(p.prediction, p.sd + 0.1, label + 0.5 * mean[1]) IS NOT NULL AS nlpd
FROM pts, reg_models, LATERAL gsu.predictive(m, mean, variance) p;
-- out of core: gsu.fit with a regression loss, and its scan's aggregate
SELECT gsu.describe(gsu.fit('pts', 'mean', 'variance', 'label', '{"loss": "squared"}'))->>'task' AS fit_task,
	gsu.describe(gsu.fit('pts', 'mean', 'variance', 'label', 'weight', '{"loss": "epsilon_insensitive"}'))->>'loss' AS fit_loss,
	(SELECT (gsu.regression_hessian(mean, variance, label + 0.5 * mean[1], m, 0))::text IS NOT NULL FROM pts) AS regression_hessian,
	(SELECT (gsu.regression_hessian(mean, variance, label + 0.5 * mean[1], weight, m, 0))::text IS NOT NULL FROM pts) AS weighted_regression_hessian,
	(SELECT (gsu.regression_gradient(mean, variance, label + 0.5 * mean[1], m, 0))::text IS NOT NULL FROM pts) AS regression_gradient,
	(SELECT (gsu.regression_gradient(mean, variance, label + 0.5 * mean[1], weight, m, 0))::text IS NOT NULL FROM pts) AS weighted_regression_gradient
FROM reg_models;
-- streaming: the solver sgd, and the aggregates whose state is a gsu.partial
SELECT gsu.describe(gsu.train_regression(mean, variance, label + 0.5 * mean[1], '{"solver": "sgd", "lambda": 0.1}'))->'hyperparameters'->>'solver' AS sgd_solver,
	cardinality(gsu.weights(gsu.train_regression_sgd(mean, variance, label + 0.5 * mean[1], '{"lambda": 0.1}'))) AS regression_sgd_weights
FROM pts;
SELECT gsu.describe(gsu.to_model(gsu.sum(p)))->>'task' AS summed_regression_sgd
FROM (SELECT gsu.regression_sgd_partial(mean, variance, label + 0.5 * mean[1], '{"lambda": 0.1}') AS p FROM pts GROUP BY id % 2) q;

-- ------------------------------------------------------------ every public function called above
RESET client_min_messages;
CREATE TEMP TABLE called (fn regprocedure);
INSERT INTO called VALUES
	('gsu.average_precision(float8, bool)'), ('gsu.average_precision(float8, int4)'),
	('gsu.bias(gsu.model, int4, text)'),
	('gsu.calibrate(gsu.model, float8[], int4)'),
	('gsu.classes(gsu.model)'),
	('gsu.confidence(gsu.model, float8[], float8[])'),
	('gsu.confusion(bool, bool)'), ('gsu.confusion(int4, int4)'),
	('gsu.cross_validate(regclass, text, text, text, float8[], int4, int4, jsonb, text, text)'),
	('gsu.cross_validate(regclass, text, text, text, jsonb, int4, int4, jsonb, text, text)'),
	('gsu.cross_validate(regclass, text, text, text, text, int4, int4, jsonb, text, text)'),
	('gsu.decision(gsu.model, float8[])'), ('gsu.decisions(gsu.model, float8[])'),
	('gsu.describe(gsu.model)'), ('gsu.describe_projection(gsu.projection)'), ('gsu.describe_refset(gsu.refset)'),
	('gsu.eigenvalues(gsu.projection)'),
	('gsu.expected_loss(gsu.model, float8[], float8[], int4)'),
	('gsu.explain(gsu.model, float8[], float8[])'),
	('gsu.fisher_score(float8[], bool)'), ('gsu.fisher_score(float8[], bool, jsonb)'),
	('gsu.fisher_score(float8[], int4)'), ('gsu.fisher_score(float8[], int4, jsonb)'),
	('gsu.fit(regclass, text, text, text, jsonb)'), ('gsu.fit(regclass, text, text, text, text, jsonb)'),
	('gsu.geu_fit(float8[], float8[], int4)'), ('gsu.geu_fit(float8[], float8[], int4, jsonb)'),
	('gsu.gradient(float8[], float8[], int4, gsu.model, float8)'),
	('gsu.gradient(float8[], float8[], int4, float8, gsu.model, float8)'),
	('gsu.hessian(float8[], float8[], int4, gsu.model, float8, float8)'),
	('gsu.hessian(float8[], float8[], int4, float8, gsu.model, float8, float8)'),
	('gsu.image_covariance(float8[], float8)'), ('gsu.image_covariance(float8[], int4, int4, float8)'),
	('gsu.image_covariance_factor(float8[], float8)'), ('gsu.image_covariance_factor(float8[], int4, int4, float8)'),
	('gsu.image_variance(float8[], float8)'), ('gsu.image_variance(float8[], int4, int4, float8)'),
	('gsu.knn_predict(gsu.refset, float8[], int4)'),
	('gsu.lambda_list(text)'),
	('gsu.log_loss(float8, bool)'), ('gsu.log_loss(float8, int4)'),
	('gsu.mae(float8, float8)'),
	('gsu.mcnemar(int4, int4, int4)'),
	('gsu.missing_moments(float8[], float8[])'), ('gsu.missing_moments(float8[], float8[], jsonb)'),
	('gsu.moments(float8[])'), ('gsu.moments(float8[], jsonb)'),
	('gsu.nlpd(float8, float8, float8)'),
	('gsu.nn_variance(gsu.refset, float8[], int4, float8, bool)'),
	('gsu.paired_ttest(float8, float8)'), ('gsu.paired_ttest(float8, float8, float8)'),
	('gsu.pr_curve(float8, bool)'), ('gsu.pr_curve(float8, int4)'),
	('gsu.predict(gsu.model, float8[])'), ('gsu.predictive(gsu.model, float8[], float8[])'),
	('gsu.probabilities(gsu.model, float8[])'), ('gsu.probability(gsu.model, float8[])'),
	('gsu.project(gsu.projection, float8[])'), ('gsu.project_covariance(gsu.projection, float8[])'),
	('gsu.project_variance(gsu.projection, float8[])'),
	('gsu.refset_agg(float8[])'), ('gsu.refset_agg(float8[], int4)'),
	('gsu.r2(float8, float8)'), ('gsu.rmse(float8, float8)'),
	('gsu.regression_gradient(float8[], float8[], float8, gsu.model, float8)'),
	('gsu.regression_gradient(float8[], float8[], float8, float8, gsu.model, float8)'),
	('gsu.regression_hessian(float8[], float8[], float8, gsu.model, float8)'),
	('gsu.regression_hessian(float8[], float8[], float8, float8, gsu.model, float8)'),
	('gsu.regression_sgd_partial(float8[], float8[], float8, jsonb)'),
	('gsu.roc_auc(float8, bool)'), ('gsu.roc_auc(float8, int4)'),
	('gsu.roc_curve(float8, bool)'), ('gsu.roc_curve(float8, int4)'),
	('gsu.sgd_partial(float8[], float8[], int4, jsonb)'),
	('gsu.sum(gsu.partial)'),
	('gsu.to_model(gsu.partial)'),
	('gsu.train(float8[], float8, int4)'), ('gsu.train(float8[], float8, int4, jsonb)'),
	('gsu.train(float8[], float8[], bool)'), ('gsu.train(float8[], float8[], bool, jsonb)'),
	('gsu.train(float8[], float8[], int4)'), ('gsu.train(float8[], float8[], int4, jsonb)'),
	('gsu.train(float8[], float8[], int4, float8, jsonb)'),
	('gsu.train_best(regclass, text, text, text, float8[], int4, int4, jsonb, text, text)'),
	('gsu.train_best(regclass, text, text, text, jsonb, int4, int4, jsonb, text, text)'),
	('gsu.train_best(regclass, text, text, text, text, int4, int4, jsonb, text, text)'),
	('gsu.train_regression(float8[], float8, float8)'), ('gsu.train_regression(float8[], float8, float8, jsonb)'),
	('gsu.train_regression(float8[], float8[], float8)'), ('gsu.train_regression(float8[], float8[], float8, jsonb)'),
	('gsu.train_regression(float8[], float8[], float8, float8, jsonb)'),
	('gsu.train_regression_sgd(float8[], float8[], float8, jsonb)'),
	('gsu.train_sgd(float8[], float8[], int4, jsonb)'),
	('gsu.training_info(gsu.model)'),
	('gsu.vectors(gsu.projection)'),
	('gsu.weights(gsu.model, int4, text)'),
	('gsu.welch(float8[], float8, jsonb)');
-- the public functions of gsu that this file does not call as the ordinary role:
-- none (a new function: call it above and add it to the list)
WITH support(fn) AS (
	SELECT aggtransfn FROM pg_aggregate UNION SELECT aggfinalfn FROM pg_aggregate
	UNION SELECT aggcombinefn FROM pg_aggregate UNION SELECT aggserialfn FROM pg_aggregate
	UNION SELECT aggdeserialfn FROM pg_aggregate UNION SELECT aggmtransfn FROM pg_aggregate
	UNION SELECT aggminvtransfn FROM pg_aggregate UNION SELECT aggmfinalfn FROM pg_aggregate
	UNION SELECT typinput FROM pg_type UNION SELECT typoutput FROM pg_type
	UNION SELECT typreceive FROM pg_type UNION SELECT typsend FROM pg_type
	UNION SELECT typmodin FROM pg_type UNION SELECT typmodout FROM pg_type
	UNION SELECT typanalyze FROM pg_type UNION SELECT typsubscript FROM pg_type
	UNION SELECT castfunc FROM pg_cast UNION SELECT oprcode FROM pg_operator
	UNION SELECT amproc FROM pg_amproc UNION SELECT prosupport FROM pg_proc)
SELECT p.oid::regprocedure AS not_called_as_ordinary_role
FROM pg_proc p
WHERE p.pronamespace = 'gsu'::regnamespace
  AND p.oid NOT IN (SELECT fn FROM support)
  AND p.oid NOT IN (SELECT fn FROM called)
ORDER BY 1::text;
-- and every function listed is one of gsu (a listed signature that does not exist fails the INSERT)
SELECT fn AS listed_but_not_in_gsu FROM called
WHERE fn NOT IN (SELECT p.oid FROM pg_proc p WHERE p.pronamespace = 'gsu'::regnamespace)
ORDER BY 1::text;

RESET ROLE;
DISCARD TEMP;
DROP ROLE regress_gsu_plain;
