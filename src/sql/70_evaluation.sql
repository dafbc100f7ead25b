
-- ------------------------------------------------------------ evaluation metrics

-- confusion matrix: counts per (predicted, actual) pair, combined exactly

CREATE FUNCTION gsu.confusion_transfn(internal, int4, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_confusion_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.confusion_transfn(internal, bool, bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_confusion_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.confusion_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_confusion_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.confusion_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_confusion_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.confusion_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_confusion_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.confusion_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_confusion_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.confusion_transfn(internal, int4, int4) IS 'gsu.confusion transition';
COMMENT ON FUNCTION gsu.confusion_transfn(internal, bool, bool) IS 'gsu.confusion transition (boolean labels: true = 1, false = -1)';
COMMENT ON FUNCTION gsu.confusion_combinefn(internal, internal) IS 'gsu.confusion combine: adds the counts of parallel workers';
COMMENT ON FUNCTION gsu.confusion_serialfn(internal) IS 'gsu.confusion state serialization';
COMMENT ON FUNCTION gsu.confusion_deserialfn(bytea, internal) IS 'gsu.confusion state deserialization (validated)';
COMMENT ON FUNCTION gsu.confusion_finalfn(internal) IS 'gsu.confusion final: the statistics as jsonb';

CREATE AGGREGATE gsu.confusion(predicted int4, actual int4) (
	SFUNC = gsu.confusion_transfn, STYPE = internal, FINALFUNC = gsu.confusion_finalfn,
	COMBINEFUNC = gsu.confusion_combinefn, SERIALFUNC = gsu.confusion_serialfn,
	DESERIALFUNC = gsu.confusion_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.confusion(predicted bool, actual bool) (
	SFUNC = gsu.confusion_transfn, STYPE = internal, FINALFUNC = gsu.confusion_finalfn,
	COMBINEFUNC = gsu.confusion_combinefn, SERIALFUNC = gsu.confusion_serialfn,
	DESERIALFUNC = gsu.confusion_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.confusion(int4, int4) IS
	'confusion-matrix statistics as jsonb: accuracy, MCC, per-class one-vs-rest counts, precision, recall, F1 and macro averages; tp/fp/tn/fn, precision, recall, F1 of class 1 when every label is -1 or 1';
COMMENT ON AGGREGATE gsu.confusion(bool, bool) IS
	'binary confusion-matrix statistics with true as the positive class (1) and false as -1';

-- ranking metrics: the scores of each class buffered (8 bytes a row); one state
-- serves roc_auc, average_precision, roc_curve and pr_curve in the same query

CREATE FUNCTION gsu.ranking_transfn(internal, float8, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_ranking_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 50;
CREATE FUNCTION gsu.ranking_transfn(internal, float8, bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_ranking_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 50;
CREATE FUNCTION gsu.ranking_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_ranking_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.ranking_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_ranking_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.ranking_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_ranking_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.roc_auc_finalfn(internal) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_roc_auc_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.average_precision_finalfn(internal) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_average_precision_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.roc_curve_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_roc_curve_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.pr_curve_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'gsu_pr_curve_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.ranking_transfn(internal, float8, int4) IS 'transition of the ranking metrics: buffers the score by label (-1/1)';
COMMENT ON FUNCTION gsu.ranking_transfn(internal, float8, bool) IS 'transition of the ranking metrics: buffers the score by label (true = 1)';
COMMENT ON FUNCTION gsu.ranking_combinefn(internal, internal) IS 'ranking metrics combine: concatenates the scores of parallel workers';
COMMENT ON FUNCTION gsu.ranking_serialfn(internal) IS 'ranking metrics state serialization';
COMMENT ON FUNCTION gsu.ranking_deserialfn(bytea, internal) IS 'ranking metrics state deserialization (validated)';
COMMENT ON FUNCTION gsu.roc_auc_finalfn(internal) IS 'gsu.roc_auc final: Mann-Whitney AUC of the buffered scores';
COMMENT ON FUNCTION gsu.average_precision_finalfn(internal) IS 'gsu.average_precision final';
COMMENT ON FUNCTION gsu.roc_curve_finalfn(internal) IS 'gsu.roc_curve final: one point per distinct score';
COMMENT ON FUNCTION gsu.pr_curve_finalfn(internal) IS 'gsu.pr_curve final: one point per distinct score';

-- the final functions sort the buffered scores in place and mark them sorted; the
-- multiset, and so every result, is unchanged and later rows may still be added,
-- so the default FINALFUNC_MODIFY = READ_ONLY holds (and allows window use)
CREATE AGGREGATE gsu.roc_auc(score float8, label int4) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.roc_auc_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.roc_auc(score float8, label bool) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.roc_auc_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.average_precision(score float8, label int4) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.average_precision_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.average_precision(score float8, label bool) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.average_precision_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.roc_curve(score float8, label int4) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.roc_curve_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.roc_curve(score float8, label bool) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.roc_curve_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.pr_curve(score float8, label int4) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.pr_curve_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.pr_curve(score float8, label bool) (
	SFUNC = gsu.ranking_transfn, STYPE = internal, FINALFUNC = gsu.pr_curve_finalfn,
	COMBINEFUNC = gsu.ranking_combinefn, SERIALFUNC = gsu.ranking_serialfn,
	DESERIALFUNC = gsu.ranking_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.roc_auc(float8, int4) IS
	'area under the ROC curve (Mann-Whitney, ties count 1/2) of scores against labels -1/1; NULL when only one class is present';
COMMENT ON AGGREGATE gsu.roc_auc(float8, bool) IS
	'area under the ROC curve with boolean labels (true = positive)';
COMMENT ON AGGREGATE gsu.average_precision(float8, int4) IS
	'average precision as scikit-learn defines it: sum over distinct thresholds of (R_k - R_{k-1}) P_k; NULL without positive rows';
COMMENT ON AGGREGATE gsu.average_precision(float8, bool) IS
	'average precision with boolean labels (true = positive)';
COMMENT ON AGGREGATE gsu.roc_curve(float8, int4) IS
	'ROC curve as a jsonb array of {threshold, tp, fp, fpr, tpr}, from the origin (threshold null) down through every distinct score';
COMMENT ON AGGREGATE gsu.roc_curve(float8, bool) IS
	'ROC curve with boolean labels (true = positive)';
COMMENT ON AGGREGATE gsu.pr_curve(float8, int4) IS
	'precision-recall curve as a jsonb array of {threshold, tp, fp, precision, recall}, one point per distinct score, highest first';
COMMENT ON AGGREGATE gsu.pr_curve(float8, bool) IS
	'precision-recall curve with boolean labels (true = positive)';

-- log loss: a row count and a compensated sum

CREATE FUNCTION gsu.log_loss_transfn(internal, float8, int4) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_log_loss_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.log_loss_transfn(internal, float8, bool) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_log_loss_bool_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE COST 30;
CREATE FUNCTION gsu.log_loss_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_log_loss_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION gsu.log_loss_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'gsu_log_loss_serialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.log_loss_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'gsu_log_loss_deserialfn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION gsu.log_loss_finalfn(internal) RETURNS float8
	AS 'MODULE_PATHNAME', 'gsu_log_loss_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gsu.log_loss_transfn(internal, float8, int4) IS 'gsu.log_loss transition (labels -1/1)';
COMMENT ON FUNCTION gsu.log_loss_transfn(internal, float8, bool) IS 'gsu.log_loss transition (boolean labels)';
COMMENT ON FUNCTION gsu.log_loss_combinefn(internal, internal) IS 'gsu.log_loss combine: adds the partial sums of parallel workers';
COMMENT ON FUNCTION gsu.log_loss_serialfn(internal) IS 'gsu.log_loss state serialization';
COMMENT ON FUNCTION gsu.log_loss_deserialfn(bytea, internal) IS 'gsu.log_loss state deserialization (validated)';
COMMENT ON FUNCTION gsu.log_loss_finalfn(internal) IS 'gsu.log_loss final: the mean cross-entropy';

CREATE AGGREGATE gsu.log_loss(probability float8, label int4) (
	SFUNC = gsu.log_loss_transfn, STYPE = internal, FINALFUNC = gsu.log_loss_finalfn,
	COMBINEFUNC = gsu.log_loss_combinefn, SERIALFUNC = gsu.log_loss_serialfn,
	DESERIALFUNC = gsu.log_loss_deserialfn, PARALLEL = SAFE);
CREATE AGGREGATE gsu.log_loss(probability float8, label bool) (
	SFUNC = gsu.log_loss_transfn, STYPE = internal, FINALFUNC = gsu.log_loss_finalfn,
	COMBINEFUNC = gsu.log_loss_combinefn, SERIALFUNC = gsu.log_loss_serialfn,
	DESERIALFUNC = gsu.log_loss_deserialfn, PARALLEL = SAFE);

COMMENT ON AGGREGATE gsu.log_loss(float8, int4) IS
	'mean cross-entropy of the predicted probabilities of label 1 against labels -1/1, probabilities clipped to [2^-52, 1 - 2^-52]';
COMMENT ON AGGREGATE gsu.log_loss(float8, bool) IS
	'mean cross-entropy with boolean labels (true = positive)';
