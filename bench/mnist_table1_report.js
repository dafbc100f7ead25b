// Prints bench/mnist_table1.sh's report as Markdown from the per-run rows (TSV on
// stdin: run, size, dataset, method, lambda, p, accuracy, clean_accuracy, b, c,
// seconds; b and c are McNemar's counts against LSVM of the same run), beside every
// cell of the paper's Table 1, with significance tests per data set.
//
//   node bench/mnist_table1_report.js LAMBDAS PGRID [SIGNIFICANCE_TSV] < runs.tsv
//
// LAMBDAS and PGRID are the grids (JSON arrays) the cross-validation searched, to
// count the runs whose choice sits on an edge of them. SIGNIFICANCE_TSV is the view
// significance of bench/mnist_table1.sql (the tests computed in SQL by gsu.paired_ttest
// and gsu.mcnemar): size, dataset, method, runs, mean_difference, p_t, p_corrected,
// mcnemar_median_p, mcnemar_runs_below; without it the report has no significance table.
'use strict';
const fs = require('fs');

const lambdaGrid = JSON.parse(process.argv[2] || '[]');
const sigRows = process.argv[4] ? fs.readFileSync(process.argv[4], 'utf8').trim().split('\n').filter(Boolean).map((l) => {
	const f = l.split('\t');
	return { size: +f[0], dataset: +f[1], method: f[2], runs: +f[3], d: +f[4], t: f[5] === '\\N' ? NaN : +f[5],
		nb: f[6] === '\\N' ? NaN : +f[6], mc: +f[7], mcn: +f[8] };
}) : [];
const pGrid = JSON.parse(process.argv[3] || '[]');
const edgeShare = (v, grid) => (grid.length < 2 ? '' :
	`; edge ${v.filter((x) => x === Math.min(...grid) || x === Math.max(...grid)).length}/${v.length}`);
const methods = ['LSVM', 'PSVM', 'LSVM-iso', 'LSVM-GSU', 'LSVM-GSU (subspaces)', 'LSVM-GSU (subspaces, mean kept)',
	"LSVM-GSU (authors' code)", 'LSVM-GSU (full Σ)', 'LSVM-GSU (full Σ, subspaces)',
	'LSVM-GSU (full Σ, subspaces, mean kept)'];
const withP = (m) => m.includes('subspaces') || m.startsWith("LSVM-GSU (authors'");
// Tzelepis et al., TPAMI 2018, Table 1 (all 30 cells, and the p of the subspace row)
const paper = {
	LSVM: [0.9952, 0.9362, 0.8240, 0.6830, 0.6558, 0.6027],
	PSVM: [0.9963, 0.9315, 0.8157, 0.7017, 0.6650, 0.6259],
	'LSVM-iso': [0.9968, 0.9327, 0.8133, 0.7222, 0.6675, 0.6328],
	'LSVM-GSU': [0.9971, 0.9452, 0.8310, 0.7216, 0.6708, 0.6353],
	'LSVM-GSU (subspaces)': [0.9972, 0.9480, 0.8562, 0.7543, 0.6974, 0.6640],
};
const paperP = [0.99, 0.97, 0.89, 0.85, 0.95, 0.25];
// the readings of the subspace variant are compared with the paper's subspace row
paper['LSVM-GSU (subspaces, mean kept)'] = paper["LSVM-GSU (authors' code)"] = paper['LSVM-GSU (subspaces)'];
paper['LSVM-GSU (full Σ, subspaces)'] = paper['LSVM-GSU (full Σ, subspaces, mean kept)'] = paper['LSVM-GSU (subspaces)'];
// the paper's LSVM-GSU row says it used Appendix B's (full) covariance
paper['LSVM-GSU (full Σ)'] = paper['LSVM-GSU'];
const N_TEST = 2163;

const rows = fs.readFileSync(0, 'utf8').trim().split('\n').filter(Boolean).map((l) => {
	const f = l.split('\t').map((v) => (v === '\\N' ? null : v));
	const num = (v) => (v === null ? null : +v);
	return { run: +f[0], size: +f[1], dataset: +f[2], method: f[3], lambda: num(f[4]), p: num(f[5]),
		accuracy: +f[6], clean: +f[7], b: num(f[8]), c: num(f[9]), seconds: +f[10] };
});
const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
const sd = (v) => (v.length < 2 ? 0 : Math.sqrt(v.reduce((s, x) => s + (x - mean(v)) ** 2, 0) / (v.length - 1)));
// the lower median: always one of the values (a grid point for a chosen hyperparameter)
const median = (v) => {
	const s = [...v].sort((a, b) => a - b);
	return s[Math.floor((s.length - 1) / 2)];
};
const f4 = (x) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(4));
const fp = (x) => (Number.isFinite(x) ? (x < 1e-4 ? x.toExponential(1) : x.toPrecision(2)) : 'n/a');
const sel = (size, method, k) => rows.filter((r) => r.size === size && r.method === method && r.dataset === k)
	.sort((a, b) => a.run - b.run);
const sizes = [...new Set(rows.map((r) => r.size))].sort((a, b) => a - b);
const D = [...new Set(rows.map((r) => r.dataset))].sort((a, b) => a - b);
const present = methods.filter((m) => rows.some((r) => r.method === m));
const out = [];
const head = (first) => {
	out.push(`| ${first} | ` + D.map((k) => `D${k}`).join(' | ') + ' |');
	out.push('|---|' + D.map(() => '---').join('|') + '|');
};

for (const n of sizes) {
	const runs = new Set(rows.filter((r) => r.size === n).map((r) => r.run)).size;
	out.push(`## ${n} training images per class, ${runs} run${runs > 1 ? 's' : ''}`);
	out.push('');
	out.push(`Mean test accuracy on the ${N_TEST} test images (± standard deviation over the runs), and the paper's Table 1 value; Δ = ours − paper.`);
	out.push('');
	head('method');
	for (const m of present) {
		const acc = D.map((k) => sel(n, m, k).map((r) => r.accuracy));
		out.push(`| ${m}, pg_gsu | ` + acc.map((a) => (a.length ? `${f4(mean(a))} ± ${f4(sd(a))}` : '—')).join(' | ') + ' |');
		out.push(`| ${m}, paper | ` + D.map((k) => f4(paper[m][k]) + (withP(m) ? ` (p ${paperP[k]})` : '')).join(' | ') + ' |');
		out.push(`| ${m}, Δ | ` + acc.map((a, i) => (a.length ? (mean(a) - paper[m][D[i]] >= 0 ? '+' : '') + (mean(a) - paper[m][D[i]]).toFixed(4) : '—')).join(' | ') + ' |');
	}
	out.push('');
	out.push('The same models on the untransformed test images (D0\'s), mean accuracy:');
	out.push('');
	head('method');
	for (const m of present)
		out.push(`| ${m} | ` + D.map((k) => { const a = sel(n, m, k).map((r) => r.clean); return a.length ? f4(mean(a)) : '—'; }).join(' | ') + ' |');
	out.push('');
	if (sigRows.some((x) => x.size === n)) {
		out.push(`Each method against LSVM, computed in SQL with gsu.paired_ttest and gsu.mcnemar: mean difference of accuracy; paired t-test over the runs, plain and with Nadeau and Bengio's correction (test/train ratio ${N_TEST}/${2 * n}); McNemar's exact test on the test images, median p over the runs (and how many runs have p < 0.05).`);
		out.push('');
		head('comparison');
		for (const m of present.filter((x) => x !== 'LSVM')) {
			const cells = D.map((k) => sigRows.find((x) => x.size === n && x.dataset === k && x.method === m) || null);
			const show = (f) => cells.map((x) => (x ? f(x) : '—')).join(' | ');
			out.push(`| ${m} − LSVM | ` + show((x) => (x.d >= 0 ? '+' : '') + x.d.toFixed(4)) + ' |');
			out.push(`| p, paired t | ` + show((x) => fp(x.t)) + ' |');
			out.push(`| p, corrected t | ` + show((x) => fp(x.nb)) + ' |');
			out.push(`| p, McNemar (median; runs < 0.05) | ` + show((x) => `${fp(x.mc)}; ${x.mcn}/${x.runs}`) + ' |');
		}
		out.push('');
	}
	out.push(process.env.SELECT_ON === 'test'
	? 'Hyperparameters chosen on the test images (SELECT_ON=test, an ablation: median over the runs; the share of runs at an edge of the grid) and mean seconds per method (every combination trained and scored):'
	: 'Hyperparameters chosen by the cross-validation (median over the runs; the share of runs at an edge of the grid) and mean seconds per method (cross-validation, training, scoring):');
	out.push('');
	head('method');
	for (const m of present) {
		const lam = D.map((k) => sel(n, m, k).map((r) => r.lambda));
		out.push(`| ${m}: λ | ` + lam.map((v) => (v.length ? median(v).toExponential(0) + edgeShare(v, lambdaGrid) : '—')).join(' | ') + ' |');
		if (withP(m))
			out.push(`| ${m}: p | ` + D.map((k) => { const v = sel(n, m, k).map((r) => r.p); return v.length ? String(+median(v).toFixed(3)) + edgeShare(v, pGrid) : '—'; }).join(' | ') + ' |');
		out.push(`| ${m}: seconds | ` + D.map((k) => { const v = sel(n, m, k).map((r) => r.seconds); return v.length ? mean(v).toFixed(1) : '—'; }).join(' | ') + ' |');
	}
	out.push('');
}

if (sizes.length > 1) {
	out.push('## Accuracy against training size');
	out.push('');
	out.push('Mean test accuracy per training size (images per class); the last column of each method is the paper\'s Table 1 value and the size at which ours reaches it (interpolated in log size between the two sizes that bracket it).');
	out.push('');
	for (const m of present) {
		out.push(`| ${m} | ` + sizes.map((n) => String(n)).join(' | ') + ' | paper | size that matches |');
		out.push('|---|' + sizes.map(() => '---').join('|') + '|---|---|');
		for (const k of D) {
			const a = sizes.map((n) => { const v = sel(n, m, k).map((r) => r.accuracy); return v.length ? mean(v) : null; });
			const target = paper[m][k];
			let match = 'none in range';
			for (let i = 0; i + 1 < sizes.length; i++) {
				const [x0, x1] = [a[i], a[i + 1]];
				if (x0 === null || x1 === null) continue;
				if ((x0 - target) * (x1 - target) <= 0 && x0 !== x1) {
					const f = (target - x0) / (x1 - x0);
					match = String(Math.round(Math.exp(Math.log(sizes[i]) + f * (Math.log(sizes[i + 1]) - Math.log(sizes[i])))));
					break;
				}
			}
			if (match === 'none in range' && a[0] !== null && target < a[0]) match = `below ${sizes[0]}`;
			if (match === 'none in range' && a[a.length - 1] !== null && target > a[a.length - 1]) match = `above ${sizes[sizes.length - 1]}`;
			out.push(`| D${k} | ` + a.map(f4).join(' | ') + ` | ${f4(target)} | ${match} |`);
		}
		out.push('');
	}
}
process.stdout.write(out.join('\n') + '\n');
