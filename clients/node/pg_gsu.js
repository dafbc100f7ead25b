'use strict';
// pg_gsu for node-postgres (npm `pg`): gsu.model values parsed into objects.
//
//   const { registerGsu } = require('./pg_gsu');
//   await registerGsu(client);          // a pg.Client (or a pool's client)
//   const { rows } = await client.query('SELECT gsu.train(mean, variance, label) AS m FROM t');
//   rows[0].m.weights, rows[0].m.bias, rows[0].m.describe(), rows[0].m.toPostgres()
//
// node-postgres sends every parameter untyped, as text: a JavaScript array of
// numbers becomes a float8[] literal, and a GsuModel is sent as its JSON text
// form (toPostgres), which the server reads as a gsu.model. Typed arrays
// (Float64Array) must be turned into plain arrays first (Array.from): pg sends
// them as bytea.

class GsuModel {
  constructor(text) {
    this.text = text;
    const d = JSON.parse(text);
    this.loss = d.loss;
    this.classes = d.classes;
    const two = d.classes.length === 2;
    this.weights = two ? [d.weights] : d.weights;   // one vector per class vector
    this.bias = two ? [d.bias] : d.bias;
    this.standardization = d.standardization || null;
    this.missing = d.missing || null;   // option "missing": the feature moments and counts
    // option "missing_nan": a NaN element is missing too
    this.missingNan = this.missing !== null && !!(d.hyperparameters && d.hyperparameters.missing_nan);
    this.features = d.features || null;
    this.dim = this.features ? this.features.input_dim : this.weights[0].length;
    this.training = d.training || {};
    this.calibrated = d.calibration != null;
    // the per-pass history (format 5), as gsu.training_info lists it: per class
    // vector, {pass, objective, gradient_norm, gap, elapsed_ms} (null: not measured)
    const fields = ['pass', 'objective', 'gradient_norm', 'gap', 'elapsed_ms'];
    this.history = (d.history || this.weights.map(() => []))
      .map((v) => v.map((e) => Object.fromEntries(fields.map((f, i) => [f, e[i]]))));
    this._doc = d;
  }

  describe() {
    const d = Object.assign({}, this._doc);
    delete d.weights;
    delete d.history;
    return d;
  }

  // the decision value(s) of a plain linear model, as gsu.decision / gsu.decisions
  decision(mean) {
    if (this.features) throw new Error('a model with a feature map is scored in the database');
    if (mean.length !== this.dim) throw new Error(`mean has ${mean.length} elements, but the model has dimension ${this.dim}`);
    // option "missing": a null element is the feature's stored mean, as gsu.decision reads NULL
    // (and a NaN one with "missing_nan")
    const miss = (v) => v == null || (this.missingNan && Number.isNaN(Number(v)));
    let x = mean.map((v, j) => (this.missing && miss(v) ? this.missing.mean[j] : Number(v)));
    if (this.standardization) {
      const { mean: m, scale: s } = this.standardization;
      x = x.map((v, j) => (v - m[j]) / s[j]);
    }
    const out = this.weights.map((w, k) => w.reduce((acc, wj, j) => acc + wj * x[j], 0) + this.bias[k]);
    return this.classes.length === 2 ? out[0] : out;
  }

  // node-postgres calls this to send the value: the text form
  toPostgres() {
    return this.text;
  }
}

// Registers the gsu.model parser on a connected pg.Client; returns the type's OID.
async function registerGsu(client) {
  const r = await client.query("SELECT 'gsu.model'::regtype::oid AS oid");
  const oid = Number(r.rows[0].oid);
  client.setTypeParser(oid, 'text', (s) => (s === null ? null : new GsuModel(s)));
  return oid;
}

module.exports = { GsuModel, registerGsu };
