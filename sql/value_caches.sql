-- Caches keyed on values, never on addresses (issue 27, part 1). A scoring
-- function keeps a standardized model's folded form, an aggregate what it
-- parsed from its options or model; a PL/pgSQL variable, a cast of a constant
-- or a loop brings a new value to the address of an old one, so every cache
-- must compare the value itself. Each case scores several distinct values
-- through one call site and compares with the direct call.
\set SHOW_CONTEXT never
SET client_min_messages = notice;

CREATE TABLE vc_rows AS
SELECT g, i, ARRAY[x, y]::float8[] AS mean, ARRAY[0.1, 0.2]::float8[] AS variance,
	CASE WHEN x + y * g > 0.5 * g THEN 1 ELSE -1 END AS label
FROM generate_series(1, 3) g, generate_series(1, 60) i,
	LATERAL (SELECT 3 * sin(i * 7.1 + g) AS x, 2 * cos(i * 3.3 * g) AS y) s;
-- one standardized model per group (the folded form is cached), and a plain one
CREATE TABLE vc_models AS
SELECT g, gsu.train(mean, variance, label, '{"lambda": 0.01, "standardize": true}') AS m,
	gsu.train(mean, variance, label, '{"lambda": 0.01}') AS plain
FROM vc_rows GROUP BY g;
-- the three models differ
SELECT count(DISTINCT round(gsu.decision(m, '{1,2}')::numeric, 6)) AS distinct_decisions FROM vc_models;

-- PL/pgSQL wrappers: the expression gsu.f(m, ...) is evaluated with a state
-- that lives across calls, with the parameter m changing from call to call
CREATE FUNCTION vc_decision(m gsu.model, x float8[]) RETURNS float8 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.decision(m, x); END $$;
CREATE FUNCTION vc_decisions(m gsu.model, x float8[]) RETURNS float8[] LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.decisions(m, x); END $$;
CREATE FUNCTION vc_predict(m gsu.model, x float8[]) RETURNS int4 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.predict(m, x); END $$;
CREATE FUNCTION vc_confidence(m gsu.model, x float8[], v float8[]) RETURNS float8 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.confidence(m, x, v); END $$;
CREATE FUNCTION vc_confidence_iso(m gsu.model, x float8[], v float8) RETURNS float8 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.confidence(m, x, ARRAY[v]); END $$;
CREATE FUNCTION vc_expected_loss(m gsu.model, x float8[], v float8[], y int4) RETURNS float8 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.expected_loss(m, x, v, y); END $$;
CREATE FUNCTION vc_expected_loss_iso(m gsu.model, x float8[], v float8, y int4) RETURNS float8 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.expected_loss(m, x, ARRAY[v], y); END $$;
CREATE FUNCTION vc_explain(m gsu.model, x float8[]) RETURNS float8 LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT sum(contribution) FROM gsu.explain(m, x)); END $$;
-- the same through a text round trip (a new value at a freed address), and a SQL function
CREATE FUNCTION vc_decision_text(m gsu.model, x float8[]) RETURNS float8 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.decision(m::text::gsu.model, x); END $$;
CREATE FUNCTION vc_decision_sql(m gsu.model, x float8[]) RETURNS float8 LANGUAGE sql AS
$$ SELECT gsu.decision(m, x) $$;

SELECT g,
	vc_decision(m, '{1,2}') = gsu.decision(m, '{1,2}') AS decision,
	vc_decisions(m, '{1,2}') = gsu.decisions(m, '{1,2}') AS decisions,
	vc_predict(m, '{1,2}') = gsu.predict(m, '{1,2}') AS predict,
	vc_confidence(m, '{1,2}', '{0.5,0.5}'::float8[]) = gsu.confidence(m, '{1,2}', '{0.5,0.5}'::float8[]) AS confidence,
	vc_confidence_iso(m, '{1,2}', 0.5) = gsu.confidence(m, '{1,2}', ARRAY[0.5]::float8[]) AS confidence_iso,
	vc_expected_loss(m, '{1,2}', '{0.5,0.5}'::float8[], 1) = gsu.expected_loss(m, '{1,2}', '{0.5,0.5}'::float8[], 1) AS expected_loss,
	vc_expected_loss_iso(m, '{1,2}', 0.5, -1) = gsu.expected_loss(m, '{1,2}', ARRAY[0.5]::float8[], -1) AS expected_loss_iso,
	abs(vc_explain(m, '{1,2}') - gsu.decision(m, '{1,2}')) < 1e-9 AS explain,
	vc_decision_text(m, '{1,2}') = gsu.decision(m, '{1,2}') AS via_text,
	vc_decision_sql(m, '{1,2}') = gsu.decision(m, '{1,2}') AS via_sql
FROM vc_models ORDER BY g;
-- a value made by the calling query (a text round trip) lands where the last one was freed
SELECT g, vc_decision(m::text::gsu.model, '{1,2}') = gsu.decision(m, '{1,2}') AS decision,
	vc_confidence(m::text::gsu.model, '{1,2}', '{0.5,0.5}') = gsu.confidence(m, '{1,2}', '{0.5,0.5}'::float8[]) AS confidence,
	vc_predict((m::text || '')::gsu.model, '{-1,2}') = gsu.predict(m, '{-1,2}') AS predict
FROM vc_models ORDER BY g;

-- alternating models through one wrapper, in both orders, and plain with
-- standardized models mixed
SELECT bool_and(vc_decision(m, x) = gsu.decision(m, x)) AS alternating
FROM (SELECT CASE WHEN i % 2 = 0 THEN a.m ELSE b.m END AS m, ARRAY[i * 0.1, -i * 0.2]::float8[] AS x
	  FROM generate_series(1, 20) i, vc_models a, vc_models b WHERE a.g = 1 AND b.g = 3) s;
SELECT bool_and(vc_decision(m, '{1,2}') = gsu.decision(m, '{1,2}')) AS mixed
FROM (SELECT m FROM vc_models UNION ALL SELECT plain FROM vc_models UNION ALL SELECT m FROM vc_models) s;

-- a DO loop with a variable assigned from a text cast on every pass
DO $$
DECLARE
	r record;
	mm gsu.model;
	bad int := 0;
BEGIN
	FOR r IN SELECT g, m FROM vc_models ORDER BY g, g LOOP
		mm := r.m::text::gsu.model;
		IF gsu.decision(mm, '{1,2}') <> gsu.decision(r.m, '{1,2}')
			OR gsu.confidence(mm, '{1,2}', '{0.3,0.3}'::float8[]) <> gsu.confidence(r.m, '{1,2}', '{0.3,0.3}'::float8[]) THEN
			bad := bad + 1;
		END IF;
	END LOOP;
	RAISE NOTICE 'DO loop: % stale answers', bad;
END $$;

-- a prepared statement whose parameter is the model
PREPARE vc_score(gsu.model) AS SELECT gsu.decision($1, '{1,2}');
DO $$
DECLARE
	r record;
	d float8;
	bad int := 0;
BEGIN
	FOR r IN SELECT g, m FROM vc_models ORDER BY g LOOP
		EXECUTE format('EXECUTE vc_score(%L)', r.m::text) INTO d;
		IF d <> gsu.decision(r.m, '{1,2}') THEN
			bad := bad + 1;
		END IF;
	END LOOP;
	RAISE NOTICE 'prepared statement: % stale answers', bad;
END $$;
DEALLOCATE vc_score;

-- calibrated models (gsu.probability, gsu.probabilities) through a wrapper
CREATE TABLE vc_calibrated AS
SELECT r.g, gsu.calibrate(m.m, r.mean, r.label ORDER BY r.i) AS c
FROM vc_rows r JOIN vc_models m USING (g) GROUP BY r.g;
CREATE FUNCTION vc_probability(m gsu.model, x float8[]) RETURNS float8 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.probability(m, x); END $$;
CREATE FUNCTION vc_probabilities(m gsu.model, x float8[]) RETURNS float8[] LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.probabilities(m, x); END $$;
SELECT g, vc_probability(c, '{1,2}') = gsu.probability(c, '{1,2}') AS probability,
	vc_probabilities(c, '{1,2}') = gsu.probabilities(c, '{1,2}') AS probabilities
FROM vc_calibrated ORDER BY g;

-- aggregates whose argument comes from a PL/pgSQL variable that changes
-- between executions: gsu.calibrate's model, gsu.gradient's point, the options
-- of gsu.train_sgd and gsu.moments
CREATE FUNCTION vc_calibrate(m gsu.model, grp int) RETURNS gsu.model LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT gsu.calibrate(m, mean, label ORDER BY i) FROM vc_rows WHERE g = grp); END $$;
SELECT g, vc_calibrate(m, g)::text = c::text AS calibrate
FROM vc_models JOIN vc_calibrated USING (g) ORDER BY g;
CREATE FUNCTION vc_gradient(m gsu.model, grp int) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT gsu.gradient(mean, variance, label, m, 0.0)::text FROM vc_rows WHERE g = grp); END $$;
SELECT g, vc_gradient(plain, 1) = (SELECT gsu.gradient(mean, variance, label, vc_models.plain, 0.0)::text FROM vc_rows WHERE g = 1) AS gradient
FROM vc_models ORDER BY g;
CREATE FUNCTION vc_moments(o jsonb) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT gsu.moments(mean, o)::text FROM vc_rows WHERE g = 1); END $$;
SELECT o, vc_moments(o) = (SELECT gsu.moments(mean, o)::text FROM vc_rows WHERE g = 1) AS moments
FROM (VALUES ('{"estimator": "sample"}'::jsonb), ('{"estimator": "population"}'), ('{"covariance": "full"}')) v(o);

-- an options argument that changes from row to row is refused, whatever its form
SELECT test_error($$SELECT gsu.moments(mean, CASE WHEN i < 30 THEN '{"estimator": "sample"}'::jsonb ELSE '{"estimator": "population"}' END) FROM vc_rows WHERE g = 1$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, CASE WHEN i < 30 THEN '{"lambda": 0.1}'::jsonb ELSE '{"lambda": 0.2}' END) FROM vc_rows WHERE g = 1$$);
-- ... and the same value in another form is accepted (equal jsonb, other bytes)
SELECT gsu.train(mean, variance, label, CASE WHEN i < 30 THEN '{"lambda": 0.1}'::jsonb ELSE '{"lambda": 0.10}' END) IS NOT NULL AS same_value
FROM vc_rows WHERE g = 1;
SELECT test_error($$SELECT gsu.calibrate(CASE WHEN i < 30 THEN a.m ELSE b.m END, r.mean, r.label) FROM vc_rows r, vc_models a, vc_models b WHERE r.g = 1 AND a.g = 1 AND b.g = 2$$);

-- GEU values through wrappers: reference sets of a few kB (stored out of line)
-- and projections
CREATE TABLE vc_refsets AS
SELECT g, gsu.refset_agg(ARRAY[mean[1], mean[2], i * 0.01, g * 0.1], label ORDER BY i) AS r
FROM vc_rows, generate_series(1, 5) rep GROUP BY g;
SELECT g, gsu.describe_refset(r)->'rows' AS rows FROM vc_refsets ORDER BY g;
CREATE FUNCTION vc_knn(r gsu.refset, x float8[]) RETURNS int4 LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.knn_predict(r, x, 3); END $$;
CREATE FUNCTION vc_nn_variance(r gsu.refset, x float8[]) RETURNS float8[] LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.nn_variance(r, x, 1, 1.0, true); END $$;
SELECT bool_and(vc_knn(r, x) = gsu.knn_predict(r, x, 3)) AS knn,
	bool_and(vc_nn_variance(r, x) = gsu.nn_variance(r, x, 1, 1.0, true)) AS nn_variance,
	count(DISTINCT gsu.nn_variance(r, x, 1, 1.0, true)) AS distinct_variances
FROM vc_refsets, (VALUES ('{1,1,0.1,0.1}'::float8[]), ('{-2,0.5,0.3,0.2}')) v(x);
CREATE TABLE vc_projections AS
SELECT g, gsu.geu_fit(mean, variance, label) AS p FROM vc_rows GROUP BY g;
CREATE FUNCTION vc_project(p gsu.projection, x float8[]) RETURNS float8[] LANGUAGE plpgsql AS
$$ BEGIN RETURN gsu.project(p, x); END $$;
SELECT bool_and(vc_project(p, '{1,2}') = gsu.project(p, '{1,2}')) AS project,
	count(DISTINCT gsu.project(p, '{1,2}')) AS distinct_projections
FROM vc_projections;

-- regression models (standardized: the folded form is cached) through PL/pgSQL
-- wrappers: gsu.predictive, gsu.decision, and gsu.train_regression whose options
-- come from a variable; three groups' models through one call site
CREATE TABLE vc_regression AS
SELECT g, gsu.train_regression(mean, variance, mean[1] * g - mean[2], '{"lambda": 0.01, "standardize": true}') AS m
FROM vc_rows GROUP BY g;
CREATE FUNCTION vc_predictive(m gsu.model, x float8[], v float8[]) RETURNS text LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT p::text FROM gsu.predictive(m, x, v) p); END $$;
CREATE FUNCTION vc_train_regression(o jsonb, grp int) RETURNS gsu.model LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT gsu.train_regression(mean, variance, mean[1] * grp - mean[2], o) FROM vc_rows WHERE g = grp); END $$;
SELECT g, vc_predictive(m, '{1,2}', '{0.5,0.5}') = (SELECT p::text FROM gsu.predictive(m, '{1,2}', '{0.5,0.5}') p) AS predictive,
	vc_decision(m, '{1,2}') = gsu.decision(m, '{1,2}') AS decision,
	gsu.weights(vc_train_regression('{"lambda": 0.01, "standardize": true}', g)) = gsu.weights(m) AS train_regression,
	gsu.weights(vc_train_regression(o, g))
		= (SELECT gsu.weights(gsu.train_regression(mean, variance, mean[1] * g - mean[2], o)) FROM vc_rows r WHERE r.g = vc_regression.g) AS options_from_a_variable
FROM vc_regression, (VALUES ('{"loss": "squared", "lambda": 0.1}'::jsonb)) v(o) ORDER BY g;
SELECT count(DISTINCT vc_predictive(m, '{1,2}', '{0.5,0.5}')) AS distinct_predictions FROM vc_regression;

-- models of "missing" (their feature moments differ per group, and a NULL element reads as
-- them) through the wrappers; and gsu.train_sgd's moments from a variable, one value per call
CREATE TABLE vc_missing AS
SELECT g, gsu.train(ARRAY[CASE WHEN i % 4 = 0 THEN NULL ELSE mean[1] END, mean[2]], variance, label,
	'{"lambda": 0.01, "missing": "feature_moments"}') AS m
FROM vc_rows GROUP BY g;
SELECT g, vc_decision(m, '{NULL,2}') = gsu.decision(m, '{NULL,2}') AS decision,
	vc_confidence(m, '{NULL,2}', '{NULL,0.5}') = gsu.confidence(m, '{NULL,2}', '{NULL,0.5}'::float8[]) AS confidence,
	vc_decision(m, '{NULL,2}') <> vc_decision(m, '{0,2}') AS reads_the_moments
FROM vc_missing ORDER BY g;
SELECT count(DISTINCT vc_decision(m, '{NULL,2}')) AS distinct_decisions FROM vc_missing;
CREATE FUNCTION vc_train_sgd(o jsonb) RETURNS float8[] LANGUAGE plpgsql AS
$$ BEGIN RETURN (SELECT gsu.weights(gsu.train_sgd(ARRAY[CASE WHEN i % 4 = 0 THEN NULL ELSE mean[1] END, mean[2]],
	variance, label, o ORDER BY i)) FROM vc_rows WHERE g = 1); END $$;
CREATE TABLE vc_sgd AS
SELECT mu, vc_train_sgd(o) AS wrapped,
	(SELECT gsu.weights(gsu.train_sgd(ARRAY[CASE WHEN i % 4 = 0 THEN mu ELSE mean[1] END, mean[2]],
			ARRAY[variance[1] + CASE WHEN i % 4 = 0 THEN 1 ELSE 0 END, variance[2]], label, '{}' ORDER BY i))
	 FROM vc_rows WHERE g = 1) AS filled_by_hand
FROM (VALUES (0.0, '{"missing": "feature_moments", "missing_mean": [0, 0], "missing_variance": [1, 0]}'::jsonb),
			 (2.0, '{"missing": "feature_moments", "missing_mean": [2, 0], "missing_variance": [1, 0]}')) v(mu, o);
SELECT mu, wrapped = filled_by_hand AS same FROM vc_sgd ORDER BY mu;
SELECT count(DISTINCT wrapped) AS distinct_models FROM vc_sgd;
