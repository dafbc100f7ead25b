-- Table B of bench/cj_bounds.sh: the robust loss on mapped features with
-- pg_gsu's exact boxes ("feature_bound": "worst_case") against Couellan &
-- Jan's own bounds ("couellan_jan", "feature_norm" 1, 2, inf; Nystroem 2
-- only), same rows, maps, gamma and lambda.  psql variables: seeds (the map
-- seeds, an int[] literal), gammas (float8[]), lambdas (float8[]); WDBC's csv
-- (python3-sklearn's breast_cancer.csv) on psql's stdin, or nothing to skip it.
\set ON_ERROR_STOP 1
SET client_min_messages = error;	-- the "ended above the zero model" WARNINGs: counted below instead
CREATE EXTENSION IF NOT EXISTS pg_gsu;

-- the helpers of sql/00_setup.sql
CREATE FUNCTION prand(i int, k int) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT x - floor(x) FROM (SELECT abs(sin(i * 12.9898 + k * 78.233)) * 43758.5453 AS x) s
$$;
CREATE FUNCTION pnorm(i int, k int) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT (prand(i, k) + prand(i, k + 101) + prand(i, k + 211) + prand(i, k + 307) - 2.0) * sqrt(3.0)
$$;

CREATE TABLE data (ds text, id int, mean float8[], variance float8[], label int4, train bool);

-- (a) the two noisy circles of sql/features.sql: 800 rows, id <= 400 train
INSERT INTO data
SELECT 'circles', i, ARRAY[r * cos(a), r * sin(a)],
	ARRAY[0.01 + 0.02 * prand(i, 23), 0.01 + 0.02 * prand(i, 24)], l, i <= 400
FROM generate_series(1, 800) i,
	LATERAL (SELECT CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS l) c,
	LATERAL (SELECT (CASE WHEN l = 1 THEN 2.0 ELSE 1.0 END) + 0.15 * pnorm(i, 21) AS r,
					2 * pi() * prand(i, 22) AS a) p;

-- (b) WDBC: the 10 mean features, standardized with the training rows' mean and
-- standard deviation; variance of feature j = (its standard error / sd_j)^2;
-- label +1 benign, -1 malignant; every fifth row (file order) is a test row
SELECT format('CREATE TABLE bc_raw (%s, target int4)',
			  string_agg(format('c%s float8', j), ', ' ORDER BY j))
FROM generate_series(1, 30) j \gexec
\copy bc_raw FROM pstdin WITH (FORMAT csv, HEADER true)
CREATE TABLE bc AS
SELECT row_number() OVER (ORDER BY ctid)::int AS id,
	ARRAY[c1, c2, c3, c4, c5, c6, c7, c8, c9, c10] AS x,
	ARRAY[c11, c12, c13, c14, c15, c16, c17, c18, c19, c20] AS se,
	CASE target WHEN 1 THEN 1 ELSE -1 END AS y
FROM bc_raw;
CREATE TABLE bc_stats AS
SELECT j, avg(x[j]) AS mu, stddev_samp(x[j]) AS sd
FROM bc, generate_series(1, 10) j WHERE id % 5 <> 0 GROUP BY j;
INSERT INTO data
SELECT 'wdbc', id, array_agg((x[j] - mu) / sd ORDER BY j), array_agg((se[j] / sd) ^ 2 ORDER BY j),
	y, id % 5 <> 0
FROM bc, bc_stats GROUP BY id, y;

-- the cells: data set, map, bound, feature_norm, gamma (or the chance-constrained one), lambda
CREATE TABLE cells (ds text, map text, bound text, pbar text, gam text, lambda float8, opts jsonb);
INSERT INTO cells
SELECT d.ds, m.map, b.bound, b.pbar, g.gam, l.lambda,
	jsonb_build_object('loss', 'robust', 'feature_bound', b.bound, 'lambda', l.lambda,
		'features', jsonb_build_object('map', m.map, 'sigma', d.sigma) ||
			CASE m.map WHEN 'rff' THEN '{"dim": 100}'::jsonb ELSE '{"landmarks": 20}'::jsonb END)
	|| CASE WHEN b.pbar IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('feature_norm', b.pbar::jsonb) END
	|| CASE WHEN g.gam = 'chebyshev 0.9' THEN '{"confidence": 0.9, "bound": "chebyshev"}'::jsonb
			ELSE jsonb_build_object('gamma', g.gam::float8) END
FROM (VALUES ('circles', 1.0), ('wdbc', 3.0)) d(ds, sigma)
	CROSS JOIN (VALUES ('rff'), ('nystroem')) m(map)
	CROSS JOIN (VALUES ('worst_case', NULL), ('couellan_jan', '1'), ('couellan_jan', '2'),
					   ('couellan_jan', '"inf"')) b(bound, pbar)
	CROSS JOIN (SELECT unnest(:'gammas'::float8[])::text UNION ALL SELECT 'chebyshev 0.9') g(gam)
	CROSS JOIN unnest(:'lambdas'::float8[]) l(lambda)
WHERE (m.map = 'rff' OR b.pbar IS NULL OR b.pbar = '2')
	AND EXISTS (SELECT FROM data WHERE data.ds = d.ds);

SELECT set_config('cjb.seeds', :'seeds', false) IS NOT NULL AS seeds_set \gset
CREATE TABLE runs (ds text, map text, bound text, pbar text, gam text, lambda float8, seed int,
				   accuracy float8, objective float8, gamma_used float8, seconds float8);
DO $$
DECLARE
	c record;
	s int;
	m gsu.model;
	t0 timestamptz;
BEGIN
	FOR c IN SELECT * FROM cells ORDER BY ds, map, bound, pbar, gam, lambda LOOP
		FOREACH s IN ARRAY current_setting('cjb.seeds')::int[] LOOP
			t0 := clock_timestamp();
			SELECT gsu.train(mean, variance, label,
							 jsonb_set(c.opts, '{features,seed}', to_jsonb(s)))
			INTO m FROM data WHERE ds = c.ds AND train;
			INSERT INTO runs
			SELECT c.ds, c.map, c.bound, c.pbar, c.gam, c.lambda, s,
				(SELECT avg((gsu.predict(m, mean) = label)::int) FROM data WHERE ds = c.ds AND NOT train),
				(gsu.describe(m)->'training'->>'objective')::float8,
				(gsu.describe(m)->'hyperparameters'->>'gamma')::float8,
				extract(epoch FROM clock_timestamp() - t0);
		END LOOP;
	END LOOP;
END $$;
