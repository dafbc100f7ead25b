-- ------------------------------------------------------------ cross-validation

-- The fold of a row: a hash of the whole row's text and the seed, so the
-- assignment depends only on the data and the seed, not on scan order. The row
-- is t.*, not t, which would mean a column of that name if the relation had one.
-- A bool label column is scored as +1/-1, and a float8 (isotropic) variance
-- column defaults to 0 in expected_loss, so every input gsu.train takes works.
CREATE FUNCTION gsu.cross_validate(relation regclass, mean text, variance text, label text,
								   lambdas float8[], folds int4 DEFAULT 5, seed int4 DEFAULT 1,
								   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
								   id_column text DEFAULT NULL)
RETURNS TABLE (lambda float8, metric_mean float8, metric_stddev float8, fold_count int4)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	lam float8;
	f int4;
	score float8;
	scores float8[];
	opts jsonb;
	var_expr text := CASE WHEN variance IS NULL THEN 'NULL::float8[]' ELSE format('%I', variance) END;
	zero_var text;
	label_expr text;
	fold_expr text;
	fit record;					-- fit.m: the fold's model (no type named here: see ext)
	n_rows bigint;
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
	IF metric NOT IN ('accuracy', 'roc_auc', 'expected_loss') THEN
		RAISE EXCEPTION 'unknown metric "%"', metric
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Valid metrics are: accuracy, roc_auc, expected_loss.';
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
	-- folds from a hash of the whole row, or of the id column when one is named (then
	-- the folds do not change with the other columns, e.g. another variance definition)
	fold_expr := format('mod(abs(hashtextextended(%s::text, %s)), %s)',
						CASE WHEN id_column IS NULL THEN 't.*' ELSE format('t.%I', id_column) END,
						seed, folds);
	label_expr := format('%I', label);
	zero_var := format('array_fill(0::float8, ARRAY[cardinality(%I)])', mean);
	IF (SELECT atttypid FROM pg_attribute WHERE attrelid = relation AND attname = label
			AND attnum > 0 AND NOT attisdropped) = 'bool'::regtype THEN
		label_expr := format('CASE WHEN %1$I THEN 1 WHEN NOT %1$I THEN -1 END', label);
	END IF;
	IF (SELECT atttypid FROM pg_attribute WHERE attrelid = relation AND attname = variance
			AND attnum > 0 AND NOT attisdropped) = 'float8'::regtype THEN
		zero_var := '0::float8';
	END IF;

	FOREACH lam IN ARRAY lambdas LOOP
		opts := options || jsonb_build_object('lambda', lam);
		scores := '{}';
		FOR f IN 0 .. folds - 1 LOOP
			EXECUTE format('SELECT %s.train(%I, %s, %I, $1) AS m FROM %s t WHERE %s <> $2',
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
							   ELSE
								   'SELECT avg(%7$s.expected_loss($1, %1$I, coalesce(%2$s, %6$s), %3$s)) FROM %4$s t WHERE %5$s = $2'
						   END,
						   mean, var_expr, label_expr, relation, fold_expr, zero_var, ext)
				INTO score USING fit.m, f;
			IF score IS NOT NULL THEN
				scores := scores || score;
			END IF;
			RAISE NOTICE 'gsu.cross_validate: lambda %, fold % of %: % %', lam, f + 1, folds, metric, score;
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
	'k-fold cross-validation of gsu.train over a list of lambdas: one row per lambda with the mean and spread of the metric (accuracy, roc_auc or expected_loss) over the folds';

CREATE FUNCTION gsu.train_best(relation regclass, mean text, variance text, label text,
							   lambdas float8[], folds int4 DEFAULT 5, seed int4 DEFAULT 1,
							   options jsonb DEFAULT '{}', metric text DEFAULT 'accuracy',
							   id_column text DEFAULT NULL)
RETURNS gsu.model
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	best float8;
	fit record;
	-- pg_gsu's own schema (see gsu.cross_validate)
	ext text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				 JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_gsu');
BEGIN
	-- the best mean metric (lowest for expected_loss); ties go to the larger lambda
	EXECUTE format('SELECT cv.lambda FROM %s.cross_validate($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) cv
					WHERE cv.metric_mean IS NOT NULL
					ORDER BY CASE WHEN $9 = ''expected_loss'' THEN cv.metric_mean ELSE -cv.metric_mean END,
						cv.lambda DESC
					LIMIT 1', ext)
		INTO best USING relation, mean, variance, label, lambdas, folds, seed, options, metric, id_column;
	IF best IS NULL THEN
		RETURN NULL;
	END IF;
	EXECUTE format('SELECT %s.train(%I, %s, %I, $1) AS m FROM %s',
				   ext, mean, CASE WHEN variance IS NULL THEN 'NULL::float8[]' ELSE format('%I', variance) END,
				   label, relation)
		INTO fit USING options || jsonb_build_object('lambda', best);
	RETURN fit.m;
END
$$;
COMMENT ON FUNCTION gsu.train_best(regclass, text, text, text, float8[], int4, int4, jsonb, text, text) IS
	'the model retrained on every row with the lambda that gsu.cross_validate finds best';
