-- The report of bench/geu_table2.sh (markdown, psql -A -t): every Cancer cell of the
-- GEU paper's Tables 1 and 2 that was run, beside pg_gsu's mean and standard
-- deviation over the repetitions, and the paired difference from the plain method
-- (LDA or MFA; for the "-both" ablations, the penalty form) measured in the same
-- repetitions.
\pset footer off
WITH per_run AS (
	SELECT name, noise, run, avg(test_acc) AS acc, count(test_acc) AS solved, count(*) AS folds
	FROM chosen GROUP BY name, noise, run),
plain AS (
	SELECT p.name, p.noise, p.run, p.acc - b.acc AS gain
	FROM per_run p JOIN methods m USING (name)
	JOIN per_run b ON b.noise = p.noise AND b.run = p.run
		AND b.name = CASE WHEN p.name LIKE '%-both' THEN replace(p.name, '-both', '')
						  WHEN m.method = 'lda' THEN 'LDA' ELSE 'MFA' END),
cell AS (
	SELECT r.name, r.noise, m.ord, m.tbl, avg(r.acc) AS mean, stddev_samp(r.acc) AS sd,
		min(r.acc) AS lo, max(r.acc) AS hi, count(r.acc) AS runs, sum(r.solved) AS solved,
		sum(r.folds) AS folds,
		(SELECT avg(gain) FROM plain p WHERE p.name = r.name AND p.noise = r.noise) AS gain,
		(SELECT stddev_samp(gain) FROM plain p WHERE p.name = r.name AND p.noise = r.noise) AS gain_sd
	FROM per_run r JOIN methods m USING (name) GROUP BY r.name, r.noise, m.ord, m.tbl),
settings AS (
	SELECT name, noise, string_agg(s || ' ×' || c, ', ' ORDER BY c DESC, s) AS common FROM (
		SELECT name, noise, 'd=' || d || coalesce(' p=' || nullif(param, 0), '') AS s, count(*) AS c,
			row_number() OVER (PARTITION BY name, noise ORDER BY count(*) DESC, 'd=' || d || coalesce(' p=' || nullif(param, 0), '')) AS k
		FROM chosen WHERE d IS NOT NULL GROUP BY name, noise, d, param) q
	WHERE k <= 3 GROUP BY name, noise)
SELECT line FROM (
	SELECT 0 AS t, 0 AS o, 0::float8 AS nz, '## Cancer: every cell (accuracy, 1-NN in the projected space)' AS line
	UNION ALL SELECT 0, 1, 0, ''
	UNION ALL SELECT 0, 2, 0, 'Mean ± sd over the repetitions (each the mean of its 5 test folds); min–max of the repetitions; the paper''s average; '
		|| 'Δ peer: the paired difference from LDA (Table 2) or MFA (Table 1), for RLDA-both and RMFA-both from RLDA and RMFA, in the same repetitions and folds, mean ± sd; '
		|| 'the settings the inner cross-validation chose most often (d, and p = σ or ε), with their counts over all folds.'
	UNION ALL SELECT 0, 3, 0, ''
	UNION ALL SELECT 0, 4, 0, '| table | noise | method | paper | pg_gsu | min–max | pg_gsu − paper | Δ peer | folds solved | chosen most often |'
	UNION ALL SELECT 0, 5, 0, '|---|---|---|---|---|---|---|---|---|---|'
	UNION ALL
	SELECT 1, (3 - c.tbl) * 1000 + c.ord, c.noise,
		format('| %s | %s %% | %s | %s | %s ± %s | %s–%s | %s | %s | %s/%s | %s |',
			c.tbl, round((c.noise * 100)::numeric), c.name, coalesce(p.acc::text, '—'),
			round(c.mean::numeric, 3), coalesce(round(c.sd::numeric, 3)::text, '—'),
			round(c.lo::numeric, 3), round(c.hi::numeric, 3),
			coalesce(to_char(c.mean - p.acc, 'SG0.000'), '—'),
			CASE WHEN c.name IN ('LDA', 'MFA') THEN '—' ELSE to_char(c.gain, 'SG0.000') || ' ± ' || coalesce(round(c.gain_sd::numeric, 3)::text, '—') END,
			c.solved, c.folds, coalesce(s.common, 'none'))
	FROM cell c LEFT JOIN paper p ON p.name = c.name AND p.noise = c.noise
	LEFT JOIN settings s ON s.name = c.name AND s.noise = c.noise
) q ORDER BY t, o / 1000, nz, o;

\echo
\echo '## Inner-CV fits that failed (singular scatter matrix)'
\echo
\echo '| method | noise | failed fits | fits |'
\echo '|---|---|---|---|'
SELECT format('| %s | %s %% | %s | %s |', name, round((noise * 100)::numeric), count(*) FILTER (WHERE acc IS NULL) / 4, count(*) / 4)
FROM cv JOIN methods USING (name) GROUP BY name, noise, ord ORDER BY noise, ord;
