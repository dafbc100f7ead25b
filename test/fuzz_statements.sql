-- Hostile statements for test/fuzz_statements.py: one statement per paragraph
-- (paragraphs are separated by blank lines). Each must either succeed or fail
-- with a specific SQLSTATE: never crash the server, never raise an internal
-- error (class XX) or "invalid memory alloc request size", never hit the
-- statement_timeout. fz_rt(v) checks that a produced gsu.model / gsu.partial /
-- gsu.projection / gsu.refset is accepted again by its text input and
-- round-trips (SQLSTATE FZ001 / FZ002 otherwise: a dump could not be restored).
-- Tables: pts (id, mean float8[3], variance float8[3], label ±1, label3 1..3),
-- m (a two-class model), mm (three classes), mr (RFF map), proj, ref.

-- ---------------------------------------------------------------- training input
SELECT fz_rt(gsu.train(mean, variance, label)) FROM pts;

SELECT gsu.train(ARRAY[1, 2]::float8[], ARRAY[0.1]::float8[], 1);

SELECT gsu.train(mean[1:2], variance, label) FROM pts;

SELECT gsu.train(ARRAY['NaN', 1]::float8[], NULL::float8[], 1);

SELECT gsu.train(ARRAY['Infinity', 1]::float8[], NULL::float8[], 1);

SELECT gsu.train(ARRAY['-Infinity', 1]::float8[], ARRAY[1, 1]::float8[], -1);

SELECT gsu.train(ARRAY[NULL, 1]::float8[], NULL::float8[], 1);

SELECT gsu.train(ARRAY[1, 1]::float8[], ARRAY[NULL, 1]::float8[], 1);

SELECT gsu.train('{}'::float8[], NULL::float8[], 1);

SELECT gsu.train(ARRAY[[1, 2], [3, 4]]::float8[], NULL::float8[], 1);

SELECT gsu.train(ARRAY[[[1]]]::float8[], ARRAY[[[1]]]::float8[], 1);

SELECT gsu.train(mean, ARRAY['NaN', 0, 0]::float8[], label) FROM pts;

SELECT gsu.train(mean, ARRAY[-1, 0, 0]::float8[], label) FROM pts;

SELECT gsu.train(mean, ARRAY['Infinity', 0, 0]::float8[], label) FROM pts;

SELECT gsu.train(mean, 'NaN'::float8, label) FROM pts;

SELECT gsu.train(mean, '-1'::float8, label) FROM pts;

SELECT gsu.train(mean, 'Infinity'::float8, label) FROM pts;

SELECT fz_rt(gsu.train(mean, 1e308::float8, label)) FROM pts;

SELECT fz_rt(gsu.train(mean, 5e-324::float8, label)) FROM pts;

SELECT fz_rt(gsu.train(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label)) FROM pts;

SELECT fz_rt(gsu.train(ARRAY[mean[1] * 1e-310, mean[2] * 5e-324, 0], variance, label)) FROM pts;

SELECT fz_rt(gsu.train(ARRAY[1e308, -1e308, 1e308]::float8[] , NULL::float8[], CASE WHEN id % 2 = 0 THEN 1 ELSE -1 END)) FROM generate_series(1, 4) id;

SELECT fz_rt(gsu.train(mean, ARRAY[1e308, 1e308, 1e308]::float8[], label)) FROM pts;

SELECT fz_rt(gsu.train(mean, ARRAY[5e-324, 5e-324, 5e-324]::float8[], label)) FROM pts;

SELECT gsu.train(mean, ARRAY[[1, 2, 3], [4, 5, 6]]::float8[], label) FROM pts;

SELECT gsu.train(mean, ARRAY[[1, 2, 0], [2, 1, 0], [0, 0, 1]]::float8[], label) FROM pts;

SELECT fz_rt(gsu.train(mean, ARRAY[[1e308, 0, 0], [0, 1e308, 0], [0, 0, 1e308]]::float8[], label)) FROM pts;

SELECT gsu.train(mean, ARRAY[[1, 'NaN', 0], ['NaN', 1, 0], [0, 0, 1]]::float8[], label) FROM pts;

SELECT gsu.train(mean, ARRAY[[1, 0.5, 0], [0.25, 1, 0], [0, 0, 1]]::float8[], label) FROM pts;

SELECT gsu.train(array_fill(1::float8, ARRAY[1000001]), NULL::float8[], 1);

SELECT fz_rt(gsu.train(array_fill(id::float8, ARRAY[1000000]), NULL::float8[], CASE WHEN id = 1 THEN 1 ELSE -1 END, '{"solver": "sgd"}')) FROM generate_series(1, 2) id;

SELECT gsu.train(array_fill(1::float8, ARRAY[3], ARRAY[-5]), NULL::float8[], 1);

SELECT gsu.train(mean, variance, label) FROM pts WHERE false;

SELECT gsu.train(mean, variance, 1) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, id)) FROM pts WHERE id <= 5;

SELECT gsu.train(mean, variance, id) FROM pts, generate_series(1, 30) g;

SELECT fz_rt(gsu.train(mean, variance, CASE WHEN label = 1 THEN 2147483647 ELSE -2147483648 END)) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label = 1)) FROM pts;

SELECT gsu.train(mean, variance, label, NULL::float8, '{}') FROM pts;

SELECT gsu.train(mean, variance, label, 'NaN'::float8, '{}') FROM pts;

SELECT gsu.train(mean, variance, label, -1::float8, '{}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, 1e308::float8, '{}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, 5e-324::float8, '{}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, CASE WHEN id = 1 THEN 1e308 ELSE 5e-324 END, '{}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, 1e308::float8, '{"solver": "sgd"}')) FROM pts;

SELECT gsu.train(mean, variance, label, 0::float8, '{}') FROM pts;

-- ---------------------------------------------------------------- options
SELECT gsu.train(mean, variance, label, '{"lambda": 0}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"lambda": -1}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"lambda": 1e-300}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"lambda": 1e300}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"lambda": 5e-324}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"lambda": "NaN"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"lambda": "Infinity"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"lambda": 1e400}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"lambda": null}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"lambda": [1]}') FROM pts;

SELECT gsu.train(mean, variance, label, '[]') FROM pts;

SELECT gsu.train(mean, variance, label, '"x"') FROM pts;

SELECT gsu.train(mean, variance, label, 'null') FROM pts;

SELECT gsu.train(mean, variance, label, NULL::jsonb) FROM pts;

SELECT gsu.train(mean, variance, label, '{"lamda": 1}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"solver": "x"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"solver": 1}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "x"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"tolerance": 0}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"tolerance": 1}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"tolerance": 5e-324}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"smoothing": 0}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"smoothing": 5e-324}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"smoothing": 1}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"max_iterations": 0}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"max_iterations": -1}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"max_iterations": 2147483648}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"max_iterations": 1.5}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"max_iterations": 1}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "epochs": 0}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "epochs": 2147483647}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "batch_size": 0}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"solver": "pegasos", "batch_size": 2147483647, "epochs": 1}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"solver": "pegasos", "seed": 9223372036854775807}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "seed": -1}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"solver": "pegasos", "seed": 18446744073709551616}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"solver": "pegasos", "lambda": 1e-300, "epochs": 1}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"solver": "pegasos", "lambda": 1e300, "epochs": 1}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"solver": "sgd", "lambda": 1e-300}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"solver": "sgd", "lambda": 1e300}')) FROM pts;

SELECT fz_rt(gsu.train(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label, '{"solver": "sgd"}')) FROM pts;

SELECT fz_rt(gsu.train(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label, '{"solver": "pegasos"}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"subspace_fraction": 0}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"subspace_fraction": 1.5}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"subspace_fraction": 5e-324}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"gamma": 1}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "tsvc", "gamma": -1}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "tsvc", "gamma": 1e300, "max_iterations": 100}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "tsvc", "gamma": 0, "max_iterations": 100}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "tsvc", "delta_scale": 1e300, "max_iterations": 100}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "tsvc", "delta_scale": -1}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "tsvc", "tsvc_algorithm": "alternating", "max_iterations": 50}')) FROM pts;

SELECT gsu.train(mean, NULL::float8[], label, '{"loss": "tsvc"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "robust", "norm": 3}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "robust", "norm": "1"}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "robust", "norm": 1, "max_iterations": 100}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "robust", "gamma": 1e300, "max_iterations": 100}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "robust", "confidence": 1}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "robust", "confidence": 0.3}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "robust", "confidence": 0.9999999999999999, "bound": "chebyshev", "max_iterations": 100}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "robust", "confidence": 5e-324, "bound": "chebyshev", "max_iterations": 100}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "robust", "confidence": 0.9, "gamma": 1}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "robust", "bound": "chebyshev"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"loss": "robust", "solver": "sgd"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"class_weight": "equal"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 0}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": "NaN"}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"class_weight": {"x": 1}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"class_weight": {"2147483648": 1}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"class_weight": {"1": 1, "1": 2}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"class_weight": {"7": 1}}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"class_weight": {"1": 1e308, "-1": 5e-324}}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"class_weight": "balanced", "solver": "sgd"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"init": 1}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"init": {}}') FROM pts;

SELECT gsu.train(mean, variance, label, jsonb_build_object('init', (SELECT m FROM mm)::jsonb)) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, jsonb_build_object('init', (SELECT m FROM m)::jsonb, 'solver', 'sgd'))) FROM pts;

SELECT gsu.train(mean[1:2], variance[1:2], label, jsonb_build_object('init', (SELECT m FROM m)::jsonb)) FROM pts;

SELECT gsu.train(mean, variance, label, jsonb_build_object('init', jsonb_set((SELECT m FROM m)::jsonb, '{weights,0}', '1e308'))) FROM pts;

SELECT gsu.train(mean, variance, label, jsonb_build_object('lambda', (id % 2) + 1)) FROM pts;

SELECT gsu.train(mean, variance, label, CASE WHEN id = 40 THEN '{"lambda": 0.5}'::jsonb ELSE '{}' END) FROM pts;

SELECT gsu.train(mean, variance, label, CASE WHEN id = 40 THEN NULL ELSE '{}'::jsonb END) FROM pts;

-- ---------------------------------------------------------------- feature maps
SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 7, "sigma": 1}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 0, "sigma": 1}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 1000002, "sigma": 1}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 0}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": "NaN"}}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 1e300}}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 1e-300}}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 5e-324}}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "poly", "dim": 4, "sigma": 1}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "nystroem", "landmarks": 41, "sigma": 1}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "nystroem", "landmarks": 0, "sigma": 1}}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"features": {"map": "nystroem", "landmarks": 40, "sigma": 1e-300}}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"features": {"map": "nystroem", "landmarks": 40, "sigma": 1e300}}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 1}, "solver": "sgd"}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 1, "covariance": "full"}}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 1, "covariance": "x"}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"feature_bound": "worst_case"}') FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "robust", "feature_bound": "worst_case", "features": {"map": "rff", "dim": 4, "sigma": 1}, "epochs": 1}')) FROM pts;

SELECT fz_rt(gsu.train(mean, variance, label, '{"loss": "robust", "feature_bound": "worst_case", "features": {"map": "nystroem", "landmarks": 5, "sigma": 1e-300}, "epochs": 1}')) FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 20000, "sigma": 1}}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 20000, "sigma": 1}, "covariance": "full"}') FROM pts;

SELECT gsu.train(mean, variance, label, '{"features": {"map": "rff", "dim": 20000, "sigma": 1, "covariance": "full"}}') FROM pts;

SELECT gsu.train(mean, variance, label, jsonb_build_object('features', jsonb_build_object('map', 'rff', 'dim', 4, 'sigma', 1), 'init', (SELECT m FROM mr)::jsonb)) FROM pts;

-- ---------------------------------------------------------------- scoring
SELECT gsu.decision(m, ARRAY[1, 2]::float8[]) FROM m;

SELECT gsu.decision(m, ARRAY[1, 2, 'NaN']::float8[]) FROM m;

SELECT gsu.decision(m, ARRAY[1e308, 1e308, 1e308]::float8[]) FROM m;

SELECT gsu.decision(m, ARRAY[NULL, 1, 2]::float8[]) FROM m;

SELECT gsu.decision(m, '{}'::float8[]) FROM m;

SELECT gsu.decision(m, ARRAY[[1, 2, 3]]::float8[]) FROM m;

SELECT gsu.decision(mm.m, ARRAY[1, 2, 3]::float8[]) FROM mm;

SELECT gsu.decisions(mm.m, ARRAY[1e308, -1e308, 1e308]::float8[]) FROM mm;

SELECT gsu.predict(mm.m, ARRAY[5e-324, 5e-324, 5e-324]::float8[]) FROM mm;

SELECT gsu.confidence(m, ARRAY[1, 2, 3]::float8[], ARRAY[-1, 0, 0]::float8[]) FROM m;

SELECT gsu.confidence(m, ARRAY[1, 2, 3]::float8[], 'NaN'::float8) FROM m;

SELECT gsu.confidence(m, ARRAY[1, 2, 3]::float8[], 1e308::float8) FROM m;

SELECT gsu.confidence(m, ARRAY[1, 2, 3]::float8[], ARRAY[[1, 0, 0], [0, 1, 0], [0, 0, 1]]::float8[]) FROM m;

SELECT gsu.confidence(m, ARRAY[1, 2, 3]::float8[], ARRAY[[1, 2], [3, 4]]::float8[]) FROM m;

SELECT gsu.expected_loss(m, ARRAY[1, 2, 3]::float8[], ARRAY[1, 1, 1]::float8[], 0) FROM m;

SELECT gsu.expected_loss(m, ARRAY[1e308, 1e308, 1e308]::float8[], 1e308::float8, 1) FROM m;

SELECT gsu.expected_loss(mm.m, ARRAY[1, 2, 3]::float8[], 5e-324::float8, 2) FROM mm;

SELECT gsu.probability(m, ARRAY[1, 2, 3]::float8[]) FROM m;

SELECT gsu.weights(m, 0) FROM m;

SELECT gsu.bias(mm.m) FROM mm;

SELECT gsu.decision(mr.m, ARRAY[1e308, 1e308, 1e308]::float8[]) FROM mr;

SELECT gsu.confidence(mr.m, ARRAY[1, 2, 3]::float8[], 1e308::float8) FROM mr;

SELECT gsu.confidence(mr.m, ARRAY[1, 2, 3]::float8[], ARRAY[[1e308, 0, 0], [0, 1, 0], [0, 0, 1]]::float8[]) FROM mr;

SELECT gsu.expected_loss(mr.m, ARRAY[1, 2, 3]::float8[], 5e-324::float8, 1) FROM mr;

-- ---------------------------------------------------------------- calibration
SELECT fz_rt(gsu.calibrate(m, mean, label)) FROM pts, m GROUP BY m::text;

SELECT gsu.calibrate(m, mean, label) FROM pts, m WHERE label = 1 GROUP BY m::text;

SELECT gsu.calibrate(m, mean, 7) FROM pts, m GROUP BY m::text;

SELECT fz_rt(gsu.calibrate(m, ARRAY[mean[1] * 1e300, mean[2], mean[3]], label)) FROM pts, m GROUP BY m::text;

SELECT gsu.calibrate(m, ARRAY[1e308, 1e308, 1e308]::float8[], label) FROM pts, m GROUP BY m::text;

SELECT gsu.calibrate(NULL::gsu.model, mean, label) FROM pts;

SELECT gsu.probabilities(fz_rt_v(gsu.calibrate(mm.m, mean, label3)), ARRAY[1, 2, 3]::float8[]) FROM pts, mm GROUP BY mm.m::text;

-- ---------------------------------------------------------------- partials
SELECT fz_rt(gsu.sgd_partial(mean, variance, label, '{}')) FROM pts;

SELECT fz_rt(gsu.sgd_partial(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label, '{}')) FROM pts;

SELECT fz_rt(gsu.sgd_partial(ARRAY[1e308, 1e308, 1e308]::float8[], variance, label, '{}')) FROM pts;

SELECT fz_rt(gsu.sgd_partial(mean, ARRAY[1e308, 1e308, 1e308]::float8[], label, '{}')) FROM pts;

SELECT fz_rt(gsu.sgd_partial(mean, variance, label, '{"lambda": 1e-300}')) FROM pts;

SELECT fz_rt(gsu.sgd_partial(mean, variance, label, '{"lambda": 1e300}')) FROM pts;

SELECT fz_rt(gsu.sgd_partial(mean, variance, label, '{"lambda": 5e-324}')) FROM pts;

SELECT fz_rt(gsu.sgd_partial(ARRAY[mean[1] * 1e200, mean[2] * 1e200, mean[3]], NULL, label, '{"loss": "hinge", "lambda": 1e-200}')) FROM pts;

SELECT fz_rt(gsu.train_sgd(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label, '{}')) FROM pts;

SELECT gsu.sgd_partial(mean, variance, label3, '{}') FROM pts;

SELECT gsu.sgd_partial(mean, variance, label, '{"class_weight": "balanced"}') FROM pts;

SELECT gsu.sgd_partial(mean, variance, label, '{"loss": "tsvc"}') FROM pts;

SELECT gsu.sgd_partial(mean, variance, label, '{"features": {"map": "rff", "dim": 4, "sigma": 1}}') FROM pts;

SELECT fz_rt(gsu.sum(p)) FROM (SELECT gsu.sgd_partial(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label, '{}') p FROM pts GROUP BY id % 4) s;

SELECT fz_rt(gsu.sum(p)) FROM (SELECT gsu.sgd_partial(ARRAY[1e308, -1e308, 1e308]::float8[], NULL, label, '{"lambda": 1e-300}') p FROM pts GROUP BY id % 4) s;

SELECT fz_rt(gsu.sum(p)) FROM (SELECT gsu.gradient(ARRAY[1e308, 1e308, 1e308]::float8[], NULL, label, NULL, 0) p FROM pts GROUP BY id % 4) s;

SELECT fz_rt(gsu.sum(p)) FROM (SELECT gsu.gradient(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label, NULL, 0) p FROM pts GROUP BY id % 4) s;

SELECT fz_rt(gsu.gradient(mean, variance, label, m, 'NaN')) FROM pts, m GROUP BY m::text;

SELECT fz_rt(gsu.gradient(mean, variance, label, m, -1)) FROM pts, m GROUP BY m::text;

SELECT fz_rt(gsu.gradient(mean, variance, label, m, 1e308)) FROM pts, m GROUP BY m::text;

SELECT fz_rt(gsu.gradient(mean, variance, label, m, 5e-324)) FROM pts, m GROUP BY m::text;

SELECT gsu.gradient(mean, variance, label3, NULL, 0) FROM pts;

SELECT gsu.gradient(mean, variance, label, mm.m, 0) FROM pts, mm GROUP BY mm.m::text;

SELECT gsu.gradient(mean, variance, label, mr.m, 0) FROM pts, mr GROUP BY mr.m::text;

SELECT fz_rt(gsu.sum(p)) FROM (SELECT gsu.sgd_partial(mean, variance, label, '{}') p FROM pts UNION ALL SELECT gsu.gradient(mean, variance, label, NULL, 0) FROM pts) s;

SELECT fz_rt(gsu.sum(p)) FROM (SELECT gsu.sgd_partial(mean, variance, label, '{}') p FROM pts UNION ALL SELECT gsu.sgd_partial(mean[1:2], variance[1:2], label, '{}') FROM pts) s;

SELECT fz_rt(gsu.sum(p)) FROM (SELECT gsu.sgd_partial(mean, variance, label, '{"lambda": 0.1}') p FROM pts UNION ALL SELECT gsu.sgd_partial(mean, variance, label, '{"lambda": 0.2}') FROM pts) s;

SELECT fz_rt(gsu.sum(p)) FROM (SELECT gsu.sgd_partial(mean, variance, label, '{}') p FROM pts UNION ALL SELECT gsu.sgd_partial(mean, variance, label, '{"loss": "hinge"}') FROM pts) s;

SELECT gsu.to_model(gsu.gradient(mean, variance, label, NULL, 0)) FROM pts;

SELECT gsu.partial_combine(NULL, NULL);

SELECT gsu.partial_combine(p, p) FROM (SELECT gsu.sgd_partial(mean, variance, label, '{}') p FROM pts) s;

SELECT gsu.gradient_transfn(NULL, ARRAY[1, 2, 3]::float8[], NULL, 1, NULL, 0);

SELECT gsu.sgd_partial_transfn(NULL, ARRAY[1, 2, 3]::float8[], NULL, 1, '{}');

SELECT gsu.sgd_partial_transfn(NULL, NULL, NULL, NULL, NULL);

SELECT gsu.train_combine_support(NULL);

SELECT fz_rt(gsu.fit('pts', 'mean', 'variance', 'label', '{"max_iterations": 3}'));

SELECT gsu.fit('pts', 'mean', 'variance', 'label3');

SELECT gsu.fit('pts', 'nope', 'variance', 'label');

SELECT gsu.fit('pts', 'mean', 'mean', 'label', '{"max_iterations": 3}');

SELECT gsu.fit('pts', 'mean', 'variance', 'mean');

SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"max_iterations": -1}');

SELECT gsu.fit('pts', 'mean', NULL, 'label', '{"lambda": 1e-300, "max_iterations": 3}');

SELECT gsu.fit('pts', 'mean"; DROP TABLE pts; --', NULL, 'label');

SELECT gsu.fit('pg_class', 'relname', NULL, 'relpages');

-- ---------------------------------------------------------------- cross-validation
SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], folds => 2147483647);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], folds => -2147483648);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], folds => 1);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], folds => 41);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY['NaN']::float8[]);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[NULL]::float8[]);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', '{}'::float8[]);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[[1e-3]]::float8[]);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-300, 1e300]);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], metric => 'f1');

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], metric => NULL);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label3', ARRAY[1e-3], metric => 'roc_auc');

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], options => '{"lambda": 1}');

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], options => '[]');

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], id_column => 'nope');

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], seed => -2147483648);

SELECT * FROM gsu.cross_validate('pts', 'mean', 'variance', 'label', ARRAY[1e-3], id_column => 'mean');

SELECT gsu.train_best('pts', 'mean', 'variance', 'label', ARRAY[1e-3, 'Infinity']::float8[]);

SELECT gsu.train_best('pts', 'mean', 'variance', 'label', ARRAY[1e-3], folds => 2147483647);

-- ---------------------------------------------------------------- moments and images
SELECT (gsu.moments(x)).* FROM (VALUES (ARRAY[1e308, -1e308]::float8[]), (ARRAY[-1e308, 1e308]::float8[])) v(x);

SELECT (gsu.moments(x, '{"covariance": "full"}')).* FROM (VALUES (ARRAY[1e308, 5e-324]::float8[]), (ARRAY[-1e308, -5e-324]::float8[])) v(x);

SELECT (gsu.moments(array_fill(1::float8, ARRAY[4097]), '{"covariance": "full"}')).count;

SELECT (gsu.moments(x, '{"estimator": 1}')).* FROM (VALUES (ARRAY[1]::float8[])) v(x);

SELECT (gsu.moments(x)).* FROM (VALUES (ARRAY[[1, 2]]::float8[])) v(x);

SELECT gsu.image_variance(ARRAY[1, 2, 3, 4]::float8[], 2147483647, 2, 1);

SELECT gsu.image_variance(ARRAY[1, 2, 3, 4]::float8[], 65536, 65536, 1);

SELECT gsu.image_variance(ARRAY[1, 2, 3, 4]::float8[], -2, -2, 1);

SELECT gsu.image_variance(ARRAY[[1e308, -1e308], [-1e308, 1e308]]::float8[], 1e308);

SELECT gsu.image_covariance(array_fill(1::float8, ARRAY[65, 65]), 1);

SELECT gsu.image_covariance(ARRAY[[1, 2], [3, 4]]::float8[], 'NaN');

-- ---------------------------------------------------------------- GEU, reference sets
SELECT fz_rt(gsu.geu_fit(mean, variance, label3, '{"dims": 2}')) FROM pts;

SELECT gsu.geu_fit(mean, variance, label3, '{"dims": 0}') FROM pts;

SELECT gsu.geu_fit(mean, variance, label3, '{"dims": 2147483647}') FROM pts;

SELECT gsu.geu_fit(mean, variance, label3, '{"regularization": -1}') FROM pts;

SELECT fz_rt(gsu.geu_fit(mean, variance, label3, '{"regularization": 1e300}')) FROM pts;

SELECT fz_rt(gsu.geu_fit(mean, variance, label3, '{"regularization": 5e-324}')) FROM pts;

SELECT gsu.geu_fit(mean, variance, label3, '{"method": "mfa", "k1": 0}') FROM pts;

SELECT fz_rt(gsu.geu_fit(mean, variance, label3, '{"method": "mfa", "k1": 2147483647, "k2": 2147483647}')) FROM pts;

SELECT gsu.geu_fit(mean, variance, label3, '{"k1": 2}') FROM pts;

SELECT fz_rt(gsu.geu_fit(ARRAY[mean[1] * 1e300, mean[2], mean[3]], variance, label3)) FROM pts;

SELECT fz_rt(gsu.geu_fit(ARRAY[mean[1] * 1e-300, mean[2] * 1e-300, mean[3] * 1e-300], NULL, label3, '{"regularization": 1e-300}')) FROM pts;

SELECT fz_rt(gsu.geu_fit(mean, ARRAY[1e308, 1e308, 1e308]::float8[], label3)) FROM pts;

SELECT gsu.geu_fit(mean, ARRAY[[1, 2, 0], [2, 1, 0], [0, 0, 1]]::float8[], label3) FROM pts;

SELECT gsu.geu_fit(mean, variance, label3, '{"method": "mfa", "k1": 1, "k2": 1}') FROM pts WHERE id <= 3;

SELECT gsu.project(p, ARRAY[1e308, 1e308, 1e308]::float8[]) FROM proj;

SELECT gsu.project_variance(p, 1e308::float8) FROM proj;

SELECT gsu.project_covariance(p, ARRAY[[1e308, 0, 0], [0, 1e308, 0], [0, 0, 1e308]]::float8[]) FROM proj;

SELECT gsu.project_variance(p, ARRAY[[1, 5, 0], [5, 1, 0], [0, 0, 1]]::float8[]) FROM proj;

SELECT fz_rt(gsu.refset_agg(ARRAY[1e308, -1e308, 5e-324]::float8[], label)) FROM pts;

SELECT gsu.refset_agg(mean, label) FROM (SELECT mean, label FROM pts UNION ALL SELECT ARRAY[1, 2]::float8[], 1) s;

SELECT gsu.nn_variance(r, ARRAY[1e308, 1e308, 1e308]::float8[], 1, 1e308, true) FROM ref;

SELECT gsu.nn_variance(r, ARRAY[1, 2, 3]::float8[], 1, 'NaN', true) FROM ref;

SELECT gsu.nn_variance(r, ARRAY[1, 2, 3]::float8[], 12345, 1, true) FROM ref;

SELECT gsu.nn_variance(r, ARRAY[1, 2, 3]::float8[], NULL, 1, NULL) FROM ref;

SELECT gsu.knn_predict(r, ARRAY[1, 2, 3]::float8[], 0) FROM ref;

SELECT gsu.knn_predict(r, ARRAY[1e308, -1e308, 1e308]::float8[], 2147483647) FROM ref;

SELECT gsu.knn_predict(gsu.refset_agg(mean), ARRAY[1, 2, 3]::float8[], 1) FROM pts;

-- issue 27: squared distances beyond double precision; the nearest row must
-- not depend on the row order (fz_expect raises FZ004 otherwise)
SELECT fz_expect(gsu.knn_predict('{"format": 1, "dim": 2, "rows": [[0, 0], [1e200, 0]], "labels": [1, 2]}', '{2e200,0}', 1), 2);

SELECT fz_expect(gsu.knn_predict('{"format": 1, "dim": 2, "rows": [[1e200, 0], [0, 0]], "labels": [2, 1]}', '{2e200,0}', 1), 2);

SELECT fz_expect(gsu.nn_variance('{"format": 1, "dim": 2, "rows": [[0, 0], [1e200, 0]]}', '{2e200,0}', NULL, 1e-300, false), '{1e100,0}'::float8[]);

SELECT fz_expect(gsu.knn_predict('{"format": 1, "dim": 2, "rows": [[2e-200, 0], [0, 0]], "labels": [2, 1]}', '{1.5e-200,0}', 1), 2);

SELECT fz_expect(gsu.knn_predict('{"format": 1, "dim": 1, "rows": [[-1.7e308], [1.7e308]], "labels": [1, 2]}', '{0.8e308}', 1), 2);

SELECT gsu.nn_variance('{"format": 1, "dim": 1, "rows": [[-1.7e308], [1.7e308]]}', '{1.7e308}', NULL, 1e308, false);

SELECT fz_nn_scale('pts', mean, 1, 660, false) FROM pts WHERE id = 7;

SELECT fz_nn_scale('pts', mean, 3, -700, true) FROM pts WHERE id = 8;

SELECT fz_nn_scale('(SELECT id, ARRAY[round(mean[1]), round(mean[2] * 2), 0] AS mean, label FROM pts) s', ARRAY[0.5, 0, 0]::float8[], 1, 660, true);

SELECT fz_nn_scale('(SELECT id, ARRAY[round(mean[1]), round(mean[2] * 2), 0] AS mean, label FROM pts) s', ARRAY[0.5, 0, 0]::float8[], 5, -1000, false);

SELECT fz_rt(gsu.refset_agg(ARRAY[mean[1], '-0', -mean[3]]::float8[], label)) FROM pts;

SELECT fz_rt(gsu.geu_fit(ARRAY[mean[1], mean[2], -mean[3]]::float8[], variance, label3, '{"regularization": -1e-400}')) FROM pts;

SELECT fz_rt(gsu.train(ARRAY[mean[1], '-0', -mean[3]]::float8[], variance, label, '{"loss": "robust", "gamma": -1e-400, "max_iterations": 50}')) FROM pts;

SELECT fz_rt(gsu.train(ARRAY[mean[1], '-0', -mean[3]]::float8[], variance, label, '{"features": {"map": "nystroem", "landmarks": 5, "sigma": 1}}')) FROM pts;

SELECT fz_rt(gsu.gradient(ARRAY[mean[1], '-0', -mean[3]]::float8[], NULL::float8[], label, NULL, 0)) FROM pts;

-- ---------------------------------------------------------------- metrics
SELECT gsu.roc_auc(s, l) FROM (VALUES ('Infinity'::float8, 1), ('-Infinity', -1), (5e-324, 1)) v(s, l);

SELECT gsu.roc_auc(s, l) FROM (VALUES ('NaN'::float8, 1)) v(s, l);

SELECT gsu.log_loss(p, l) FROM (VALUES (5e-324::float8, 1), (1, -1)) v(p, l);

SELECT gsu.log_loss(p, l) FROM (VALUES (1.0000000000000002::float8, 1)) v(p, l);

SELECT gsu.confusion(p, a) FROM (VALUES (2147483647, -2147483648), (-2147483648, 2147483647)) v(p, a);

SELECT gsu.pr_curve(s, l) FROM (VALUES ('Infinity'::float8, 1), ('Infinity', -1)) v(s, l);

-- ---------------------------------------------------------------- type input corner cases
SELECT '{"format": 2, "dim": 1, "weights": [1], "bias": 0}'::gsu.model::text;

SELECT '{"format": 2, "dim": 0, "weights": [], "bias": 0}'::gsu.model;

SELECT '{"format": 2, "dim": 1, "weights": [1e309], "bias": 0}'::gsu.model;

SELECT '{"format": 2, "dim": 1, "weights": [-0], "bias": -0}'::gsu.model::text;

SELECT fz_rt('{"format": 2, "dim": 1, "weights": [5e-324], "bias": 2.2250738585072014e-308}'::gsu.model);

SELECT '{"format": 2, "dim": 1, "weights": [1], "bias": 0, "classes": [1, 1]}'::gsu.model;

SELECT '{"format": 2, "dim": 1, "weights": [1], "bias": 0, "hyperparameters": {"lambda": 0}}'::gsu.model;

SELECT '{"format": 2, "dim": 1, "weights": [1], "bias": 0, "training": {"rows": -1}}'::gsu.model;

SELECT '{"format": 1, "kind": "sgd", "dim": 1, "rows": -1, "positives": 0, "steps": 0, "loss_sum": 0, "smoothing": 0, "min_dsigma": 0, "lambda": 1, "loss": "gsu", "subspace_fraction": 1, "vector": [0, 0]}'::gsu.partial;

SELECT '{"format": 1, "kind": "sgd", "dim": 1, "rows": 1, "positives": 2, "steps": 0, "loss_sum": 0, "smoothing": 0, "min_dsigma": 0, "lambda": 1, "loss": "gsu", "subspace_fraction": 1, "vector": [0, 0]}'::gsu.partial;

SELECT fz_rt('{"format": 1, "kind": "gradient", "dim": 1, "rows": 9223372036854775807, "positives": 0, "steps": 0, "loss_sum": 1e308, "smoothing": 0, "min_dsigma": 0, "lambda": 1, "loss": "gsu", "subspace_fraction": 1, "vector": [1e308, 1e308]}'::gsu.partial);

SELECT fz_rt(gsu.sum(p)) FROM (VALUES ('{"format": 1, "kind": "gradient", "dim": 1, "rows": 9223372036854775807, "positives": 0, "steps": 0, "loss_sum": 1e308, "smoothing": 0, "min_dsigma": 0, "lambda": 1, "loss": "gsu", "subspace_fraction": 1, "vector": [1e308, 1e308]}'::gsu.partial), ('{"format": 1, "kind": "gradient", "dim": 1, "rows": 9223372036854775807, "positives": 0, "steps": 0, "loss_sum": 1e308, "smoothing": 0, "min_dsigma": 0, "lambda": 1, "loss": "gsu", "subspace_fraction": 1, "vector": [1e308, 1e308]}')) v(p);

SELECT fz_rt(gsu.sum(p)) FROM (VALUES ('{"format": 1, "kind": "sgd", "dim": 1, "rows": 9223372036854775807, "positives": 0, "steps": 9223372036854775807, "loss_sum": 1e308, "smoothing": 0, "min_dsigma": 0, "lambda": 1, "loss": "gsu", "subspace_fraction": 1, "vector": [1e308, 1e308]}'::gsu.partial), ('{"format": 1, "kind": "sgd", "dim": 1, "rows": 9223372036854775807, "positives": 0, "steps": 9223372036854775807, "loss_sum": 1e308, "smoothing": 0, "min_dsigma": 0, "lambda": 1, "loss": "gsu", "subspace_fraction": 1, "vector": [-1e308, 1e308]}')) v(p);

SELECT '{"format": 1, "dim": 1, "rows": [[1]], "labels": [1, 2]}'::gsu.refset;

SELECT '{"format": 1, "dim": 1, "rows": []}'::gsu.refset::text;

SELECT '{"format": 1, "method": "lda", "dim": 1, "dims": 0, "vectors": []}'::gsu.projection;

SELECT '{"format": 1, "method": "lda", "dim": 1, "dims": 1, "vectors": [[0]]}'::gsu.projection::text;

SELECT '{"format": 1, "method": "lda", "dim": 2, "dims": 1, "k1": 3, "vectors": [[1, 1]]}'::gsu.projection;

SELECT ('[' || repeat('[', 100000) || repeat(']', 100000) || ']')::gsu.model;

SELECT ('{"format": 2, "dim": 1, "weights": [1], "bias": 0, "x": ' || repeat('[', 5000) || repeat(']', 5000) || '}')::gsu.model;

SELECT '{"format": 2, "dim": 1, "weights": [1], "bias": 0}'::jsonb::gsu.model::jsonb::gsu.model::text;

SELECT 'null'::jsonb::gsu.model;

SELECT '[]'::jsonb::gsu.projection;
