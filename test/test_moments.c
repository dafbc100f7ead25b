/*
 * test_moments.c — unit tests of src/core/gsu_moments.c (streaming mean and
 * covariance) and src/core/gsu_image.c (translation covariance of an image).
 *
 * References are computed here independently: two-pass formulas in long
 * double, hand-computed values, brute-force products, and a Monte Carlo
 * estimate over bilinearly translated images.  Deterministic (fixed seeds).
 * GSU_TEST_QUICK=1 shrinks the sample sizes (for valgrind).
 *
 * Output: diagnostics on stderr, then exactly one line "N passed, M failed"
 * on stdout; non-zero exit status when a test failed.
 */
#include "gsu_core.h"
#include "gsu_test.h"
#include "gsu_image.h"
#include "gsu_moments.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------- moments references */

/*
 * Two-pass mean and covariance in long double (x is n×d row-major), with
 * the data shifted by the first row (x_i − x_0 is exact in double for
 * values within a factor 2, Sterbenz), and the second pass corrected for
 * the rounding of the mean (Chan, Golub & LeVeque's "corrected two-pass"):
 *   C_jk = (Σ d_j d_k − (Σ d_j)(Σ d_k)/n) / (n − ddof),  d = x − x̄.
 */
static void
ref_two_pass(int64_t n, int d, const double *x, int ddof, long double *mean,
			 long double *cov /* d×d */ )
{
	long double *dsum = xcalloc((size_t) d, sizeof(long double));
	int64_t		i;
	int			j,
				k;

	for (j = 0; j < d; j++)
	{
		long double s = 0;

		for (i = 0; i < n; i++)
			s += (long double) x[i * d + j] - x[j];
		mean[j] = x[j] + s / n;
	}
	for (j = 0; j < d; j++)
	{
		dsum[j] = 0;
		for (i = 0; i < n; i++)
			dsum[j] += (long double) x[i * d + j] - mean[j];
	}
	for (j = 0; j < d; j++)
		for (k = 0; k < d; k++)
		{
			long double s = 0;

			for (i = 0; i < n; i++)
				s += ((long double) x[i * d + j] - mean[j]) *
					((long double) x[i * d + k] - mean[k]);
			cov[j * d + k] = (s - dsum[j] * dsum[k] / n) / (n - ddof);
		}
	free(dsum);
}

/* A moments state with its own storage. */
typedef struct owned_moments
{
	gsu_moments m;
	double	   *store;
} owned_moments;

static void
om_init(owned_moments *o, int d, int full)
{
	o->store = xcalloc(gsu_moments_doubles(d, full), sizeof(double));
	gsu_moments_init(&o->m, d, full, o->store);
	/* the same state seen through attach must validate */
	if (gsu_moments_validate(&o->m) != GSU_OK)
		fprintf(stderr, "[%s] fresh state does not validate\n", cur_test), cur_failures++;
}

static void
om_free(owned_moments *o)
{
	free(o->store);
}

static gsu_status
om_add_rows(owned_moments *o, const double *x, int64_t from, int64_t to)
{
	int64_t		i;
	gsu_status	s = GSU_OK;

	for (i = from; i < to && s == GSU_OK; i++)
		s = gsu_moments_add(&o->m, x + i * o->m.d);
	return s;
}

/*
 * Ill-conditioned data: column 0 is 1e9 + N(0, 1), column 1 is 1e9 + N(0, 1e-6)
 * (variance 1e-12 under an offset of 1e9: a condition number ~1e30),
 * column 2 is −3e8 + 2·column-0 noise + N(0, 1e-2) (correlated with 0).
 */
static double *
ill_data(int64_t n, uint64_t seed)
{
	double	   *x = xcalloc((size_t) n * 3, sizeof(double));
	gsu_rng		r;
	int64_t		i;

	gsu_rng_seed(&r, seed);
	for (i = 0; i < n; i++)
	{
		double		z0 = gsu_rng_normal(&r);

		x[i * 3 + 0] = 1e9 + z0;
		x[i * 3 + 1] = 1e9 + 1e-6 * gsu_rng_normal(&r);
		x[i * 3 + 2] = -3e8 + 2.0 * z0 + 0.01 * gsu_rng_normal(&r);
	}
	return x;
}

/* ---------------------------------------------------------- moments tests */

/*
 * Welford on data with a large offset matches the long double two-pass
 * reference, while the one-pass Σx² − n x̄² formula in double does not (so
 * the data really is ill-conditioned and the test can fail).
 */
static void
test_welford_ill_conditioned(void)
{
	int64_t		n = quick ? 3000 : 200000;
	double	   *x = ill_data(n, 11);
	long double mean[3],
				cov[9];
	double		var[3];
	owned_moments o;
	int			j;
	int64_t		i;

	ref_two_pass(n, 3, x, 1, mean, cov);
	om_init(&o, 3, 0);
	CHECK(om_add_rows(&o, x, 0, n) == GSU_OK, "add failed");
	CHECK(o.m.n == n, "count %lld", (long long) o.m.n);
	CHECK(gsu_moments_covariance(&o.m, 1, var) == GSU_OK, "covariance failed");
	for (j = 0; j < 3; j++)
	{
		/* the mean rounded once: within an ulp of the exact mean */
		CHECK(fabs(o.m.mean[j] - (double) mean[j]) <= DBL_EPSILON * fabs((double) mean[j]),
			  "mean[%d] %.17g vs %.17Lg", j, o.m.mean[j], mean[j]);
		/*
		 * δ = (x − hi) − lo is accurate to an ulp of itself, so the
		 * variance is, to about √n ulps; column 1 has a variance 1e-30 of
		 * its mean squared.
		 */
		CHECK(reldiff(var[j], (double) cov[j * 3 + j], 0.0) < 1e-12,
			  "var[%d] %.17g vs %.17Lg", j, var[j], cov[j * 3 + j]);
		if (getenv("GSU_TEST_VERBOSE"))
			fprintf(stderr, "var[%d] rel %.3g mean rel %.3g\n", j,
					reldiff(var[j], (double) cov[j * 3 + j], 0.0),
					reldiff(o.m.mean[j], (double) mean[j], 0.0));
	}

	/*
	 * Plain Welford with the running mean rounded to double after each row
	 * loses column 1 (noise 1e-6 under 1e9, where ulp(1e9) ≈ 1.2e-7): what
	 * the double-double mean buys.
	 */
	{
		double		pm = 0.0,
					pm2 = 0.0,
					plain;

		for (i = 0; i < n; i++)
		{
			double		delta = x[i * 3 + 1] - pm;

			pm += delta / (double) (i + 1);
			pm2 += delta * (x[i * 3 + 1] - pm);
		}
		plain = pm2 / (double) (n - 1);
		if (getenv("GSU_TEST_VERBOSE"))
			fprintf(stderr, "plain Welford var[1] rel %.3g\n", reldiff(plain, (double) cov[4], 0.0));
		CHECK(reldiff(plain, (double) cov[4], 0.0) > 1e-6,
			  "plain Welford unexpectedly accurate: %.6g vs %.6Lg", plain, cov[4]);
	}

	/* the naive one-pass formula on the same data (double) is far off */
	{
		double		s = 0.0,
					ss = 0.0,
					naive;

		for (i = 0; i < n; i++)
		{
			s += x[i * 3];
			ss += x[i * 3] * x[i * 3];
		}
		naive = (ss - s * s / (double) n) / (double) (n - 1);
		CHECK(reldiff(naive, (double) cov[0], 0.0) > 1e-2,
			  "naive formula unexpectedly accurate: %.6g vs %.6Lg", naive, cov[0]);
	}
	om_free(&o);
	free(x);
}

/* Full covariance of correlated, offset data vs the two-pass reference. */
static void
test_full_covariance(void)
{
	int64_t		n = quick ? 2000 : 100000;
	int			d = 5;
	double	   *x = xcalloc((size_t) n * d, sizeof(double));
	long double mean[5],
				ref[25];
	double		cov[25],
				diag[5];
	owned_moments full,
				dg;
	gsu_rng		r;
	int64_t		i;
	int			j,
				k;

	gsu_rng_seed(&r, 7);
	for (i = 0; i < n; i++)
	{
		double		z[3];

		for (j = 0; j < 3; j++)
			z[j] = gsu_rng_normal(&r);
		/* rank-3 covariance plus a tiny independent part, offset 1e6 */
		x[i * d + 0] = 1e6 + z[0];
		x[i * d + 1] = 1e6 + 0.5 * z[0] + 0.1 * z[1];
		x[i * d + 2] = -1e6 + z[1] - z[2];
		x[i * d + 3] = 2e6 + 3.0 * z[2] + 1e-3 * gsu_rng_normal(&r);
		x[i * d + 4] = z[0] + z[1] + z[2];
	}
	ref_two_pass(n, d, x, 1, mean, ref);
	om_init(&full, d, 1);
	om_init(&dg, d, 0);
	CHECK(om_add_rows(&full, x, 0, n) == GSU_OK, "add full");
	CHECK(om_add_rows(&dg, x, 0, n) == GSU_OK, "add diag");
	CHECK(gsu_moments_covariance(&full.m, 1, cov) == GSU_OK, "cov full");
	CHECK(gsu_moments_covariance(&dg.m, 1, diag) == GSU_OK, "cov diag");
	for (j = 0; j < d; j++)
	{
		CHECK(reldiff(full.m.mean[j], (double) mean[j], 1.0) < 1e-14, "mean[%d]", j);
		CHECK(reldiff(diag[j], cov[j * d + j], 0.0) < 1e-12,
			  "diagonal[%d] %.17g vs full %.17g", j, diag[j], cov[j * d + j]);
		for (k = 0; k < d; k++)
		{
			/* tolerance relative to the scale √(Σ_jj Σ_kk) of the entry */
			double		scale = sqrt((double) (ref[j * d + j] * ref[k * d + k]));

			CHECK(fabs(cov[j * d + k] - (double) ref[j * d + k]) < 1e-9 * scale,
				  "cov[%d][%d] %.17g vs %.17Lg", j, k, cov[j * d + k], ref[j * d + k]);
			CHECK(cov[j * d + k] == cov[k * d + j], "not symmetric at %d,%d", j, k);
		}
	}
	om_free(&full);
	om_free(&dg);
	free(x);
}

/* Small hand-computed cases: both estimators, n = 1, n = 0. */
static void
test_hand_values(void)
{
	/* rows (1, 2), (2, 4), (3, 3), (4, 7) */
	static const double x[] = {1, 2, 2, 4, 3, 3, 4, 7};
	owned_moments o,
				f;
	double		v[2],
				c[4];

	om_init(&o, 2, 0);
	om_init(&f, 2, 1);
	/* empty: no estimator is defined */
	CHECK(gsu_moments_covariance(&o.m, 0, v) == GSU_EINVAL, "n = 0, population");
	CHECK(gsu_moments_covariance(&o.m, 1, v) == GSU_EINVAL, "n = 0, sample");
	CHECK(om_add_rows(&o, x, 0, 1) == GSU_OK && om_add_rows(&f, x, 0, 1) == GSU_OK, "add");
	/* one row: population variance 0, sample variance undefined */
	CHECK(gsu_moments_covariance(&o.m, 1, v) == GSU_EINVAL, "n = 1, sample");
	CHECK(gsu_moments_covariance(&o.m, 0, v) == GSU_OK && v[0] == 0.0 && v[1] == 0.0,
		  "n = 1, population: %g %g", v[0], v[1]);
	CHECK(o.m.mean[0] == 1.0 && o.m.mean[1] == 2.0, "n = 1 mean");
	CHECK(gsu_moments_covariance(&o.m, 2, v) == GSU_EINVAL, "ddof 2");

	CHECK(om_add_rows(&o, x, 1, 4) == GSU_OK && om_add_rows(&f, x, 1, 4) == GSU_OK, "add");
	/* mean (2.5, 4); deviations (−1.5,−2), (−.5,0), (.5,−1), (1.5,3) */
	CHECK(o.m.mean[0] == 2.5 && o.m.mean[1] == 4.0, "mean %g %g", o.m.mean[0], o.m.mean[1]);
	/* Σ dx² = 5, Σ dy² = 14, Σ dx dy = 3 + 0 − .5 + 4.5 = 7 */
	CHECK(gsu_moments_covariance(&o.m, 1, v) == GSU_OK, "sample");
	CHECK(reldiff(v[0], 5.0 / 3, 0) < 1e-15 && reldiff(v[1], 14.0 / 3, 0) < 1e-15,
		  "sample %.17g %.17g", v[0], v[1]);
	CHECK(gsu_moments_covariance(&o.m, 0, v) == GSU_OK, "population");
	CHECK(reldiff(v[0], 1.25, 0) < 1e-15 && reldiff(v[1], 3.5, 0) < 1e-15,
		  "population %.17g %.17g", v[0], v[1]);
	CHECK(gsu_moments_covariance(&f.m, 1, c) == GSU_OK, "full sample");
	CHECK(reldiff(c[0], 5.0 / 3, 0) < 1e-15 && reldiff(c[1], 7.0 / 3, 0) < 1e-15 &&
		  c[2] == c[1] && reldiff(c[3], 14.0 / 3, 0) < 1e-15,
		  "full %.17g %.17g %.17g %.17g", c[0], c[1], c[2], c[3]);
	om_free(&o);
	om_free(&f);
}

/*
 * Chan's merge: states built on uneven chunks (sizes 0, 1, …) and merged in
 * a pairwise tree, or left to right, equal the sequential state.
 */
static void
test_merge(void)
{
	int64_t		n = quick ? 1500 : 60000;
	double	   *x = ill_data(n, 5);
	int			full;

	for (full = 0; full <= 1; full++)
	{
		enum
		{
			NCHUNK = 9
		};
		/* chunk boundaries as fractions of n: sizes 0, 1 and uneven */
		int64_t		cut[NCHUNK + 1];
		owned_moments seq,
					part[NCHUNK],
					lin;
		double		vs[9],
					vt[9],
					vl[9];
		int			c,
					step,
					j;
		size_t		m2n = full ? 9 : 3;

		cut[0] = 0;
		cut[1] = 0;				/* empty chunk */
		cut[2] = 1;				/* single row */
		cut[3] = 2;
		cut[4] = n / 7;
		cut[5] = n / 7;			/* empty again */
		cut[6] = n / 2;
		cut[7] = n / 2 + 3;
		cut[8] = n - 1;
		cut[9] = n;
		om_init(&seq, 3, full);
		om_init(&lin, 3, full);
		CHECK(om_add_rows(&seq, x, 0, n) == GSU_OK, "sequential");
		for (c = 0; c < NCHUNK; c++)
		{
			om_init(&part[c], 3, full);
			CHECK(om_add_rows(&part[c], x, cut[c], cut[c + 1]) == GSU_OK, "chunk %d", c);
			CHECK(gsu_moments_merge(&lin.m, &part[c].m) == GSU_OK, "linear merge %d", c);
		}
		/* pairwise tree: part[0] ← part[0] ∪ part[step] … */
		for (step = 1; step < NCHUNK; step *= 2)
			for (c = 0; c + step < NCHUNK; c += 2 * step)
				CHECK(gsu_moments_merge(&part[c].m, &part[c + step].m) == GSU_OK,
					  "tree merge %d+%d", c, c + step);
		CHECK(gsu_moments_validate(&part[0].m) == GSU_OK &&
			  gsu_moments_validate(&lin.m) == GSU_OK &&
			  gsu_moments_validate(&seq.m) == GSU_OK, "merged states validate");
		CHECK(part[0].m.n == n && lin.m.n == n, "counts %lld %lld",
			  (long long) part[0].m.n, (long long) lin.m.n);
		CHECK(gsu_moments_covariance(&seq.m, 1, vs) == GSU_OK &&
			  gsu_moments_covariance(&part[0].m, 1, vt) == GSU_OK &&
			  gsu_moments_covariance(&lin.m, 1, vl) == GSU_OK, "covariance");
		for (j = 0; j < 3; j++)
		{
			CHECK(reldiff(part[0].m.mean[j], seq.m.mean[j], 0) <= DBL_EPSILON,
				  "full %d tree mean[%d]", full, j);
			CHECK(reldiff(lin.m.mean[j], seq.m.mean[j], 0) <= DBL_EPSILON,
				  "full %d linear mean[%d]", full, j);
		}
		for (j = 0; j < (int) m2n; j++)
		{
			/* scale of entry (r, c): √(v_r v_c), from the sequential diagonal */
			int			r = full ? j / 3 : j,
						cc = full ? j % 3 : j;
			double		vr = full ? vs[r * 4] : vs[r],
						vc = full ? vs[cc * 4] : vs[cc],
						scale = sqrt(vr * vc);

			CHECK(fabs(vt[j] - vs[j]) < 1e-12 * scale,
				  "full %d tree cov[%d] %.17g vs %.17g", full, j, vt[j], vs[j]);
			CHECK(fabs(vl[j] - vs[j]) < 1e-12 * scale,
				  "full %d linear cov[%d] %.17g vs %.17g", full, j, vl[j], vs[j]);
		}
		/* the well-conditioned column 0 agrees much better than that */
		CHECK(reldiff(vt[0], vs[0], 0) < 1e-12 && reldiff(vl[0], vs[0], 0) < 1e-12,
			  "var0 tree %.17g linear %.17g vs %.17g", vt[0], vl[0], vs[0]);
		for (c = 0; c < NCHUNK; c++)
			om_free(&part[c]);
		om_free(&seq);
		om_free(&lin);
	}
	free(x);
}

/* Merging with an empty state is the identity; mismatched states are EINVAL. */
static void
test_merge_edges(void)
{
	static const double x[] = {1, 5, 2, 7, 4, 4};
	owned_moments a,
				e,
				f,
				d3;

	om_init(&a, 2, 0);
	om_init(&e, 2, 0);
	om_init(&f, 2, 1);
	om_init(&d3, 3, 0);
	CHECK(om_add_rows(&a, x, 0, 3) == GSU_OK, "add");
	CHECK(gsu_moments_merge(&a.m, &e.m) == GSU_OK && a.m.n == 3, "a ∪ ∅");
	CHECK(a.m.mean[0] == 7.0 / 3 && a.m.mean[1] == 16.0 / 3, "a ∪ ∅ mean");
	CHECK(gsu_moments_merge(&e.m, &a.m) == GSU_OK && e.m.n == 3 &&
		  memcmp(e.store, a.store, 6 * sizeof(double)) == 0, "∅ ∪ a is a copy");
	CHECK(gsu_moments_merge(&a.m, &f.m) == GSU_EINVAL, "diagonal ∪ full");
	CHECK(gsu_moments_merge(&a.m, &d3.m) == GSU_EINVAL, "dimension 2 ∪ 3");
	om_free(&a);
	om_free(&e);
	om_free(&f);
	om_free(&d3);
}

/* States that no sequence of operations produces are rejected. */
static void
test_validate(void)
{
	static const double x[] = {1, 5, 2, 7, 4, 4};
	int			full;

	for (full = 0; full <= 1; full++)
	{
		owned_moments o;
		size_t		m2 = 4;		/* index of M2's first entry: hi (2), lo (2) */
		double		save;

		om_init(&o, 2, full);
		CHECK(gsu_moments_validate(&o.m) == GSU_OK, "empty");
		o.store[0] = 1.0;
		CHECK(gsu_moments_validate(&o.m) == GSU_EINVAL, "full %d: n = 0 with a mean", full);
		o.store[0] = 0.0;
		CHECK(om_add_rows(&o, x, 0, 3) == GSU_OK && gsu_moments_validate(&o.m) == GSU_OK,
			  "after adds");
		o.m.n = -1;
		CHECK(gsu_moments_validate(&o.m) == GSU_EINVAL, "n < 0");
		o.m.n = 3;
		save = o.store[2];
		o.store[2] = 1e-10;		/* lo far above ulp(hi)/2 */
		CHECK(gsu_moments_validate(&o.m) == GSU_EINVAL, "full %d: lo too large", full);
		o.store[2] = NAN;
		CHECK(gsu_moments_validate(&o.m) == GSU_EINVAL, "full %d: lo NaN", full);
		o.store[2] = save;
		save = o.store[m2];
		o.store[m2] = -1.0;
		CHECK(gsu_moments_validate(&o.m) == GSU_EINVAL, "full %d: negative variance", full);
		o.store[m2] = INFINITY;
		CHECK(gsu_moments_validate(&o.m) == GSU_EINVAL, "full %d: infinite variance", full);
		o.store[m2] = save;
		if (full)
		{
			o.store[m2 + 2] = 0.5;	/* M2[1][0], below the diagonal */
			CHECK(gsu_moments_validate(&o.m) == GSU_EINVAL, "lower triangle");
			o.store[m2 + 2] = 0.0;
		}
		CHECK(gsu_moments_validate(&o.m) == GSU_OK, "full %d: restored", full);
		o.m.d = 0;
		CHECK(gsu_moments_validate(&o.m) == GSU_EINVAL, "d = 0");
		om_free(&o);
	}
}

/* Values near DBL_MAX overflow the state: GSU_ENOTFINITE, not a silent Inf. */
static void
test_overflow(void)
{
	static const double big[] = {1.5e308, 0.0, -1.5e308, 0.0};
	static const double huge_dev[] = {1e200, 1.0, -1e200, 1.0};
	int			full;

	for (full = 0; full <= 1; full++)
	{
		owned_moments o,
					p;

		om_init(&o, 2, full);
		CHECK(om_add_rows(&o, big, 0, 1) == GSU_OK, "first row");
		CHECK(gsu_moments_add(&o.m, big + 2) == GSU_ENOTFINITE, "full %d: δ overflows", full);
		om_free(&o);
		/* δ finite, δ² not */
		om_init(&o, 2, full);
		CHECK(om_add_rows(&o, huge_dev, 0, 1) == GSU_OK, "first row");
		CHECK(gsu_moments_add(&o.m, huge_dev + 2) == GSU_ENOTFINITE, "full %d: δ² overflows",
			  full);
		om_free(&o);
		/* the same through a merge */
		om_init(&o, 2, full);
		om_init(&p, 2, full);
		CHECK(om_add_rows(&o, huge_dev, 0, 1) == GSU_OK && om_add_rows(&p, huge_dev, 1, 2) == GSU_OK,
			  "rows");
		CHECK(gsu_moments_merge(&o.m, &p.m) == GSU_ENOTFINITE, "full %d: merge overflows", full);
		om_free(&o);
		om_free(&p);
	}
}

/* ---------------------------------------------------------- image tests */

/*
 * A linear ramp I = a·x + b·y + c has the gradient (a, b) everywhere, border
 * included, so every pixel's variance is σ²(a² + b²).
 */
static void
test_image_ramp(void)
{
	int			w = 7,
				h = 5,
				n = w * h,
				x,
				y,
				i;
	double		a = 0.75,
				b = -2.5,
				c = 10.0,
				s2 = 0.3;
	double	   *img = xcalloc((size_t) n, sizeof(double));
	double	   *gx = xcalloc((size_t) n, sizeof(double));
	double	   *gy = xcalloc((size_t) n, sizeof(double));
	double	   *var = xcalloc((size_t) n, sizeof(double));

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			img[y * w + x] = a * x + b * y + c;
	CHECK(gsu_image_gradient(w, h, img, gx, gy) == GSU_OK, "gradient");
	CHECK(gsu_image_variance(w, h, img, s2, var) == GSU_OK, "variance");
	for (i = 0; i < n; i++)
	{
		CHECK(reldiff(gx[i], a, 0) < 1e-14 && reldiff(gy[i], b, 0) < 1e-14,
			  "pixel %d gradient (%.17g, %.17g)", i, gx[i], gy[i]);
		CHECK(reldiff(var[i], s2 * (a * a + b * b), 0) < 1e-14, "pixel %d variance %.17g",
			  i, var[i]);
	}
	/* σ² = 0: no uncertainty */
	CHECK(gsu_image_variance(w, h, img, 0.0, var) == GSU_OK, "σ² = 0");
	for (i = 0; i < n; i++)
		CHECK(var[i] == 0.0, "σ² = 0 pixel %d: %g", i, var[i]);
	free(img);
	free(gx);
	free(gy);
	free(var);
}

/* Hand-computed differences: central inside, one-sided at borders, 0 on an axis of length 1. */
static void
test_image_gradient_hand(void)
{
	/*
	 * 4×3 image       gx (x = columns)          gy (y = rows)
	 *  1  2  4  8      1   1.5   3    4          3   4    5.5  8
	 *  4  6  9 16      2   2.5   5    7          4   5.5  5.5  9
	 *  9 13 15 26      4   3     6.5  11         5   7    6    10
	 */
	static const double img[] = {1, 2, 4, 8, 4, 6, 9, 16, 9, 13, 15, 26};
	static const double egx[] = {1, 1.5, 3, 4, 2, 2.5, 5, 7, 4, 3, 6.5, 11};
	static const double egy[] = {3, 4, 5, 8, 4, 5.5, 5.5, 9, 5, 7, 6, 10};
	static const double row[] = {3, 1, 4, 1, 5};
	double		gx[12],
				gy[12],
				var[12];
	int			i;

	CHECK(gsu_image_gradient(4, 3, img, gx, gy) == GSU_OK, "gradient");
	for (i = 0; i < 12; i++)
		CHECK(gx[i] == egx[i] && gy[i] == egy[i], "pixel %d: (%g, %g), expected (%g, %g)",
			  i, gx[i], gy[i], egx[i], egy[i]);
	CHECK(gsu_image_variance(4, 3, img, 2.0, var) == GSU_OK, "variance");
	for (i = 0; i < 12; i++)
		CHECK(var[i] == 2.0 * (egx[i] * egx[i] + egy[i] * egy[i]), "variance %d: %g", i, var[i]);

	/* a 5×1 row: gy = 0; gx = −2, 0.5, 0, 0.5, 4 */
	CHECK(gsu_image_gradient(5, 1, row, gx, gy) == GSU_OK, "row");
	CHECK(gx[0] == -2 && gx[1] == 0.5 && gx[2] == 0 && gx[3] == 0.5 && gx[4] == 4,
		  "row gx %g %g %g %g %g", gx[0], gx[1], gx[2], gx[3], gx[4]);
	for (i = 0; i < 5; i++)
		CHECK(gy[i] == 0.0, "row gy[%d] = %g", i, gy[i]);
	/* the same values as a 1×5 column: the roles swap */
	CHECK(gsu_image_gradient(1, 5, row, gx, gy) == GSU_OK, "column");
	CHECK(gy[0] == -2 && gy[1] == 0.5 && gy[2] == 0 && gy[3] == 0.5 && gy[4] == 4, "column gy");
	for (i = 0; i < 5; i++)
		CHECK(gx[i] == 0.0, "column gx[%d] = %g", i, gx[i]);
	/* 1×1: no derivative at all */
	CHECK(gsu_image_variance(1, 1, row, 5.0, var) == GSU_OK && var[0] == 0.0, "1×1");
}

/* Argument checks and overflow. */
static void
test_image_errors(void)
{
	static const double img[] = {0, 1, 2, 3};
	static const double big[] = {-1e308, 1e308, -1e308, 1e308};
	static const double mid[] = {0, 1e150, 0, 1e150};
	double		gx[4],
				gy[4],
				out[16];

	CHECK(gsu_image_gradient(0, 4, img, gx, gy) == GSU_EINVAL, "w = 0");
	CHECK(gsu_image_gradient(4, -1, img, gx, gy) == GSU_EINVAL, "h < 0");
	CHECK(gsu_image_variance(2, 2, img, -1.0, out) == GSU_EINVAL, "σ² < 0");
	CHECK(gsu_image_variance(2, 2, img, NAN, out) == GSU_EINVAL, "σ² NaN");
	CHECK(gsu_image_variance(2, 2, img, INFINITY, out) == GSU_EINVAL, "σ² Inf");
	CHECK(gsu_image_covariance(4, gx, gy, -0.5, out) == GSU_EINVAL, "covariance σ² < 0");
	/* one-sided differences of ±1e308 overflow */
	CHECK(gsu_image_variance(2, 2, big, 1.0, out) == GSU_ENOTFINITE, "difference overflows");
	CHECK(gsu_image_gradient(2, 2, big, gx, gy) == GSU_OK, "gradient itself returns");
	CHECK(gsu_image_covariance(4, gx, gy, 1.0, out) == GSU_ENOTFINITE, "covariance overflows");
	/* g² = 1e300 is finite, σ²g² overflows for σ² = 1e10 */
	CHECK(gsu_image_variance(2, 2, mid, 1.0, out) == GSU_OK && out[0] == 1e150 * 1e150,
		  "large but finite");
	CHECK(gsu_image_variance(2, 2, mid, 1e10, out) == GSU_ENOTFINITE, "σ²g² overflows");
	CHECK(gsu_image_gradient(2, 2, mid, gx, gy) == GSU_OK &&
		  gsu_image_covariance(4, gx, gy, 1e10, out) == GSU_ENOTFINITE, "covariance σ²g² overflows");
}

/* A smooth test image, and its bilinear interpolant extended linearly past the border. */
static double
smooth_pixel(int x, int y)
{
	return sin(0.25 * x + 0.1) + cos(0.3 * y + 0.2) + 0.02 * x * y;
}

static double
bilinear(const double *img, int w, int h, double px, double py)
{
	/* the cell [x0, x0+1] × [y0, y0+1] containing (px, py), clamped to the image */
	int			x0 = (int) floor(px),
				y0 = (int) floor(py);
	double		fx,
				fy;

	if (x0 < 0)
		x0 = 0;
	if (x0 > w - 2)
		x0 = w - 2;
	if (y0 < 0)
		y0 = 0;
	if (y0 > h - 2)
		y0 = h - 2;
	fx = px - x0;				/* may leave [0, 1]: linear extrapolation */
	fy = py - y0;
	return (1 - fx) * (1 - fy) * img[y0 * w + x0] + fx * (1 - fy) * img[y0 * w + x0 + 1] +
		(1 - fx) * fy * img[(y0 + 1) * w + x0] + fx * fy * img[(y0 + 1) * w + x0 + 1];
}

/*
 * The first-order covariance against a Monte Carlo estimate: translate the
 * image by t ~ N(0, σ²I₂) with bilinear interpolation and take the sample
 * covariance of the translated images (two-pass, long double).  Also checks
 * that Σ is symmetric, its diagonal is gsu_image_variance bit for bit, and
 * it equals J Σ_t Jᵀ formed with an explicit 2×2 Σ_t.
 */
static void
test_image_covariance_mc(void)
{
	int			w = 6,
				h = 5,
				n = w * h;
	double		sigma = 0.05,
				s2 = sigma * sigma;
	int			m = quick ? 4000 : 100000;
	double	   *img = xcalloc((size_t) n, sizeof(double));
	double	   *gx = xcalloc((size_t) n, sizeof(double));
	double	   *gy = xcalloc((size_t) n, sizeof(double));
	double	   *var = xcalloc((size_t) n, sizeof(double));
	double	   *cov = xcalloc((size_t) n * n, sizeof(double));
	double	   *samples = xcalloc((size_t) m * n, sizeof(double));
	long double *mean = xcalloc((size_t) n, sizeof(long double));
	long double *mc = xcalloc((size_t) n * n, sizeof(long double));
	long double err2 = 0,
				norm2 = 0,
				mc_err2 = 0;
	gsu_rng		r;
	int			x,
				y,
				i,
				j,
				k;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			img[y * w + x] = smooth_pixel(x, y);
	CHECK(gsu_image_gradient(w, h, img, gx, gy) == GSU_OK, "gradient");
	CHECK(gsu_image_variance(w, h, img, s2, var) == GSU_OK, "variance");
	CHECK(gsu_image_covariance((size_t) n, gx, gy, s2, cov) == GSU_OK, "covariance");

	/* structure: symmetric, diagonal = variance, = J Σ_t Jᵀ */
	for (i = 0; i < n; i++)
	{
		CHECK(cov[i * n + i] == var[i], "diagonal %d: %.17g vs %.17g", i, cov[i * n + i], var[i]);
		for (j = 0; j < n; j++)
		{
			double		st[2][2] = {{s2, 0}, {0, s2}};
			double		ji[2] = {gx[i], gy[i]},
						jj[2] = {gx[j], gy[j]},
						ref = 0;
			int			p,
						q;

			for (p = 0; p < 2; p++)
				for (q = 0; q < 2; q++)
					ref += ji[p] * st[p][q] * jj[q];
			CHECK(cov[i * n + j] == cov[j * n + i], "asymmetric at %d,%d", i, j);
			CHECK(fabs(cov[i * n + j] - ref) <= 1e-15 * s2 * (fabs(gx[i] * gx[j]) + fabs(gy[i] * gy[j])) + 1e-300,
				  "J Σ_t Jᵀ at %d,%d: %.17g vs %.17g", i, j, cov[i * n + j], ref);
		}
	}

	/* Monte Carlo */
	gsu_rng_seed(&r, 2018);
	for (k = 0; k < m; k++)
	{
		double		tx = sigma * gsu_rng_normal(&r),
					ty = sigma * gsu_rng_normal(&r);

		for (y = 0; y < h; y++)
			for (x = 0; x < w; x++)
				samples[(size_t) k * n + y * w + x] = bilinear(img, w, h, x + tx, y + ty);
	}
	for (i = 0; i < n; i++)
	{
		for (k = 0; k < m; k++)
			mean[i] += samples[(size_t) k * n + i];
		mean[i] /= m;
	}
	for (k = 0; k < m; k++)
		for (i = 0; i < n; i++)
		{
			long double di = samples[(size_t) k * n + i] - mean[i];

			for (j = i; j < n; j++)
				mc[i * n + j] += di * (samples[(size_t) k * n + j] - mean[j]);
		}
	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
		{
			long double e = mc[i * n + j] / (m - 1) - cov[i * n + j];

			err2 += (i == j ? 1 : 2) * e * e;
			norm2 += (i == j ? 1 : 2) * (long double) cov[i * n + j] * cov[i * n + j];
		}
	/*
	 * Sampling error of a covariance is at most ~√(2/m) of its scale;
	 * bilinear interpolation differentiates one-sidedly, which departs from
	 * the central difference by O((∂²I)²/4), a fraction of a percent here.
	 */
	{
		double		rel = sqrt((double) (err2 / norm2));
		double		tol = 0.005 + 2.0 * sqrt(2.0 / m);

		CHECK(rel < tol, "Monte Carlo relative Frobenius error %.4f > %.4f", rel, tol);
		if (getenv("GSU_TEST_VERBOSE"))
			fprintf(stderr, "Monte Carlo rel %.4g tol %.4g\n", rel, tol);
		/* and the test can fail: dropping the ∂I/∂y part is detected */
		for (i = 0; i < n; i++)
			for (j = i; j < n; j++)
			{
				double		wrong = s2 * gx[i] * gx[j];
				long double e = mc[i * n + j] / (m - 1) - wrong;

				mc_err2 += (i == j ? 1 : 2) * e * e;
			}
		if (getenv("GSU_TEST_VERBOSE"))
			fprintf(stderr, "wrong rel %.4g\n", sqrt((double) (mc_err2 / norm2)));
		CHECK(sqrt((double) (mc_err2 / norm2)) > 3 * tol,
			  "a wrong covariance passes: %.4f", sqrt((double) (mc_err2 / norm2)));
	}
	free(img);
	free(gx);
	free(gy);
	free(var);
	free(cov);
	free(samples);
	free(mean);
	free(mc);
}

/* Ramp under the Monte Carlo: bilinear translation is exact, so only sampling error remains. */
static void
test_image_ramp_mc(void)
{
	int			w = 4,
				h = 3,
				n = 12,
				m = quick ? 4000 : 200000,
				k,
				x,
				y;
	double		img[12],
				var[12],
				sigma = 0.3;
	long double s = 0,
				ss = 0;
	gsu_rng		r;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			img[y * w + x] = 2.0 * x - 1.0 * y + 5.0;
	CHECK(gsu_image_variance(w, h, img, sigma * sigma, var) == GSU_OK, "variance");
	gsu_rng_seed(&r, 99);
	/* the corner pixel (w−1, h−1): extrapolates past both borders half the time */
	for (k = 0; k < m; k++)
	{
		double		v = bilinear(img, w, h, (w - 1) + sigma * gsu_rng_normal(&r),
								 (h - 1) + sigma * gsu_rng_normal(&r));

		s += v;
		ss += (long double) v * v;
	}
	{
		double		mcv = (double) ((ss - s * s / m) / (m - 1));

		CHECK(fabs(mcv - var[n - 1]) < 5.0 * sqrt(2.0 / m) * var[n - 1],
			  "corner Monte Carlo variance %.6g vs %.6g", mcv, var[n - 1]);
		CHECK(reldiff(var[n - 1], 0.09 * 5.0, 0) < 1e-15, "corner variance %.17g", var[n - 1]);
	}
}

/* ------------------------------------------------------------- main */

static const gsu_test_case tests[] = {
	{"welford_ill_conditioned", test_welford_ill_conditioned},
	{"full_covariance", test_full_covariance},
	{"hand_values", test_hand_values},
	{"merge", test_merge},
	{"merge_edges", test_merge_edges},
	{"validate", test_validate},
	{"overflow", test_overflow},
	{"image_ramp", test_image_ramp},
	{"image_gradient_hand", test_image_gradient_hand},
	{"image_errors", test_image_errors},
	{"image_covariance_mc", test_image_covariance_mc},
	{"image_ramp_mc", test_image_ramp_mc},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
