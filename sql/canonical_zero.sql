-- The canonical form of stored doubles (issue 27, part 8): −0 is stored as
-- +0 by every type's input and recv function and by every aggregate that
-- stores its input values, because text (JSON) cannot keep the sign of zero:
-- a text dump and restore must give the bytes a binary one gives.
--
-- For each type (gsu.model, gsu.projection, gsu.partial, gsu.refset): a
-- value whose binary form holds a zero double is sent with that double
-- replaced by −0 (the bytes 80 00 .. 00), read back by a binary COPY
-- (recv), and its send bytes are compared with the original's and with
-- those of its text round trip.  Then the aggregates, fed −0.
\set SHOW_CONTEXT never
CREATE SCHEMA test_canonical_zero;
SET search_path = test_canonical_zero, public;

-- cz_recv(type, bytes): the send bytes of the value that type's recv makes of
-- bytes (a binary COPY file holding them, read into a column of the type);
-- cz_text: the same after a text round trip (value::text::type)
CREATE FUNCTION cz_read(typ text, b bytea, via_text bool) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
	r bytea;
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, public.regress_file('canonical_zero'));
	EXECUTE format('CREATE TEMP TABLE cz_tmp (v %s)', typ);
	EXECUTE format('COPY cz_tmp FROM %L (FORMAT binary)', public.regress_file('canonical_zero'));
	IF via_text THEN
		EXECUTE format('SELECT %s_send(v::text::%s) FROM cz_tmp', typ, typ) INTO r;
	ELSE
		EXECUTE format('SELECT %s_send(v) FROM cz_tmp', typ) INTO r;
	END IF;
	DROP TABLE cz_tmp;
	RETURN r;
END
$$;
CREATE FUNCTION cz_recv(typ text, b bytea) RETURNS bytea LANGUAGE sql AS $$ SELECT cz_read(typ, b, false) $$;
CREATE FUNCTION cz_text(typ text, b bytea) RETURNS bytea LANGUAGE sql AS $$ SELECT cz_read(typ, b, true) $$;
-- b with the 8 bytes at off (1-based) replaced by −0
CREATE FUNCTION cz_minus_zero(b bytea, off int) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT overlay(b placing '\x8000000000000000'::bytea from off for 8)
$$;

-- cz_case(type, name, bytes, offsets): for each offset of a double field,
-- whether bytes hold +0 there (so the case tests something), and whether
-- recv and the text round trip of the −0 version both give bytes
CREATE TABLE cz_values (typ text, name text, b bytea, fields text[], offs int[]);
CREATE VIEW cz_cases AS
SELECT v.typ, v.name, f.field,
	substr(v.b, f.off, 8) = '\x0000000000000000'::bytea AS was_zero,
	cz_minus_zero(v.b, f.off) <> v.b AS sent_minus_zero,
	cz_recv(v.typ, cz_minus_zero(v.b, f.off)) = v.b AS recv_canonical,
	cz_text(v.typ, cz_minus_zero(v.b, f.off)) = cz_recv(v.typ, cz_minus_zero(v.b, f.off)) AS text_same
FROM cz_values v, unnest(v.fields, v.offs) f(field, off);

-- ------------------------------------------------------------ gsu.model
-- binary form: 44 bytes of integer fields, seed, map_seed, then the doubles
-- lambda (61), tolerance, smoothing, subspace_fraction, gamma (93),
-- delta_scale (101), epsilon (109), map_sigma (117), rows, iterations,
-- passes, objective (149), gradient_norm (157), gap_estimate (165),
-- seconds (173), then the data block (181: classes, class weights, weights,
-- bias, Platt's pair)
INSERT INTO cz_values
SELECT 'gsu.model', 'hand-written, two classes', gsu.model_send('{"format": 1, "dim": 2, "weights": [0, 1], "bias": 0}'),
	ARRAY['gamma', 'delta_scale', 'epsilon', 'map_sigma', 'objective', 'gradient_norm', 'gap_estimate',
		  'seconds', 'weight 1', 'bias', 'platt a', 'platt b'],
	ARRAY[93, 101, 109, 117, 149, 157, 165, 173, 181 + 32, 181 + 48, 181 + 56, 181 + 64];
SELECT typ, name, field, was_zero, sent_minus_zero, recv_canonical, text_same FROM cz_cases WHERE typ = 'gsu.model';
-- text input: a number that rounds to −0 (−1e-400) is stored as +0 as well
SELECT gsu.model_send('{"format": 1, "dim": 2, "weights": [-1e-400, 1], "bias": -1e-400}')
	= gsu.model_send('{"format": 1, "dim": 2, "weights": [0, 1], "bias": 0}') AS text_canonical;

-- ------------------------------------------------------- gsu.projection
-- binary form: 36 bytes of integer fields, regularization (37), then the
-- eigenvalues and the vectors
INSERT INTO cz_values
SELECT 'gsu.projection', 'lda 2x1', gsu.projection_send('{"format": 1, "method": "lda", "dim": 2, "dims": 1, "regularization": 0, "classes": 2, "rows": 10, "eigenvalues": [0], "vectors": [[0, 1]]}'),
	ARRAY['regularization', 'eigenvalue 1', 'vector 1 element 1'], ARRAY[37, 45, 53];
SELECT typ, name, field, was_zero, sent_minus_zero, recv_canonical, text_same FROM cz_cases WHERE typ = 'gsu.projection';
SELECT gsu.projection_send('{"format": 1, "method": "lda", "dim": 2, "dims": 1, "regularization": -1e-400, "classes": 2, "rows": 10, "eigenvalues": [-1e-400], "vectors": [[-1e-400, 1]]}')
	= gsu.projection_send('{"format": 1, "method": "lda", "dim": 2, "dims": 1, "regularization": 0, "classes": 2, "rows": 10, "eigenvalues": [0], "vectors": [[0, 1]]}') AS text_canonical;

-- ---------------------------------------------------------- gsu.partial
-- binary form: 48 bytes of integer fields, loss_sum (49), mu (57),
-- min_dsigma (65), lambda, subspace_fraction, then the vector (89: the
-- gradient's elements); a gradient at θ = 0 of rows whose second feature is
-- 0, smoothing 0, no variances
CREATE TABLE cz_rows AS
SELECT i AS id, ARRAY[(i % 5) - 2 + 0.5, 0, (i % 3) - 1]::float8[] AS x,
	ARRAY[-((i % 5) - 2 + 0.5)::float8, '-0'::float8, -((i % 3) - 1)::float8] AS nx,
	CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END AS y
FROM generate_series(1, 12) i;
INSERT INTO cz_values
SELECT 'gsu.partial', 'gradient', gsu.partial_send(gsu.gradient(x, NULL::float8[], y, NULL::gsu.model, 0)),
	ARRAY['mu', 'min_dsigma', 'gradient element 2'], ARRAY[57, 65, 89 + 8]
FROM cz_rows;
SELECT typ, name, field, was_zero, sent_minus_zero, recv_canonical, text_same FROM cz_cases WHERE typ = 'gsu.partial';

-- ----------------------------------------------------------- gsu.refset
-- binary form: 16 bytes of header, then the rows' elements (17, 25, ...)
INSERT INTO cz_values
SELECT 'gsu.refset', 'labelled 2x2', gsu.refset_send('{"format": 1, "dim": 2, "rows": [[0, 1], [2, 0]], "labels": [1, 2]}'),
	ARRAY['row 1 element 1', 'row 2 element 2'], ARRAY[17, 41];
INSERT INTO cz_values
SELECT 'gsu.refset', 'unlabelled 1x3', gsu.refset_send('{"format": 1, "dim": 3, "rows": [[5, 0, 0]]}'),
	ARRAY['row 1 element 2', 'row 1 element 3'], ARRAY[25, 33];
SELECT typ, name, field, was_zero, sent_minus_zero, recv_canonical, text_same FROM cz_cases WHERE typ = 'gsu.refset';
SELECT gsu.refset_send('{"format": 1, "dim": 2, "rows": [[-1e-400, 1]]}') = gsu.refset_send('{"format": 1, "dim": 2, "rows": [[0, 1]]}') AS text_canonical;

-- ----------------------------------------------------------- aggregates
-- gsu.refset_agg stores its rows: −0 in, +0 stored (labelled, unlabelled,
-- and through a text round trip)
SELECT gsu.refset_send(gsu.refset_agg(nx, y ORDER BY id)) = gsu.refset_send(gsu.refset_agg(nx, y ORDER BY id)::text::gsu.refset) AS labelled_text_same,
	gsu.refset_send(gsu.refset_agg(nx ORDER BY id)) = gsu.refset_send(gsu.refset_agg(nx ORDER BY id)::text::gsu.refset) AS unlabelled_text_same,
	position('\x8000000000000000'::bytea in gsu.refset_send(gsu.refset_agg(nx, y ORDER BY id))) AS minus_zero_at
FROM cz_rows;
SELECT gsu.refset_send(gsu.refset_agg(v ORDER BY o)) = gsu.refset_send('{"format": 1, "dim": 2, "rows": [[0, 1], [0, 0]]}') AS canonical
FROM (VALUES (1, '{-0,1}'::float8[]), (2, '{-0,-0}')) v(o, v);
-- gsu.train keeps a Nyström map's landmarks (input rows): the model of
-- rows with −0 is the model of the same rows with +0 (the training time,
-- bytes 173..180, and the elapsed times of the history's entries masked),
-- and an option read as −0 (gamma −1e-400) is stored as +0
CREATE FUNCTION cz_mask_seconds(b bytea) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	i4 CONSTANT text := 'SELECT (get_byte($1, $2) << 24) | (get_byte($1, $2 + 1) << 16) | (get_byte($1, $2 + 2) << 8) | get_byte($1, $2 + 3)';
	dim int; idim int; nc int; ml int; nvec int; at int;
BEGIN
	b := overlay(b placing '\x0000000000000000'::bytea from 173 for 8);
	IF get_byte(b, 3) & 8 = 0 THEN
		RETURN b;
	END IF;
	-- the history (flag 8) follows the data block: classes, class weights,
	-- the vectors, the map, the standardization (flag 4); its nvec counts,
	-- then entries of 5 doubles whose last is the elapsed time
	EXECUTE i4 INTO dim USING b, 4;
	EXECUTE i4 INTO idim USING b, 8;
	EXECUTE i4 INTO nc USING b, 12;
	EXECUTE i4 INTO ml USING b, 36;
	nvec := CASE WHEN nc = 2 THEN 1 ELSE nc END;
	at := 180 + 8 * (2 * nc + nvec * (dim + 3) + ml + CASE WHEN get_byte(b, 3) & 4 <> 0 THEN 2 * idim ELSE 0 END)
		+ 8 * nvec;
	WHILE at + 40 <= length(b) LOOP
		b := overlay(b placing '\x0000000000000000'::bytea from at + 33 for 8);
		at := at + 40;
	END LOOP;
	RETURN b;
END
$$;
SELECT cz_mask_seconds(gsu.model_send(gsu.train(nx, NULL::float8[], y, o)))
		= cz_mask_seconds(gsu.model_send(gsu.train(nx, NULL::float8[], y, o)::text::gsu.model)) AS map_text_same,
	position('\x8000000000000000'::bytea in gsu.model_send(gsu.train(nx, NULL::float8[], y, o))) AS minus_zero_at
FROM cz_rows, (VALUES ('{"features": {"map": "nystroem", "landmarks": 12, "sigma": 1, "seed": 3}, "seed": 5}'::jsonb)) oo(o)
GROUP BY o;
SELECT cz_mask_seconds(gsu.model_send(gsu.train(x, '{0.1, 0.1, 0.1}'::float8[], y, '{"loss": "robust", "gamma": -1e-400}')))
	= cz_mask_seconds(gsu.model_send(gsu.train(x, '{0.1, 0.1, 0.1}'::float8[], y, '{"loss": "robust", "gamma": 0}'))) AS option_canonical
FROM cz_rows;
-- gsu.gradient and gsu.sum: sums of −0 are stored as +0
SELECT position('\x8000000000000000'::bytea in gsu.partial_send(gsu.gradient(nx, NULL::float8[], y, NULL::gsu.model, 0))) AS gradient_minus_zero_at,
	gsu.partial_send(gsu.gradient(nx, NULL::float8[], y, NULL::gsu.model, 0))
		= gsu.partial_send(gsu.gradient(nx, NULL::float8[], y, NULL::gsu.model, 0)::text::gsu.partial) AS gradient_text_same
FROM cz_rows;
CREATE FUNCTION cz_recv_partial(b bytea) RETURNS gsu.partial LANGUAGE plpgsql AS $$
DECLARE
	r gsu.partial;
BEGIN
	EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, public.regress_file('canonical_zero'));
	CREATE TEMP TABLE cz_tmp (v gsu.partial);
	EXECUTE format('COPY cz_tmp FROM %L (FORMAT binary)', public.regress_file('canonical_zero'));
	SELECT v INTO r FROM cz_tmp;
	DROP TABLE cz_tmp;
	RETURN r;
END
$$;
SELECT gsu.partial_send(gsu.sum(p)) = gsu.partial_send(gsu.sum(p)::text::gsu.partial) AS sum_text_same,
	position('\x8000000000000000'::bytea in gsu.partial_send(gsu.sum(p))) AS minus_zero_at
FROM (SELECT cz_recv_partial(cz_minus_zero(b, 89 + 8)) AS p FROM cz_values WHERE name = 'gradient'
	  UNION ALL SELECT gsu.gradient(nx, NULL::float8[], y, NULL::gsu.model, 0) FROM cz_rows) s;
-- gsu.geu_fit: the projection of rows with −0 is stored in canonical form
SELECT gsu.projection_send(gsu.geu_fit(nx, NULL, y, '{"regularization": 0.1}'))
	= gsu.projection_send(gsu.geu_fit(nx, NULL, y, '{"regularization": 0.1}')::text::gsu.projection) AS projection_text_same,
	gsu.projection_send(gsu.geu_fit(nx, '{0.1, 0.1, 0.1}', y, '{"regularization": -1e-400}'))
	= gsu.projection_send(gsu.geu_fit(nx, '{0.1, 0.1, 0.1}', y, '{"regularization": 0}')) AS regularization_canonical
FROM cz_rows;
-- the variance estimate: σ = −0 gives +0 (as does a −0 difference)
SELECT gsu.nn_variance(gsu.refset_agg(x ORDER BY id), '{-0,-0,-0}', NULL, '-0', false) AS minus_zero_sigma
FROM cz_rows;
