-- gsu.geu_fit: LDA and MFA projections, plain, regularized and with the GEU
-- uncertainty terms, checked against scatter matrices built here in SQL from
-- the definitions (Yan et al.'s graphs; E[XLX'] = XLX' + sum_i L_ii Sigma_i),
-- the parallel (partial aggregate) path, and every error.
CREATE EXTENSION IF NOT EXISTS pg_gsu;
\set SHOW_CONTEXT never

CREATE OR REPLACE PROCEDURE geu_err(sql text) LANGUAGE plpgsql AS $$
DECLARE
	det text;
	hnt text;
BEGIN
	EXECUTE sql;
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
	RAISE NOTICE '%', SQLSTATE || ': ' || SQLERRM
		|| CASE WHEN det <> '' THEN E'\nDETAIL: ' || det ELSE '' END
		|| CASE WHEN hnt <> '' THEN E'\nHINT: ' || hnt ELSE '' END;
END
$$;

-- geu_eig_ok(S, Sp, p): every direction v_j of p solves S v = lambda_j Sp v
-- (S, Sp flattened d x d), the directions are Sp-orthonormal and the
-- eigenvalues ascend.
CREATE OR REPLACE FUNCTION geu_eig_ok(s float8[], sp float8[], p gsu.projection) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	v float8[] := gsu.vectors(p);
	lam float8[] := gsu.eigenvalues(p);
	k int := array_length(v, 1);
	d int := array_length(v, 2);
	sv float8;
	spv float8;
	res float8;
	scale float8;
	g float8;
BEGIN
	FOR j IN 1 .. k LOOP
		IF j > 1 AND lam[j] < lam[j - 1] THEN
			RETURN false;
		END IF;
		res := 0;
		scale := 0;
		FOR a IN 1 .. d LOOP
			sv := 0;
			spv := 0;
			FOR b IN 1 .. d LOOP
				sv := sv + s[(a - 1) * d + b] * v[j][b];
				spv := spv + sp[(a - 1) * d + b] * v[j][b];
			END LOOP;
			res := greatest(res, abs(sv - lam[j] * spv));
			scale := greatest(scale, abs(sv) + abs(lam[j] * spv));
		END LOOP;
		IF res > 1e-9 * scale THEN
			RAISE NOTICE 'direction % does not solve the eigenproblem', j;
			RETURN false;
		END IF;
		FOR i IN 1 .. j LOOP
			g := 0;
			FOR a IN 1 .. d LOOP
				FOR b IN 1 .. d LOOP
					g := g + v[i][a] * sp[(a - 1) * d + b] * v[j][b];
				END LOOP;
			END LOOP;
			IF abs(g - CASE WHEN i = j THEN 1 ELSE 0 END) > 1e-9 THEN
				RAISE NOTICE 'directions % and % are not Sp-orthonormal', i, j;
				RETURN false;
			END IF;
		END LOOP;
	END LOOP;
	RETURN true;
END
$$;

-- eigenvalues rounded for display
CREATE OR REPLACE FUNCTION geu_eig(p gsu.projection) RETURNS numeric[] LANGUAGE sql AS $$
	SELECT array_agg(round(e::numeric, 6) ORDER BY k) FROM unnest(gsu.eigenvalues(p)) WITH ORDINALITY u(e, k)
$$;

-- 60 rows of dimension 3 in two classes (y) or three (y3); diagonal
-- variances, NULL for every seventh row
CREATE TABLE geu_pts AS
SELECT i AS id,
	ARRAY[sin(i * 1.3) + 1.5 * c, cos(i * 0.7) * 2 - 0.8 * c,
		  sin(i * 0.37 + 1) * 0.5 + 0.3 * c + 0.2 * sin(i * 1.3)] AS x,
	CASE WHEN i % 7 = 0 THEN NULL
		 ELSE ARRAY[0.05 + 0.04 * sin(i * 2.1), 0.1 + 0.08 * cos(i * 1.1), 0.02 + 0.01 * sin(i)] END AS v,
	c AS y, i % 3 AS y3
FROM generate_series(1, 60) i, LATERAL (SELECT i % 2 AS c) l;

-- the LDA matrices from the definition: S = S_w + sum_i (1 - 1/n_c) Sigma_i + eps I
-- (eps only when eps_both), Sp = S_t + sum_i (1 - 1/N) Sigma_i + eps I (labels in column lab)
CREATE OR REPLACE FUNCTION geu_lda_matrices(lab text, eps float8, use_var bool, eps_both bool DEFAULT true,
	OUT s float8[], OUT sp float8[]) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format($q$
	WITH pts AS (SELECT x, coalesce(v, '{0,0,0}') AS v, %1$I AS y FROM geu_pts),
		 cls AS (SELECT y, count(*) AS n, ARRAY[avg(x[1]), avg(x[2]), avg(x[3])] AS mu FROM pts GROUP BY y),
		 tot AS (SELECT count(*) AS n, ARRAY[avg(x[1]), avg(x[2]), avg(x[3])] AS mu FROM pts),
		 ent AS (
			SELECT a, b,
				sum((x[a] - c.mu[a]) * (x[b] - c.mu[b])
					+ CASE WHEN a = b AND $2 THEN (1 - 1.0 / c.n) * v[a] ELSE 0 END) AS sw,
				sum((x[a] - t.mu[a]) * (x[b] - t.mu[b])
					+ CASE WHEN a = b AND $2 THEN (1 - 1.0 / t.n) * v[a] ELSE 0 END) AS st
			FROM pts JOIN cls c USING (y), tot t, generate_series(1, 3) a, generate_series(1, 3) b
			GROUP BY a, b)
	SELECT array_agg(sw + CASE WHEN a = b AND $3 THEN $1 ELSE 0 END ORDER BY a, b),
		   array_agg(st + CASE WHEN a = b THEN $1 ELSE 0 END ORDER BY a, b) FROM ent
	$q$, lab) INTO s, sp USING eps, use_var, eps_both;
END
$$;

-- ------------------------------------------------------------------ LDA
CREATE TABLE geu_proj (name text PRIMARY KEY, p gsu.projection);
INSERT INTO geu_proj
SELECT 'lda', gsu.geu_fit(x, NULL, y) FROM geu_pts UNION ALL
SELECT 'lda3', gsu.geu_fit(x, NULL, y, '{"dims": 3}') FROM geu_pts UNION ALL
SELECT 'geu', gsu.geu_fit(x, v, y, '{"dims": 3}') FROM geu_pts UNION ALL
SELECT 'rlda', gsu.geu_fit(x, NULL, y, '{"dims": 3, "regularization": 0.5, "regularize": "both"}') FROM geu_pts UNION ALL
SELECT 'geu_r', gsu.geu_fit(x, v, y, '{"dims": 2, "regularization": 0.25, "regularize": "both"}') FROM geu_pts UNION ALL
SELECT 'rlda_p', gsu.geu_fit(x, NULL, y, '{"dims": 3, "regularization": 0.5, "regularize": "penalty"}') FROM geu_pts UNION ALL
SELECT 'geu_r_p', gsu.geu_fit(x, v, y, '{"dims": 2, "regularization": 0.25, "regularize": "penalty"}') FROM geu_pts UNION ALL
SELECT 'zero', gsu.geu_fit(x, '{0,0,0}', y, '{"dims": 3}') FROM geu_pts UNION ALL
SELECT 'full', gsu.geu_fit(x, CASE WHEN v IS NULL THEN NULL ELSE
		ARRAY[[v[1], 0, 0], [0, v[2], 0], [0, 0, v[3]]] END, y, '{"dims": 3}') FROM geu_pts UNION ALL
SELECT 'lda_3class', gsu.geu_fit(x, v, y3) FROM geu_pts UNION ALL
SELECT 'lda_labels', gsu.geu_fit(x, v, CASE WHEN y = 1 THEN -7 ELSE 1000 END, '{"dims": 3}') FROM geu_pts;
SELECT name, gsu.describe_projection(p) - 'eigenvalues' AS describe, geu_eig(p) FROM geu_proj ORDER BY name;
-- each solves its generalized eigenproblem, built here from the definition
SELECT name, geu_eig_ok(m.s, m.sp, p) AS eig_ok
FROM geu_proj, LATERAL geu_lda_matrices(CASE WHEN name = 'lda_3class' THEN 'y3' ELSE 'y' END,
	CASE WHEN name LIKE 'rlda%' THEN 0.5 WHEN name LIKE 'geu_r%' THEN 0.25 ELSE 0 END,
	name IN ('geu', 'geu_r', 'geu_r_p', 'full', 'lda_3class', 'lda_labels'), name NOT LIKE '%_p') m
ORDER BY name;
-- "regularize": "penalty" (the GEU paper's RLDA: epsilon I on the penalty
-- scatter only) does not solve the "both" problem, nor "both" the penalty one
SELECT name, geu_eig_ok(m.s, m.sp, p) AS solves_other_form
FROM geu_proj, LATERAL geu_lda_matrices('y', CASE WHEN name LIKE 'rlda%' THEN 0.5 ELSE 0.25 END,
	name LIKE 'geu_r%', name LIKE '%_p') m
WHERE name IN ('rlda', 'rlda_p', 'geu_r', 'geu_r_p') ORDER BY name;
-- the default form is "penalty"; without regularization the form is not kept
SELECT gsu.geu_fit(x, NULL, y, '{"dims": 3, "regularization": 0.5}')::text =
	(SELECT p::text FROM geu_proj WHERE name = 'rlda_p') AS default_is_penalty,
	gsu.geu_fit(x, NULL, y, '{"dims": 3, "regularize": "penalty"}')::text =
	(SELECT p::text FROM geu_proj WHERE name = 'lda3') AS unregularized_same
FROM geu_pts;
-- the plain problem does not solve the GEU one: the uncertainty terms matter
SELECT geu_eig_ok(m.s, m.sp, p) AS plain_matrices_fit_geu
FROM geu_proj, geu_lda_matrices('y', 0, false) m WHERE name = 'geu';
-- two classes: the first direction is Fisher's, the others have lambda = 1 (S_b v = 0)
SELECT geu_eig(p) FROM geu_proj WHERE name = 'lda3';
-- fewer dims keep the leading directions
SELECT (SELECT p FROM geu_proj WHERE name = 'lda')::jsonb -> 'vectors' -> 0 =
	   (SELECT p FROM geu_proj WHERE name = 'lda3')::jsonb -> 'vectors' -> 0 AS same_first_direction;
-- zero variances are the plain method exactly; a full covariance equal to the
-- diagonal one gives the same projection; the labels' values do not matter
SELECT (SELECT p::text FROM geu_proj WHERE name = 'zero') = (SELECT p::text FROM geu_proj WHERE name = 'lda3') AS zero_is_plain,
	   (SELECT p::text FROM geu_proj WHERE name = 'full') = (SELECT p::text FROM geu_proj WHERE name = 'geu') AS full_is_diag,
	   (SELECT (p::jsonb - 'classes')::text FROM geu_proj WHERE name = 'lda_labels') =
	   (SELECT (p::jsonb - 'classes')::text FROM geu_proj WHERE name = 'geu') AS labels_arbitrary;
-- rows with a NULL mean or label are skipped; no rows give NULL
SELECT gsu.describe_projection(gsu.geu_fit(x, v, y)) ->> 'rows' AS rows
FROM (SELECT x, v, y FROM geu_pts UNION ALL SELECT NULL, '{1,1,1}', 1 UNION ALL SELECT '{1,2,3}', NULL, NULL) q;
SELECT gsu.geu_fit(x, v, y) IS NULL AS empty FROM geu_pts WHERE false;
SELECT gsu.geu_fit(NULL::float8[], NULL, 1) IS NULL AS all_null;

-- ------------------------------------------------------------------ MFA
-- the first 30 rows, graphs and scatter matrices built here from the
-- definitions: W_ij = 1 when j is among the k1 nearest same-class rows of i
-- or i of j; W^p_ij = 1 when (i, j) is among the k2 nearest between-class
-- pairs of the class of i or of j; S = sum over edges of dd' + sum_i deg_i Sigma_i
CREATE TABLE geu_small AS SELECT * FROM geu_pts WHERE id <= 30;
CREATE OR REPLACE FUNCTION geu_mfa_matrices(k1 int, k2 int, eps float8, use_var bool, eps_both bool DEFAULT true,
	OUT s float8[], OUT sp float8[]) LANGUAGE sql AS $$
	WITH pts AS (SELECT id, x, CASE WHEN use_var THEN coalesce(v, '{0,0,0}') ELSE '{0,0,0}' END AS v, y FROM geu_small),
		 dist AS (SELECT p.id AS i, q.id AS j, p.y AS yi, q.y AS yj,
						 (p.x[1] - q.x[1]) ^ 2 + (p.x[2] - q.x[2]) ^ 2 + (p.x[3] - q.x[3]) ^ 2 AS d
				  FROM pts p, pts q WHERE p.id <> q.id),
		 intr AS (SELECT DISTINCT least(i, j) AS a, greatest(i, j) AS b FROM (
					SELECT i, j, row_number() OVER (PARTITION BY i ORDER BY d, j) AS r
					FROM dist WHERE yi = yj) z WHERE r <= k1),
		 pen AS (SELECT DISTINCT least(i, j) AS a, greatest(i, j) AS b FROM (
					SELECT i, j, row_number() OVER (PARTITION BY yi ORDER BY d, i, j) AS r
					FROM dist WHERE yi <> yj) z WHERE r <= k2),
		 edges AS (SELECT 'w' AS g, a, b FROM intr UNION ALL SELECT 'p', a, b FROM pen),
		 deg AS (SELECT g, id, count(*) AS deg FROM edges, LATERAL (VALUES (a), (b)) e(id) GROUP BY g, id),
		 ent AS (
			SELECT g, r, c, sum(t) AS val FROM (
				SELECT e.g, r, c, (pa.x[r] - pb.x[r]) * (pa.x[c] - pb.x[c]) AS t
				FROM edges e JOIN pts pa ON pa.id = e.a JOIN pts pb ON pb.id = e.b,
					 generate_series(1, 3) r, generate_series(1, 3) c
				UNION ALL
				SELECT deg.g, r, r, deg.deg * pts.v[r]
				FROM deg JOIN pts USING (id), generate_series(1, 3) r
				UNION ALL
				SELECT g, r, r, eps FROM (VALUES ('w'), ('p')) gg(g), generate_series(1, 3) r
				WHERE eps_both OR g = 'p'
				UNION ALL
				SELECT g, r, c, 0 FROM (VALUES ('w'), ('p')) gg(g), generate_series(1, 3) r, generate_series(1, 3) c) q
			GROUP BY g, r, c)
	SELECT array_agg(val ORDER BY r, c) FILTER (WHERE g = 'w'),
		   array_agg(val ORDER BY r, c) FILTER (WHERE g = 'p') FROM ent
$$;
CREATE TABLE geu_mfa (name text PRIMARY KEY, k1 int, k2 int, eps float8, use_var bool, p gsu.projection);
INSERT INTO geu_mfa
SELECT 'mfa', 2, 6, 0, false, gsu.geu_fit(x, NULL, y, '{"method": "mfa", "dims": 3, "k1": 2, "k2": 6}' ORDER BY id) FROM geu_small UNION ALL
SELECT 'mfa_geu', 2, 6, 0, true, gsu.geu_fit(x, v, y, '{"method": "mfa", "dims": 3, "k1": 2, "k2": 6}' ORDER BY id) FROM geu_small UNION ALL
SELECT 'rmfa', 3, 2, 0.1, false, gsu.geu_fit(x, NULL, y, '{"method": "mfa", "dims": 2, "k1": 3, "k2": 2, "regularization": 0.1, "regularize": "both"}' ORDER BY id) FROM geu_small UNION ALL
SELECT 'rmfa_p', 3, 2, 0.1, false, gsu.geu_fit(x, NULL, y, '{"method": "mfa", "dims": 2, "k1": 3, "k2": 2, "regularization": 0.1, "regularize": "penalty"}' ORDER BY id) FROM geu_small UNION ALL
SELECT 'geu_rmfa_p', 2, 6, 0.3, true, gsu.geu_fit(x, v, y, '{"method": "mfa", "dims": 3, "k1": 2, "k2": 6, "regularization": 0.3}' ORDER BY id) FROM geu_small UNION ALL
SELECT 'mfa_geu_k', 4, 40, 0, true, gsu.geu_fit(x, v, y, '{"method": "mfa", "dims": 3, "k1": 4, "k2": 40}' ORDER BY id) FROM geu_small UNION ALL
SELECT 'mfa_default', 5, 20, 0, true, gsu.geu_fit(x, v, y, '{"method": "mfa"}' ORDER BY id) FROM geu_small UNION ALL
SELECT 'mfa_big_k', 100, 1000, 0, true, gsu.geu_fit(x, v, y, '{"method": "mfa", "dims": 3, "k1": 100, "k2": 1000}' ORDER BY id) FROM geu_small;
SELECT name, gsu.describe_projection(p) - 'eigenvalues' AS describe, geu_eig(p) FROM geu_mfa ORDER BY name;
SELECT name, geu_eig_ok(m.s, m.sp, p) AS eig_ok
FROM geu_mfa, LATERAL geu_mfa_matrices(k1, k2, eps, use_var, name NOT LIKE '%_p') m ORDER BY name;
-- zero variances are plain MFA exactly
SELECT gsu.geu_fit(x, '{0,0,0}', y, '{"method": "mfa", "dims": 3, "k1": 2, "k2": 6}' ORDER BY id)::text =
	(SELECT p::text FROM geu_mfa WHERE name = 'mfa') AS zero_is_plain FROM geu_small;

-- ------------------------------------------------- using the projection
-- SVM-GSU in the learned subspace: project the means and the variances
SELECT round(avg((gsu.predict(m, gsu.project(p, x)) = 2 * y - 1)::int), 2) AS train_accuracy
FROM geu_pts, (SELECT gsu.train(gsu.project(p, x), gsu.project_variance(p, v), 2 * y - 1) AS m
			   FROM geu_pts, geu_proj WHERE name = 'geu_r') t, geu_proj WHERE name = 'geu_r';
-- 1-NN in the projected space
SELECT round(avg((gsu.knn_predict(r, gsu.project(p, x), 1) = y)::int), 2) AS train_1nn
FROM geu_pts, geu_proj, (SELECT gsu.refset_agg(gsu.project(p, x), y) AS r FROM geu_pts, geu_proj WHERE name = 'geu_r') q
WHERE name = 'geu_r';

-- --------------------------------------------------------------- parallel
-- the partial-aggregate plan (workers serialize their states, the leader
-- combines them) gives the serial projection up to rounding
CREATE TABLE geu_big AS
SELECT i AS id, ARRAY[sin(i * 1.3) + 1.5 * (i % 2), cos(i * 0.7) * 2, sin(i * 0.37 + 1) + 0.3 * (i % 3)] AS x,
	ARRAY[0.05 + 0.04 * sin(i * 2.1), 0.1, 0.02 + 0.01 * sin(i)] AS v, i % 3 AS y
FROM generate_series(1, 6000) i;
ANALYZE geu_big;
CREATE TABLE geu_serial AS
SELECT gsu.geu_fit(x, v, y, '{"dims": 3}') AS lda, gsu.geu_fit(x, v, y, '{"method": "mfa", "dims": 3}') AS mfa,
	gsu.geu_fit(x, v, y, '{"dims": 3, "regularization": 50, "regularize": "penalty"}') AS lda_p FROM geu_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT gsu.geu_fit(x, v, y, '{"dims": 3}') FROM geu_big;
CREATE TABLE geu_parallel AS
SELECT gsu.geu_fit(x, v, y, '{"dims": 3}') AS lda, gsu.geu_fit(x, v, y, '{"method": "mfa", "dims": 3}') AS mfa,
	gsu.geu_fit(x, v, y, '{"dims": 3, "regularization": 50, "regularize": "penalty"}') AS lda_p FROM geu_big;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
SELECT (SELECT bool_and(abs(a - b) <= 1e-9 * greatest(abs(a), 1))
		FROM unnest(gsu.vectors(s.lda) || gsu.eigenvalues(s.lda), gsu.vectors(p.lda) || gsu.eigenvalues(p.lda)) u(a, b)) AS lda_same,
	   (SELECT bool_and(abs(a - b) <= 1e-9 * greatest(abs(a), 1))
		FROM unnest(gsu.vectors(s.mfa) || gsu.eigenvalues(s.mfa), gsu.vectors(p.mfa) || gsu.eigenvalues(p.mfa)) u(a, b)) AS mfa_same,
	   (SELECT bool_and(abs(a - b) <= 1e-9 * greatest(abs(a), 1))
		FROM unnest(gsu.vectors(s.lda_p) || gsu.eigenvalues(s.lda_p), gsu.vectors(p.lda_p) || gsu.eigenvalues(p.lda_p)) u(a, b)) AS lda_p_same,
	   gsu.describe_projection(p.lda_p) ->> 'regularize' AS lda_p_form,
	   gsu.describe_projection(p.lda) ->> 'rows' AS rows
FROM geu_serial s, geu_parallel p;

-- ------------------------------------------------------------------ errors
-- one class, for each method
CALL geu_err($$SELECT gsu.geu_fit(x, v, 1) FROM geu_pts$$);
CALL geu_err($$SELECT gsu.geu_fit(x, v, 4, '{"method": "mfa"}') FROM geu_pts$$);
-- dims larger than possible
CALL geu_err($$SELECT gsu.geu_fit(x, v, y, '{"dims": 4}') FROM geu_pts$$);
CALL geu_err($$SELECT gsu.geu_fit(x, v, y, '{"method": "mfa", "dims": 4}') FROM geu_pts$$);
-- singular total scatter (the third feature is the sum of the others) without
-- regularization; regularization or variances make it definite
CALL geu_err($$SELECT gsu.geu_fit(ARRAY[x[1], x[2], x[1] + x[2]], NULL, y) FROM geu_pts$$);
SELECT geu_eig(gsu.geu_fit(ARRAY[x[1], x[2], x[1] + x[2]], NULL, y, '{"regularization": 0.01, "regularize": "both"}')) FROM geu_pts;
SELECT geu_eig(gsu.geu_fit(ARRAY[x[1], x[2], x[1] + x[2]], NULL, y, '{"regularization": 0.01, "regularize": "penalty"}')) FROM geu_pts;
SELECT geu_eig(gsu.geu_fit(ARRAY[x[1], x[2], x[1] + x[2]], '{0.01, 0.01, 0.01}', y)) FROM geu_pts;
-- a constant feature
CALL geu_err($$SELECT gsu.geu_fit(ARRAY[x[1], 5], NULL, y) FROM geu_pts$$);
-- singular penalty scatter: one between-class pair spans one direction
CALL geu_err($$SELECT gsu.geu_fit(x, NULL, y, '{"method": "mfa", "k2": 1}') FROM geu_pts$$);
SELECT geu_eig(gsu.geu_fit(x, NULL, y, '{"method": "mfa", "k2": 1, "regularization": 0.1, "regularize": "both"}')) FROM geu_pts;
SELECT geu_eig(gsu.geu_fit(x, NULL, y, '{"method": "mfa", "k2": 1, "regularization": 0.1, "regularize": "penalty"}')) FROM geu_pts;
-- scatter beyond double precision (rows near 1e160: their squared differences
-- overflow) is 22003, not a singular matrix; with variances near 1e308 too
CALL geu_err($$SELECT gsu.geu_fit(ARRAY[x[1] * 1e160, x[2] * 1e160], NULL, y) FROM geu_pts$$);
CALL geu_err($$SELECT gsu.geu_fit(ARRAY[x[1] * 1e160, x[2] * 1e160], NULL, y, '{"method": "mfa", "k1": 2, "k2": 3}') FROM geu_pts$$);
CALL geu_err($$SELECT gsu.geu_fit(ARRAY[x[1], x[2]], '{1e308, 1e308}', y, '{"method": "mfa", "k1": 2, "k2": 3}') FROM geu_pts$$);
-- dimension mismatch: between rows, and between mean and variance
CALL geu_err($$SELECT gsu.geu_fit(x, NULL, y) FROM (VALUES ('{1,2}'::float8[], 0), ('{1,2,3}', 1)) v(x, y)$$);
CALL geu_err($$SELECT gsu.geu_fit(x, NULL, y, '{"method": "mfa"}') FROM (VALUES ('{1,2}'::float8[], 0), ('{1}', 1)) v(x, y)$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', '{1,2,3}', 1)$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', '{{1,0},{0,1},{0,0}}', 1)$$);
-- bad values
CALL geu_err($$SELECT gsu.geu_fit('{1,NULL}', NULL, 1)$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,NaN}', NULL, 1)$$);
CALL geu_err($$SELECT gsu.geu_fit('{}', NULL, 1)$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', '{1,-1}', 1)$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', '{1,Infinity}', 1)$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', '{1,NULL}', 1)$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', '{{1,0.5},{0.4,1}}', 1)$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', '{{1,2},{2,1}}', 1, '{"method": "mfa"}')$$);
-- options
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '[1]')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"dim": 1}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"method": "pca"}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"method": 1}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"dims": 0}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"dims": "2"}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"dims": 1.5}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"regularization": -1}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"regularization": 1e999}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"regularization": 1, "regularize": "intrinsic"}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"regularization": 1, "regularize": true}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"k1": 3}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"method": "mfa", "k1": 0}')$$);
CALL geu_err($$SELECT gsu.geu_fit('{1,2}', NULL, 1, '{"method": "mfa", "k2": 100001}')$$);
-- memory bound
SET gsu.max_training_memory = 64;
CALL geu_err($$SELECT gsu.geu_fit(x, v, y, '{"method": "mfa"}') FROM geu_big$$);
CALL geu_err($$SELECT gsu.geu_fit(array_fill(i::float8, ARRAY[70]), NULL, i % 2) FROM generate_series(1, 2) i$$);
CALL geu_err($$SELECT gsu.geu_fit(array_fill(i::float8, ARRAY[70]), array_fill(1::float8, ARRAY[70, 70]), 1) FROM generate_series(1, 2) i$$);
-- LDA keeps O(dim^2) per class whatever the row count
SELECT gsu.describe_projection(gsu.geu_fit(x, v, y, '{"dims": 2}')) ->> 'rows' AS rows FROM geu_big;
RESET gsu.max_training_memory;
