-- pg_gsu upgrade script from 0.1.0 to 0.2.0 (ALTER EXTENSION pg_gsu UPDATE)

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_gsu UPDATE TO '0.2.0'" to load this file. \quit

-- Every SQL object that src/sql/ adds or changes after 0.1.0 gets its statement
-- here (CREATE for a new object, CREATE OR REPLACE / ALTER / DROP for a changed
-- one, COMMENT ON as in src/sql), so that a database updated from 0.1.0 ends with
-- the same catalog as a fresh CREATE EXTENSION pg_gsu. sql/upgrade.sql compares
-- the two and lists every difference (docs/upgrade.md).
--
-- The stored values of gsu.model, gsu.projection, gsu.refset and gsu.partial
-- need nothing here: their formats are the same in 0.1.0 and 0.2.0, and the
-- library reads every earlier format (docs/upgrade.md, formats).

-- ------------------------------------------------------------ the schema gsu
-- pg_gsu 0.1.0 installed into a schema gsu that the installing role owned,
-- whatever was in it: its hint suggested taking a schema over with ALTER SCHEMA
-- gsu OWNER TO ..., which keeps what the earlier owner planted there (an
-- aggregate gsu.train with an int2 label, run by every superuser who trains on
-- a smallint column). A fresh install now takes only an empty schema (see
-- src/sql/00_header.sql); here, in a schema that holds pg_gsu, the update goes
-- on only when the schema belongs to the extension's owner, no other role may
-- create objects in it, and every object in it that is not part of pg_gsu
-- belongs to the extension's owner (a table of models that owner made there is
-- fine; the planted objects belong to someone else). Every name is qualified,
-- operators included: this runs with the schema in search_path.
DO $$
DECLARE
	ext_oid pg_catalog.oid;
	ext_owner pg_catalog.oid;
	schema_oid pg_catalog.oid;
	schema_name pg_catalog.name;
	schema_owner pg_catalog.oid;
	creators pg_catalog.text;
	foreign_objects pg_catalog.text[];
	shown pg_catalog.text;
BEGIN
	SELECT e.oid, e.extowner, n.oid, n.nspname, n.nspowner
	INTO ext_oid, ext_owner, schema_oid, schema_name, schema_owner
	FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
	WHERE e.extname OPERATOR(pg_catalog.=) 'pg_gsu';

	IF schema_owner OPERATOR(pg_catalog.<>) ext_owner THEN
		RAISE EXCEPTION 'schema "%" of pg_gsu is owned by role "%", not by the owner of the extension ("%")',
			schema_name, pg_catalog.pg_get_userbyid(schema_owner), pg_catalog.pg_get_userbyid(ext_owner)
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'The owner of the schema could replace the functions pg_gsu calls.',
				  HINT = pg_catalog.format('Check what role %s made in the schema, drop what you did not make, then ALTER SCHEMA %I OWNER TO %I and run ALTER EXTENSION pg_gsu UPDATE again.',
					  pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(schema_owner)), schema_name,
					  pg_catalog.pg_get_userbyid(ext_owner));
	END IF;

	SELECT pg_catalog.string_agg(CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'
									ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END,
								 ', ' ORDER BY a.grantee)
	INTO creators
	FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
	WHERE n.oid OPERATOR(pg_catalog.=) schema_oid
	  AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
	  AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner;
	IF creators IS NOT NULL THEN
		RAISE EXCEPTION 'other roles may create objects in schema "%" of pg_gsu: %', schema_name, creators
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'A role that may create objects in the schema could add functions that stand in for pg_gsu''s.',
				  HINT = pg_catalog.format('Check what they made in the schema and drop what you did not make, then REVOKE CREATE ON SCHEMA %I FROM %s and run ALTER EXTENSION pg_gsu UPDATE again.',
					  schema_name, creators);
	END IF;

	-- every object whose namespace is the schema, with its owner where its
	-- catalog has one (pg_depend adds any other kind, with no owner), that is
	-- neither pg_gsu nor part of it, nor the extension owner's
	SELECT pg_catalog.array_agg(pg_catalog.concat(i.type, ' ', i.identity, ' (owner ',
								coalesce(pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(o.owner)), 'unknown'), ')')
								ORDER BY pg_catalog.concat(i.type, ' ', i.identity) COLLATE pg_catalog."C")
	INTO foreign_objects
	FROM (SELECT DISTINCT ON (k.classid, k.objid) k.classid, k.objid, k.owner
		  FROM (SELECT d.classid, d.objid, NULL::pg_catalog.oid AS owner FROM pg_catalog.pg_depend d
				WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass::pg_catalog.oid
				  AND d.refobjid OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.relowner
				FROM pg_catalog.pg_class c WHERE c.relnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass::pg_catalog.oid, p.oid, p.proowner
				FROM pg_catalog.pg_proc p WHERE p.pronamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_type'::pg_catalog.regclass::pg_catalog.oid, t.oid, t.typowner
				FROM pg_catalog.pg_type t WHERE t.typnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_operator'::pg_catalog.regclass::pg_catalog.oid, o.oid, o.oprowner
				FROM pg_catalog.pg_operator o WHERE o.oprnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_opclass'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.opcowner
				FROM pg_catalog.pg_opclass c WHERE c.opcnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_opfamily'::pg_catalog.regclass::pg_catalog.oid, f.oid, f.opfowner
				FROM pg_catalog.pg_opfamily f WHERE f.opfnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_collation'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.collowner
				FROM pg_catalog.pg_collation c WHERE c.collnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_conversion'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.conowner
				FROM pg_catalog.pg_conversion c WHERE c.connamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::pg_catalog.oid, s.oid, s.stxowner
				FROM pg_catalog.pg_statistic_ext s WHERE s.stxnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_ts_config'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.cfgowner
				FROM pg_catalog.pg_ts_config c WHERE c.cfgnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_ts_dict'::pg_catalog.regclass::pg_catalog.oid, d.oid, d.dictowner
				FROM pg_catalog.pg_ts_dict d WHERE d.dictnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_ts_parser'::pg_catalog.regclass::pg_catalog.oid, p.oid, NULL
				FROM pg_catalog.pg_ts_parser p WHERE p.prsnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_ts_template'::pg_catalog.regclass::pg_catalog.oid, t.oid, NULL
				FROM pg_catalog.pg_ts_template t WHERE t.tmplnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_extension'::pg_catalog.regclass::pg_catalog.oid, e.oid, e.extowner
				FROM pg_catalog.pg_extension e WHERE e.extnamespace OPERATOR(pg_catalog.=) schema_oid
				UNION ALL SELECT 'pg_catalog.pg_default_acl'::pg_catalog.regclass::pg_catalog.oid, a.oid, a.defaclrole
				FROM pg_catalog.pg_default_acl a WHERE a.defaclnamespace OPERATOR(pg_catalog.=) schema_oid) k
		  ORDER BY k.classid, k.objid, k.owner NULLS LAST) o,
		LATERAL pg_catalog.pg_identify_object(o.classid, o.objid, 0) i
	WHERE NOT (o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass::pg_catalog.oid
			   AND o.objid OPERATOR(pg_catalog.=) ext_oid)
	  AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend m
					  WHERE m.classid OPERATOR(pg_catalog.=) o.classid AND m.objid OPERATOR(pg_catalog.=) o.objid
						AND m.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass::pg_catalog.oid
						AND m.refobjid OPERATOR(pg_catalog.=) ext_oid
						AND m.deptype OPERATOR(pg_catalog.=) 'e')
	  -- nor inseparable from a part of it (the array type of one of its types, the
	  -- relation of its composite type: not members themselves, and owned by the
	  -- role that ran the script, which is the bootstrap superuser, not the
	  -- extension's owner, when a role that is not a superuser installed pg_gsu
	  -- as a trusted extension)
	  AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend a, pg_catalog.pg_depend m
					  WHERE a.deptype OPERATOR(pg_catalog.=) 'i'
						AND ((a.classid OPERATOR(pg_catalog.=) o.classid AND a.objid OPERATOR(pg_catalog.=) o.objid
							  AND m.classid OPERATOR(pg_catalog.=) a.refclassid AND m.objid OPERATOR(pg_catalog.=) a.refobjid)
							 OR (a.refclassid OPERATOR(pg_catalog.=) o.classid AND a.refobjid OPERATOR(pg_catalog.=) o.objid
								 AND m.classid OPERATOR(pg_catalog.=) a.classid AND m.objid OPERATOR(pg_catalog.=) a.objid))
						AND m.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass::pg_catalog.oid
						AND m.refobjid OPERATOR(pg_catalog.=) ext_oid
						AND m.deptype OPERATOR(pg_catalog.=) 'e')
	  AND NOT coalesce(o.owner OPERATOR(pg_catalog.=) ext_owner, false);
	IF foreign_objects IS NOT NULL THEN
		shown := pg_catalog.array_to_string(foreign_objects[1:10], ', ');
		IF pg_catalog.cardinality(foreign_objects) OPERATOR(pg_catalog.>) 10 THEN
			shown := pg_catalog.concat(shown, ' and ', pg_catalog.cardinality(foreign_objects) OPERATOR(pg_catalog.-) 10, ' more');
		END IF;
		RAISE EXCEPTION 'schema "%" of pg_gsu holds objects of other roles: %', schema_name, shown
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'They are not part of pg_gsu, and one could stand in for a function pg_gsu''s users call and run as whoever calls it. '
					  'pg_gsu 0.1.0 did not refuse a schema gsu that another role had put objects in.',
				  HINT = pg_catalog.format('Check them, drop those that role %s did not make (DROP FUNCTION ..., DROP AGGREGATE ...), then run ALTER EXTENSION pg_gsu UPDATE again.',
					  pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(ext_owner)));
	END IF;
END
$$;

-- every role may use pg_gsu (0.1.0 left the schema's USAGE to its owner);
-- see src/sql/00_header.sql
GRANT USAGE ON SCHEMA gsu TO PUBLIC;

-- ------------------------------------------------------------ explanations

-- one form (untyped parameters resolve): variance NULL or left out is a certain
-- point, one element s the isotropic s*I, one per feature a diagonal, 2-D full
CREATE FUNCTION gsu.explain(model gsu.model, mean float8[], variance float8[] DEFAULT NULL)
	RETURNS TABLE (class int4, feature int4, contribution float8, variance_share float8)
	AS 'MODULE_PATHNAME', 'gsu_explain_variance_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.explain(gsu.model, float8[], float8[]) IS
	'per class (two classes: the second), a row for the bias (feature NULL) and one per feature j with its contribution w_j x_j to the decision value (they add up to it), and its variance_share w_j (Sigma w)_j of the decision''s variance w''Sigma w under N(mean, Sigma) (0 for a certain point; a full Sigma can give negative shares); variance: NULL for a certain row, one element s for s*I, one per feature (diagonal) or a 2-D matrix (full); NULL model or mean: no rows';

-- ------------------------------------------- EEG band powers (Welch) and Fisher's score

CREATE TYPE gsu.welch_result AS (mean float8[], variance float8[], band text[], low float8[],
	high float8[], segments int8);
COMMENT ON TYPE gsu.welch_result IS
	'result of gsu.welch: per band, the mean and variance over segments of the log band power, the band names and edges (Hz), and the number of segments';

CREATE FUNCTION gsu.welch(signal float8[], sampling_rate float8, options jsonb DEFAULT '{}')
	RETURNS gsu.welch_result
	AS 'MODULE_PATHNAME', 'gsu_welch_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION gsu.welch(float8[], float8, jsonb) IS
	'Welch''s method: mean and variance over Hann-windowed, overlapping segments of the log power in each frequency band (theta, slow alpha, alpha, beta, gamma by default); options segment_length, overlap, window, detrend, bands, scale, floor, estimator';

CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], int4, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], bool, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn_bool' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_transfn(internal, float8[], bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_transfn_bool' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.fisher_score_finalfn(internal) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_fisher_score_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.fisher_score_transfn(internal, float8[], int4, jsonb) IS 'gsu.fisher_score transition: Welford update of the row''s class';
COMMENT ON FUNCTION gsu.fisher_score_transfn(internal, float8[], int4) IS 'gsu.fisher_score transition: Welford update of the row''s class, default options';
COMMENT ON FUNCTION gsu.fisher_score_transfn(internal, float8[], bool, jsonb) IS 'gsu.fisher_score transition for boolean labels (true = 1)';
COMMENT ON FUNCTION gsu.fisher_score_transfn(internal, float8[], bool) IS 'gsu.fisher_score transition for boolean labels (true = 1), default options';
COMMENT ON FUNCTION gsu.fisher_score_combinefn(internal, internal) IS 'gsu.fisher_score combine: Chan et al. merge of each class''s moments';
COMMENT ON FUNCTION gsu.fisher_score_serialfn(internal) IS 'gsu.fisher_score state serialization';
COMMENT ON FUNCTION gsu.fisher_score_deserialfn(bytea, internal) IS 'gsu.fisher_score state deserialization (validated)';
COMMENT ON FUNCTION gsu.fisher_score_finalfn(internal) IS 'gsu.fisher_score final: (mu+ - mu-)^2 / (var+ + var-) per feature';

CREATE AGGREGATE gsu.fisher_score(features float8[], label int4, options jsonb) (
	SFUNC = gsu.fisher_score_transfn, STYPE = internal, FINALFUNC = gsu.fisher_score_finalfn,
	COMBINEFUNC = gsu.fisher_score_combinefn, SERIALFUNC = gsu.fisher_score_serialfn,
	DESERIALFUNC = gsu.fisher_score_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.fisher_score(features float8[], label int4) (
	SFUNC = gsu.fisher_score_transfn, STYPE = internal, FINALFUNC = gsu.fisher_score_finalfn,
	COMBINEFUNC = gsu.fisher_score_combinefn, SERIALFUNC = gsu.fisher_score_serialfn,
	DESERIALFUNC = gsu.fisher_score_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.fisher_score(features float8[], label bool, options jsonb) (
	SFUNC = gsu.fisher_score_transfn, STYPE = internal, FINALFUNC = gsu.fisher_score_finalfn,
	COMBINEFUNC = gsu.fisher_score_combinefn, SERIALFUNC = gsu.fisher_score_serialfn,
	DESERIALFUNC = gsu.fisher_score_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.fisher_score(features float8[], label bool) (
	SFUNC = gsu.fisher_score_transfn, STYPE = internal, FINALFUNC = gsu.fisher_score_finalfn,
	COMBINEFUNC = gsu.fisher_score_combinefn, SERIALFUNC = gsu.fisher_score_serialfn,
	DESERIALFUNC = gsu.fisher_score_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.fisher_score(float8[], int4, jsonb) IS
	'Fisher''s discriminant score per feature, (mu+ - mu-)^2 / (var+ + var-), labels -1/1; options {"estimator": "sample"|"population"}';
COMMENT ON AGGREGATE gsu.fisher_score(float8[], int4) IS
	'Fisher''s discriminant score per feature, (mu+ - mu-)^2 / (var+ + var-), labels -1/1, sample variances';
COMMENT ON AGGREGATE gsu.fisher_score(float8[], bool, jsonb) IS
	'Fisher''s discriminant score per feature for boolean labels (true = 1); options {"estimator": "sample"|"population"}';
COMMENT ON AGGREGATE gsu.fisher_score(float8[], bool) IS
	'Fisher''s discriminant score per feature for boolean labels (true = 1), sample variances';

-- ------------------------------------------------- cross-validation over a grid of options
-- (the statements of src/sql/80_cv.sql that follow its lambda forms)

-- the lambda form of 0.1.0: its folds hash the mean and label only (issue 27), and it
-- reads no column the caller did not name
CREATE OR REPLACE FUNCTION gsu.cross_validate(relation regclass, mean text, variance text, label text,
								   lambdas float8[], folds int4 DEFAULT 5, seed int4 DEFAULT 1,
								   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
								   id_column text DEFAULT NULL)
RETURNS TABLE (lambda float8, metric_mean float8, metric_stddev float8, fold_count int4)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE COST 1000000 ROWS 5
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	lam float8;
	f int4;
	score float8;
	scores float8[];
	opts jsonb;
	var_expr text := CASE WHEN variance IS NULL THEN 'NULL::float8[]' ELSE format('%I', variance) END;
	score_var text;		-- the variance as gsu.expected_loss takes it (a float8 column: one element)
	label_expr text;
	fold_expr text;
	fit record;					-- fit.m: the fold's model (no type named here: see ext)
	n_rows bigint;
	regression bool := metric IN ('rmse', 'mae', 'r2');
	label_type regtype;
	-- pg_gsu's own schema, from the extension's catalog entry: the statements below
	-- call its functions, whatever a search_path or a renamed schema would resolve
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	IF relation IS NULL OR mean IS NULL OR label IS NULL OR lambdas IS NULL THEN
		RAISE EXCEPTION 'gsu.cross_validate needs a relation, the mean and label column names and a list of lambdas'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF folds IS NULL OR folds < 2 THEN
		RAISE EXCEPTION 'folds must be at least 2, not %', folds USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- more folds than rows would train the same models over and over (up to 2^31 times)
	EXECUTE format('SELECT count(*) FROM %s', relation) INTO n_rows;
	IF folds > n_rows THEN
		RAISE EXCEPTION 'folds must be at most the number of rows (%), not %', n_rows, folds
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'With as many folds as rows, each fold leaves one row out.';
	END IF;
	IF cardinality(lambdas) = 0 THEN
		RAISE EXCEPTION 'lambdas must not be empty' USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF metric NOT IN ('accuracy', 'roc_auc', 'expected_loss', 'rmse', 'mae', 'r2') THEN
		RAISE EXCEPTION 'unknown metric "%"', metric
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Valid metrics are: accuracy, roc_auc, expected_loss (classification), rmse, mae, r2 (regression).';
	END IF;
	-- every lambda before any training; NaN is larger than every number in SQL, so it
	-- passes l > 0: test it by name
	SELECT l INTO lam FROM unnest(lambdas) l
	WHERE l IS NULL OR NOT (l > 0) OR l IN ('NaN', 'Infinity') LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'every lambda must be a positive finite number, not %', lam
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF options IS NULL OR jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF options ? 'lambda' THEN
		RAISE EXCEPTION 'options must not hold "lambda": the lambdas argument gives it'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	label_expr := format('%I', label);
	score_var := var_expr;
	label_type := (SELECT atttypid FROM pg_attribute WHERE attrelid = relation AND attname = label
				   AND attnum > 0 AND NOT attisdropped);
	-- a regression loss or a real target under a classification metric: say how to
	-- cross-validate a regression model, rather than gsu.train's own error
	IF NOT regression AND options->>'loss' IN ('epsilon_insensitive', 'squared') THEN
		RAISE EXCEPTION 'metric "%" does not apply to the regression loss "%"', metric, options->>'loss'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Cross-validate a regression model with metric => ''rmse'', ''mae'' or ''r2''.';
	END IF;
	IF NOT regression AND label_type IN ('float4'::regtype, 'float8'::regtype, 'numeric'::regtype) THEN
		RAISE EXCEPTION 'the label column "%" has type %, not a label', label, label_type
			USING ERRCODE = 'datatype_mismatch',
				  HINT = 'For a real target (regression, gsu.train_regression), pass metric => ''rmse'', ''mae'' or ''r2''.';
	END IF;
	IF regression AND label_type = 'bool'::regtype THEN
		RAISE EXCEPTION 'the target column "%" has type boolean, not a number', label
			USING ERRCODE = 'datatype_mismatch',
				  HINT = 'A regression metric cross-validates gsu.train_regression, whose target is float8.';
	END IF;
	IF NOT regression AND label_type = 'bool'::regtype THEN
		label_expr := format('CASE WHEN %1$I THEN 1 WHEN NOT %1$I THEN -1 END', label);
	END IF;
	-- folds from a hash of the mean and the label (see above), or of the id column
	-- when one is named (then the folds do not change with the other columns)
	fold_expr := CASE WHEN id_column IS NULL
		THEN format('(((hash_record_extended(ROW((t.%1$I)::float8[], %2$s), %3$s) %% %4$s) + %4$s) %% %4$s)',
					mean, label_expr, seed, folds)
		ELSE format('mod(abs(hashtextextended(t.%I::text, %s)), %s)', id_column, seed, folds) END;
	IF (SELECT atttypid FROM pg_attribute WHERE attrelid = relation AND attname = variance
			AND attnum > 0 AND NOT attisdropped) = 'float8'::regtype THEN
		score_var := format('CASE WHEN %1$s IS NOT NULL THEN ARRAY[%1$s]::float8[] END', var_expr);
	END IF;

	FOREACH lam IN ARRAY lambdas LOOP
		opts := options || jsonb_build_object('lambda', lam);
		scores := '{}';
		FOR f IN 0 .. folds - 1 LOOP
			EXECUTE format(CASE WHEN regression
							   THEN 'SELECT %s.train_regression(%I, %s, (%I)::float8, $1) AS m FROM %s t WHERE %s <> $2'
							   ELSE 'SELECT %s.train(%I, %s, %I, $1) AS m FROM %s t WHERE %s <> $2' END,
						   ext, mean, var_expr, label, relation, fold_expr)
				INTO fit USING opts, f;
			IF fit.m IS NULL THEN
				CONTINUE;		-- no training rows in this split
			END IF;
			EXECUTE format(CASE metric
							   WHEN 'accuracy' THEN
								   'SELECT avg((%7$s.predict($1, %1$I) = %3$s)::int) FROM %4$s t WHERE %5$s = $2'
							   WHEN 'roc_auc' THEN
								   'SELECT %7$s.roc_auc(%7$s.decision($1, %1$I), %3$s) FROM %4$s t WHERE %5$s = $2'
							   WHEN 'rmse' THEN
								   'SELECT %7$s.rmse(%7$s.decision($1, %1$I), (%3$s)::float8) FROM %4$s t WHERE %5$s = $2'
							   WHEN 'mae' THEN
								   'SELECT %7$s.mae(%7$s.decision($1, %1$I), (%3$s)::float8) FROM %4$s t WHERE %5$s = $2'
							   WHEN 'r2' THEN
								   'SELECT %7$s.r2(%7$s.decision($1, %1$I), (%3$s)::float8) FROM %4$s t WHERE %5$s = $2'
							   ELSE
								   'SELECT avg(%7$s.expected_loss($1, %1$I, %6$s, %3$s)) FROM %4$s t WHERE %5$s = $2'
						   END,
						   mean, var_expr, label_expr, relation, fold_expr, score_var, ext)
				INTO score USING fit.m, f;
			IF score IS NOT NULL THEN
				scores := scores || score;
			END IF;
			-- a fold's score is progress: reported under gsu.progress (-1: off)
			IF coalesce(current_setting('gsu.progress', true), '-1') <> '-1' THEN
				RAISE NOTICE 'gsu.cross_validate: lambda %, fold % of %: % %', lam, f + 1, folds, metric, score;
			END IF;
		END LOOP;
		lambda := lam;
		metric_mean := (SELECT avg(x) FROM unnest(scores) x);
		metric_stddev := (SELECT stddev_samp(x) FROM unnest(scores) x);
		fold_count := cardinality(scores);
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION gsu.cross_validate(regclass, text, text, text, float8[], int4, int4, jsonb, text, text) IS
	'k-fold cross-validation of gsu.train (or, under a regression metric, gsu.train_regression) over a list of lambdas: one row per lambda with the mean and spread of the metric (accuracy, roc_auc, expected_loss; rmse, mae, r2) over the folds';
-- a regression metric trains gsu.train_regression (issue 33)
CREATE OR REPLACE FUNCTION gsu.train_best(relation regclass, mean text, variance text, label text,
							   lambdas float8[], folds int4 DEFAULT 5, seed int4 DEFAULT 1,
							   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
							   id_column text DEFAULT NULL)
RETURNS gsu.model
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE COST 1000000
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	best float8;
	fit record;
	-- pg_gsu's own schema (see gsu.cross_validate)
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	-- the best mean metric (lowest for expected_loss, rmse and mae); ties go to the larger lambda
	EXECUTE format('SELECT cv.lambda FROM %s.cross_validate($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) cv
					WHERE cv.metric_mean IS NOT NULL
					ORDER BY CASE WHEN $9 IN (''expected_loss'', ''rmse'', ''mae'') THEN cv.metric_mean ELSE -cv.metric_mean END,
						cv.lambda DESC
					LIMIT 1', ext)
		INTO best USING relation, mean, variance, label, lambdas, folds, seed, options, metric, id_column;
	IF best IS NULL THEN
		RETURN NULL;
	END IF;
	EXECUTE format(CASE WHEN metric IN ('rmse', 'mae', 'r2')
					   THEN 'SELECT %s.train_regression(%I, %s, (%I)::float8, $1) AS m FROM %s'
					   ELSE 'SELECT %s.train(%I, %s, %I, $1) AS m FROM %s' END,
				   ext, mean, CASE WHEN variance IS NULL THEN 'NULL::float8[]' ELSE format('%I', variance) END,
				   label, relation)
		INTO fit USING options || jsonb_build_object('lambda', best);
	RETURN fit.m;
END
$$;
COMMENT ON FUNCTION gsu.train_best(regclass, text, text, text, float8[], int4, int4, jsonb, text, text) IS
	'the model retrained on every row with the lambda that gsu.cross_validate finds best (gsu.train_regression under a regression metric)';

-- The grid form: every key of grid is a training option and its value the list of
-- candidates (a value that is not an array is a list of one; null leaves the
-- option out, so gsu.train's default applies). The combinations are the
-- Cartesian product, numbered in the order of scikit-learn's ParameterGrid: keys
-- in alphabetical (byte) order, the last key varying fastest, values in the
-- order given. Each is merged over options (the grid wins) and trained exactly as
-- the lambda form does.
--
-- gsu.train checks the options, before any fold trains: each combination is
-- first given to gsu.train on one row of the relation, which parses the options
-- at that row and fails later for want of a second class. A combination it
-- rejects with invalid_parameter_value (an option that does not apply to the
-- combination's loss, say) is skipped with a NOTICE and reported with fold_count
-- 0, but a grid value that no combination makes valid (an unknown key, a value
-- out of range, a loss every one of whose combinations has an option it refuses)
-- is an error: the first such combination's error, naming it. Any error of the
-- folds names its combination too.
CREATE FUNCTION gsu.cross_validate(relation regclass, mean text, variance text, label text,
								   grid jsonb, folds int4 DEFAULT 5, seed int4 DEFAULT 1,
								   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
								   id_column text DEFAULT NULL)
RETURNS TABLE (lambda float8, metric_mean float8, metric_stddev float8, fold_count int4,
			   combination int4, train_options jsonb)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE COST 1000000 ROWS 5
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	max_combinations constant int4 := 1000;
	grid_keys text[];
	combos jsonb[] := ARRAY['{}'::jsonb];
	n_combos numeric := 1;
	k text;
	vals jsonb;
	c int4;
	f int4;
	lam float8;
	trained bool;
	vv jsonb;
	-- per combination: gsu.train's error on the probe row (NULL: accepted)
	rej_state text[];
	rej_msg text[];
	rej_detail text[];
	rej_hint text[];
	score float8;
	scores float8[];
	opts jsonb;
	err_state text;
	err_msg text;
	err_detail text;
	err_hint text;
	where_c text;
	var_expr text := CASE WHEN variance IS NULL THEN 'NULL::float8[]' ELSE format('%I', variance) END;
	score_var text;		-- the variance as gsu.expected_loss takes it (a float8 column: one element)
	label_expr text;
	fold_expr text;
	fit record;					-- fit.m: the fold's model (no type named here: see ext)
	n_rows bigint;
	regression bool := metric IN ('rmse', 'mae', 'r2');
	trainer text := CASE WHEN metric IN ('rmse', 'mae', 'r2') THEN 'gsu.train_regression' ELSE 'gsu.train' END;
	label_type regtype;
	-- pg_gsu's own schema (see the lambda form)
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	IF relation IS NULL OR mean IS NULL OR label IS NULL OR grid IS NULL THEN
		RAISE EXCEPTION 'gsu.cross_validate needs a relation, the mean and label column names and a grid'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF folds IS NULL OR folds < 2 THEN
		RAISE EXCEPTION 'folds must be at least 2, not %', folds USING ERRCODE = 'invalid_parameter_value';
	END IF;
	EXECUTE format('SELECT count(*) FROM %s', relation) INTO n_rows;
	IF folds > n_rows THEN
		RAISE EXCEPTION 'folds must be at most the number of rows (%), not %', n_rows, folds
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'With as many folds as rows, each fold leaves one row out.';
	END IF;
	IF metric NOT IN ('accuracy', 'roc_auc', 'expected_loss', 'rmse', 'mae', 'r2') THEN
		RAISE EXCEPTION 'unknown metric "%"', metric
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Valid metrics are: accuracy, roc_auc, expected_loss (classification), rmse, mae, r2 (regression).';
	END IF;
	-- a regression loss or a real target under a classification metric (see the lambda form)
	IF NOT regression AND (options->>'loss' IN ('epsilon_insensitive', 'squared')
			OR grid->'loss' @> '["epsilon_insensitive"]' OR grid->'loss' @> '["squared"]'
			OR grid->>'loss' IN ('epsilon_insensitive', 'squared')) THEN
		RAISE EXCEPTION 'metric "%" does not apply to a regression loss', metric
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Cross-validate a regression model with metric => ''rmse'', ''mae'' or ''r2''.';
	END IF;
	label_type := (SELECT atttypid FROM pg_attribute WHERE attrelid = relation AND attname = label
				   AND attnum > 0 AND NOT attisdropped);
	IF NOT regression AND label_type IN ('float4'::regtype, 'float8'::regtype, 'numeric'::regtype) THEN
		RAISE EXCEPTION 'the label column "%" has type %, not a label', label, label_type
			USING ERRCODE = 'datatype_mismatch',
				  HINT = 'For a real target (regression, gsu.train_regression), pass metric => ''rmse'', ''mae'' or ''r2''.';
	END IF;
	IF regression AND label_type = 'bool'::regtype THEN
		RAISE EXCEPTION 'the target column "%" has type boolean, not a number', label
			USING ERRCODE = 'datatype_mismatch',
				  HINT = 'A regression metric cross-validates gsu.train_regression, whose target is float8.';
	END IF;
	IF options IS NULL OR jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF jsonb_typeof(grid) <> 'object' THEN
		RAISE EXCEPTION 'grid must be a JSON object, not %', jsonb_typeof(grid)
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Map each training option to its list of values, e.g. {"lambda": [0.001, 0.01], "loss": ["gsu", "hinge"]}.';
	END IF;
	grid_keys := ARRAY(SELECT g.k FROM jsonb_object_keys(grid) g(k) ORDER BY g.k COLLATE "C");
	IF cardinality(grid_keys) = 0 THEN
		RAISE EXCEPTION 'grid must not be empty'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Map each training option to its list of values, e.g. {"lambda": [0.001, 0.01], "loss": ["gsu", "hinge"]}.';
	END IF;
	FOREACH k IN ARRAY grid_keys LOOP
		IF jsonb_typeof(grid->k) = 'array' THEN
			IF jsonb_array_length(grid->k) = 0 THEN
				RAISE EXCEPTION 'grid option "%" has no values', k
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Give it at least one value (null leaves the option out), or remove it from the grid.';
			END IF;
			n_combos := n_combos * jsonb_array_length(grid->k);
		END IF;
	END LOOP;
	IF n_combos > max_combinations THEN
		RAISE EXCEPTION 'grid has % combinations, more than %', n_combos, max_combinations
			USING ERRCODE = 'program_limit_exceeded',
				  HINT = format('gsu.cross_validate searches at most %s combinations of options: give fewer values, or search in stages (a coarse grid, then a finer one around the best).', max_combinations);
	END IF;
	-- the Cartesian product; the last key varies fastest
	FOREACH k IN ARRAY grid_keys LOOP
		vals := CASE WHEN jsonb_typeof(grid->k) = 'array' THEN grid->k ELSE jsonb_build_array(grid->k) END;
		combos := ARRAY(SELECT p.o || jsonb_build_object(k, v.v)
						FROM unnest(combos) WITH ORDINALITY p(o, i),
							 jsonb_array_elements(vals) WITH ORDINALITY v(v, j)
						ORDER BY p.i, v.j);
	END LOOP;

	-- folds and metrics as in the lambda form
	label_expr := format('%I', label);
	score_var := var_expr;
	IF NOT regression AND label_type = 'bool'::regtype THEN
		label_expr := format('CASE WHEN %1$I THEN 1 WHEN NOT %1$I THEN -1 END', label);
	END IF;
	fold_expr := CASE WHEN id_column IS NULL
		THEN format('(((hash_record_extended(ROW((t.%1$I)::float8[], %2$s), %3$s) %% %4$s) + %4$s) %% %4$s)',
					mean, label_expr, seed, folds)
		ELSE format('mod(abs(hashtextextended(t.%I::text, %s)), %s)', id_column, seed, folds) END;
	IF (SELECT atttypid FROM pg_attribute WHERE attrelid = relation AND attname = variance
			AND attnum > 0 AND NOT attisdropped) = 'float8'::regtype THEN
		score_var := format('CASE WHEN %1$s IS NOT NULL THEN ARRAY[%1$s]::float8[] END', var_expr);
	END IF;

	-- gsu.train's (gsu.train_regression's) verdict on each combination's options, from one row
	FOR c IN 1 .. cardinality(combos) LOOP
		combos[c] := jsonb_build_object('grid', combos[c], 'options',
			(options || combos[c]) - ARRAY(SELECT e.k FROM jsonb_each(combos[c]) e(k, v) WHERE e.v = 'null'::jsonb));
		rej_state[c] := NULL;
		BEGIN
			-- the named columns only (a role may have SELECT on those alone)
			EXECUTE format(CASE WHEN regression
							   THEN 'SELECT %s.train_regression(m, v, l::float8, $1) FROM (SELECT %I AS m, %s AS v, %I AS l FROM %s t WHERE %I IS NOT NULL AND %I IS NOT NULL LIMIT 1) t'
							   ELSE 'SELECT %s.train(m, v, l, $1) FROM (SELECT %I AS m, %s AS v, %I AS l FROM %s t WHERE %I IS NOT NULL AND %I IS NOT NULL LIMIT 1) t' END,
						   ext, mean, var_expr, label, relation, mean, label)
				USING combos[c]->'options';
		EXCEPTION WHEN invalid_parameter_value THEN
			GET STACKED DIAGNOSTICS err_msg = MESSAGE_TEXT, err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT;
			rej_state[c] := '22023';
			rej_msg[c] := err_msg;
			rej_detail[c] := err_detail;
			rej_hint[c] := err_hint;
				  WHEN OTHERS THEN
			NULL;				-- the second class missing, or the data: the folds will tell
		END;
	END LOOP;
	-- every value of the grid valid in some combination
	FOREACH k IN ARRAY grid_keys LOOP
		vals := CASE WHEN jsonb_typeof(grid->k) = 'array' THEN grid->k ELSE jsonb_build_array(grid->k) END;
		FOR vv IN SELECT v.v FROM jsonb_array_elements(vals) v(v) LOOP
			CONTINUE WHEN EXISTS (SELECT FROM unnest(combos, rej_state) a(o, st)
								  WHERE a.st IS NULL AND a.o->'grid'->k = vv);
			c := (SELECT min(a.i) FROM unnest(combos) WITH ORDINALITY a(o, i) WHERE a.o->'grid'->k = vv);
			err_detail := format('Grid combination %s of %s: %s. %s accepts no combination with %s.',
								 c, cardinality(combos), combos[c]->'grid', trainer, jsonb_build_object(k, vv))
						  || CASE WHEN rej_detail[c] <> '' THEN ' ' || rej_detail[c] ELSE '' END;
			IF rej_hint[c] <> '' THEN
				RAISE EXCEPTION USING ERRCODE = rej_state[c], MESSAGE = rej_msg[c], DETAIL = err_detail, HINT = rej_hint[c];
			END IF;
			RAISE EXCEPTION USING ERRCODE = rej_state[c], MESSAGE = rej_msg[c], DETAIL = err_detail,
				HINT = 'Every value of the grid must be valid in some combination; null among the values of an option leaves it out.';
		END LOOP;
	END LOOP;

	FOR c IN 1 .. cardinality(combos) LOOP
		opts := combos[c]->'options';
		where_c := format('Grid combination %s of %s: %s.', c, cardinality(combos), combos[c]->'grid');
		scores := '{}';
		lam := NULL;
		trained := false;
		IF rej_state[c] IS NOT NULL THEN
			RAISE NOTICE 'gsu.cross_validate: combination % of % skipped: %', c, cardinality(combos), rej_msg[c]
				USING DETAIL = where_c;
		END IF;
		FOR f IN 0 .. CASE WHEN rej_state[c] IS NULL THEN folds - 1 ELSE -1 END LOOP
			BEGIN
				EXECUTE format(CASE WHEN regression
								   THEN 'SELECT %s.train_regression(%I, %s, (%I)::float8, $1) AS m FROM %s t WHERE %s <> $2'
								   ELSE 'SELECT %s.train(%I, %s, %I, $1) AS m FROM %s t WHERE %s <> $2' END,
							   ext, mean, var_expr, label, relation, fold_expr)
					INTO fit USING opts, f;
				IF fit.m IS NULL THEN
					CONTINUE;		-- no training rows in this split
				END IF;
				IF NOT trained THEN
					-- the lambda gsu.train used, its default when no option gives it
					EXECUTE format('SELECT (%s.describe($1)->''hyperparameters''->>''lambda'')::float8', ext)
						INTO lam USING fit.m;
					trained := true;
				END IF;
				EXECUTE format(CASE metric
								   WHEN 'accuracy' THEN
									   'SELECT avg((%7$s.predict($1, %1$I) = %3$s)::int) FROM %4$s t WHERE %5$s = $2'
								   WHEN 'roc_auc' THEN
									   'SELECT %7$s.roc_auc(%7$s.decision($1, %1$I), %3$s) FROM %4$s t WHERE %5$s = $2'
								   WHEN 'rmse' THEN
									   'SELECT %7$s.rmse(%7$s.decision($1, %1$I), (%3$s)::float8) FROM %4$s t WHERE %5$s = $2'
								   WHEN 'mae' THEN
									   'SELECT %7$s.mae(%7$s.decision($1, %1$I), (%3$s)::float8) FROM %4$s t WHERE %5$s = $2'
								   WHEN 'r2' THEN
									   'SELECT %7$s.r2(%7$s.decision($1, %1$I), (%3$s)::float8) FROM %4$s t WHERE %5$s = $2'
								   ELSE
									   'SELECT avg(%7$s.expected_loss($1, %1$I, %6$s, %3$s)) FROM %4$s t WHERE %5$s = $2'
							   END,
							   mean, var_expr, label_expr, relation, fold_expr, score_var, ext)
					INTO score USING fit.m, f;
			EXCEPTION WHEN OTHERS THEN
				GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_msg = MESSAGE_TEXT,
					err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT;
				err_detail := where_c || CASE WHEN err_detail <> '' THEN ' ' || err_detail ELSE '' END;
				IF err_hint <> '' THEN
					RAISE EXCEPTION USING ERRCODE = err_state, MESSAGE = err_msg, DETAIL = err_detail, HINT = err_hint;
				END IF;
				RAISE EXCEPTION USING ERRCODE = err_state, MESSAGE = err_msg, DETAIL = err_detail;
			END;
			IF score IS NOT NULL THEN
				scores := scores || score;
			END IF;
			IF coalesce(current_setting('gsu.progress', true), '-1') <> '-1' THEN
				RAISE NOTICE 'gsu.cross_validate: combination % of %, fold % of %: % %',
					c, cardinality(combos), f + 1, folds, metric, score;
			END IF;
		END LOOP;
		lambda := coalesce(lam, CASE WHEN jsonb_typeof(opts->'lambda') = 'number' THEN (opts->>'lambda')::float8 END);
		metric_mean := (SELECT avg(x) FROM unnest(scores) x);
		metric_stddev := (SELECT stddev_samp(x) FROM unnest(scores) x);
		fold_count := cardinality(scores);
		combination := c;
		train_options := opts;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION gsu.cross_validate(regclass, text, text, text, jsonb, int4, int4, jsonb, text, text) IS
	'k-fold cross-validation of gsu.train (or, under a regression metric rmse, mae or r2, gsu.train_regression) over a grid of options (each key an option, each value its list of candidates; the Cartesian product, at most 1000 combinations, merged over options): one row per combination with its number, its options and the mean and spread of the metric over the folds';

CREATE FUNCTION gsu.train_best(relation regclass, mean text, variance text, label text,
							   grid jsonb, folds int4 DEFAULT 5, seed int4 DEFAULT 1,
							   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
							   id_column text DEFAULT NULL)
RETURNS gsu.model
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE COST 1000000
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	best jsonb;
	fit record;
	-- pg_gsu's own schema (see gsu.cross_validate)
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	-- the best mean metric (lowest for expected_loss, rmse and mae); ties go to the first combination
	EXECUTE format('SELECT cv.train_options FROM %s.cross_validate($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) cv
					WHERE cv.metric_mean IS NOT NULL
					ORDER BY CASE WHEN $9 IN (''expected_loss'', ''rmse'', ''mae'') THEN cv.metric_mean ELSE -cv.metric_mean END,
						cv.combination
					LIMIT 1', ext)
		INTO best USING relation, mean, variance, label, grid, folds, seed, options, metric, id_column;
	IF best IS NULL THEN
		RETURN NULL;
	END IF;
	EXECUTE format(CASE WHEN metric IN ('rmse', 'mae', 'r2')
					   THEN 'SELECT %s.train_regression(%I, %s, (%I)::float8, $1) AS m FROM %s'
					   ELSE 'SELECT %s.train(%I, %s, %I, $1) AS m FROM %s' END,
				   ext, mean, CASE WHEN variance IS NULL THEN 'NULL::float8[]' ELSE format('%I', variance) END,
				   label, relation)
		INTO fit USING best;
	RETURN fit.m;
END
$$;
COMMENT ON FUNCTION gsu.train_best(regclass, text, text, text, jsonb, int4, int4, jsonb, text, text) IS
	'the model retrained on every row with the grid combination that gsu.cross_validate finds best (ties: the first combination; gsu.train_regression under a regression metric)';

-- An untyped literal given to the text forms below: a list of lambdas as
-- float8[], or the error that says a grid must be passed as jsonb.
CREATE FUNCTION gsu.lambda_list(lambdas text) RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	is_grid bool;
BEGIN
	RETURN lambdas::float8[];
EXCEPTION WHEN invalid_text_representation THEN
	BEGIN
		is_grid := jsonb_typeof(lambdas::jsonb) = 'object';
	EXCEPTION WHEN invalid_text_representation THEN
		is_grid := false;
	END;
	IF NOT is_grid THEN
		RAISE;
	END IF;
	RAISE EXCEPTION 'a grid of options must be passed as jsonb, not as an untyped literal'
		USING ERRCODE = 'invalid_text_representation',
			  HINT = 'An untyped literal is read as a list of lambdas: cast the grid (''{...}''::jsonb) or pass it by name (grid => ''{...}'').';
END
$$;
COMMENT ON FUNCTION gsu.lambda_list(text) IS
'The untyped literal of the text forms of gsu.cross_validate and gsu.train_best as a list of lambdas (float8[]); a JSON object there is a grid written without its type, an error that says to cast it to jsonb';
-- An untyped literal list of lambdas ('{0.01, 0.1}') would fit both the float8[]
-- and the jsonb form; these text forms take it (PostgreSQL prefers text for an
-- untyped literal), so such calls resolve as before the grid form existed, and
-- run the float8[] form. A grid written as an untyped literal lands here too: its
-- error says to cast it to jsonb or pass it by name.
CREATE FUNCTION gsu.cross_validate(relation regclass, mean text, variance text, label text,
								   lambdas text, folds int4 DEFAULT 5, seed int4 DEFAULT 1,
								   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
								   id_column text DEFAULT NULL)
RETURNS TABLE (lambda float8, metric_mean float8, metric_stddev float8, fold_count int4)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE COST 1000000 ROWS 5
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	l float8[];
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	EXECUTE format('SELECT %s.lambda_list($1)', ext) INTO l USING lambdas;
	RETURN QUERY EXECUTE format('SELECT * FROM %s.cross_validate($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', ext)
		USING relation, mean, variance, label, l, folds, seed, options, metric, id_column;
END
$$;
CREATE FUNCTION gsu.train_best(relation regclass, mean text, variance text, label text,
							   lambdas text, folds int4 DEFAULT 5, seed int4 DEFAULT 1,
							   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
							   id_column text DEFAULT NULL)
RETURNS gsu.model
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE COST 1000000
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	l float8[];
	fit record;
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	EXECUTE format('SELECT %s.lambda_list($1)', ext) INTO l USING lambdas;
	EXECUTE format('SELECT %s.train_best($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS m', ext)
		INTO fit USING relation, mean, variance, label, l, folds, seed, options, metric, id_column;
	RETURN fit.m;
END
$$;
COMMENT ON FUNCTION gsu.cross_validate(regclass, text, text, text, text, int4, int4, jsonb, text, text) IS
	'gsu.cross_validate over a list of lambdas written as an untyped literal (''{0.001, 0.01}''), read as float8[]: the float8[] form, which it calls';
COMMENT ON FUNCTION gsu.train_best(regclass, text, text, text, text, int4, int4, jsonb, text, text) IS
	'gsu.train_best over a list of lambdas written as an untyped literal (''{0.001, 0.01}''), read as float8[]: the float8[] form, which it calls';

-- gsu.hessian: the scans of gsu.fit's solver newton

CREATE FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, gsu.model, float8, float8) IS
	'gsu.hessian transition: adds one row''s loss, gradient and Hessian, updating the state in place';
CREATE FUNCTION gsu.hessian_final(gsu.partial) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_hessian_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.hessian_final(gsu.partial) IS
	'gsu.hessian final function: checks that the sums are finite';

CREATE AGGREGATE gsu.hessian(mean float8[], variance float8[], label int4, at gsu.model, smoothing float8, band float8) (
	SFUNC = gsu.hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.hessian(float8[], float8[], int4, gsu.model, float8, float8) IS
	'sum of the rows'' losses, gradients and Hessians (packed upper triangle) at the model''s weights, with the loss smoothed by smoothing, and with band > 0 the certain rows within band of the margin: one scan of gsu.fit''s solver newton; exactly combinable';
COMMENT ON FUNCTION gsu.fit(regclass, text, text, text, jsonb) IS
	'trains on a relation of any size in a few scans: solver newton (default; a sample trained in memory, then Newton steps with the exact Hessian from scans of gsu.hessian) or lbfgs (passes of gsu.gradient); column names are quoted as identifiers; variance may be NULL';


-- weighted passes and gsu.fit's row and class weights (issue #14)
CREATE FUNCTION gsu.gradient_transfn(gsu.partial, float8[], float8[], int4, float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_gradient_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.gradient_transfn(gsu.partial, float8[], float8[], int4, float8, gsu.model, float8) IS
	'weighted gsu.gradient transition: adds one row''s loss and gradient times its weight, updating the state in place';

CREATE AGGREGATE gsu.gradient(mean float8[], variance float8[], label int4, weight float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.gradient_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.gradient(float8[], float8[], int4, float8, gsu.model, float8) IS
	'gsu.gradient with row weights: each row''s loss and gradient times its weight (finite, >= 0; a row of weight NULL or 0 is skipped); exactly combinable';

CREATE FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, float8, gsu.model, float8, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.hessian_transfn(gsu.partial, float8[], float8[], int4, float8, gsu.model, float8, float8) IS
	'weighted gsu.hessian transition: adds one row''s loss, gradient and Hessian times its weight, updating the state in place';

CREATE AGGREGATE gsu.hessian(mean float8[], variance float8[], label int4, weight float8, at gsu.model, smoothing float8, band float8) (
	SFUNC = gsu.hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.hessian(float8[], float8[], int4, float8, gsu.model, float8, float8) IS
	'gsu.hessian with row weights: each row''s sums times its weight (finite, >= 0; a row of weight NULL or 0 is skipped), band rows with their weights; exactly combinable';

CREATE FUNCTION gsu.fit(relation regclass, mean text, variance text, label text, weight text,
						options jsonb) RETURNS gsu.model
	AS 'MODULE_PATHNAME', 'gsu_fit' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gsu.fit(regclass, text, text, text, text, jsonb) IS
	'gsu.fit with row weights: the column weight (finite, >= 0; NULL or 0 skips the row) multiplies each row''s loss, the objective normalized by the weight sum, as gsu.train''s weighted form';

-- ------------------------------------------------------------ equality
-- gsu.model, gsu.projection and gsu.refset compare equal when their canonical
-- bytes are equal (src/gsu_equality.c): = and <> with a hash operator class,
-- so that DISTINCT, GROUP BY, UNION and hash joins work on them. There is no
-- order.

CREATE FUNCTION gsu.model_eq(gsu.model, gsu.model) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.model_ne(gsu.model, gsu.model) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.model_hash(gsu.model) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.model_hash_extended(gsu.model, int8) RETURNS int8
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR gsu.= (
	LEFTARG = gsu.model, RIGHTARG = gsu.model, FUNCTION = gsu.model_eq,
	COMMUTATOR = OPERATOR(gsu.=), NEGATOR = OPERATOR(gsu.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR gsu.<> (
	LEFTARG = gsu.model, RIGHTARG = gsu.model, FUNCTION = gsu.model_ne,
	COMMUTATOR = OPERATOR(gsu.<>), NEGATOR = OPERATOR(gsu.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR CLASS gsu.model_ops DEFAULT FOR TYPE gsu.model USING hash AS
	OPERATOR 1 gsu.= (gsu.model, gsu.model),
	FUNCTION 1 gsu.model_hash(gsu.model),
	FUNCTION 2 gsu.model_hash_extended(gsu.model, int8);
COMMENT ON FUNCTION gsu.model_eq(gsu.model, gsu.model) IS
	'whether two values of gsu.model are equal (the same canonical bytes): the operator =';
COMMENT ON FUNCTION gsu.model_ne(gsu.model, gsu.model) IS 'the operator <> of gsu.model';
COMMENT ON FUNCTION gsu.model_hash(gsu.model) IS 'hash of a gsu.model (its canonical bytes), for the hash operator class';
COMMENT ON FUNCTION gsu.model_hash_extended(gsu.model, int8) IS 'seeded 64-bit hash of a gsu.model, for the hash operator class';
COMMENT ON OPERATOR gsu.= (gsu.model, gsu.model) IS 'equal: the same canonical bytes';
COMMENT ON OPERATOR gsu.<> (gsu.model, gsu.model) IS 'not equal';

CREATE FUNCTION gsu.projection_eq(gsu.projection, gsu.projection) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.projection_ne(gsu.projection, gsu.projection) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.projection_hash(gsu.projection) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.projection_hash_extended(gsu.projection, int8) RETURNS int8
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR gsu.= (
	LEFTARG = gsu.projection, RIGHTARG = gsu.projection, FUNCTION = gsu.projection_eq,
	COMMUTATOR = OPERATOR(gsu.=), NEGATOR = OPERATOR(gsu.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR gsu.<> (
	LEFTARG = gsu.projection, RIGHTARG = gsu.projection, FUNCTION = gsu.projection_ne,
	COMMUTATOR = OPERATOR(gsu.<>), NEGATOR = OPERATOR(gsu.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR CLASS gsu.projection_ops DEFAULT FOR TYPE gsu.projection USING hash AS
	OPERATOR 1 gsu.= (gsu.projection, gsu.projection),
	FUNCTION 1 gsu.projection_hash(gsu.projection),
	FUNCTION 2 gsu.projection_hash_extended(gsu.projection, int8);
COMMENT ON FUNCTION gsu.projection_eq(gsu.projection, gsu.projection) IS
	'whether two values of gsu.projection are equal (the same canonical bytes): the operator =';
COMMENT ON FUNCTION gsu.projection_ne(gsu.projection, gsu.projection) IS 'the operator <> of gsu.projection';
COMMENT ON FUNCTION gsu.projection_hash(gsu.projection) IS 'hash of a gsu.projection (its canonical bytes), for the hash operator class';
COMMENT ON FUNCTION gsu.projection_hash_extended(gsu.projection, int8) IS 'seeded 64-bit hash of a gsu.projection, for the hash operator class';
COMMENT ON OPERATOR gsu.= (gsu.projection, gsu.projection) IS 'equal: the same canonical bytes';
COMMENT ON OPERATOR gsu.<> (gsu.projection, gsu.projection) IS 'not equal';

CREATE FUNCTION gsu.refset_eq(gsu.refset, gsu.refset) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.refset_ne(gsu.refset, gsu.refset) RETURNS bool
	AS 'MODULE_PATHNAME', 'gsu_bytes_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION gsu.refset_hash(gsu.refset) RETURNS int4
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.refset_hash_extended(gsu.refset, int8) RETURNS int8
	AS 'MODULE_PATHNAME', 'gsu_bytes_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR gsu.= (
	LEFTARG = gsu.refset, RIGHTARG = gsu.refset, FUNCTION = gsu.refset_eq,
	COMMUTATOR = OPERATOR(gsu.=), NEGATOR = OPERATOR(gsu.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR gsu.<> (
	LEFTARG = gsu.refset, RIGHTARG = gsu.refset, FUNCTION = gsu.refset_ne,
	COMMUTATOR = OPERATOR(gsu.<>), NEGATOR = OPERATOR(gsu.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR CLASS gsu.refset_ops DEFAULT FOR TYPE gsu.refset USING hash AS
	OPERATOR 1 gsu.= (gsu.refset, gsu.refset),
	FUNCTION 1 gsu.refset_hash(gsu.refset),
	FUNCTION 2 gsu.refset_hash_extended(gsu.refset, int8);
COMMENT ON FUNCTION gsu.refset_eq(gsu.refset, gsu.refset) IS
	'whether two values of gsu.refset are equal (the same canonical bytes): the operator =';
COMMENT ON FUNCTION gsu.refset_ne(gsu.refset, gsu.refset) IS 'the operator <> of gsu.refset';
COMMENT ON FUNCTION gsu.refset_hash(gsu.refset) IS 'hash of a gsu.refset (its canonical bytes), for the hash operator class';
COMMENT ON FUNCTION gsu.refset_hash_extended(gsu.refset, int8) IS 'seeded 64-bit hash of a gsu.refset, for the hash operator class';
COMMENT ON OPERATOR gsu.= (gsu.refset, gsu.refset) IS 'equal: the same canonical bytes';
COMMENT ON OPERATOR gsu.<> (gsu.refset, gsu.refset) IS 'not equal';

-- ------------------------------------------------ one form per argument kind
-- (issue 29) so that untyped parameters resolve: the isotropic float8 forms of
-- the variance go (an array of one element is the isotropic variance), a NULL
-- variance is a certain row (the functions that take one are not STRICT), and
-- gsu.weights / gsu.bias are one function each with class and units defaults.
-- A view or function of the database that names a dropped form stops the
-- update (docs/upgrade.md says what to do).
DROP FUNCTION gsu.confidence(gsu.model, float8[], float8);
DROP FUNCTION gsu.expected_loss(gsu.model, float8[], float8, int4);
DROP FUNCTION gsu.project_variance(gsu.projection, float8);
DROP FUNCTION gsu.weights(gsu.model);
DROP FUNCTION gsu.weights(gsu.model, int4);
DROP FUNCTION gsu.bias(gsu.model);
DROP FUNCTION gsu.bias(gsu.model, int4);
CREATE OR REPLACE FUNCTION gsu.confidence(model gsu.model, mean float8[], variance float8[] DEFAULT NULL) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_confidence_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION gsu.expected_loss(model gsu.model, mean float8[], variance float8[], label int4) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_expected_loss_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.confidence(gsu.model, float8[], float8[]) IS
	'probability that the predicted label holds for a point drawn from N(mean, Sigma): Phi(|w''x+b| / sqrt(w''Sigma w)); more than two classes: that the predicted class''s one-vs-rest classifier claims the point; variance: NULL for a certain row, one element s for s*I, one per feature (diagonal) or a 2-D matrix (full); NULL model or mean: NULL';
COMMENT ON FUNCTION gsu.expected_loss(gsu.model, float8[], float8[], int4) IS
	'expected hinge loss of the labelled Gaussian N(mean, Sigma) under the model (more than two classes: summed over the one-vs-rest classifiers); variance: NULL for a certain row, one element s for s*I, one per feature (diagonal) or a 2-D matrix (full); NULL model, mean or label: NULL';

CREATE FUNCTION gsu.weights(model gsu.model, class int4 DEFAULT NULL, units text DEFAULT NULL) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_model_weights_any' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.bias(model gsu.model, class int4 DEFAULT NULL, units text DEFAULT NULL) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_model_bias_any' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.weights(gsu.model, int4, text) IS
	'the weights: without class, the weight vector w (more than two classes: one row per class); with class, the vector that scores it (two classes: -w for the first, w for the second); units ''trained'' (NULL, the default: as the solver found them) or ''original'' (a model trained with "standardize": w/s, in the units of the rows)';
COMMENT ON FUNCTION gsu.bias(gsu.model, int4, text) IS
	'the bias that goes with gsu.weights(model, class, units): without class, b of a two-class model; units ''trained'' or ''original'' (b - (w/s)''m)';
CREATE OR REPLACE FUNCTION gsu.project_variance(projection gsu.projection, variance float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_project_variance_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION gsu.project_covariance(projection gsu.projection, variance float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_project_covariance_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.project_variance(gsu.projection, float8[]) IS
	'the diagonal of V''Sigma V: the per-dimension variances of the projected Gaussian; variance: NULL for a certain row (zeros), one element s for s*I, one per input feature (diagonal) or a 2-D matrix (full); NULL projection: NULL';
COMMENT ON FUNCTION gsu.project_covariance(gsu.projection, float8[]) IS
	'the full projected covariance V''Sigma V (dims x dims); variance as for gsu.project_variance';

-- low-rank covariances: the factor form of gsu.image_covariance (#28)
CREATE FUNCTION gsu.image_covariance_factor(image float8[], width int4, height int4, sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_covariance_factor_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2000;
CREATE FUNCTION gsu.image_covariance_factor(image float8[], sigma2 float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_image_covariance_factor_2d_fn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 2000;
COMMENT ON FUNCTION gsu.image_covariance_factor(float8[], int4, int4, float8) IS
	'n x 2 factor L = sqrt(sigma2)*[gx gy] of the translation covariance L*L'' = gsu.image_covariance (n = width*height >= 3 pixels, row-major): a low-rank variance that gsu.train, gsu.fit and the scoring functions read in O(n)';
COMMENT ON FUNCTION gsu.image_covariance_factor(float8[], float8) IS
	'n x 2 factor of the translation covariance of a 2-D (height x width) image, pixels in row-major order';

-- ------------------------------------------------------------ significance tests

-- McNemar's exact test: two methods' predictions against the labels of the same
-- rows; four counts, combined exactly. int4 only: a bool overload would make a
-- call with untyped parameters ambiguous (sql/untyped.sql); pass p::int4.

CREATE FUNCTION gsu.mcnemar_transfn(internal, int4, int4, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_mcnemar_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.mcnemar_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_mcnemar_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.mcnemar_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_mcnemar_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.mcnemar_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_mcnemar_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.mcnemar_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_mcnemar_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.mcnemar_transfn(internal, int4, int4, int4) IS 'gsu.mcnemar transition: counts the row by which of the two predictions equal the label';
COMMENT ON FUNCTION gsu.mcnemar_combinefn(internal, internal) IS 'gsu.mcnemar combine: adds the counts of parallel workers';
COMMENT ON FUNCTION gsu.mcnemar_serialfn(internal) IS 'gsu.mcnemar state serialization';
COMMENT ON FUNCTION gsu.mcnemar_deserialfn(bytea, internal) IS 'gsu.mcnemar state deserialization (validated)';
COMMENT ON FUNCTION gsu.mcnemar_finalfn(internal) IS 'gsu.mcnemar final: the counts and the exact two-sided p-value as jsonb';

CREATE AGGREGATE gsu.mcnemar(prediction_a int4, prediction_b int4, label int4) (
	SFUNC = gsu.mcnemar_transfn, STYPE = internal, FINALFUNC = gsu.mcnemar_finalfn,
	COMBINEFUNC = gsu.mcnemar_combinefn, SERIALFUNC = gsu.mcnemar_serialfn,
	DESERIALFUNC = gsu.mcnemar_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.mcnemar(int4, int4, int4) IS
	'McNemar''s exact test of two classifiers on the same rows, as jsonb: n, both_right, b (A right, B wrong), c (A wrong, B right), both_wrong, accuracy_a, accuracy_b and the two-sided p = min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2); labels are class ids compared for equality; rows with a NULL are skipped; NULL without rows';

-- the paired t-test over runs, with Nadeau and Bengio's correction: the row
-- count, three means and a sum of squared deviations, combined pairwise. No
-- DEFAULT for an aggregate's argument: the ratio is a second form, which an
-- untyped call resolves by its number of arguments.

CREATE FUNCTION gsu.paired_ttest_transfn(internal, float8, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_paired_ttest_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.paired_ttest_transfn(internal, float8, float8, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_paired_ttest_ratio_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.paired_ttest_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_paired_ttest_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.paired_ttest_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_paired_ttest_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.paired_ttest_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_paired_ttest_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.paired_ttest_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_paired_ttest_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.paired_ttest_transfn(internal, float8, float8) IS 'gsu.paired_ttest transition (the plain paired t-test)';
COMMENT ON FUNCTION gsu.paired_ttest_transfn(internal, float8, float8, float8) IS 'gsu.paired_ttest transition with the test/train ratio of Nadeau and Bengio''s correction';
COMMENT ON FUNCTION gsu.paired_ttest_combinefn(internal, internal) IS 'gsu.paired_ttest combine: merges the moments of parallel workers';
COMMENT ON FUNCTION gsu.paired_ttest_serialfn(internal) IS 'gsu.paired_ttest state serialization';
COMMENT ON FUNCTION gsu.paired_ttest_deserialfn(bytea, internal) IS 'gsu.paired_ttest state deserialization (validated)';
COMMENT ON FUNCTION gsu.paired_ttest_finalfn(internal) IS 'gsu.paired_ttest final: t, df and the two-sided p-value as jsonb';

CREATE AGGREGATE gsu.paired_ttest(score_a float8, score_b float8) (
	SFUNC = gsu.paired_ttest_transfn, STYPE = internal, FINALFUNC = gsu.paired_ttest_finalfn,
	COMBINEFUNC = gsu.paired_ttest_combinefn, SERIALFUNC = gsu.paired_ttest_serialfn,
	DESERIALFUNC = gsu.paired_ttest_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.paired_ttest(score_a float8, score_b float8, test_train_ratio float8) (
	SFUNC = gsu.paired_ttest_transfn, STYPE = internal, FINALFUNC = gsu.paired_ttest_finalfn,
	COMBINEFUNC = gsu.paired_ttest_combinefn, SERIALFUNC = gsu.paired_ttest_serialfn,
	DESERIALFUNC = gsu.paired_ttest_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.paired_ttest(float8, float8) IS
	'paired t-test of two methods'' scores over runs (one row per run), as jsonb: runs, df = runs - 1, mean_a, mean_b, mean_difference (a - b), sd_difference, test_train_ratio (0), t = mean/sqrt(s^2/J) and the two-sided p; rows with a NULL are skipped; NULL without rows';
COMMENT ON AGGREGATE gsu.paired_ttest(float8, float8, float8) IS
	'the corrected resampled t-test of Nadeau and Bengio (2003) for runs whose training sets overlap: t = mean/sqrt((1/J + n_test/n_train) s^2), df = J - 1; test_train_ratio = n_test/n_train, the same on every row (0: the plain paired t-test)';

CREATE FUNCTION gsu.training_info(model gsu.model,
	OUT class int4, OUT pass int8, OUT objective float8, OUT gradient_norm float8,
	OUT gap float8, OUT elapsed_ms float8) RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'gsu_model_training_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 2000 ROWS 64;
COMMENT ON FUNCTION gsu.training_info(gsu.model) IS
	'the per-pass history the training kept in the model (the first 32 and the last 32 passes of each class vector): class (the vector''s positive class), pass, objective, gradient norm and gap where the solver measured them (else NULL), milliseconds since the training started; no rows for a model trained before format 5 or by the streaming solver sgd';

-- ------------------------------------------------------------ planner costs and row estimates (issue 29)
-- COST in units of a builtin operator call (cpu_operator_cost), ROWS of the set-returning
-- functions, as src/sql/*.sql set them; measured by bench/procost.sh (docs/performance.md).
ALTER FUNCTION gsu.bias(gsu.model,integer,text) COST 20;
ALTER FUNCTION gsu.calibrate_transfn(internal,gsu.model,double precision[],integer) COST 300;
ALTER FUNCTION gsu.classes(gsu.model) COST 40;
ALTER FUNCTION gsu.confidence(gsu.model,double precision[],double precision[]) COST 100;
ALTER FUNCTION gsu.confusion_transfn(internal,boolean,boolean) COST 30;
ALTER FUNCTION gsu.confusion_transfn(internal,integer,integer) COST 30;
ALTER FUNCTION gsu.cross_validate(regclass,text,text,text,double precision[],integer,integer,jsonb,text,text) COST 1e+06 ROWS 5;
ALTER FUNCTION gsu.cross_validate(regclass,text,text,text,jsonb,integer,integer,jsonb,text,text) COST 1e+06 ROWS 5;
ALTER FUNCTION gsu.cross_validate(regclass,text,text,text,text,integer,integer,jsonb,text,text) COST 1e+06 ROWS 5;
ALTER FUNCTION gsu.decision(gsu.model,double precision[]) COST 50;
ALTER FUNCTION gsu.decisions(gsu.model,double precision[]) COST 50;
ALTER FUNCTION gsu.describe(gsu.model) COST 8000;
ALTER FUNCTION gsu.describe_projection(gsu.projection) COST 2000;
ALTER FUNCTION gsu.describe_refset(gsu.refset) COST 30000;
ALTER FUNCTION gsu.eigenvalues(gsu.projection) COST 30;
ALTER FUNCTION gsu.expected_loss(gsu.model,double precision[],double precision[],integer) COST 100;
ALTER FUNCTION gsu.explain(gsu.model,double precision[],double precision[]) COST 5000 ROWS 51;
ALTER FUNCTION gsu.fisher_score_transfn(internal,double precision[],boolean) COST 200;
ALTER FUNCTION gsu.fisher_score_transfn(internal,double precision[],boolean,jsonb) COST 200;
ALTER FUNCTION gsu.fisher_score_transfn(internal,double precision[],integer) COST 200;
ALTER FUNCTION gsu.fisher_score_transfn(internal,double precision[],integer,jsonb) COST 200;
ALTER FUNCTION gsu.fit(regclass,text,text,text,jsonb) COST 1e+06;
ALTER FUNCTION gsu.fit(regclass,text,text,text,text,jsonb) COST 1e+06;
ALTER FUNCTION gsu.geu_fit_transfn(internal,double precision[],double precision[],integer) COST 500;
ALTER FUNCTION gsu.geu_fit_transfn(internal,double precision[],double precision[],integer,jsonb) COST 500;
ALTER FUNCTION gsu.gradient_transfn(gsu.partial,double precision[],double precision[],integer,double precision,gsu.model,double precision) COST 200;
ALTER FUNCTION gsu.gradient_transfn(gsu.partial,double precision[],double precision[],integer,gsu.model,double precision) COST 200;
ALTER FUNCTION gsu.hessian_transfn(gsu.partial,double precision[],double precision[],integer,double precision,gsu.model,double precision,double precision) COST 1000;
ALTER FUNCTION gsu.hessian_transfn(gsu.partial,double precision[],double precision[],integer,gsu.model,double precision,double precision) COST 1000;
ALTER FUNCTION gsu.image_covariance(double precision[],double precision) COST 100000;
ALTER FUNCTION gsu.image_covariance(double precision[],integer,integer,double precision) COST 100000;
ALTER FUNCTION gsu.image_variance(double precision[],double precision) COST 2000;
ALTER FUNCTION gsu.image_variance(double precision[],integer,integer,double precision) COST 2000;
ALTER FUNCTION gsu.knn_predict(gsu.refset,double precision[],integer) COST 9000;
ALTER FUNCTION gsu.lambda_list(text) COST 1000;
ALTER FUNCTION gsu.log_loss_transfn(internal,double precision,boolean) COST 30;
ALTER FUNCTION gsu.log_loss_transfn(internal,double precision,integer) COST 30;
ALTER FUNCTION gsu.moments_transfn(internal,double precision[]) COST 200;
ALTER FUNCTION gsu.moments_transfn(internal,double precision[],jsonb) COST 1000;
ALTER FUNCTION gsu.nn_variance(gsu.refset,double precision[],integer,double precision,boolean) COST 6000;
ALTER FUNCTION gsu.predict(gsu.model,double precision[]) COST 50;
ALTER FUNCTION gsu.probabilities(gsu.model,double precision[]) COST 50;
ALTER FUNCTION gsu.probability(gsu.model,double precision[]) COST 50;
ALTER FUNCTION gsu.project(gsu.projection,double precision[]) COST 70;
ALTER FUNCTION gsu.project_covariance(gsu.projection,double precision[]) COST 100;
ALTER FUNCTION gsu.project_variance(gsu.projection,double precision[]) COST 70;
ALTER FUNCTION gsu.ranking_transfn(internal,double precision,boolean) COST 50;
ALTER FUNCTION gsu.ranking_transfn(internal,double precision,integer) COST 50;
ALTER FUNCTION gsu.sgd_partial_transfn(gsu.partial,double precision[],double precision[],integer,jsonb) COST 200;
ALTER FUNCTION gsu.to_model(gsu.partial) COST 200;
ALTER FUNCTION gsu.train_best(regclass,text,text,text,double precision[],integer,integer,jsonb,text,text) COST 1e+06;
ALTER FUNCTION gsu.train_best(regclass,text,text,text,jsonb,integer,integer,jsonb,text,text) COST 1e+06;
ALTER FUNCTION gsu.train_best(regclass,text,text,text,text,integer,integer,jsonb,text,text) COST 1e+06;
ALTER FUNCTION gsu.train_transfn(internal,double precision[],double precision,integer) COST 300;
ALTER FUNCTION gsu.train_transfn(internal,double precision[],double precision,integer,jsonb) COST 300;
ALTER FUNCTION gsu.train_transfn(internal,double precision[],double precision[],boolean) COST 300;
ALTER FUNCTION gsu.train_transfn(internal,double precision[],double precision[],boolean,jsonb) COST 300;
ALTER FUNCTION gsu.train_transfn(internal,double precision[],double precision[],integer) COST 300;
ALTER FUNCTION gsu.train_transfn(internal,double precision[],double precision[],integer,double precision,jsonb) COST 300;
ALTER FUNCTION gsu.train_transfn(internal,double precision[],double precision[],integer,jsonb) COST 300;
ALTER FUNCTION gsu.vectors(gsu.projection) COST 300;
ALTER FUNCTION gsu.weights(gsu.model,integer,text) COST 30;
ALTER FUNCTION gsu.welch(double precision[],double precision,jsonb) COST 6000;

-- ------------------------------------------------------------ the scoring functions' planner support (issue 31)
CREATE FUNCTION gsu.score_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_score_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gsu.score_support(internal) IS
	'planner support of the scoring functions: loads pg_gsu when a query that scores is planned, so that a parallel plan materializes a cross-joined model in each worker instead of rescanning it per row';
ALTER FUNCTION gsu.decision(gsu.model,double precision[]) SUPPORT gsu.score_support;
ALTER FUNCTION gsu.decisions(gsu.model,double precision[]) SUPPORT gsu.score_support;
ALTER FUNCTION gsu.predict(gsu.model,double precision[]) SUPPORT gsu.score_support;
ALTER FUNCTION gsu.confidence(gsu.model,double precision[],double precision[]) SUPPORT gsu.score_support;
ALTER FUNCTION gsu.expected_loss(gsu.model,double precision[],double precision[],integer) SUPPORT gsu.score_support;

-- ------------------------------------------------------------ regression on uncertain inputs (issue 33, part 1)

-- gsu.train_regression: its own name, so that no call of gsu.train changes
-- resolution (a float8 "target" overload of gsu.train would capture untyped
-- parameters and int8 labels); the state, combine, serial, deserial and final
-- functions are gsu.train's
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8, float8, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_iso_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_iso_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;
CREATE FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8, float8, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_train_regression_weighted_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 300;

COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8, jsonb) IS 'gsu.train_regression transition (variance array)';
COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8) IS 'gsu.train_regression transition (variance array, default options)';
COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8, float8, jsonb) IS 'gsu.train_regression transition (isotropic variance)';
COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8, float8) IS 'gsu.train_regression transition (isotropic variance, default options)';
COMMENT ON FUNCTION gsu.train_regression_transfn(internal, float8[], float8[], float8, float8, jsonb) IS 'gsu.train_regression transition (per-row weight)';

CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8[], target float8, options jsonb) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8[], target float8) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8, target float8, options jsonb) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8, target float8) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.train_regression(mean float8[], variance float8[], target float8, weight float8, options jsonb) (
	SFUNC = gsu.train_regression_transfn, STYPE = internal, FINALFUNC = gsu.train_finalfn,
	COMBINEFUNC = gsu.train_combinefn, SERIALFUNC = gsu.train_serialfn,
	DESERIALFUNC = gsu.train_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.train_regression(float8[], float8[], float8, jsonb) IS
	'trains a linear regression on Gaussian inputs N(mean, Sigma) with real targets: SVR-GSU (loss epsilon_insensitive, the default: expected epsilon-insensitive loss) or ridge-GSU (loss squared: expected squared loss, closed form); variance: NULL for a certain row, one element s for s*I, one per feature (diagonal), a 2-D matrix (full) or a d x r factor L (Sigma = L L'')';
COMMENT ON AGGREGATE gsu.train_regression(float8[], float8[], float8) IS
	'trains SVR-GSU (epsilon 0.1) with default options';
COMMENT ON AGGREGATE gsu.train_regression(float8[], float8, float8, jsonb) IS
	'trains a regression on rows with isotropic covariance variance*I';
COMMENT ON AGGREGATE gsu.train_regression(float8[], float8, float8) IS
	'trains SVR-GSU on rows with isotropic covariance, default options';
COMMENT ON AGGREGATE gsu.train_regression(float8[], float8[], float8, float8, jsonb) IS
	'trains a regression with a weight per row (finite, >= 0; a NULL or 0 weight skips the row) multiplying its loss';

-- the predictive distribution of w'z + b for z ~ N(mean, Sigma): its mean
-- w'mean + b and its standard deviation sqrt(w'Sigma w)
CREATE FUNCTION gsu.predictive(model gsu.model, mean float8[], variance float8[] DEFAULT NULL,
	OUT prediction float8, OUT sd float8) RETURNS record
	AS 'MODULE_PATHNAME', 'gsu_predictive_fn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 100
	SUPPORT gsu.score_support;
COMMENT ON FUNCTION gsu.predictive(gsu.model, float8[], float8[]) IS
	'a regression model''s prediction for the Gaussian input N(mean, Sigma): prediction = w''mean + b (gsu.decision) and sd = sqrt(w''Sigma w), the standard deviation that the input''s uncertainty gives the prediction (no residual noise); variance: NULL for a certain row (sd 0), one element s for s*I, one per feature (diagonal), a 2-D matrix (full) or a d x r factor; NULL model or mean: NULL';

-- regression metrics: one float8[5] state (n, the target's mean and sum of
-- squared deviations, the mean squared and the mean absolute error), updated
-- with running means (Welford) and combined exactly (Chan et al.)
CREATE FUNCTION gsu.regression_metrics_transfn(float8[], float8, float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_regression_metrics_transfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.nlpd_transfn(float8[], float8, float8, float8) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_nlpd_transfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.regression_metrics_combinefn(float8[], float8[]) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'gsu_regression_metrics_combinefn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.rmse_finalfn(float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_rmse_finalfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.mae_finalfn(float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_mae_finalfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.r2_finalfn(float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_r2_finalfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.nlpd_finalfn(float8[]) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_nlpd_finalfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gsu.regression_metrics_transfn(float8[], float8, float8) IS 'gsu.rmse, gsu.mae, gsu.r2 transition';
COMMENT ON FUNCTION gsu.nlpd_transfn(float8[], float8, float8, float8) IS 'gsu.nlpd transition';
COMMENT ON FUNCTION gsu.regression_metrics_combinefn(float8[], float8[]) IS 'regression metrics combine: merges the running means of parallel workers';
COMMENT ON FUNCTION gsu.rmse_finalfn(float8[]) IS 'gsu.rmse final';
COMMENT ON FUNCTION gsu.mae_finalfn(float8[]) IS 'gsu.mae final';
COMMENT ON FUNCTION gsu.r2_finalfn(float8[]) IS 'gsu.r2 final';
COMMENT ON FUNCTION gsu.nlpd_finalfn(float8[]) IS 'gsu.nlpd final';

CREATE AGGREGATE gsu.rmse(prediction float8, target float8) (
	SFUNC = gsu.regression_metrics_transfn, STYPE = float8[], INITCOND = '{0,0,0,0,0}',
	FINALFUNC = gsu.rmse_finalfn, COMBINEFUNC = gsu.regression_metrics_combinefn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.mae(prediction float8, target float8) (
	SFUNC = gsu.regression_metrics_transfn, STYPE = float8[], INITCOND = '{0,0,0,0,0}',
	FINALFUNC = gsu.mae_finalfn, COMBINEFUNC = gsu.regression_metrics_combinefn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.r2(prediction float8, target float8) (
	SFUNC = gsu.regression_metrics_transfn, STYPE = float8[], INITCOND = '{0,0,0,0,0}',
	FINALFUNC = gsu.r2_finalfn, COMBINEFUNC = gsu.regression_metrics_combinefn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.nlpd(mean float8, sd float8, target float8) (
	SFUNC = gsu.nlpd_transfn, STYPE = float8[], INITCOND = '{0,0,0,0,0}',
	FINALFUNC = gsu.nlpd_finalfn, COMBINEFUNC = gsu.regression_metrics_combinefn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.rmse(float8, float8) IS
	'root mean squared error sqrt(mean((prediction - target)^2)); rows with a NULL skipped; no rows: NULL';
COMMENT ON AGGREGATE gsu.mae(float8, float8) IS
	'mean absolute error mean(|prediction - target|); rows with a NULL skipped; no rows: NULL';
COMMENT ON AGGREGATE gsu.r2(float8, float8) IS
	'coefficient of determination 1 - sum((prediction - target)^2) / sum((target - mean(target))^2); NULL for fewer than two rows or a constant target';
COMMENT ON AGGREGATE gsu.nlpd(float8, float8, float8) IS
	'mean negative log predictive density of the targets under the Gaussian predictions N(mean, sd^2) (natural log); sd must be positive; rows with a NULL skipped; no rows: NULL';

-- ------------------------------------------------------------ gsu.regression_hessian (gsu.fit's regression scans)
CREATE FUNCTION gsu.regression_hessian_transfn(gsu.partial, float8[], float8[], float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION gsu.regression_hessian_transfn(gsu.partial, float8[], float8[], float8, gsu.model, float8) IS
	'gsu.regression_hessian transition: adds one row''s expected regression loss, gradient and Hessian, updating the state in place';
CREATE AGGREGATE gsu.regression_hessian(mean float8[], variance float8[], target float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.regression_hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_hessian(float8[], float8[], float8, gsu.model, float8) IS
	'sum of the rows'' expected regression losses (the loss of the regression model at: squared or epsilon_insensitive, smoothed by smoothing), their gradients and Hessians (packed upper triangle) at its weights: the scan of gsu.fit''s regression; exactly combinable';
CREATE FUNCTION gsu.regression_hessian_transfn(gsu.partial, float8[], float8[], float8, float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_hessian_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION gsu.regression_hessian_transfn(gsu.partial, float8[], float8[], float8, float8, gsu.model, float8) IS
	'weighted gsu.regression_hessian transition: adds one row''s sums times its weight, updating the state in place';
CREATE AGGREGATE gsu.regression_hessian(mean float8[], variance float8[], target float8, weight float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.regression_hessian_transfn, STYPE = gsu.partial,
	FINALFUNC = gsu.hessian_final, FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_hessian(float8[], float8[], float8, float8, gsu.model, float8) IS
	'gsu.regression_hessian with row weights: each row''s sums times its weight (finite, >= 0; a row of weight NULL or 0 is skipped); exactly combinable';

COMMENT ON FUNCTION gsu.to_model(gsu.partial) IS 'the model held by an sgd partial (a classifier, or a regression model for a partial of a regression loss)';

-- ------------------------------------------------------------ regression's streaming SGD on a SQL state
-- (names of their own: a float8 target overload of gsu.train_sgd or gsu.sgd_partial would capture the
-- untyped integer labels of classification calls)
CREATE FUNCTION gsu.regression_sgd_partial_transfn(gsu.partial, float8[], float8[], float8, jsonb) RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_sgd_partial_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.regression_sgd_partial_transfn(gsu.partial, float8[], float8[], float8, jsonb) IS
	'gsu.train_regression_sgd transition: one SGD step per row on the expected regression loss, updating the state in place';

CREATE AGGREGATE gsu.train_regression_sgd(mean float8[], variance float8[], target float8, options jsonb) (
	SFUNC = gsu.regression_sgd_partial_transfn, STYPE = gsu.partial, FINALFUNC = gsu.to_model,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.train_regression_sgd(float8[], float8[], float8, jsonb) IS
	'streaming SGD (one pass) of a regression on Gaussian inputs (the options of gsu.train_regression with solver sgd: loss, epsilon, lambda, init) whose state is the SQL type gsu.partial, so partial aggregation can run on other servers; workers are averaged with row weights';

CREATE AGGREGATE gsu.regression_sgd_partial(mean float8[], variance float8[], target float8, options jsonb) (
	SFUNC = gsu.regression_sgd_partial_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_sgd_partial(float8[], float8[], float8, jsonb) IS
	'the partial state of gsu.train_regression_sgd, to be combined elsewhere with gsu.sum and turned into a regression model with gsu.to_model';

-- ------------------------------------------------------------ gsu.regression_gradient (regression's gsu.gradient)
CREATE FUNCTION gsu.regression_gradient_transfn(gsu.partial, float8[], float8[], float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_gradient_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.regression_gradient_transfn(gsu.partial, float8[], float8[], float8, gsu.model, float8) IS
	'gsu.regression_gradient transition: adds one row''s expected regression loss and gradient, updating the state in place';
CREATE AGGREGATE gsu.regression_gradient(mean float8[], variance float8[], target float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.regression_gradient_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_gradient(float8[], float8[], float8, gsu.model, float8) IS
	'sum of the rows'' expected regression losses (the loss of the regression model at: squared or epsilon_insensitive, smoothed by smoothing) and their gradients at its weights, a gradient partial: gsu.gradient for a regression model; exactly combinable';
CREATE FUNCTION gsu.regression_gradient_transfn(gsu.partial, float8[], float8[], float8, float8, gsu.model, float8)
	RETURNS gsu.partial
	AS 'MODULE_PATHNAME', 'gsu_regression_gradient_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
COMMENT ON FUNCTION gsu.regression_gradient_transfn(gsu.partial, float8[], float8[], float8, float8, gsu.model, float8) IS
	'weighted gsu.regression_gradient transition: adds one row''s loss and gradient times its weight, updating the state in place';
CREATE AGGREGATE gsu.regression_gradient(mean float8[], variance float8[], target float8, weight float8, at gsu.model, smoothing float8) (
	SFUNC = gsu.regression_gradient_transfn, STYPE = gsu.partial,
	COMBINEFUNC = gsu.partial_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.regression_gradient(float8[], float8[], float8, float8, gsu.model, float8) IS
	'gsu.regression_gradient with row weights: each row''s loss and gradient times its weight (finite, >= 0; a row of weight NULL or 0 is skipped); exactly combinable';

-- ------------------------------------------------------------ gsu.missing_moments (issue 33)
CREATE FUNCTION gsu.missing_moments_transfn(internal, float8[], float8[], jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION gsu.missing_moments_transfn(internal, float8[], float8[]) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 200;
CREATE FUNCTION gsu.missing_moments_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.missing_moments_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.missing_moments_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.missing_moments_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_missing_moments_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION gsu.missing_moments_transfn(internal, float8[], float8[], jsonb) IS 'gsu.missing_moments transition: Welford update of each present feature';
COMMENT ON FUNCTION gsu.missing_moments_transfn(internal, float8[], float8[]) IS 'gsu.missing_moments transition: Welford update of each present feature, default options';
COMMENT ON FUNCTION gsu.missing_moments_combinefn(internal, internal) IS 'gsu.missing_moments combine: Chan et al. merge of each feature, for parallel workers';
COMMENT ON FUNCTION gsu.missing_moments_serialfn(internal) IS 'gsu.missing_moments state serialization';
COMMENT ON FUNCTION gsu.missing_moments_deserialfn(bytea, internal) IS 'gsu.missing_moments state deserialization (validated)';
COMMENT ON FUNCTION gsu.missing_moments_finalfn(internal) IS 'gsu.missing_moments final: the options of "missing" with the moments, and the counts';
CREATE AGGREGATE gsu.missing_moments(mean float8[], variance float8[], options jsonb) (
	SFUNC = gsu.missing_moments_transfn, STYPE = internal, FINALFUNC = gsu.missing_moments_finalfn,
	COMBINEFUNC = gsu.missing_moments_combinefn, SERIALFUNC = gsu.missing_moments_serialfn,
	DESERIALFUNC = gsu.missing_moments_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.missing_moments(mean float8[], variance float8[]) (
	SFUNC = gsu.missing_moments_transfn, STYPE = internal, FINALFUNC = gsu.missing_moments_finalfn,
	COMBINEFUNC = gsu.missing_moments_combinefn, SERIALFUNC = gsu.missing_moments_serialfn,
	DESERIALFUNC = gsu.missing_moments_deserialfn, PARALLEL = SAFE);
COMMENT ON AGGREGATE gsu.missing_moments(float8[], float8[], jsonb) IS
	'the feature moments that "missing": "feature_moments" fills a NULL mean element with (each feature''s mean over the rows where it is present, its variance by the law of total variance) as options for the training aggregates, with the counts; options {"missing_nan": true} reads NaN as missing';
COMMENT ON AGGREGATE gsu.missing_moments(float8[], float8[]) IS
	'the feature moments that "missing": "feature_moments" fills a NULL mean element with, as options for the training aggregates, with the counts';
