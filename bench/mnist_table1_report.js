// Prints bench/mnist_table1.sh's Table 1 as Markdown from the per-run results
// (TSV on stdin: run, dataset, method, lambda, p, accuracy), beside the paper's
// values, with a two-sided paired t-test per data set.
//
//   node bench/mnist_table1_report.js < results.tsv
'use strict';
const fs = require('fs');

const methods = ['LSVM', 'PSVM', 'LSVM-iso', 'LSVM-GSU', 'LSVM-GSU (subspaces)'];
// Tzelepis et al., TPAMI 2018, Table 1: only the D0 and D5 values are given here (the
// task's brief quotes them); the middle columns are not filled from memory
const paper = {
	LSVM: [0.9952, null, null, null, null, 0.6027],
	'LSVM-GSU': [0.9971, null, null, null, null, 0.6353],
	'LSVM-GSU (subspaces)': [0.9972, null, null, null, null, 0.6640],
};

// regularized incomplete beta I_x(a, b) (continued fraction, Numerical Recipes 6.4)
function lgamma(z) {
	const c = [76.18009172947146, -86.50532032941677, 24.01409824083091, -1.231739572450155,
		0.1208650973866179e-2, -0.5395239384953e-5];
	let x = z;
	let y = z;
	let tmp = x + 5.5;
	tmp -= (x + 0.5) * Math.log(tmp);
	let ser = 1.000000000190015;
	for (const cj of c) ser += cj / ++y;
	return -tmp + Math.log((2.5066282746310005 * ser) / x);
}
function betacf(a, b, x) {
	const tiny = 1e-300;
	let c = 1;
	let d = 1 - ((a + b) * x) / (a + 1);
	if (Math.abs(d) < tiny) d = tiny;
	d = 1 / d;
	let h = d;
	for (let m = 1; m <= 300; m++) {
		const m2 = 2 * m;
		let aa = (m * (b - m) * x) / ((a - 1 + m2) * (a + m2));
		d = 1 + aa * d;
		if (Math.abs(d) < tiny) d = tiny;
		c = 1 + aa / c;
		if (Math.abs(c) < tiny) c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2));
		d = 1 + aa * d;
		if (Math.abs(d) < tiny) d = tiny;
		c = 1 + aa / c;
		if (Math.abs(c) < tiny) c = tiny;
		d = 1 / d;
		const del = d * c;
		h *= del;
		if (Math.abs(del - 1) < 1e-15) break;
	}
	return h;
}
function ibeta(a, b, x) {
	if (x <= 0) return 0;
	if (x >= 1) return 1;
	const bt = Math.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * Math.log(x) + b * Math.log(1 - x));
	return x < (a + 1) / (a + b + 2) ? (bt * betacf(a, b, x)) / a : 1 - (bt * betacf(b, a, 1 - x)) / b;
}
// two-sided p-value of the paired t-test of a against b (NaN when undefined)
function pairedT(a, b) {
	const n = a.length;
	if (n < 2) return { t: NaN, p: NaN };
	const d = a.map((v, i) => v - b[i]);
	const mean = d.reduce((s, v) => s + v, 0) / n;
	const sd = Math.sqrt(d.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
	if (sd === 0) return { t: mean === 0 ? 0 : Infinity, p: mean === 0 ? 1 : 0 };
	const t = mean / (sd / Math.sqrt(n));
	const nu = n - 1;
	return { t, p: ibeta(nu / 2, 0.5, nu / (nu + t * t)) };
}

const rows = fs.readFileSync(0, 'utf8').trim().split('\n').filter(Boolean).map((l) => {
	const [run, dataset, method, lambda, p, accuracy] = l.split('\t');
	return { run: +run, dataset: +dataset, method, lambda: +lambda, p: p === '\\N' ? null : +p, accuracy: +accuracy };
});
const acc = {}; // acc[method][dataset] = [accuracy by run]
const lam = {};
const ps = {};
for (const r of rows) {
	((acc[r.method] ??= {})[r.dataset] ??= []).push(r.accuracy);
	((lam[r.method] ??= {})[r.dataset] ??= []).push(r.lambda);
	if (r.p !== null) ((ps[r.method] ??= {})[r.dataset] ??= []).push(r.p);
}
const runs = new Set(rows.map((r) => r.run)).size;
const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
const sd = (v) => Math.sqrt(v.reduce((s, x) => s + (x - mean(v)) ** 2, 0) / Math.max(1, v.length - 1));
const D = [0, 1, 2, 3, 4, 5];
const f4 = (x) => (x === null || x === undefined ? '—' : x.toFixed(4));

const out = [];
out.push(`Mean test accuracy over ${runs} runs (± sample standard deviation over the runs); paper = Tzelepis et al., TPAMI 2018, Table 1 (D0 and D5 only, see the notes).`);
out.push('');
out.push('| method | ' + D.map((k) => `D${k}`).join(' | ') + ' |');
out.push('|---|' + D.map(() => '---').join('|') + '|');
for (const m of methods) {
	if (!acc[m]) continue;
	out.push(`| ${m} (pg_gsu) | ` + D.map((k) => `${f4(mean(acc[m][k]))} ± ${f4(sd(acc[m][k]))}`).join(' | ') + ' |');
	if (paper[m]) out.push(`| ${m} (paper) | ` + D.map((k) => f4(paper[m][k])).join(' | ') + ' |');
}
for (const m of ['LSVM-GSU', 'LSVM-GSU (subspaces)']) {
	if (!acc[m] || !acc.LSVM) continue;
	const tt = D.map((k) => pairedT(acc[m][k], acc.LSVM[k]));
	out.push(`| ${m} − LSVM, mean difference | ` + D.map((k) => (mean(acc[m][k]) - mean(acc.LSVM[k])).toFixed(4)).join(' | ') + ' |');
	out.push(`| ${m} vs LSVM, paired t-test p (two-sided) | ` + tt.map((x) => (Number.isFinite(x.p) ? x.p.toPrecision(2) : 'n/a')).join(' | ') + ' |');
}
out.push('');
out.push('Hyperparameters chosen by the cross-validation (median over the runs):');
out.push('');
out.push('| method | ' + D.map((k) => `D${k}`).join(' | ') + ' |');
out.push('|---|' + D.map(() => '---').join('|') + '|');
const median = (v) => {
	const s = [...v].sort((a, b) => a - b);
	return s[Math.floor((s.length - 1) / 2)];
};
for (const m of methods) {
	if (!lam[m]) continue;
	out.push(`| ${m}: lambda | ` + D.map((k) => median(lam[m][k]).toExponential(0)).join(' | ') + ' |');
	if (ps[m]) out.push(`| ${m}: p | ` + D.map((k) => String(median(ps[m][k]))).join(' | ') + ' |');
}
process.stdout.write(out.join('\n') + '\n');
