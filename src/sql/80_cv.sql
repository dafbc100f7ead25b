-- ------------------------------------------------------------ cross-validation

-- The fold of a row: a hash of its mean and label (a bool label as -1/+1, the mean
-- as float8[]) and the seed, or of the id column when one is named, so the
-- assignment depends only on the data and the seed, not on scan order. Only the
-- columns the caller names are read (a role with SELECT on those columns alone
-- can run it); rows equal in mean and label share a fold (the held-out fold never
-- has a copy of a training row), and the variance column can change without
-- changing the folds.
-- A bool label column is scored as +1/-1, a float8 (isotropic) variance column
-- as the one-element array gsu.expected_loss reads as s*I, and a NULL variance
-- as a certain row, so every input gsu.train takes works.
-- A regression metric (rmse, mae, r2) cross-validates gsu.train_regression
-- instead (issue 33): the label column is then the real target (any type that
-- casts to float8), each fold scored by the metric of gsu.decision against it.
CREATE FUNCTION gsu.cross_validate(relation regclass, mean text, variance text, label text,
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

CREATE FUNCTION gsu.train_best(relation regclass, mean text, variance text, label text,
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

-- ------------------------------------------------- search over a grid of options

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
-- folds names its combination too. Under a regression metric (rmse, mae, r2),
-- gsu.train_regression takes gsu.train's place, as in the lambda form.
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
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 1000
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
