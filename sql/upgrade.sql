-- The upgrade path (docs/upgrade.md), as postgresql-hll tests its chain: a
-- database made with pg_gsu 0.1.0 stores models, projections, reference sets and
-- partial states (as values, as their text forms, as their binary forms), is
-- updated with ALTER EXTENSION pg_gsu UPDATE, and every stored value still loads,
-- scores bit for bit as before and round-trips. Then the catalog of every
-- earlier version updated to the current one is compared with a fresh
-- CREATE EXTENSION pg_gsu: a SQL object added or changed in src/sql without its
-- statement in the upgrade script shows up as a row of that comparison.
-- It works in a database of its own, gsu_upgrade_regress, dropped at the end.
SET client_min_messages = warning;
\set regress_db :DBNAME
DROP DATABASE IF EXISTS gsu_upgrade_regress;
CREATE DATABASE gsu_upgrade_regress TEMPLATE template0;
\c gsu_upgrade_regress
SET client_min_messages = warning;

CREATE EXTENSION pg_gsu VERSION '0.1.0';
SELECT extversion FROM pg_extension WHERE extname = 'pg_gsu';

-- ------------------------------------------------ values stored by 0.1.0

-- 150 rows in 2-D with variances, a two-class label and a three-class label3
CREATE TABLE pts AS
SELECT id, ARRAY[sin(id * 12.9898) + 1.2 * label, cos(id * 78.233) + 0.7 * label3]::float8[] AS mean,
	ARRAY[0.05 + 0.05 * (id % 3), 0.1 + 0.02 * (id % 5)]::float8[] AS variance, label, label3
FROM (SELECT id, CASE WHEN id % 2 = 0 THEN 1 ELSE -1 END AS label, id % 3 AS label3
	  FROM generate_series(1, 150) id) r;

-- the scores a value gives: every scoring function over every row, in one array
CREATE FUNCTION model_scores(m gsu.model) RETURNS float8[] LANGUAGE sql AS $$
	SELECT array_agg(x ORDER BY id, k)
	FROM (SELECT id, CASE WHEN cardinality(gsu.classes(m)) > 2 THEN label3 ELSE label END AS y, mean, variance FROM pts) p,
		LATERAL unnest(gsu.decisions(m, mean) || gsu.predict(m, mean)::float8
			|| gsu.confidence(m, mean, variance) || gsu.confidence(m, mean, ARRAY[0.3]::float8[])
			|| gsu.expected_loss(m, mean, variance, y)
			|| CASE WHEN jsonb_typeof(m::jsonb->'calibration') = 'object' THEN gsu.probabilities(m, mean) ELSE '{}' END
			|| CASE WHEN cardinality(gsu.classes(m)) = 2 THEN gsu.weights(m) || gsu.bias(m) ELSE gsu.weights(m, 0) END)
			WITH ORDINALITY AS u(x, k)
$$;
CREATE FUNCTION projection_scores(p gsu.projection) RETURNS float8[] LANGUAGE sql AS $$
	SELECT array_agg(x ORDER BY id, k)
	FROM pts, LATERAL unnest(gsu.project(p, mean) || gsu.project_variance(p, variance)
		|| gsu.project_variance(p, ARRAY[0.3]::float8[]) || gsu.eigenvalues(p)) WITH ORDINALITY AS u(x, k)
$$;
CREATE FUNCTION refset_scores(r gsu.refset) RETURNS float8[] LANGUAGE sql AS $$
	SELECT array_agg(x ORDER BY id, k)
	FROM pts, LATERAL unnest(gsu.nn_variance(r, mean, NULL, 0.5, false)
		|| CASE WHEN (gsu.describe_refset(r)->>'labelled')::bool
			THEN gsu.nn_variance(r, mean, label, 0.5, true) || gsu.knn_predict(r, mean, 3)::float8 ELSE '{}' END)
		WITH ORDINALITY AS u(x, k)
$$;
CREATE FUNCTION partial_scores(p gsu.partial) RETURNS float8[] LANGUAGE sql AS $$
	SELECT CASE WHEN p::text::jsonb->>'kind' = 'sgd' THEN model_scores(gsu.to_model(p)) ELSE '{}' END
$$;

-- recv_as(bytes, NULL::type): bytes read as the binary form of type, through a
-- binary COPY (which calls the type's receive function)
CREATE FUNCTION recv_as(payload bytea, proto anyelement) RETURNS anyelement LANGUAGE plpgsql AS $$
DECLARE
	frame bytea := '\x5047434f50590aff0d0a00'::bytea || '\x0000000000000000'::bytea
		|| '\x0001'::bytea || int4send(length(payload)) || payload || '\xffff'::bytea;
BEGIN
	EXECUTE format('CREATE TEMP TABLE recv_tmp (v %s)', pg_typeof(proto));
	EXECUTE format('COPY recv_tmp FROM PROGRAM %L WITH (FORMAT binary)',
				   'perl -e ''print pack("H*", "' || encode(frame, 'hex') || '")''');
	-- through an array, which detoasts it: the value outlives the table
	EXECUTE 'SELECT (ARRAY[v])[1] FROM recv_tmp' INTO proto;
	DROP TABLE recv_tmp;
	RETURN proto;
END
$$;

-- models of every kind 0.1.0 trains
CREATE TABLE models AS
SELECT name, m AS v, m::text AS as_text, gsu.model_send(m) AS as_binary, model_scores(m) AS scores
FROM (SELECT name, (SELECT gsu.train(mean, variance, label, o ORDER BY id) FROM pts) AS m
	  FROM (VALUES
		('gsu', '{}'::jsonb),
		('gsu lambda 0.1', '{"lambda": 0.1}'),
		('hinge', '{"loss": "hinge"}'),
		('pegasos', '{"loss": "hinge", "solver": "pegasos", "epochs": 20, "seed": 3}'),
		('sgd', '{"solver": "sgd", "epochs": 5, "seed": 4}'),
		('tsvc', '{"loss": "tsvc", "gamma": 2}'),
		('robust', '{"loss": "robust", "lambda": 0.01}'),
		('class weights', '{"class_weight": {"-1": 1, "1": 3}}'),
		('rff', '{"features": {"map": "rff", "dim": 30, "sigma": 1, "seed": 3}}'),
		('nystroem', '{"loss": "hinge", "features": {"map": "nystroem", "landmarks": 12, "sigma": 1, "seed": 5}}')
	  ) AS o(name, o) OFFSET 0) t       -- OFFSET 0: train once, not once per use of m
UNION ALL
SELECT name, m, m::text, gsu.model_send(m), model_scores(m)
FROM (SELECT 'multi-class', gsu.train(mean, variance, label3 ORDER BY id) FROM pts UNION ALL
	  SELECT 'full covariance', gsu.train(mean, ARRAY[[variance[1], 0.01], [0.01, variance[2]]], label ORDER BY id) FROM pts UNION ALL
	  SELECT 'isotropic', gsu.train(mean, 0.2::float8, label ORDER BY id) FROM pts UNION ALL
	  SELECT 'row weights', gsu.train(mean, variance, label, 1 + (id % 4)::float8, '{}' ORDER BY id) FROM pts UNION ALL
	  SELECT 'boolean labels', gsu.train(mean, variance, label > 0 ORDER BY id) FROM pts UNION ALL
	  SELECT 'train_sgd', gsu.train_sgd(mean, variance, label, '{"seed": 5}' ORDER BY id) FROM pts UNION ALL
	  SELECT 'fit', gsu.fit('pts', 'mean', 'variance', 'label') UNION ALL
	  -- format 1 text (pg_gsu before multi-class), read as format 2
	  SELECT 'format 1 text', '{"format": 1, "dim": 2, "weights": [1, -2], "bias": 0.5, "calibration": {"a": -2, "b": 0.125}}'::gsu.model
	 ) AS t(name, m);
INSERT INTO models
SELECT name || ' calibrated', c, c::text, gsu.model_send(c), model_scores(c)
FROM (SELECT name, (SELECT gsu.calibrate(v, mean, CASE WHEN name = 'multi-class' THEN label3 ELSE label END ORDER BY id) FROM pts) AS c
	  FROM models WHERE name IN ('gsu', 'multi-class', 'rff') OFFSET 0) s;

CREATE TABLE projections AS
SELECT name, p AS v, p::text AS as_text, gsu.projection_send(p) AS as_binary, projection_scores(p) AS scores
FROM (SELECT 'geu lda', gsu.geu_fit(mean, variance, label3 ORDER BY id) FROM pts UNION ALL
	  SELECT 'plain lda', gsu.geu_fit(mean, NULL, label3 ORDER BY id) FROM pts UNION ALL
	  SELECT 'geu mfa', gsu.geu_fit(mean, variance, label, '{"method": "mfa", "dims": 2}' ORDER BY id) FROM pts
	 ) AS t(name, p);

CREATE TABLE refsets AS
SELECT name, r AS v, r::text AS as_text, gsu.refset_send(r) AS as_binary, refset_scores(r) AS scores
FROM (SELECT 'labelled', gsu.refset_agg(mean, label ORDER BY id) FROM pts UNION ALL
	  SELECT 'unlabelled', gsu.refset_agg(mean ORDER BY id) FROM pts WHERE id % 2 = 1
	 ) AS t(name, r);

CREATE TABLE partials AS
SELECT name, p AS v, p::text AS as_text, gsu.partial_send(p) AS as_binary, partial_scores(p) AS scores
FROM (SELECT 'gradient at zero', gsu.gradient(mean, variance, label, NULL, 0 ORDER BY id) FROM pts UNION ALL
	  SELECT 'gradient at a model', gsu.gradient(mean, variance, label, (SELECT v FROM models WHERE name = 'gsu'), 1e-3 ORDER BY id) FROM pts UNION ALL
	  SELECT 'sgd', gsu.sgd_partial(mean, variance, label, '{"seed": 5}' ORDER BY id) FROM pts UNION ALL
	  -- format 1 (no point), read as format 2
	  SELECT 'format 1 text', '{"format": 1, "kind": "gradient", "dim": 2, "rows": 3, "positives": 1, "loss_sum": 2.5, "vector": [1, 2, 3]}'::gsu.partial
	 ) AS t(name, p);
-- shards of the gradient and of SGD, to be combined after the update
CREATE TABLE shards AS
SELECT id % 3 AS shard, gsu.gradient(mean, variance, label, NULL, 0 ORDER BY id) AS g,
	gsu.sgd_partial(mean, variance, label, '{"seed": 5}' ORDER BY id) AS s
FROM pts GROUP BY id % 3;
CREATE TABLE combined AS SELECT gsu.sum(g ORDER BY shard)::text AS g, gsu.sum(s ORDER BY shard)::text AS s FROM shards;

-- the format-1 binary form of a partial (no point, and zero where format 3 has
-- subspace_mode) as 0.1.0 reads it too
CREATE TABLE old_binary AS
SELECT overlay(overlay(substr(as_binary, 1, 40) placing '\x0001'::bytea from 1) placing '\x0000'::bytea from 37)
	|| substr(as_binary, 49) AS b
FROM partials WHERE name = 'gradient at zero';
SELECT recv_as(b, NULL::gsu.partial)::text::jsonb - 'point' - 'subspace_mode' = (SELECT v::text::jsonb - 'point' - 'subspace_mode' FROM partials WHERE name = 'gradient at zero') AS format1_binary_read
FROM old_binary;

-- format 2 (0.1.0's models and partials, before subspace_mode) in its text and
-- binary forms: read as format 3 in mode covariance, which is what 0.1.0
-- trained with; a model scores as the format-3 model of the same bytes (the
-- binary form is taken from the model without its history, format 5's block)
INSERT INTO models
SELECT name, m, m::text, gsu.model_send(m), model_scores(m)
FROM (SELECT 'format 2 text', '{"format": 2, "method": "linear", "loss": "gsu", "dim": 2, "classes": [-1, 1], "class_weight": [1, 1], "weights": [1, -2], "bias": 0.5, "hyperparameters": {"lambda": 0.01, "subspace_fraction": 0.5}}'::gsu.model UNION ALL
	  SELECT 'format 2 binary', recv_as(overlay(gsu.model_send((m::jsonb - 'history')::gsu.model) placing '\x0002'::bytea from 1), NULL::gsu.model)
	  FROM (SELECT gsu.train(mean, variance, label, '{"subspace_fraction": 0.5, "subspace_mode": "covariance"}' ORDER BY id) m FROM pts) t) s(name, m);
SELECT model_scores(recv_as(overlay(gsu.model_send((m::jsonb - 'history')::gsu.model) placing '\x0002'::bytea from 1), NULL::gsu.model)) = model_scores(m) AS format2_scores_same
FROM (SELECT gsu.train(mean, variance, label, '{"subspace_fraction": 0.5, "subspace_mode": "covariance"}' ORDER BY id) m FROM pts) t;
INSERT INTO partials
SELECT name, p, p::text, gsu.partial_send(p), partial_scores(p)
FROM (SELECT 'format 2 text', '{"format": 2, "kind": "gradient", "dim": 2, "rows": 3, "positives": 1, "loss_sum": 2.5, "subspace_fraction": 0.5, "point": "00000000000000ff", "vector": [1, 2, 3]}'::gsu.partial UNION ALL
	  SELECT 'format 2 binary', recv_as(overlay(overlay(gsu.partial_send(p) placing '\x0002'::bytea from 1) placing '\x0000'::bytea from 37), NULL::gsu.partial)
	  FROM (SELECT gsu.gradient(mean, variance, label, NULL, 0 ORDER BY id) p FROM pts) t) s(name, p);
SELECT name, gsu.describe(v)->'hyperparameters'->>'subspace_mode' AS subspace_mode FROM models WHERE name LIKE 'format%' ORDER BY name;
SELECT name, v::text::jsonb->>'subspace_mode' AS subspace_mode FROM partials WHERE name LIKE 'format%' ORDER BY name;

SELECT 'models' AS t, count(*) FROM models UNION ALL SELECT 'projections', count(*) FROM projections UNION ALL
SELECT 'refsets', count(*) FROM refsets UNION ALL SELECT 'partials', count(*) FROM partials;
-- the scores are real numbers, not empty arrays
SELECT name, cardinality(scores) AS scores FROM models ORDER BY name;

-- a binary dump of every table, as pg_dump's data of a 0.1.0 database (one
-- file per table, named by the server's port: clusters on one machine share /tmp)
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['models', 'projections', 'refsets', 'partials'] LOOP
		EXECUTE format('COPY %I (name, v) TO %L (FORMAT binary)', t,
					   format('/tmp/pg_gsu_regress_upgrade_%s_%s.bin', t, current_setting('port')));
	END LOOP;
END
$$;

-- gsu.fit's class weights need the weighted aggregates of the updated SQL (this database
-- has no test_error: its SQLSTATE, then its message)
\set VERBOSITY sqlstate
SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"class_weight": {"1": 2}}');
\set VERBOSITY default
SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"class_weight": {"1": 2}}');
-- ... and its option "missing" the aggregate gsu.missing_moments
\set VERBOSITY sqlstate
SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"missing": "feature_moments"}');
\set VERBOSITY default
SELECT gsu.fit('pts', 'mean', 'variance', 'label', '{"missing": "feature_moments"}');

-- ------------------------------------------------------------- the update

ALTER EXTENSION pg_gsu UPDATE;
SELECT extversion = default_version AS updated_to_default
FROM pg_extension, pg_available_extensions WHERE extname = 'pg_gsu' AND name = 'pg_gsu';

-- every stored value: its text and binary forms are what they were; the stored
-- text and binary forms load (text in, binary recv) to the same value; the
-- value and what was loaded score exactly (float8 equality) as before
SELECT name,
	v::text = as_text AS text_out,
	as_text::gsu.model::text = as_text AS text_round_trip,
	gsu.model_send(v) = as_binary AS binary_out,
	gsu.model_send(recv_as(as_binary, NULL::gsu.model)) = as_binary AS binary_round_trip,
	model_scores(v) = scores AS scores,
	model_scores(as_text::gsu.model) = scores AS scores_from_text,
	model_scores(recv_as(as_binary, NULL::gsu.model)) = scores AS scores_from_binary,
	model_scores(v::jsonb::gsu.model) = scores AS scores_from_jsonb
FROM models ORDER BY name;
SELECT name,
	v::text = as_text AS text_out,
	as_text::gsu.projection::text = as_text AS text_round_trip,
	gsu.projection_send(v) = as_binary AS binary_out,
	gsu.projection_send(recv_as(as_binary, NULL::gsu.projection)) = as_binary AS binary_round_trip,
	projection_scores(v) = scores AS scores,
	projection_scores(as_text::gsu.projection) = scores AS scores_from_text,
	projection_scores(recv_as(as_binary, NULL::gsu.projection)) = scores AS scores_from_binary
FROM projections ORDER BY name;
SELECT name,
	v::text = as_text AS text_out,
	as_text::gsu.refset::text = as_text AS text_round_trip,
	gsu.refset_send(v) = as_binary AS binary_out,
	gsu.refset_send(recv_as(as_binary, NULL::gsu.refset)) = as_binary AS binary_round_trip,
	refset_scores(v) = scores AS scores,
	refset_scores(as_text::gsu.refset) = scores AS scores_from_text,
	refset_scores(recv_as(as_binary, NULL::gsu.refset)) = scores AS scores_from_binary
FROM refsets ORDER BY name;
SELECT name,
	v::text = as_text AS text_out,
	as_text::gsu.partial::text = as_text AS text_round_trip,
	gsu.partial_send(v) = as_binary AS binary_out,
	gsu.partial_send(recv_as(as_binary, NULL::gsu.partial)) = as_binary AS binary_round_trip,
	partial_scores(v) = scores AS scores,
	partial_scores(as_text::gsu.partial) = scores AS scores_from_text,
	partial_scores(recv_as(as_binary, NULL::gsu.partial)) = scores AS scores_from_binary
FROM partials ORDER BY name;
-- partials of 0.1.0 combine as before; the format-1 binary form still reads
SELECT gsu.sum(g ORDER BY shard)::text = (SELECT g FROM combined) AS gradient_sum,
	gsu.sum(s ORDER BY shard)::text = (SELECT s FROM combined) AS sgd_sum
FROM shards;
SELECT recv_as(b, NULL::gsu.partial)::text::jsonb - 'point' - 'subspace_mode' = (SELECT v::text::jsonb - 'point' - 'subspace_mode' FROM partials WHERE name = 'gradient at zero') AS format1_binary_read
FROM old_binary;
-- a 0.1.0 model warm-starts training
SELECT gsu.weights(gsu.train_sgd(mean, variance, label, jsonb_build_object('seed', 5, 'init', (SELECT v FROM models WHERE name = 'train_sgd')::jsonb) ORDER BY id))
	<> (SELECT gsu.weights(v) FROM models WHERE name = 'train_sgd') AS warm_started
FROM pts;

-- the binary dump of 0.1.0 restored into tables of the updated extension
CREATE TABLE models_restored (LIKE models INCLUDING ALL);
CREATE TABLE projections_restored (LIKE projections INCLUDING ALL);
CREATE TABLE refsets_restored (LIKE refsets INCLUDING ALL);
CREATE TABLE partials_restored (LIKE partials INCLUDING ALL);
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['models', 'projections', 'refsets', 'partials'] LOOP
		EXECUTE format('COPY %I (name, v) FROM %L (FORMAT binary)', t || '_restored',
					   format('/tmp/pg_gsu_regress_upgrade_%s_%s.bin', t, current_setting('port')));
	END LOOP;
END
$$;
SELECT 'models' AS t, count(*) AS n, bool_and(r.v::text = s.as_text AND model_scores(r.v) = s.scores) AS same
FROM models s JOIN models_restored r USING (name) UNION ALL
SELECT 'projections', count(*), bool_and(r.v::text = s.as_text AND projection_scores(r.v) = s.scores)
FROM projections s JOIN projections_restored r USING (name) UNION ALL
SELECT 'refsets', count(*), bool_and(r.v::text = s.as_text AND refset_scores(r.v) = s.scores)
FROM refsets s JOIN refsets_restored r USING (name) UNION ALL
SELECT 'partials', count(*), bool_and(r.v::text = s.as_text AND partial_scores(r.v) = s.scores)
FROM partials s JOIN partials_restored r USING (name);

-- ------------------------------------------- the catalog after the update

-- catalog_snapshot(): one row per (member object, attribute) of the extension
-- pg_gsu (pg_depend deptype 'e'), with what CREATE / ALTER / GRANT / COMMENT set.
-- Names, not OIDs, so snapshots of different installations compare.
CREATE FUNCTION catalog_snapshot() RETURNS TABLE (object text, attribute text, value text)
LANGUAGE sql STABLE AS $$
WITH m AS (
	SELECT d.classid, d.objid, pg_describe_object(d.classid, d.objid, d.objsubid) AS object
	FROM pg_depend d JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
	WHERE e.extname = 'pg_gsu' AND d.deptype = 'e'
)
SELECT 'extension pg_gsu', a, v
FROM pg_extension e, LATERAL (VALUES
	('schema', e.extnamespace::regnamespace::text),
	('relocatable', e.extrelocatable::text),
	('configuration tables', e.extconfig::regclass[]::text),
	('configuration conditions', e.extcondition::text)) AS x(a, v)
WHERE e.extname = 'pg_gsu'
UNION ALL
SELECT m.object, 'member', 'present' FROM m
UNION ALL
SELECT m.object, 'comment', ds.description
FROM m JOIN pg_description ds ON ds.classoid = m.classid AND ds.objoid = m.objid AND ds.objsubid = 0
UNION ALL
-- functions, procedures and aggregates
SELECT m.object, a, v
FROM m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid,
	LATERAL (VALUES
		('kind', CASE p.prokind WHEN 'f' THEN 'function' WHEN 'a' THEN 'aggregate' WHEN 'p' THEN 'procedure' ELSE 'window' END),
		('arguments', pg_get_function_arguments(p.oid)),
		('returns', pg_get_function_result(p.oid)),
		('language', (SELECT lanname::text FROM pg_language WHERE oid = p.prolang)),
		('volatility', CASE p.provolatile WHEN 'i' THEN 'immutable' WHEN 's' THEN 'stable' ELSE 'volatile' END),
		('strict', p.proisstrict::text),
		('parallel', CASE p.proparallel WHEN 's' THEN 'safe' WHEN 'r' THEN 'restricted' ELSE 'unsafe' END),
		('cost', p.procost::text),
		('rows', p.prorows::text),
		('support', p.prosupport::regprocedure::text),
		('security definer', p.prosecdef::text),
		('leakproof', p.proleakproof::text),
		('configuration', p.proconfig::text),
		('privileges', p.proacl::text),
		('body', CASE WHEN p.prokind = 'a' THEN NULL
					  WHEN p.probin IS NOT NULL THEN p.probin || ' ' || p.prosrc
					  ELSE 'md5 of the definition ' || md5(pg_get_functiondef(p.oid)) END)) AS x(a, v)
UNION ALL
SELECT m.object, a, v
FROM m JOIN pg_aggregate g ON m.classid = 'pg_proc'::regclass AND g.aggfnoid = m.objid,
	LATERAL (VALUES
		('aggregate kind', g.aggkind::text),
		('direct arguments', g.aggnumdirectargs::text),
		('sfunc', g.aggtransfn::regprocedure::text),
		('stype', format_type(g.aggtranstype, NULL)),
		('sspace', g.aggtransspace::text),
		('finalfunc', g.aggfinalfn::regprocedure::text),
		('finalfunc_extra', g.aggfinalextra::text),
		('finalfunc_modify', g.aggfinalmodify::text),
		('combinefunc', g.aggcombinefn::regprocedure::text),
		('serialfunc', g.aggserialfn::regprocedure::text),
		('deserialfunc', g.aggdeserialfn::regprocedure::text),
		('initcond', g.agginitval),
		('msfunc', g.aggmtransfn::regprocedure::text),
		('minvfunc', g.aggminvtransfn::regprocedure::text),
		('mstype', format_type(nullif(g.aggmtranstype, 0), NULL)),
		('msspace', g.aggmtransspace::text),
		('mfinalfunc', g.aggmfinalfn::regprocedure::text),
		('mfinalfunc_extra', g.aggmfinalextra::text),
		('mfinalfunc_modify', g.aggmfinalmodify::text),
		('minitcond', g.aggminitval),
		('sortop', g.aggsortop::regoperator::text)) AS x(a, v)
UNION ALL
-- types (base, composite, domain, enum, range)
SELECT m.object, a, v
FROM m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid,
	LATERAL (VALUES
		('type kind', t.typtype::text),
		('internallength', t.typlen::text),
		('passedbyvalue', t.typbyval::text),
		('category', t.typcategory::text),
		('preferred', t.typispreferred::text),
		('delimiter', t.typdelim::text),
		('input', t.typinput::regprocedure::text),
		('output', t.typoutput::regprocedure::text),
		('receive', t.typreceive::regprocedure::text),
		('send', t.typsend::regprocedure::text),
		('typmod_in', t.typmodin::regprocedure::text),
		('typmod_out', t.typmodout::regprocedure::text),
		('analyze', t.typanalyze::regprocedure::text),
		('subscript', t.typsubscript::regprocedure::text),
		('alignment', t.typalign::text),
		('storage', t.typstorage::text),
		('not null', t.typnotnull::text),
		('base type', format_type(nullif(t.typbasetype, 0), t.typtypmod)),
		('default', t.typdefault),
		('collation', nullif(t.typcollation, 0)::regcollation::text),
		('element', format_type(nullif(t.typelem, 0), NULL)),
		('array type', format_type(nullif(t.typarray, 0), NULL)),
		('privileges', t.typacl::text),
		('columns', (SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
					 FROM pg_attribute WHERE attrelid = t.typrelid AND attnum > 0 AND NOT attisdropped)),
		('constraints', (SELECT string_agg(pg_get_constraintdef(c.oid), ', ' ORDER BY conname)
						 FROM pg_constraint c WHERE c.contypid = t.oid)),
		('labels', (SELECT string_agg(enumlabel::text, ', ' ORDER BY enumsortorder) FROM pg_enum WHERE enumtypid = t.oid))) AS x(a, v)
UNION ALL
SELECT m.object, a, v
FROM m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid,
	LATERAL (VALUES
		('function', c.castfunc::regprocedure::text),
		('context', CASE c.castcontext WHEN 'e' THEN 'explicit' WHEN 'a' THEN 'assignment' ELSE 'implicit' END),
		('method', c.castmethod::text)) AS x(a, v)
UNION ALL
SELECT m.object, a, v
FROM m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid,
	LATERAL (VALUES
		('function', o.oprcode::regprocedure::text),
		('result', format_type(o.oprresult, NULL)),
		('commutator', o.oprcom::regoperator::text),
		('negator', o.oprnegate::regoperator::text),
		('restrict', o.oprrest::regprocedure::text),
		('join', o.oprjoin::regprocedure::text),
		('merges', o.oprcanmerge::text),
		('hashes', o.oprcanhash::text)) AS x(a, v)
UNION ALL
SELECT m.object, a, v
FROM m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid,
	LATERAL (VALUES
		('default', c.opcdefault::text),
		('type', format_type(c.opcintype, NULL)),
		('storage', format_type(nullif(c.opckeytype, 0), NULL)),
		('operators', (SELECT string_agg(a.amopstrategy || ' ' || a.amopopr::regoperator::text, ', ' ORDER BY a.amopstrategy)
					   FROM pg_amop a WHERE a.amopfamily = c.opcfamily AND a.amoplefttype = c.opcintype)),
		('support functions', (SELECT string_agg(p.amprocnum || ' ' || p.amproc::regprocedure::text, ', ' ORDER BY p.amprocnum)
							   FROM pg_amproc p WHERE p.amprocfamily = c.opcfamily AND p.amproclefttype = c.opcintype))) AS x(a, v)
UNION ALL
-- tables, views, sequences
SELECT m.object, a, v
FROM m JOIN pg_class r ON m.classid = 'pg_class'::regclass AND r.oid = m.objid,
	LATERAL (VALUES
		('relation kind', r.relkind::text),
		('privileges', r.relacl::text),
		('columns', (SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
					 FROM pg_attribute WHERE attrelid = r.oid AND attnum > 0 AND NOT attisdropped))) AS x(a, v)
$$;

-- every earlier version that can be installed, updated to the current one, has
-- the catalog of a fresh installation of the current one
CREATE TABLE updated (from_version text, object text, attribute text, value text);
DROP EXTENSION pg_gsu CASCADE;
DO $$
DECLARE
	v text;
BEGIN
	FOR v IN SELECT version FROM pg_available_extension_versions
			 WHERE name = 'pg_gsu' AND version <> (SELECT default_version FROM pg_available_extensions WHERE name = 'pg_gsu')
	LOOP
		EXECUTE format('CREATE EXTENSION pg_gsu VERSION %L', v);
		ALTER EXTENSION pg_gsu UPDATE;
		INSERT INTO updated SELECT v, * FROM catalog_snapshot();
		DROP EXTENSION pg_gsu;
	END LOOP;
END
$$;
CREATE EXTENSION pg_gsu;
CREATE TABLE fresh AS SELECT * FROM catalog_snapshot();
SELECT from_version, count(*) > 500 AS compared FROM updated GROUP BY 1 ORDER BY 1;

-- Every row here is a difference: an object, or an attribute of one, that the
-- fresh installation and the updated one do not share. Add the statement that
-- makes it (CREATE, CREATE OR REPLACE, ALTER, DROP, COMMENT ON, GRANT) to the
-- upgrade script pg_gsu--<from_version>--<next>.sql; see docs/upgrade.md.
WITH versions AS (SELECT DISTINCT from_version FROM updated),
f AS (SELECT from_version, fresh.* FROM versions, fresh),
d AS (
	SELECT coalesce(u.from_version, f.from_version) AS from_version,
		coalesce(u.object, f.object) AS object, coalesce(u.attribute, f.attribute) AS attribute,
		u.value AS after_update, f.value AS fresh_install,
		u.object IS NULL AS missing_after_update, f.object IS NULL AS missing_in_fresh
	FROM updated u FULL JOIN f ON u.from_version = f.from_version AND u.object = f.object AND u.attribute = f.attribute
)
SELECT from_version, object,
	CASE WHEN attribute = 'member' AND missing_after_update THEN 'missing after the update'
		 WHEN attribute = 'member' THEN 'only after the update (drop it in the script)'
		 ELSE attribute END AS difference,
	coalesce(after_update, CASE WHEN attribute = 'member' THEN 'absent' ELSE '(none)' END) AS after_update,
	coalesce(fresh_install, CASE WHEN attribute = 'member' THEN 'absent' ELSE '(none)' END) AS fresh_install
FROM d
WHERE after_update IS DISTINCT FROM fresh_install
	-- an object missing on one side is one row, not one per attribute
	AND (attribute = 'member' OR NOT EXISTS (
		SELECT 1 FROM d d2 WHERE d2.from_version = d.from_version AND d2.object = d.object
			AND d2.attribute = 'member' AND (d2.missing_after_update OR d2.missing_in_fresh)))
ORDER BY 1, 2, 3;

\c :regress_db
SET client_min_messages = warning;
DROP DATABASE gsu_upgrade_regress;
