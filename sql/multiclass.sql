-- Multi-class: labels of any int4 value.  Two classes train one hyperplane
-- (the second class positive); more train one-vs-rest models inside one
-- gsu.model.
SET extra_float_digits = 0;

-- three Gaussian blobs in the plane, labels 3, 5 and 9, with per-row variances
CREATE TABLE blobs AS
SELECT i,
       ARRAY[c[1] + 0.6 * pnorm(i, 1), c[2] + 0.6 * pnorm(i, 2)] AS mean,
       ARRAY[0.05 + 0.1 * prand(i, 3), 0.05 + 0.1 * prand(i, 4)] AS variance,
       label
FROM generate_series(1, 300) i,
     LATERAL (SELECT (ARRAY[3, 5, 9])[1 + i % 3] AS label) l,
     LATERAL (SELECT CASE l.label WHEN 3 THEN ARRAY[0.0, 2.0] WHEN 5 THEN ARRAY[2.0, -1.0]
                                  ELSE ARRAY[-2.0, -1.0] END AS c) cc;
CREATE TABLE mc AS SELECT gsu.train(mean, variance, label, '{"lambda": 0.01}') AS m FROM blobs;

SELECT gsu.classes(m) AS classes,
       gsu.describe(m)->'classes' AS described,
       gsu.describe(m)->'training'->'rows' AS rows,
       gsu.describe(m)->'training'->'converged' AS converged,
       jsonb_array_length(gsu.describe(m)->'bias') AS biases,
       array_dims(gsu.weights(m)) AS weight_dims
FROM mc;
-- accuracy on the training blobs, and predictions are class labels
SELECT avg((gsu.predict(m, mean) = label)::int) > 0.95 AS accurate,
       array_agg(DISTINCT gsu.predict(m, mean) ORDER BY gsu.predict(m, mean)) AS predicted
FROM mc, blobs;
-- the predicted class is the one of the largest one-vs-rest decision value
SELECT bool_and(gsu.predict(m, mean) = (gsu.classes(m))[(SELECT k FROM unnest(gsu.decisions(m, mean)) WITH ORDINALITY AS u(f, k) ORDER BY f DESC, k LIMIT 1)]) AS argmax,
       bool_and(cardinality(gsu.decisions(m, mean)) = 3) AS three
FROM mc, blobs;
-- gsu.weights(model, class) is the class's row of gsu.weights(model)
SELECT gsu.weights(m, 5) = ARRAY[(gsu.weights(m))[2][1], (gsu.weights(m))[2][2]] AS row_two,
       (gsu.decisions(m, ARRAY[0.0, 0.0]))[3] = gsu.bias(m, 9) AS bias_nine
FROM mc;
-- each one-vs-rest problem equals a two-class training on its own ±1 labels
SELECT max(abs(a - b)) < 1e-6 AS same_as_binary
FROM mc, (SELECT gsu.train(mean, variance, CASE WHEN label = 5 THEN 1 ELSE -1 END, '{"lambda": 0.01}') AS b5 FROM blobs) b,
     LATERAL unnest(gsu.weights(m, 5) || gsu.bias(m, 5), gsu.weights(b5) || gsu.bias(b5)) AS u(a, b);
-- uncertainty-aware scores
SELECT bool_and(gsu.confidence(m, mean, variance) BETWEEN 0 AND 1) AS confidence_in_range,
       bool_and(gsu.expected_loss(m, mean, variance, label) >= 0) AS loss_nonnegative,
       avg(gsu.expected_loss(m, mean, variance, label)) < avg(gsu.expected_loss(m, mean, variance, CASE label WHEN 3 THEN 5 WHEN 5 THEN 9 ELSE 3 END)) AS true_label_cheaper
FROM mc, blobs;
-- calibration: one sigmoid per class; probabilities sum to 1 and favour the true class
CREATE TABLE mc_cal AS SELECT gsu.calibrate(m, mean, label) AS m FROM mc, blobs;
SELECT jsonb_array_length(gsu.describe(m)->'calibration'->'a') AS sigmoids FROM mc_cal;
SELECT bool_and(abs((SELECT sum(p) FROM unnest(gsu.probabilities(m, mean)) p) - 1) < 1e-12) AS sums_to_one,
       avg((gsu.probabilities(m, mean))[array_position(gsu.classes(m), label)]) > 0.8 AS true_class_likely
FROM mc_cal, blobs;
-- round trips: text, jsonb and binary
SELECT m::text::gsu.model::text = m::text AS text_trip,
       (m::jsonb)::gsu.model::text = m::text AS jsonb_trip
FROM mc_cal;
CREATE TABLE mc_copy (m gsu.model);
SELECT regress_file('multiclass') AS regress_file \gset
COPY (SELECT m FROM mc_cal) TO :'regress_file' (FORMAT binary);
COPY mc_copy FROM :'regress_file' (FORMAT binary);
SELECT c.m::text = o.m::text AS binary_trip FROM mc_copy c, mc_cal o;
-- warm start from a model of the same classes
SELECT gsu.classes(gsu.train(mean, variance, label, jsonb_build_object('lambda', 0.01, 'init', m::jsonb))) AS warm
FROM mc, blobs GROUP BY m::text;

-- two classes of any labels: one hyperplane, the second class positive
CREATE TABLE two AS SELECT gsu.train(mean, variance, CASE WHEN label = 3 THEN 0 ELSE 7 END, '{"lambda": 0.01}') AS m FROM blobs;
SELECT gsu.classes(m) AS classes, jsonb_typeof(gsu.describe(m)->'bias') AS bias_kind,
       gsu.weights(m, 7) = gsu.weights(m) AS positive_side,
       gsu.weights(m, 0) = ARRAY[-(gsu.weights(m))[1], -(gsu.weights(m))[2]] AS negative_side,
       gsu.bias(m, 0) = -gsu.bias(m) AS negative_bias
FROM two;
SELECT bool_and(gsu.decisions(m, mean) = ARRAY[-gsu.decision(m, mean), gsu.decision(m, mean)]) AS decisions,
       bool_and(gsu.predict(m, mean) = CASE WHEN gsu.decision(m, mean) >= 0 THEN 7 ELSE 0 END) AS predict,
       avg((gsu.predict(m, mean) = CASE WHEN label = 3 THEN 0 ELSE 7 END)::int) > 0.95 AS accurate
FROM two, blobs;
-- the same problem with labels -1/1 gives the same hyperplane
SELECT gsu.weights(m) = gsu.weights(pm) AND gsu.bias(m) = gsu.bias(pm) AS same_hyperplane
FROM two, (SELECT gsu.train(mean, variance, CASE WHEN label = 3 THEN -1 ELSE 1 END, '{"lambda": 0.01}') AS pm FROM blobs) p;
-- cross-validation with accuracy works for any labels
SELECT fold_count, metric_mean > 0.9 AS accurate
FROM gsu.cross_validate('blobs', 'mean', 'variance', 'label', ARRAY[0.01], 3, 1, '{}', 'accuracy');

-- errors
SELECT test_error($$SELECT gsu.decision(m, ARRAY[0.0, 0.0]) FROM mc$$);
SELECT test_error($$SELECT gsu.bias(m) FROM mc$$);
SELECT test_error($$SELECT gsu.probability(m, ARRAY[0.0, 0.0]) FROM mc_cal$$);
SELECT test_error($$SELECT gsu.probabilities(m, ARRAY[0.0, 0.0]) FROM mc$$);
SELECT test_error($$SELECT gsu.weights(m, 4) FROM mc$$);
SELECT test_error($$SELECT gsu.bias(m, 4) FROM mc$$);
SELECT test_error($$SELECT gsu.expected_loss(m, ARRAY[0.0, 0.0], ARRAY[1.0, 1.0], 4) FROM mc$$);
SELECT test_error($$SELECT gsu.decisions(m, ARRAY[0.0]) FROM mc$$);
SELECT test_error($$SELECT gsu.calibrate(m, mean, label) FROM mc, blobs WHERE label <> 9$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"solver": "sgd"}') FROM blobs$$);
SELECT test_error($$SELECT gsu.train(mean, variance, CASE WHEN label = 3 THEN 1 ELSE -1 END, jsonb_build_object('solver', 'sgd', 'init', m::jsonb)) FROM mc, blobs$$);
SELECT test_error($$SELECT gsu.train(mean, variance, CASE WHEN label = 3 THEN 1 ELSE 2 END, jsonb_build_object('init', m::jsonb)) FROM mc, blobs$$);
SELECT test_error($$SELECT gsu.train_sgd(mean, variance, CASE WHEN label = 3 THEN 1 ELSE -1 END, jsonb_build_object('init', m::jsonb)) FROM two, blobs$$);
SELECT test_error($$SELECT gsu.gradient(mean, variance, CASE WHEN label = 3 THEN 1 ELSE -1 END, m, 0) FROM two, blobs$$);
SELECT test_error($$SELECT gsu.train(mean, variance, 4, '{}') FROM blobs$$);
-- hand-written values: one weight array per class, one bias per class
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1, 2, 3], "weights": [1, 2, 3], "bias": [0, 0, 0]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1, 2, 3], "weights": [[1], [2]], "bias": [0, 0, 0]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1, 2, 3], "weights": [[1], [2, 3], [3]], "bias": [0, 0, 0]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1, 2, 3], "weights": [[1], [2], [3]], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [3, 2, 1], "weights": [[1], [2], [3]], "bias": [0, 0, 0]}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1], "weights": [1], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1, 2.5], "weights": [1], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1, 2], "class_weight": [1], "weights": [1], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1, 2], "class_weight": [1, -1], "weights": [1], "bias": 0}'::gsu.model$$);
SELECT test_error($$SELECT '{"format": 2, "dim": 1, "classes": [1, 2, 3], "weights": [[1], [2], [3]], "bias": [0, 0, 0], "calibration": {"a": 1, "b": 0}}'::gsu.model$$);
SELECT gsu.predict('{"format": 2, "dim": 1, "classes": [1, 2, 3], "weights": [[1], [0], [-1]], "bias": [0, 0.5, 0]}', ARRAY[x]) AS predicted
FROM unnest(ARRAY[-2.0, 0.0, 2.0]) x ORDER BY x;
-- ties go to the lowest class
SELECT gsu.predict('{"format": 2, "dim": 1, "classes": [1, 2, 3], "weights": [[0], [0], [0]], "bias": [0, 0, 0]}', ARRAY[1.0]) AS tie;
