-- Untyped parameters (issue 29): a client such as node-postgres sends every
-- parameter as text of unknown type, psycopg a str or None so. Each public
-- function that such a client calls with its values as parameters must resolve
-- to one function: one form per argument kind, defaults instead of competing
-- overloads. PREPARE without types is what those clients do.
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE TABLE ut_rows AS
SELECT i, ARRAY[sin(i), cos(i * 1.3)]::float8[] AS mean, ARRAY[0.1, 0.2]::float8[] AS variance,
	CASE WHEN sin(i) > cos(i * 1.3) THEN 1 ELSE -1 END AS label, i % 3 AS label3
FROM generate_series(1, 80) i;
CREATE TABLE ut_models AS
SELECT gsu.train(mean, variance, label, '{"lambda": 0.1}') AS m,
	gsu.train(mean, variance, label, '{"lambda": 0.1, "standardize": true}') AS s,
	gsu.train(mean, variance, label3, '{"lambda": 0.1}') AS multi,
	gsu.geu_fit(mean, variance, label) AS p,
	gsu.refset_agg(mean, label) AS r,
	gsu.train_regression(mean, variance, mean[1] - 2 * mean[2], '{"lambda": 0.1}') AS reg
FROM ut_rows;
RESET client_min_messages;
SELECT m::text AS m, s::text AS s, multi::text AS multi, p::text AS p, r::text AS r, reg::text AS reg FROM ut_models \gset

-- scoring: every argument untyped
PREPARE ut_decision AS SELECT round((gsu.decision($1, $2))::numeric, 6);
PREPARE ut_decisions AS SELECT (SELECT array_agg(round(x::numeric, 6)) FROM unnest(gsu.decisions($1, $2)) x);
PREPARE ut_predict AS SELECT gsu.predict($1, $2);
PREPARE ut_confidence AS SELECT round((gsu.confidence($1, $2, $3))::numeric, 6);
PREPARE ut_confidence2 AS SELECT round((gsu.confidence($1, $2))::numeric, 6);
PREPARE ut_expected_loss AS SELECT round((gsu.expected_loss($1, $2, $3, $4))::numeric, 6);
PREPARE ut_explain AS SELECT count(*), round((sum(contribution))::numeric, 6), round((sum(variance_share))::numeric, 6) FROM gsu.explain($1, $2, $3);
PREPARE ut_weights AS SELECT (SELECT array_agg(round(x::numeric, 6)) FROM unnest(gsu.weights($1, $2)) x);
PREPARE ut_weights_units AS SELECT (SELECT array_agg(round(x::numeric, 6)) FROM unnest(gsu.weights($1, $2, $3)) x);
PREPARE ut_bias AS SELECT round((gsu.bias($1, $2, $3))::numeric, 6);
PREPARE ut_describe AS SELECT gsu.describe($1)->>'loss';
PREPARE ut_classes AS SELECT gsu.classes($1);
PREPARE ut_project AS SELECT (SELECT array_agg(round(x::numeric, 6)) FROM unnest(gsu.project($1, $2)) x), (SELECT array_agg(round(x::numeric, 6)) FROM unnest(gsu.project_variance($1, $3)) x), gsu.project_covariance($1, $3) = ARRAY[gsu.project_variance($1, $3)] AS covariance_is_the_variance;
PREPARE ut_predictive AS SELECT round(prediction::numeric, 6), round(sd::numeric, 6) FROM gsu.predictive($1, $2, $3);
PREPARE ut_rmse AS SELECT round((gsu.rmse(gsu.decision($1, mean), mean[1] - 2 * mean[2]))::numeric, 6) FROM ut_rows;
PREPARE ut_knn AS SELECT gsu.knn_predict($1, $2, $3), (SELECT array_agg(round(x::numeric, 6)) FROM unnest(gsu.nn_variance($1, $2, $4, $5, $6)) x);
SELECT p.name, pg_catalog.array_to_string(p.parameter_types, ', ') AS resolved
FROM pg_prepared_statements p WHERE p.name LIKE 'ut\_%' ORDER BY 1;

-- the same answers as typed calls
EXECUTE ut_decision(:'m', '{0.5,-0.5}');
SELECT round((gsu.decision(m, '{0.5,-0.5}'))::numeric, 6) AS typed FROM ut_models;
EXECUTE ut_decisions(:'multi', '{0.5,-0.5}');
EXECUTE ut_predict(:'multi', '{0.5,-0.5}');
-- the variance as a diagonal, one element (isotropic), NULL (certain), left out
EXECUTE ut_confidence(:'m', '{0.5,-0.5}', '{0.1,0.1}');
EXECUTE ut_confidence(:'m', '{0.5,-0.5}', '{0.1}');
EXECUTE ut_confidence(:'m', '{0.5,-0.5}', NULL);
EXECUTE ut_confidence2(:'m', '{0.5,-0.5}');
EXECUTE ut_confidence(:'m', '{0.5,-0.5}', '{{0.1,0},{0,0.1}}');
EXECUTE ut_expected_loss(:'m', '{0.5,-0.5}', '{0.3}', '1');
EXECUTE ut_expected_loss(:'m', '{0.5,-0.5}', NULL, -1);
EXECUTE ut_explain(:'m', '{0.5,-0.5}', '{0.2}');
EXECUTE ut_explain(:'m', '{0.5,-0.5}', NULL);
-- gsu.weights(model, $1) with 1 is the class, not units
EXECUTE ut_weights(:'m', '1');
EXECUTE ut_weights(:'m', NULL);
EXECUTE ut_weights(:'multi', 2);
EXECUTE ut_weights_units(:'s', NULL, 'original');
SELECT (SELECT array_agg(round(x::numeric, 6)) FROM unnest(gsu.weights(s, units => 'original')) x) AS typed FROM ut_models;
EXECUTE ut_bias(:'m', '-1', NULL);
EXECUTE ut_bias(:'s', NULL, 'original');
EXECUTE ut_describe(:'m');
EXECUTE ut_classes(:'multi');
EXECUTE ut_project(:'p', '{1,2}', '{0.5}');
EXECUTE ut_project(:'p', '{1,2}', NULL);
EXECUTE ut_knn(:'r', '{0.2,0.3}', '3', '1', '0.5', 'true');
-- a regression model: the prediction and its sd, and a metric over the rows
EXECUTE ut_predictive(:'reg', '{0.5,-0.5}', '{0.1,0.2}');
EXECUTE ut_predictive(:'reg', '{0.5,-0.5}', NULL);
SELECT round(prediction::numeric, 6) AS typed_prediction, round(sd::numeric, 6) AS typed_sd
FROM ut_models, gsu.predictive(reg, '{0.5,-0.5}', '{0.1,0.2}');
EXECUTE ut_rmse(:'reg');

-- aggregates with untyped options: the options resolve
PREPARE ut_train AS SELECT gsu.train(mean, variance, label, $1) IS NOT NULL FROM ut_rows;
EXECUTE ut_train('{"lambda": 0.5}');
EXECUTE ut_train('{"loss": "robust", "feature_bound": "couellan_jan", "gamma": 0.1, "features": {"map": "rff", "dim": 10, "sigma": 2, "seed": 1}}');
PREPARE ut_train_regression AS SELECT round((gsu.weights(gsu.train_regression(mean, variance, mean[1] - 2 * mean[2], $1)))[1]::numeric, 6) FROM ut_rows;
EXECUTE ut_train_regression('{"lambda": 0.1}');
SELECT round((gsu.weights(reg))[1]::numeric, 6) AS typed FROM ut_models;
PREPARE ut_cv AS SELECT count(*) FROM gsu.cross_validate('ut_rows', 'mean', 'variance', 'label', $1);
SET client_min_messages = warning;
EXECUTE ut_cv('{0.1, 1}');
RESET client_min_messages;
-- an untyped grid: refused, with a hint that names the cast
EXECUTE ut_cv('{"lambda": [0.1, 1], "loss": ["gsu", "hinge"]}');

-- the forms that are gone, and what replaces them: a float8 variance and a
-- positional units argument
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', 0.3::float8) FROM ut_models$$);
SELECT test_error($$SELECT gsu.weights(s, 'original') FROM ut_models$$);
SELECT gsu.confidence(m, '{1,2}', ARRAY[0.3]) = gsu.confidence(m, '{1,2}', '{0.3,0.3}') AS one_element_is_isotropic
FROM ut_models;
-- a one-element variance is a NULL-free, finite, non-negative number
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', '{-1}') FROM ut_models$$);
SELECT test_error($$SELECT gsu.confidence(m, '{1,2}', ARRAY[NULL]::float8[]) FROM ut_models$$);
SELECT test_error($$SELECT gsu.project_variance(p, '{-1}') FROM ut_models$$);
DEALLOCATE ALL;
DROP TABLE ut_rows, ut_models;
