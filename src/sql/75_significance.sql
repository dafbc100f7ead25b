
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
