-- gsu.fit's solver newton on a table larger than gsu.max_training_memory: the
-- buffered gsu.train refuses (its hint names the gsu.fit call), and gsu.fit
-- reaches the buffered optimum (computed with the limit raised) to 1e-6
-- relative in the objective, in at most 8 scans of the table for the GSU
-- loss (diagonal, isotropic as an equal diagonal, full covariances) and 12
-- for the hinge loss, serially and with parallel workers.  The scans'
-- NOTICEs carry timings: they are hidden, and the scans are read from the
-- model ("passes").  No timing is asserted.
\set SHOW_CONTEXT never
CREATE SCHEMA test_fit_scans;
SET search_path = test_fit_scans, public;

-- 4000 rows of dimension 5, a deterministic generator (a hash of the row and
-- the coordinate); the classes overlap
CREATE FUNCTION u(i int, j int, salt float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT x - floor(x) FROM (SELECT sin(i * 12.9898 + j * 78.233 + salt) * 43758.5453 AS x) s
$$;
CREATE TABLE big AS
SELECT i AS id,
	ARRAY(SELECT (CASE WHEN i % 2 = 0 THEN 0.4 ELSE -0.4 END) * (1 + j % 3) / 2 + 2 * u(i, j, 0) - 1
		  FROM generate_series(1, 5) j) AS mean,
	ARRAY(SELECT 0.05 + 0.3 * u(i, j, 1) FROM generate_series(1, 5) j) AS variance,
	0.05 + 0.3 * u(i, 0, 2) AS iso,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS label
FROM generate_series(1, 4000) i;
-- the same rows with an isotropic variance (as an equal diagonal) and with full covariances
CREATE TABLE big_iso AS SELECT id, mean, array_fill(iso, ARRAY[5]) AS variance, iso, label FROM big;
CREATE TABLE big_full AS
SELECT id, mean, ARRAY(SELECT ARRAY(SELECT CASE WHEN r = c THEN variance[r] ELSE 0.02 * u(id, r + c, 3) END
									FROM generate_series(1, 5) c) FROM generate_series(1, 5) r) AS variance, label
FROM big;
-- symmetric: the off-diagonal term depends on r + c only
SELECT bool_and(variance[2][3] = variance[3][2]) AS symmetric FROM big_full;

CREATE FUNCTION training(m gsu.model, key text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT (gsu.describe(m)->'training'->>key)::float8
$$;
CREATE FUNCTION rel_objective(a gsu.model, b gsu.model) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT abs(training(a, 'objective') - training(b, 'objective')) / training(b, 'objective')
$$;

-- the buffered optima, with the limit at its default
CREATE TABLE buffered AS
SELECT 'diagonal' AS name, (SELECT gsu.train(mean, variance, label, '{"lambda": 1e-3}' ORDER BY id) FROM big) AS t
UNION ALL SELECT 'isotropic', (SELECT gsu.train(mean, iso, label, '{"lambda": 1e-3}' ORDER BY id) FROM big)
UNION ALL SELECT 'full', (SELECT gsu.train(mean, variance, label, '{"lambda": 1e-3}' ORDER BY id) FROM big_full)
UNION ALL SELECT 'hinge', (SELECT gsu.train(mean, NULL::float8[], label, '{"lambda": 1e-3, "loss": "hinge"}' ORDER BY id) FROM big)
UNION ALL SELECT 'hinge lambda 1e-4', (SELECT gsu.train(mean, NULL::float8[], label, '{"lambda": 1e-4, "loss": "hinge"}' ORDER BY id) FROM big);

-- 128 kB holds none of the tables: the buffered solver refuses, and names the call that trains out of core
SET gsu.max_training_memory = '128kB';
SELECT test_error($$SELECT gsu.train(mean, variance, label, '{"lambda": 1e-3}') FROM big$$);
SELECT test_error($$SELECT gsu.train(mean, NULL::float8[], label) FROM big$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label) FROM big_full$$);
-- the weighted form: the hint names the weighted gsu.fit
SELECT test_error($$SELECT gsu.train(mean, variance, label, iso, '{"class_weight": "balanced"}') FROM big$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, iso, NULL) FROM big$$);
SELECT test_error($$SELECT gsu.train(mean, variance, label, 2 * iso, NULL) FROM big$$);
-- a computed column: the hint's generic form
SELECT test_error($$SELECT gsu.train(mean || 1.0::float8, NULL::float8[], label) FROM big$$);

CREATE FUNCTION fits() RETURNS TABLE (name text, f gsu.model) LANGUAGE sql AS $$
	SELECT 'diagonal', gsu.fit('big', 'mean', 'variance', 'label', '{"lambda": 1e-3}')
	UNION ALL SELECT 'isotropic', gsu.fit('big_iso', 'mean', 'variance', 'label', '{"lambda": 1e-3}')
	UNION ALL SELECT 'full', gsu.fit('big_full', 'mean', 'variance', 'label', '{"lambda": 1e-3}')
	UNION ALL SELECT 'hinge', gsu.fit('big', 'mean', NULL, 'label', '{"lambda": 1e-3, "loss": "hinge"}')
	UNION ALL SELECT 'hinge lambda 1e-4', gsu.fit('big', 'mean', NULL, 'label', '{"lambda": 1e-4, "loss": "hinge"}')
$$;

-- serial: the buffered optimum to 1e-6, in at most 8 scans (12 for the hinge), converged
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial AS SELECT * FROM fits();
SELECT s.name, rel_objective(s.f, b.t) <= 1e-6 AS same_optimum,
	training(s.f, 'passes') <= CASE WHEN s.name LIKE 'hinge%' THEN 12 ELSE 8 END AS few_scans,
	training(s.f, 'rows') AS rows, (gsu.describe(s.f)->'training'->>'converged')::bool AS converged,
	gsu.describe(s.f)->'hyperparameters'->>'solver' AS solver
FROM serial s JOIN buffered b USING (name) ORDER BY s.name;

-- parallel workers forced: the same
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- the scans' aggregate runs in the workers
EXPLAIN (COSTS OFF) SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.001, 0) FROM big;
EXPLAIN (COSTS OFF) SELECT gsu.hessian(mean, NULL, label, NULL::gsu.model, 0.01, 0.1) FROM big;
CREATE TABLE parallel AS SELECT * FROM fits();
SELECT p.name, rel_objective(p.f, b.t) <= 1e-6 AS same_optimum,
	training(p.f, 'passes') <= CASE WHEN p.name LIKE 'hinge%' THEN 12 ELSE 8 END AS few_scans,
	rel_objective(p.f, s.f) <= 1e-9 AS same_as_serial
FROM parallel p JOIN buffered b USING (name) JOIN serial s USING (name) ORDER BY p.name;
-- the hessian partials of the workers add up to the serial sums, to rounding:
-- which rows each process adds depends on the scheduling
CREATE TABLE hess_parallel AS
	SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.001, 0)::text::jsonb AS j FROM big;
RESET max_parallel_workers_per_gather;
SELECT p.j->'rows' = s.j->'rows' AS same_rows,
	max(abs(a.v::float8 - b.v::float8)) <= 1e-12 * max(abs(b.v::float8)) AS same_sums
FROM hess_parallel p,
	(SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.001, 0)::text::jsonb AS j FROM big) s,
	LATERAL jsonb_array_elements_text(p.j->'vector') WITH ORDINALITY AS a(v, k)
	JOIN LATERAL jsonb_array_elements_text(s.j->'vector') WITH ORDINALITY AS b(v, k) USING (k)
GROUP BY p.j->'rows', s.j->'rows';
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- a partitioned table: per-partition aggregates summed with gsu.sum, the same optimum
CREATE TABLE big_parts (id int, mean float8[], variance float8[], label int4) PARTITION BY RANGE (id);
CREATE TABLE big_parts_1 PARTITION OF big_parts FOR VALUES FROM (MINVALUE) TO (1500);
CREATE TABLE big_parts_2 PARTITION OF big_parts FOR VALUES FROM (1500) TO (MAXVALUE);
INSERT INTO big_parts SELECT id, mean, variance, label FROM big;
SELECT b.name, rel_objective(f, b.t) <= 1e-6 AS same_optimum, training(f, 'passes') <= 12 AS few_scans
FROM buffered b, LATERAL gsu.fit('big_parts', 'mean', CASE WHEN b.name LIKE 'hinge%' THEN NULL ELSE 'variance' END, 'label',
	CASE b.name WHEN 'diagonal' THEN '{"lambda": 1e-3}'::jsonb ELSE '{"lambda": 1e-3, "loss": "hinge"}' END) f
WHERE b.name IN ('diagonal', 'hinge') ORDER BY b.name;

-- row and class weights: gsu.fit(relation, mean, variance, label, weight, options) and the
-- option class_weight reach the optimum of gsu.train's weighted form, (1/W) sum c_i L_i, in
-- the same scans (balanced: each scan sums the classes apart).  w: weights in [0.5, 3.5), 0 for one row
-- in 7 and NULL for one in 5 (both skipped); big_imb has one positive row for two negatives
ALTER TABLE big ADD COLUMN w float8, ADD COLUMN k int4, ADD COLUMN wt text;
UPDATE big SET w = CASE WHEN id % 7 = 0 THEN 0 WHEN id % 5 = 0 THEN NULL ELSE 0.5 + 3 * u(id, 9, 4) END,
	k = 1 + id % 3, wt = '1';
CREATE TABLE big_imb AS SELECT * FROM big WHERE label = -1 OR id % 4 = 0;
RESET gsu.max_training_memory;
CREATE TABLE wbuffered AS
SELECT 'weighted' AS name, (SELECT gsu.train(mean, variance, label, w, '{"lambda": 1e-3}' ORDER BY id) FROM big) AS t
UNION ALL SELECT 'weighted hinge', (SELECT gsu.train(mean, NULL::float8[], label, w, '{"lambda": 1e-3, "loss": "hinge"}' ORDER BY id) FROM big)
UNION ALL SELECT 'balanced', (SELECT gsu.train(mean, variance, label, '{"lambda": 1e-3, "class_weight": "balanced"}' ORDER BY id) FROM big_imb)
UNION ALL SELECT 'balanced weighted', (SELECT gsu.train(mean, variance, label, w, '{"lambda": 1e-3, "class_weight": "balanced"}' ORDER BY id) FROM big_imb)
UNION ALL SELECT 'balanced weighted hinge', (SELECT gsu.train(mean, NULL::float8[], label, w, '{"lambda": 1e-3, "loss": "hinge", "class_weight": "balanced"}' ORDER BY id) FROM big_imb)
UNION ALL SELECT 'class 3 weighted hinge', (SELECT gsu.train(mean, NULL::float8[], label, w, '{"lambda": 1e-3, "loss": "hinge", "class_weight": {"1": 3}}' ORDER BY id) FROM big_imb)
UNION ALL SELECT 'integer weights', (SELECT gsu.train(mean, variance, label, k::float8, '{"lambda": 1e-3}' ORDER BY id) FROM big);
SET gsu.max_training_memory = '128kB';
CREATE FUNCTION wfits() RETURNS TABLE (name text, f gsu.model) LANGUAGE sql AS $$
	SELECT 'weighted', gsu.fit('big', 'mean', 'variance', 'label', 'w', '{"lambda": 1e-3}')
	UNION ALL SELECT 'weighted hinge', gsu.fit('big', 'mean', NULL, 'label', 'w', '{"lambda": 1e-3, "loss": "hinge"}')
	UNION ALL SELECT 'balanced', gsu.fit('big_imb', 'mean', 'variance', 'label', '{"lambda": 1e-3, "class_weight": "balanced"}')
	UNION ALL SELECT 'balanced weighted', gsu.fit('big_imb', 'mean', 'variance', 'label', 'w', '{"lambda": 1e-3, "class_weight": "balanced"}')
	UNION ALL SELECT 'balanced weighted hinge', gsu.fit('big_imb', 'mean', NULL, 'label', 'w', '{"lambda": 1e-3, "loss": "hinge", "class_weight": "balanced"}')
	UNION ALL SELECT 'class 3 weighted hinge', gsu.fit('big_imb', 'mean', NULL, 'label', 'w', '{"lambda": 1e-3, "loss": "hinge", "class_weight": {"1": 3}}')
$$;
-- serial: the weighted optimum to 1e-6 within 8 scans (12 for the hinge), the rows of
-- weight 0 or NULL not counted, gsu.train's class weights stored
SET max_parallel_workers_per_gather = 0;
CREATE TABLE wserial AS SELECT * FROM wfits();
SELECT s.name, rel_objective(s.f, b.t) <= 1e-6 AS same_optimum,
	training(s.f, 'passes') <= CASE WHEN s.name LIKE '%hinge' THEN 12 ELSE 8 END AS few_scans,
	training(s.f, 'rows') = training(b.t, 'rows') AS same_rows, training(s.f, 'rows') AS rows,
	(s.f::jsonb)->'class_weight' = (b.t::jsonb)->'class_weight' AS same_class_weights,
	(s.f::jsonb)->'class_weight' AS class_weight,
	(gsu.describe(s.f)->'training'->>'converged')::bool AS converged
FROM wserial s JOIN wbuffered b USING (name) ORDER BY s.name;
-- parallel workers forced: the same
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT gsu.hessian(mean, variance, label, w, NULL::gsu.model, 0.001, 0) FROM big;
CREATE TABLE wparallel AS SELECT * FROM wfits();
SELECT p.name, rel_objective(p.f, b.t) <= 1e-6 AS same_optimum,
	training(p.f, 'passes') <= CASE WHEN p.name LIKE '%hinge' THEN 12 ELSE 8 END AS few_scans,
	rel_objective(p.f, s.f) <= 1e-9 AS same_as_serial
FROM wparallel p JOIN wbuffered b USING (name) JOIN wserial s USING (name) ORDER BY p.name;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
-- a partitioned table: the per-partition weight sums add up with the partials
CREATE TABLE big_wparts (id int, mean float8[], variance float8[], label int4, w float8) PARTITION BY RANGE (id);
CREATE TABLE big_wparts_1 PARTITION OF big_wparts FOR VALUES FROM (MINVALUE) TO (1500);
CREATE TABLE big_wparts_2 PARTITION OF big_wparts FOR VALUES FROM (1500) TO (MAXVALUE);
INSERT INTO big_wparts SELECT id, mean, variance, label, w FROM big_imb;
SELECT b.name, rel_objective(f, b.t) <= 1e-6 AS same_optimum,
	training(f, 'passes') <= CASE WHEN b.name LIKE '%hinge' THEN 12 ELSE 8 END AS few_scans
FROM wbuffered b, LATERAL gsu.fit('big_wparts', 'mean', CASE WHEN b.name LIKE '%hinge' THEN NULL ELSE 'variance' END,
	'label', 'w', CASE b.name WHEN 'balanced weighted' THEN '{"lambda": 1e-3, "class_weight": "balanced"}'::jsonb
		ELSE '{"lambda": 1e-3, "loss": "hinge", "class_weight": {"1": 3}}' END) f
WHERE b.name IN ('balanced weighted', 'class 3 weighted hinge') ORDER BY b.name;
-- an integer weight column: the same optimum as the weights as float8
SELECT rel_objective(gsu.fit('big', 'mean', 'variance', 'label', 'k', '{"lambda": 1e-3}'), t) <= 1e-6 AS integer_weights
FROM wbuffered WHERE name = 'integer weights';
-- the solver lbfgs (passes of the weighted gsu.gradient, per class for balanced): the same optimum
SELECT name, rel_objective(gsu.fit('big_imb', 'mean', 'variance', 'label', 'w',
	'{"lambda": 1e-3, "class_weight": "balanced", "solver": "lbfgs"}'), t) <= 1e-6 AS lbfgs_same_optimum
FROM wbuffered WHERE name = 'balanced weighted';
-- every weight 0 or NULL: no training rows, NULL (as gsu.train)
CREATE TABLE zero_w AS SELECT mean, variance, label, CASE WHEN id % 2 = 0 THEN 0 END::float8 AS w FROM big WHERE id <= 100;
SELECT gsu.fit('zero_w', 'mean', 'variance', 'label', 'w', NULL) IS NULL AS no_rows,
	gsu.fit('zero_w', 'mean', 'variance', 'label', 'w', '{"solver": "lbfgs"}') IS NULL AS no_rows_lbfgs;
RESET client_min_messages;
RESET gsu.max_training_memory;

-- gsu.hessian by itself: a partial of kind hessian whose sums are those of gsu.gradient
SELECT (h::text::jsonb)->>'kind' AS kind, (h::text::jsonb)->'rows' AS rows,
	(h::text::jsonb)->'loss_sum' = (g::text::jsonb)->'loss_sum' AS same_loss,
	jsonb_path_query_array(h::text::jsonb, '$.vector[0 to 5]') = (g::text::jsonb)->'vector' AS same_gradient
FROM (SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.5, 0) AS h,
			 gsu.gradient(mean, variance, label, NULL::gsu.model, 0.5) AS g FROM big) s;
-- its text form round-trips, with and without the support band
SELECT h::text::gsu.partial::text = h::text AS round_trip
FROM (SELECT gsu.hessian(mean, NULL, label, NULL::gsu.model, 0.5, b) AS h FROM big, (VALUES (0.0), (0.5)) v(b) GROUP BY b) s;
-- and its binary form (a binary COPY, as partial.sql does for the other kinds)
CREATE TABLE hess AS SELECT b, gsu.hessian(mean, NULL, label, NULL::gsu.model, 0.5, b) AS h
FROM big, (VALUES (0.0), (0.5)) v(b) GROUP BY b;
CREATE TABLE hess_copied (LIKE hess);
DO $$
DECLARE
	f text := public.regress_file('fit_scans');
BEGIN
	EXECUTE format('COPY test_fit_scans.hess TO %L (FORMAT binary)', f);
	EXECUTE format('COPY test_fit_scans.hess_copied FROM %L (FORMAT binary)', f);
END
$$;
SELECT b, c.h::text = t.h::text AS binary_same FROM hess_copied c JOIN hess t USING (b) ORDER BY b;
-- gsu.hessian_final is an SQL function too: called by itself on stored values, compressed
-- (dimension 60, the same number everywhere) or not, it checks them detoasted, in a copy
CREATE TABLE hess_wide AS SELECT g, gsu.hessian(array_fill(0.01 * g, ARRAY[60]), NULL, 1, NULL::gsu.model, 1.0, 0) AS h
FROM generate_series(1, 2) g GROUP BY g;
SELECT g, pg_column_compression(h) IS NOT NULL AS compressed, gsu.hessian_final(h)::text = h::text AS final_same
FROM hess_wide ORDER BY g;
SELECT b, gsu.hessian_final(h)::text = h::text AS final_same FROM hess ORDER BY b;

-- errors
SELECT test_error($$SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.5, -1) FROM big$$);
SELECT test_error($$SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.5, 'NaN') FROM big$$);
SELECT test_error($$SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.5, id) FROM big$$);
SELECT test_error($$SELECT gsu.hessian(array_fill(1.0::float8, ARRAY[4001]), NULL, 1, NULL::gsu.model, 0.5, 0)$$);
SELECT test_error($$SELECT gsu.sum(h) FROM (SELECT gsu.hessian(mean, NULL, label, NULL::gsu.model, 0.5, b) AS h FROM big, (VALUES (0.0), (0.5)) v(b) GROUP BY b) s$$);
-- (serial: the two partials reach gsu.sum in the order of the UNION ALL; a parallel
-- plan, which their costs can make the cheaper, may put the cheaper arm first)
SET max_parallel_workers_per_gather = 0;
SELECT test_error($$SELECT gsu.sum(p) FROM (SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.5, 0) FROM big UNION ALL SELECT gsu.gradient(mean, variance, label, NULL::gsu.model, 0.5) FROM big) s(p)$$);
RESET max_parallel_workers_per_gather;
-- a Hessian sum that overflows is refused (22003) by the final function, which checks the
-- running state with its pending terms added: the state is an expanded object with a block
-- of terms, which PostgreSQL passes to a final function through a read-only pointer (the
-- row's loss and gradient are finite, its Hessian terms x_1^2 = 1e400 are not)
SELECT test_error($$SELECT gsu.hessian(ARRAY[1e200, 0]::float8[], NULL, 1, NULL::gsu.model, 1.0, 0)$$);
SELECT test_error($$SELECT gsu.hessian(ARRAY[1e200, 0]::float8[], NULL, 1, 2.0, NULL::gsu.model, 1.0, 0)$$);
-- and so is one of a group past the first 8 of a GROUP BY, whose state is a plain value
SELECT test_error($$SELECT gsu.hessian(CASE WHEN g = 10 THEN ARRAY[1e200, 0] ELSE ARRAY[1, 0] END::float8[], NULL, 1, NULL::gsu.model, 1.0, 0) FROM generate_series(1, 10) g GROUP BY g$$);
SELECT test_error($$SELECT '{"format": 3, "kind": "hessian", "dim": 1, "vector": [1, 2]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 3, "kind": "hessian", "dim": 1, "steps": 5000, "vector": [1, 2]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 2, "kind": "hessian", "dim": 1, "vector": [1, 2]}'::gsu.partial$$);
SELECT test_error($$SELECT '{"format": 3, "kind": "hessian", "dim": 1, "rows": 1, "point": "0000000000000001", "steps": 1, "vector": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0.5, 0, 0]}'::gsu.partial$$);

-- the weighted aggregates: a row of weight c adds c times the unweighted row's sums (loss,
-- gradient, Hessian); a row of weight 0 or NULL adds nothing
SELECT count(DISTINCT id) AS rows, bool_and(abs(a.v::float8 - r.w * b.v::float8) <= 1e-13 * (1 + abs(r.w * b.v::float8))) AS weight_times_row,
	bool_and(abs((r.hw->>'loss_sum')::float8 - r.w * (r.h->>'loss_sum')::float8) <= 1e-13 * (r.h->>'loss_sum')::float8) AS weight_times_loss,
	bool_and(abs(ga.v::float8 - r.w * gb.v::float8) <= 1e-13 * (1 + abs(r.w * gb.v::float8))) AS gradient_weight_times_row
FROM (SELECT id, w, gsu.hessian(mean, variance, label, w, NULL::gsu.model, 0.5, 0)::text::jsonb AS hw,
			 gsu.hessian(mean, variance, label, NULL::gsu.model, 0.5, 0)::text::jsonb AS h,
			 gsu.gradient(mean, variance, label, w, NULL::gsu.model, 0.5)::text::jsonb AS gw,
			 gsu.gradient(mean, variance, label, NULL::gsu.model, 0.5)::text::jsonb AS g
	  FROM big WHERE id <= 40 AND w > 0 GROUP BY id, w) r,
	LATERAL jsonb_array_elements(r.hw->'vector') WITH ORDINALITY a(v, i)
	JOIN LATERAL jsonb_array_elements(r.h->'vector') WITH ORDINALITY b(v, i) USING (i)
	JOIN LATERAL jsonb_array_elements(r.gw->'vector') WITH ORDINALITY ga(v, i) USING (i)
	JOIN LATERAL jsonb_array_elements(r.g->'vector') WITH ORDINALITY gb(v, i) USING (i);
-- over the table, weight 2 (exact in binary): every sum exactly twice the unweighted, with and
-- without the support band (its band rows carry y times the weight; one number differs, the
-- band's width; the counts of its rows are 0 at the zero model)
SELECT b, (hw->'rows') = (h->'rows') AS same_rows,
	(hw->>'loss_sum')::float8 = 2 * (h->>'loss_sum')::float8 AS twice_loss,
	(SELECT count(*) FILTER (WHERE x.v::float8 <> 2 * y.v::float8)
	 FROM jsonb_array_elements(hw->'vector') WITH ORDINALITY x(v, i)
	 JOIN jsonb_array_elements(h->'vector') WITH ORDINALITY y(v, i) USING (i)) AS not_twice
FROM (SELECT b, gsu.hessian(mean, NULL, label, 2.0::float8, NULL::gsu.model, 0.5, b)::text::jsonb AS hw,
			 gsu.hessian(mean, NULL, label, NULL::gsu.model, 0.5, b)::text::jsonb AS h
	  FROM big, (VALUES (0.0), (0.5)) v(b) GROUP BY b) s ORDER BY b;
-- the rows of weight 0 or NULL are skipped: rows counts the others
SELECT (gsu.gradient(mean, variance, label, w, NULL::gsu.model, 0.5)::text::jsonb)->'rows' AS rows,
	count(*) FILTER (WHERE w > 0) AS positive_weights FROM big;
-- a weighted and an unweighted partial of the same point add up (exactly combinable)
SELECT (gsu.sum(p)::text::jsonb)->'rows' AS rows FROM (
	SELECT gsu.hessian(mean, variance, label, w, NULL::gsu.model, 0.5, 0) FROM big WHERE id <= 100
	UNION ALL SELECT gsu.hessian(mean, variance, label, NULL::gsu.model, 0.5, 0) FROM big WHERE id > 100) s(p);

-- errors of the weights
CREATE TABLE bad_w AS SELECT id, mean, variance, label, CASE WHEN id = 3 THEN -1 ELSE 1 END::float8 AS wneg,
	CASE WHEN id = 3 THEN 'NaN'::float8 ELSE 1 END AS wnan, 1 AS one_class FROM big WHERE id <= 10;
SELECT test_error($$SELECT gsu.fit('bad_w', 'mean', 'variance', 'label', 'wneg', NULL)$$);
SELECT test_error($$SELECT gsu.fit('bad_w', 'mean', 'variance', 'label', 'wnan', '{"solver": "lbfgs"}')$$);
SELECT test_error($$SELECT gsu.hessian(mean, variance, label, wneg, NULL::gsu.model, 0.5, 0) FROM bad_w$$);
SELECT test_error($$SELECT gsu.gradient(mean, variance, label, 'Infinity', NULL::gsu.model, 0.5) FROM bad_w$$);
SELECT test_error($$SELECT gsu.fit('big', 'mean', 'variance', 'label', 'wt', NULL)$$);
SELECT test_error($$SELECT gsu.fit('big', 'mean', 'variance', 'label', 'no_such_column', NULL)$$);
SELECT test_error($$SELECT gsu.fit('big', 'mean', 'variance', 'label', NULL, NULL)$$);
-- weights whose sum overflows (the rows far beyond the margin add no loss): the scan's sum fails
CREATE TABLE huge_w AS SELECT ARRAY[label * (1 + (id % 7) / 7.0), (id % 5) / 5.0]::float8[] AS mean, label, 1::float8 AS w
FROM big WHERE id <= 40 UNION ALL SELECT ARRAY[1000, j]::float8[], 1, 1e308 FROM generate_series(0, 1) j;
SELECT test_error($$SELECT gsu.fit('huge_w', 'mean', NULL, 'label', 'w', jsonb_build_object('loss', 'hinge', 'init',
	(SELECT gsu.train(mean, NULL::float8[], label, '{"loss": "hinge"}') FROM huge_w WHERE w = 1)::jsonb))$$);
-- class_weight: gsu.fit's labels are -1 and 1; the option's own checks are gsu.train's
SELECT test_error($$SELECT gsu.fit('big', 'mean', 'variance', 'label', '{"class_weight": {"2": 1}}')$$);
SELECT test_error($$SELECT gsu.fit('big', 'mean', 'variance', 'label', '{"class_weight": {"1": -1}}')$$);
SELECT test_error($$SELECT gsu.fit('big', 'mean', 'variance', 'label', '{"class_weight": "even"}')$$);
SELECT test_error($$SELECT gsu.fit('bad_w', 'mean', 'variance', 'one_class', '{"class_weight": "balanced"}')$$);

-- 60 dimensions, 3000 rows, nearly separable.  At the smallest gsu.max_training_memory no
-- sample of 16 rows fits, so gsu.fit starts from zero, where the first Hessian has no
-- curvature along b (the trust radius starts at the gradient's norm, as TRON's, instead of
-- shrinking an unbounded step by 4 a scan: 78 scans before); a larger budget holds a sample
-- of a few dozen rows, fewer than the dimension, still a start.  The hinge loss with the
-- whole table in the sample: the polish of the band at the sample's optimum certifies it
-- (its SMO alone stalled on this band, 61 free rows in 60 dimensions: 192 scans before);
-- with a sample of a few hundred rows (400 kB) Newton starts at the smoothing 0.1 (16 scans
-- before at lambda 1e-2, from 10^-2)
CREATE TABLE wide AS
SELECT i AS id, m AS mean, ARRAY(SELECT 0.05 + 0.3 * u(i, j, 1) FROM generate_series(1, 60) j) AS variance,
	CASE WHEN (SELECT sum(sin(j) * m[j]) FROM generate_series(1, 60) j) + 0.5 * (u(i, 0, 2) - 0.5) > 0
		THEN 1 ELSE -1 END AS label
FROM (SELECT i, ARRAY(SELECT 2 * u(i, j, 0) - 1 FROM generate_series(1, 60) j) AS m
	  FROM generate_series(1, 3000) i) s;
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE wide_fits (name text, f gsu.model, b gsu.model);
SET gsu.max_training_memory = '64kB';
INSERT INTO wide_fits SELECT '64kB', gsu.fit('wide', 'mean', 'variance', 'label', '{"lambda": 1e-4}');
SET gsu.max_training_memory = '400kB';
INSERT INTO wide_fits SELECT '400kB', gsu.fit('wide', 'mean', 'variance', 'label', '{"lambda": 1e-4}');
RESET gsu.max_training_memory;
UPDATE wide_fits SET b = (SELECT gsu.train(mean, variance, label, '{"lambda": 1e-4}' ORDER BY id) FROM wide);
INSERT INTO wide_fits SELECT 'hinge', gsu.fit('wide', 'mean', NULL, 'label', '{"lambda": 1e-4, "loss": "hinge"}'),
	(SELECT gsu.train(mean, NULL::float8[], label, '{"lambda": 1e-4, "loss": "hinge"}' ORDER BY id) FROM wide);
SET gsu.max_training_memory = '400kB';
INSERT INTO wide_fits SELECT 'hinge 400kB', gsu.fit('wide', 'mean', NULL, 'label', '{"lambda": 1e-2, "loss": "hinge"}');
RESET gsu.max_training_memory;
UPDATE wide_fits SET b = (SELECT gsu.train(mean, NULL::float8[], label, '{"lambda": 1e-2, "loss": "hinge"}' ORDER BY id) FROM wide)
WHERE name = 'hinge 400kB';
SELECT name, rel_objective(f, b) <= 1e-6 AS same_optimum,
	training(f, 'passes') <= CASE WHEN name LIKE 'hinge%' THEN 12 ELSE 10 END AS few_scans,
	(gsu.describe(f)->'training'->>'converged')::bool AS converged
FROM wide_fits ORDER BY name;
RESET max_parallel_workers_per_gather;
RESET client_min_messages;

DROP SCHEMA test_fit_scans CASCADE;
