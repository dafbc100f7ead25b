'use strict';
// Drives pg_gsu from node-postgres as an ordinary role, with untyped parameters
// (node-postgres sends every parameter as text of unknown type), through the
// helper clients/node/pg_gsu.js. Run by test/clients.sh; prints `N passed, M failed`.
// Usage: NODE_PATH=<dir with pg> node test/clients.js <database> <role>
const path = require('path');
const { Client } = require('pg');
const { GsuModel, registerGsu } = require(path.join(__dirname, '..', 'clients', 'node', 'pg_gsu.js'));

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok ${name}`); } else { failed++; console.log(`FAILED ${name} ${detail || ''}`); }
}
const close = (a, b, tol) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= tol * (1 + Math.abs(b[i])));

async function main() {
  const client = new Client({ host: process.env.PGHOST, port: process.env.PGPORT, database: process.argv[2], user: process.argv[3] });
  await client.connect();
  try {
    await registerGsu(client);
    await client.query('DROP TABLE IF EXISTS node_rows');
    await client.query('CREATE TABLE node_rows (id int PRIMARY KEY, mean float8[], variance float8[], label int)');
    const rows = [];
    for (let i = 0; i < 80; i++) {
      const x = [Math.sin(i * 1.7) * 2, Math.cos(i * 0.9), (i % 7) / 7];
      rows.push([i, x, [0.05 + (i % 3) * 0.05, 0.1, 0.2], x[0] + 0.5 * x[1] > 0 ? 1 : -1]);
    }
    for (const r of rows) {
      await client.query('INSERT INTO node_rows VALUES ($1, $2, $3, $4)', r);
    }
    const back = await client.query('SELECT mean FROM node_rows ORDER BY id');
    check('JavaScript arrays stored as float8[] exactly', back.rows.every((r, i) => close(r.mean, rows[i][1], 0)));

    // training with an untyped options parameter
    const t = await client.query('SELECT gsu.train(mean, variance, label, $1) AS m FROM node_rows', ['{"lambda": 0.01}']);
    const m = t.rows[0].m;
    check('a gsu.model comes back as a GsuModel', m instanceof GsuModel, String(m));
    check('the model has its classes and weights', m.classes.join() === '-1,1' && m.weights[0].length === 3);

    // scoring with untyped parameters: the model as text, the mean as an array
    const d = await client.query('SELECT gsu.decision($1, $2) AS d', [m, rows[0][1]]);
    check('untyped: gsu.decision(model, mean)', Math.abs(d.rows[0].d - m.decision(rows[0][1])) < 1e-12, JSON.stringify(d.rows[0]));
    const p = await client.query('SELECT gsu.predict($1, $2) AS p', [m, rows[1][1]]);
    check('untyped: gsu.predict(model, mean)', [-1, 1].includes(p.rows[0].p));
    const ds = await client.query('SELECT gsu.decisions($1, $2) AS d', [m, rows[2][1]]);
    check('untyped: gsu.decisions(model, mean) (one value per class)', close(ds.rows[0].d, [-m.decision(rows[2][1]), m.decision(rows[2][1])], 1e-12), JSON.stringify(ds.rows[0].d));
    const w = await client.query('SELECT gsu.weights($1) AS w, gsu.bias($1) AS b', [m]);
    check('untyped: gsu.weights(model), gsu.bias(model)', close(w.rows[0].w, m.weights[0], 0) && w.rows[0].b === m.bias[0]);
    // the functions that take a variance: an array, one element (isotropic), or null (certain)
    const c = await client.query('SELECT gsu.confidence($1, $2, $3) AS diag, gsu.confidence($1, $2, $4) AS iso, ' +
      'gsu.confidence($1, $2, $5) AS certain, gsu.expected_loss($1, $2, $3, $6) AS loss', [m, rows[0][1], [0.3, 0.3, 0.3], [0.3], null, 1]);
    check('untyped: gsu.confidence with an array, one element and null', c.rows[0].diag === c.rows[0].iso &&
      c.rows[0].certain === 1 && c.rows[0].diag > 0.5 && c.rows[0].diag <= 1, JSON.stringify(c.rows[0]));
    check('untyped: gsu.expected_loss(model, mean, variance, label)', c.rows[0].loss >= 0);
    const e = await client.query('SELECT count(*)::int AS n, sum(variance_share) AS s FROM gsu.explain($1, $2, $3)', [m, rows[0][1], [0.2]]);
    check('untyped: gsu.explain(model, mean, variance)', e.rows[0].n === 4 && e.rows[0].s > 0, JSON.stringify(e.rows[0]));
    const wc = await client.query('SELECT gsu.weights($1, $2) AS w', [m, 1]);
    check('untyped: gsu.weights(model, class) takes 1 as the class', close(wc.rows[0].w, m.weights[0], 0));
    const desc = await client.query('SELECT gsu.describe($1) AS d', [m]);
    check('untyped: gsu.describe(model)', desc.rows[0].d.loss === m.loss);
    const ti = await client.query('SELECT pass::int AS pass, objective, gradient_norm, gap, elapsed_ms FROM gsu.training_info($1) ORDER BY class, pass', [m]);
    check('untyped: gsu.training_info(model) lists GsuModel.history',
      ti.rows.length > 0 && JSON.stringify(ti.rows) === JSON.stringify(m.history.flat()), JSON.stringify(ti.rows.slice(0, 2)));
    const all = await client.query('SELECT id, gsu.decision($1, mean) AS d FROM node_rows ORDER BY id', [m]);
    check('the model as a parameter scores every row as GsuModel.decision does',
      all.rows.every((r) => Math.abs(r.d - m.decision(rows[r.id][1])) < 1e-12));
    // a prepared statement run with different models
    const m2 = (await client.query('SELECT gsu.train(mean, variance, label, $1) AS m FROM node_rows', ['{"lambda": 1}'])).rows[0].m;
    const q = { name: 'score', text: 'SELECT gsu.decision($1, $2) AS d' };
    const a1 = (await client.query({ ...q, values: [m, rows[3][1]] })).rows[0].d;
    const a2 = (await client.query({ ...q, values: [m2, rows[3][1]] })).rows[0].d;
    check('a prepared statement scores each model with its own weights',
      Math.abs(a1 - m.decision(rows[3][1])) < 1e-12 && Math.abs(a2 - m2.decision(rows[3][1])) < 1e-12 && a1 !== a2);
    // regression with untyped parameters: the options, and gsu.predictive's model, mean and variance
    const r = (await client.query('SELECT gsu.train_regression(mean, variance, mean[1] - 2 * mean[2], $1) AS m FROM node_rows',
      ['{"lambda": 0.01}'])).rows[0].m;
    check('a regression model comes back as a GsuModel', r instanceof GsuModel && r.loss === 'epsilon_insensitive', String(r));
    const pr = (await client.query('SELECT prediction, sd FROM gsu.predictive($1, $2, $3)', [r, rows[4][1], rows[4][2]])).rows[0];
    const sd = Math.sqrt(r.weights[0].reduce((acc, wi, i) => acc + wi * wi * rows[4][2][i], 0));
    check('untyped: gsu.predictive(model, mean, variance) is GsuModel.decision and sqrt(w\'Sigma w)',
      Math.abs(pr.prediction - r.decision(rows[4][1])) < 1e-12 && Math.abs(pr.sd - sd) < 1e-12 * (1 + sd), JSON.stringify(pr));
    // option "missing": the moments read from the text form, and a null element scored as a NULL one
    const mm = (await client.query("SELECT gsu.train(CASE WHEN id % 4 = 0 THEN mean[1:1] || NULL::float8 || mean[3:3] ELSE mean END, variance, label, $1) AS m FROM node_rows",
      ['{"lambda": 0.01, "missing": "feature_moments"}'])).rows[0].m;
    const md = (await client.query('SELECT gsu.decision($1, $2::float8[]) AS d', [mm, [0.1, null, 0.3]])).rows[0].d;
    check('missing: GsuModel.decision with null equals gsu.decision with NULL',
      mm.missing !== null && mm.missing.mean.length === 3 && Math.abs(md - mm.decision([0.1, null, 0.3])) < 1e-12, String(md));
    // "missing_nan": a NaN element scored as gsu.decision scores a NaN one
    const mn = (await client.query("SELECT gsu.train(CASE WHEN id % 4 = 0 THEN mean[1:1] || 'NaN'::float8 || mean[3:3] ELSE mean END, variance, label, $1) AS m FROM node_rows",
      ['{"lambda": 0.01, "missing": "feature_moments", "missing_nan": true}'])).rows[0].m;
    const mnd = (await client.query("SELECT gsu.decision($1, ARRAY[0.1, 'NaN', 0.3]::float8[]) AS d", [mn])).rows[0].d;
    check('missing_nan: GsuModel.decision with NaN equals gsu.decision with NaN',
      mn.missingNan && !mm.missingNan && Math.abs(mnd - mn.decision([0.1, NaN, 0.3])) < 1e-12, String(mnd));
    // a Couellan & Jan bound through untyped options
    const cj = (await client.query('SELECT gsu.describe(gsu.train(mean, variance, label, $1)) AS d FROM node_rows',
      ['{"loss": "robust", "feature_bound": "couellan_jan", "gamma": 0.1, "features": {"map": "rff", "dim": 8, "sigma": 2, "seed": 3}}'])).rows[0].d;
    check('untyped: a couellan_jan bound trains', cj.loss === 'robust' && cj.features.map === 'rff', JSON.stringify(cj).slice(0, 200));
  } finally {
    await client.end();
  }
}

main().catch((e) => { failed++; console.log(`FAILED ran to the end: ${e.message}`); })
  .finally(() => { console.log(`${passed} passed, ${failed} failed`); process.exitCode = failed ? 1 : 0; });
