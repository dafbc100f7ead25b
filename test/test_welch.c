/*
 * test_welch.c — unit tests of src/core/gsu_welch.c (Welch band powers with
 * FFTW) and src/core/gsu_fisher.c (Fisher's score per feature).
 *
 * References are computed here independently: a direct O(L²) DFT in long
 * double, Parseval's identity, a sinusoid of known amplitude, per-segment
 * values averaged by a two-pass formula, hand-computed Fisher scores.
 * Deterministic (a fixed LCG).
 *
 * Output: diagnostics on stderr, then exactly one line "N passed, M failed"
 * on stdout; non-zero exit status when a test failed.
 */
#include "gsu_core.h"
#include "gsu_test.h"
#include "gsu_fisher.h"
#include "gsu_moments.h"
#include "gsu_welch.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static uint64_t rng_state = 88172645463325252ULL;

/* uniform in [−1, 1) */
static double
urand(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double) (rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static const double default_lo[] = {4, 8, 8, 12, 30};
static const double default_hi[] = {8, 10, 12, 30, 64};

static gsu_welch_params
params(double fs, int L, int step)
{
	gsu_welch_params p;

	memset(&p, 0, sizeof(p));
	p.fs = fs;
	p.segment_length = L;
	p.step = step;
	p.window = GSU_WINDOW_HANN;
	p.detrend = GSU_DETREND_CONSTANT;
	p.scale = GSU_SCALE_LOG;
	p.floor = 0.0;
	p.ddof = 1;
	p.nbands = 5;
	p.lo = default_lo;
	p.hi = default_hi;
	return p;
}

/* ---------------------------------------------------------- windows */

static void
test_hann_window(void)
{
	int			sizes[] = {3, 4, 7, 64, 255, 256};
	size_t		i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		int			L = sizes[i];
		double	   *w = xcalloc((size_t) L, sizeof(double));
		double		s2 = 0.0;
		int			t;

		gsu_welch_window(GSU_WINDOW_HANN, L, w);
		/* periodic ("DFT-even"): w_0 = 0, w_t = w_{L−t}, peak 1 at L/2 for even L */
		CHECK(w[0] == 0.0, "L %d w0 %g", L, w[0]);
		for (t = 1; t < L; t++)
			CHECK_CLOSE(w[t], w[L - t], 1e-15);
		if (L % 2 == 0)
			CHECK_CLOSE(w[L / 2], 1.0, 1e-15);
		for (t = 0; t < L; t++)
		{
			CHECK(w[t] >= 0.0 && w[t] <= 1.0, "L %d w[%d] = %g", L, t, w[t]);
			CHECK_CLOSE(w[t], pow(sin(PI * t / L), 2), 1e-15);
			s2 += w[t] * w[t];
		}
		/* Σ w² = 3L/8 for the periodic Hann window, L ≥ 3 */
		CHECK_CLOSE(s2, 3.0 * L / 8.0, 1e-12 * L);
		gsu_welch_window(GSU_WINDOW_HAMMING, L, w);
		CHECK_CLOSE(w[0], 0.08, 1e-15);
		gsu_welch_window(GSU_WINDOW_RECTANGULAR, L, w);
		for (t = 0; t < L; t++)
			CHECK(w[t] == 1.0, "rectangular w[%d] = %g", t, w[t]);
		free(w);
	}
}

/* ------------------------------------------------ periodogram vs DFT */

/* the density by a direct DFT in long double, with the same detrend and window */
static void
direct_psd(const double *x, int L, double fs, int window, int detrend, long double *psd)
{
	double	   *w = xcalloc((size_t) L, sizeof(double));
	long double *z = xcalloc((size_t) L, sizeof(long double));
	long double mean = 0,
				slope = 0,
				tbar = (L - 1) / 2.0L,
				s2 = 0;
	int			t,
				j;

	gsu_welch_window(window, L, w);
	for (t = 0; t < L; t++)
		mean += x[t];
	mean /= L;
	if (detrend == GSU_DETREND_LINEAR)
	{
		long double sxy = 0,
					sxx = 0;

		for (t = 0; t < L; t++)
		{
			sxy += (t - tbar) * (x[t] - mean);
			sxx += (t - tbar) * (t - tbar);
		}
		slope = sxy / sxx;
	}
	if (detrend == GSU_DETREND_NONE)
		mean = 0;
	for (t = 0; t < L; t++)
	{
		z[t] = w[t] * (x[t] - mean - slope * (t - tbar));
		s2 += (long double) w[t] * w[t];
	}
	for (j = 0; j <= L / 2; j++)
	{
		long double re = 0,
					im = 0;

		for (t = 0; t < L; t++)
		{
			long double a = -2.0L * 3.14159265358979323846264338327950288L *
				(long double) (((int64_t) j * t) % L) / L;

			re += z[t] * cosl(a);
			im += z[t] * sinl(a);
		}
		psd[j] = (j == 0 || 2 * j == L ? 1.0L : 2.0L) * (re * re + im * im) / (fs * s2);
	}
	free(w);
	free(z);
}

static void
test_periodogram_matches_dft(void)
{
	int			sizes[] = {2, 3, 16, 37, 64, 100, 127};
	int			windows[] = {GSU_WINDOW_HANN, GSU_WINDOW_HAMMING, GSU_WINDOW_RECTANGULAR};
	int			detrends[] = {GSU_DETREND_NONE, GSU_DETREND_CONSTANT, GSU_DETREND_LINEAR};
	static const double lo0 = 0.0,
				hi0 = 125.0;		/* [0, fs/2] */
	size_t		i,
				a,
				b;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		int			L = sizes[i];
		double	   *x = xcalloc((size_t) L, sizeof(double));
		double	   *psd = xcalloc((size_t) L / 2 + 1, sizeof(double));
		long double *ref = xcalloc((size_t) L / 2 + 1, sizeof(long double));
		gsu_rfft   *f;
		int			t,
					j;

		for (t = 0; t < L; t++)
			x[t] = 3.0 + 0.01 * t + urand();
		CHECK(gsu_rfft_create(L, &f) == GSU_OK, "create %d", L);
		CHECK(gsu_rfft_length(f) == L, "length");
		for (a = 0; a < 3; a++)
			for (b = 0; b < 3; b++)
			{
				gsu_welch_params p = params(250.0, L, L);
				long double peak = 0;

				p.window = windows[a];
				p.detrend = detrends[b];
				p.nbands = 1;
				p.lo = &lo0;
				p.hi = &hi0;
				CHECK(gsu_welch_periodogram(f, x, &p, psd) == GSU_OK, "periodogram L %d", L);
				direct_psd(x, L, 250.0, windows[a], detrends[b], ref);
				for (j = 0; j <= L / 2; j++)
					if (ref[j] > peak)
						peak = ref[j];
				for (j = 0; j <= L / 2; j++)
					CHECK(fabsl(psd[j] - ref[j]) <= 1e-12L * peak + 1e-300L,
						  "L %d window %d detrend %d bin %d: %.17g vs %.17Lg", L,
						  windows[a], detrends[b], j, psd[j], ref[j]);
			}
		gsu_rfft_destroy(f);
		free(x);
		free(psd);
		free(ref);
	}
}

/* Σ_j P_j Δf = Σ_t z_t² / Σ_t w_t² (Parseval, one-sided) */
static void
test_parseval(void)
{
	int			L = 200;
	double		x[200],
				w[200],
				psd[101];
	static const double lo0 = 0.0,
				hi0 = 50.0;
	gsu_welch_params p = params(100.0, L, L);
	gsu_rfft   *f;
	double		lhs = 0,
				rhs = 0,
				s2 = 0;
	int			t;

	p.detrend = GSU_DETREND_NONE;
	p.nbands = 1;
	p.lo = &lo0;
	p.hi = &hi0;
	for (t = 0; t < L; t++)
		x[t] = urand();
	gsu_welch_window(GSU_WINDOW_HANN, L, w);
	CHECK(gsu_rfft_create(L, &f) == GSU_OK, "create");
	CHECK(gsu_welch_periodogram(f, x, &p, psd) == GSU_OK, "periodogram");
	for (t = 0; t <= L / 2; t++)
		lhs += psd[t] * (100.0 / L);
	for (t = 0; t < L; t++)
	{
		rhs += (w[t] * x[t]) * (w[t] * x[t]);
		s2 += w[t] * w[t];
	}
	CHECK_CLOSE(lhs, rhs / s2, 1e-13);
	gsu_rfft_destroy(f);
}

/* ------------------------------------------------------ band edges */

static void
test_band_bins(void)
{
	/* fs 128, L 256: bins every 0.5 Hz, Nyquist bin 128 at 64 Hz */
	CHECK(gsu_welch_band_bins(128, 256, 4, 8) == 8, "theta %d", gsu_welch_band_bins(128, 256, 4, 8));
	CHECK(gsu_welch_band_bins(128, 256, 8, 10) == 4, "slow alpha");
	CHECK(gsu_welch_band_bins(128, 256, 8, 12) == 8, "alpha");
	CHECK(gsu_welch_band_bins(128, 256, 12, 30) == 36, "beta");
	/* up to fs/2: bins 60 … 128, the Nyquist bin included */
	CHECK(gsu_welch_band_bins(128, 256, 30, 64) == 69, "gamma %d", gsu_welch_band_bins(128, 256, 30, 64));
	/* odd L: no bin at fs/2; 30·255/128 = 59.8, so bins 60 … 127 */
	CHECK(gsu_welch_band_bins(128, 255, 30, 64) == 68, "gamma odd %d", gsu_welch_band_bins(128, 255, 30, 64));
	/* a band narrower than a bin, between two bins */
	CHECK(gsu_welch_band_bins(128, 256, 4.1, 4.4) == 0, "empty");
	CHECK(gsu_welch_band_bins(128, 256, 4.0, 4.4) == 1, "one bin");
	CHECK(gsu_welch_band_bins(128, 256, 0, 64) == 129, "all");
}

/* ---------------------------------------------------------- segments */

static void
test_segment_count(void)
{
	int			n = 1000;
	double	   *x = xcalloc((size_t) n, sizeof(double));
	double		mean[5],
				var[5];
	gsu_welch_info info;
	gsu_welch_params p;
	int			t;

	/* (1000 − 256)/128 = 5.8: 6 segments of 256 at 50 % overlap; the last 104 samples unused */
	CHECK(gsu_welch_segments(1000, 256, 128) == 6, "50%%");
	CHECK(gsu_welch_segments(1000, 256, 256) == 3, "no overlap");
	CHECK(gsu_welch_segments(1000, 256, 64) == 12, "75%%");
	CHECK(gsu_welch_segments(256, 256, 128) == 1, "one");
	CHECK(gsu_welch_segments(255, 256, 128) == 0, "too short");
	CHECK(gsu_welch_segments(1000, 1, 1) == 1000, "step 1");
	for (t = 0; t < n; t++)
		x[t] = urand();
	p = params(128, 256, 128);
	CHECK(gsu_welch(x, n, &p, NULL, mean, var, &info, NULL) == GSU_OK, "welch");
	CHECK(info.segments == 6, "segments %lld", (long long) info.segments);
	/* the unused tail changes nothing */
	for (t = 6 * 128 + 128; t < n; t++)
		x[t] = 1e6;
	{
		double		mean2[5],
					var2[5];
		int			b;

		CHECK(gsu_welch(x, n, &p, NULL, mean2, var2, &info, NULL) == GSU_OK, "welch 2");
		for (b = 0; b < 5; b++)
			CHECK(mean2[b] == mean[b] && var2[b] == var[b], "band %d", b);
	}
	free(x);
}

/* gsu_welch against per-segment periodograms summed by hand, two-pass moments */
static void
test_welch_matches_segments(void)
{
	int			n = 3000,
				L = 256,
				S = 100;
	double	   *x = xcalloc((size_t) n, sizeof(double));
	double	   *psd = xcalloc((size_t) L / 2 + 1, sizeof(double));
	int			scales[] = {GSU_SCALE_LOG, GSU_SCALE_LOG10, GSU_SCALE_DB, GSU_SCALE_LINEAR};
	size_t		si;
	int			t;

	for (t = 0; t < n; t++)
		x[t] = 5.0 + sin(0.3 * t) + 0.5 * urand() + (t > 1500 ? 2.0 * sin(1.7 * t) : 0.0);
	for (si = 0; si < 4; si++)
	{
		gsu_welch_params p = params(128, L, S);
		int64_t		K = gsu_welch_segments(n, L, S),
					k;
		double		mean[5],
					var[5],
				   *v = xcalloc((size_t) K * 5, sizeof(double));
		gsu_welch_info info;
		gsu_rfft   *f;
		int			b,
					ddof;

		p.scale = scales[si];
		CHECK(gsu_rfft_create(L, &f) == GSU_OK, "create");
		for (k = 0; k < K; k++)
		{
			CHECK(gsu_welch_periodogram(f, x + k * S, &p, psd) == GSU_OK, "psd");
			for (b = 0; b < 5; b++)
			{
				long double pw = 0;
				int			j;

				for (j = 0; j <= L / 2; j++)
				{
					double		fj = j * 128.0 / L;

					if ((fj >= p.lo[b] && fj < p.hi[b]) || (j == L / 2 && p.hi[b] == 64))
						pw += psd[j];
				}
				pw *= 128.0L / L;
				v[k * 5 + b] = p.scale == GSU_SCALE_LINEAR ? (double) pw :
					p.scale == GSU_SCALE_LOG10 ? log10((double) pw) :
					p.scale == GSU_SCALE_DB ? 10 * log10((double) pw) : log((double) pw);
			}
		}
		for (ddof = 0; ddof <= 1; ddof++)
		{
			p.ddof = ddof;
			/* the plan given, or made inside */
			CHECK(gsu_welch(x, n, &p, (ddof ? f : NULL), mean, var, &info, NULL) == GSU_OK, "welch");
			CHECK(info.segments == K, "K");
			for (b = 0; b < 5; b++)
			{
				long double m = 0,
							ss = 0;

				for (k = 0; k < K; k++)
					m += v[k * 5 + b];
				m /= K;
				for (k = 0; k < K; k++)
					ss += (v[k * 5 + b] - m) * (v[k * 5 + b] - m);
				CHECK(fabsl(mean[b] - m) <= 1e-12L * fabsl(m) + 1e-14L,
					  "scale %d band %d mean %.17g vs %.17Lg", p.scale, b, mean[b], m);
				CHECK(fabsl(var[b] - ss / (K - ddof)) <= 1e-10L * ss / (K - ddof) + 1e-20L,
					  "scale %d band %d var %.17g vs %.17Lg", p.scale, b, var[b], ss / (K - ddof));
			}
		}
		gsu_rfft_destroy(f);
		free(v);
	}
	free(x);
	free(psd);
}

/* ------------------------------------------------------- sinusoids */

/*
 * A·sin(2πf₀t/fs) with f₀ on a bin: the Hann window spreads it over exactly
 * the three bins around f₀, so the band that holds them has power A²/2 in
 * every segment (mean log(A²/2), variance 0), and the other bands nothing
 * but rounding.  Off a bin, leakage leaves a little outside the band.
 */
static void
test_sinusoid_in_band(void)
{
	double		fs = 128.0,
				A = 3.0;
	int			n = 128 * 20,
				L = 256;
	double	   *x = xcalloc((size_t) n, sizeof(double));
	double		f0s[] = {11.0, 20.5, 45.0, 6.0, 20.3};
	int			bands[] = {2, 3, 4, 0, 3};	/* alpha, beta, gamma, theta, beta */
	size_t		i;

	for (i = 0; i < sizeof(f0s) / sizeof(f0s[0]); i++)
	{
		gsu_welch_params p = params(fs, L, L / 2);
		double		mean[5],
					var[5];
		gsu_welch_info info;
		int			on_bin = (f0s[i] * L / fs == floor(f0s[i] * L / fs));
		int			t,
					b;

		p.scale = GSU_SCALE_LINEAR;
		p.detrend = GSU_DETREND_NONE;
		for (t = 0; t < n; t++)
			x[t] = A * sin(2.0 * PI * f0s[i] * t / fs);
		CHECK(gsu_welch(x, n, &p, NULL, mean, var, &info, NULL) == GSU_OK, "welch");
		CHECK(info.segments == 19, "segments %lld", (long long) info.segments);
		for (b = 0; b < 5; b++)
		{
			int			holds = (f0s[i] >= p.lo[b] && f0s[i] < p.hi[b]);

			if (b == bands[i] || holds)
			{
				CHECK(fabs(mean[b] - A * A / 2) <= (on_bin ? 1e-12 : 2e-3) * A * A,
					  "f0 %g band %d power %.17g", f0s[i], b, mean[b]);
				if (on_bin)
					CHECK(var[b] <= 1e-20, "f0 %g band %d var %g", f0s[i], b, var[b]);
			}
			else
				CHECK(mean[b] <= (on_bin ? 1e-20 : 2e-3 * A * A),
					  "f0 %g band %d leaks %g", f0s[i], b, mean[b]);
		}
		/* the natural log of A²/2 */
		p.scale = GSU_SCALE_LOG;
		p.floor = 1e-30;
		CHECK(gsu_welch(x, n, &p, NULL, mean, var, &info, NULL) == GSU_OK, "welch log");
		if (on_bin)
			CHECK_CLOSE(mean[bands[i]], log(A * A / 2), 1e-12);
	}
	free(x);
}

/* ---------------------------------------------------- bad inputs */

static void
test_bad_inputs(void)
{
	int			n = 1024;
	double	   *x = xcalloc((size_t) n, sizeof(double));
	double		mean[5],
				var[5];
	gsu_welch_info info;
	gsu_welch_params p;
	gsu_rfft   *f;
	static const double lo_bad[] = {8},
				hi_bad[] = {4},
				hi_over[] = {65},
				lo_neg[] = {-1};
	int			t;

	for (t = 0; t < n; t++)
		x[t] = urand();
#define EXPECT(status, mutate) \
	do { \
		p = params(128, 256, 128); \
		mutate; \
		CHECK(gsu_welch(x, n, &p, NULL, mean, var, &info, NULL) == (status), "%s", #mutate); \
	} while (0)
	EXPECT(GSU_OK, (void) 0);
	EXPECT(GSU_EINVAL, p.fs = 0);
	EXPECT(GSU_EINVAL, p.fs = -1);
	EXPECT(GSU_EINVAL, p.fs = NAN);
	EXPECT(GSU_EINVAL, p.segment_length = 1);
	EXPECT(GSU_EINVAL, p.segment_length = GSU_WELCH_MAX_SEGMENT + 1);
	EXPECT(GSU_EINVAL, p.step = 0);
	EXPECT(GSU_EINVAL, p.step = 257);
	EXPECT(GSU_EINVAL, p.nbands = 0);
	EXPECT(GSU_EINVAL, (p.nbands = 1, p.lo = lo_bad, p.hi = hi_bad));
	EXPECT(GSU_EINVAL, (p.nbands = 1, p.lo = default_lo, p.hi = hi_over));
	EXPECT(GSU_EINVAL, (p.nbands = 1, p.lo = lo_neg, p.hi = default_hi));
	EXPECT(GSU_EINVAL, p.floor = -1);
	EXPECT(GSU_EINVAL, p.ddof = 2);
	EXPECT(GSU_EINVAL, p.scale = 7);
	/* a single segment: the sample variance is undefined, the population one is 0 */
	EXPECT(GSU_EINVAL, p.segment_length = p.step = 1024);
	EXPECT(GSU_OK, (p.segment_length = p.step = 1024, p.ddof = 0));
	/* longer than the signal */
	EXPECT(GSU_EINVAL, (p.segment_length = 2048, p.step = 1024));
	CHECK(info.segments == 0, "segments %lld", (long long) info.segments);
	/* a plan of another length */
	CHECK(gsu_rfft_create(128, &f) == GSU_OK, "create");
	p = params(128, 256, 128);
	CHECK(gsu_welch(x, n, &p, f, mean, var, &info, NULL) == GSU_EINVAL, "plan length");
	gsu_rfft_destroy(f);
	CHECK(gsu_rfft_create(1, &f) == GSU_EINVAL && f == NULL, "create 1");
	CHECK(gsu_rfft_create(GSU_WELCH_MAX_SEGMENT + 1, &f) == GSU_EINVAL, "create max");
	gsu_rfft_destroy(NULL);

	/* overflow */
	for (t = 0; t < n; t++)
		x[t] = (t % 2 ? 1e300 : -1e300);
	EXPECT(GSU_ENOTFINITE, (void) 0);

	/* zero power under a log: which band, which segment; a floor or a linear scale take it */
	memset(x, 0, sizeof(double) * n);
	for (t = 512; t < n; t++)
		x[t] = urand();
	EXPECT(GSU_EINVAL, (void) 0);
	CHECK(info.zero_band == 0 && info.zero_segment == 0, "band %d segment %lld",
		  info.zero_band, (long long) info.zero_segment);
	EXPECT(GSU_OK, p.scale = GSU_SCALE_LINEAR);
	CHECK(mean[0] > 0 && var[0] > 0, "linear");
	EXPECT(GSU_OK, p.floor = 1e-12);
	CHECK(mean[0] < 0 && var[0] > 0, "floored");
	memset(x, 0, sizeof(double) * n);
	EXPECT(GSU_OK, p.floor = 1e-12);
	for (t = 0; t < 5; t++)
	{
		CHECK_CLOSE(mean[t], log(1e-12), 1e-12);
		CHECK(var[t] == 0.0, "var %g", var[t]);
	}

	/* a cancel stops at the first tick, and frees everything (valgrind) */
	{
		int			calls = 0;
		gsu_progress pg = gsu_progress_make(stop_now, &calls);

		for (t = 0; t < n; t++)
			x[t] = urand();
		p = params(128, 256, 4);
		pg.work = GSU_PROGRESS_WORK;
		CHECK(gsu_welch(x, n, &p, NULL, mean, var, &info, &pg) == GSU_ECANCELLED, "cancel");
		CHECK(calls == 1, "calls %d", calls);
	}
#undef EXPECT
	free(x);
}

/* -------------------------------------------------------- fisher */

static gsu_moments
moments_of(const double *rows, int n, int d, double *store)
{
	gsu_moments m;
	int			i;

	gsu_moments_init(&m, d, 0, store);
	for (i = 0; i < n; i++)
		gsu_moments_add(&m, rows + (size_t) i * d);
	return m;
}

static void
test_fisher_hand(void)
{
	/* pos (1, 2), (3, 2): mean (2, 2), var_s (2, 0); neg (0, 5), (2, 7): mean (1, 6), var_s (2, 2) */
	double		pos_rows[] = {1, 2, 3, 2},
				neg_rows[] = {0, 5, 2, 7};
	double		sp[6],
				sn[6],
				out[2];
	gsu_moments pos = moments_of(pos_rows, 2, 2, sp),
				neg = moments_of(neg_rows, 2, 2, sn);

	CHECK(gsu_fisher_score(&pos, &neg, 1, out) == GSU_OK, "sample");
	CHECK_CLOSE(out[0], 1.0 / 4.0, 1e-15);
	CHECK_CLOSE(out[1], 16.0 / 2.0, 1e-14);
	CHECK(gsu_fisher_score(&pos, &neg, 0, out) == GSU_OK, "population");
	CHECK_CLOSE(out[0], 1.0 / 2.0, 1e-15);
	CHECK_CLOSE(out[1], 16.0 / 1.0, 1e-14);
	/* symmetric in the classes */
	CHECK(gsu_fisher_score(&neg, &pos, 1, out) == GSU_OK, "swapped");
	CHECK_CLOSE(out[1], 8.0, 1e-14);
}

static void
test_fisher_degenerate(void)
{
	/* feature 1 constant and equal in both classes: 0; feature 2 constant per class, different: ∞ */
	double		pos_rows[] = {1, 5, 1, 5, 1, 5},
				neg_rows[] = {1, 7, 1, 7};
	double		sp[6],
				sn[6],
				out[2];
	gsu_moments pos = moments_of(pos_rows, 3, 2, sp),
				neg = moments_of(neg_rows, 2, 2, sn);
	gsu_moments one,
				three;
	double		s1[6],
				s3[9];

	CHECK(gsu_fisher_score(&pos, &neg, 1, out) == GSU_OK, "ok");
	CHECK(out[0] == 0.0, "constant %g", out[0]);
	CHECK(isinf(out[1]) && out[1] > 0, "separating %g", out[1]);
	/* one row in a class: the sample variance is undefined, the population one 0 */
	one = moments_of(pos_rows, 1, 2, s1);
	CHECK(gsu_fisher_score(&one, &neg, 1, out) == GSU_EINVAL, "one row");
	CHECK(gsu_fisher_score(&one, &neg, 0, out) == GSU_OK, "one row population");
	three = moments_of(pos_rows, 1, 3, s3);
	CHECK(gsu_fisher_score(&three, &neg, 0, out) == GSU_EINVAL, "dims");
	/* huge but finite: no spurious overflow of δ² or σ⁺² + σ⁻² */
	{
		double		a[] = {1.0e154, 1.2e154},
					b[] = {-1.0e154, -1.2e154};
		double		sa[3],
					sb[3];
		gsu_moments ma = moments_of(a, 2, 1, sa),
					mb = moments_of(b, 2, 1, sb);

		/* δ = 2.2e154 (δ² overflows), σ² = 2e306 each: F = 4.84e308 / 4e306 = 121 */
		CHECK(gsu_fisher_score(&ma, &mb, 1, out) == GSU_OK, "huge");
		CHECK_CLOSE(out[0], 121.0, 1e-10);
	}
}

/* merged partial states give the one-pass score */
static void
test_fisher_merge(void)
{
	int			n = 200,
				d = 4,
				i,
				j;
	double	   *rows = xcalloc((size_t) n * d, sizeof(double));
	double		sp[12],
				sn[12],
				sp1[12],
				sn1[12],
				sp2[12],
				sn2[12],
				out1[4],
				out2[4];
	gsu_moments pos,
				neg,
				pos1,
				neg1,
				pos2,
				neg2;

	for (i = 0; i < n * d; i++)
		rows[i] = 1e6 + urand() + (i % d) * 0.1 * ((i / d) % 2);
	gsu_moments_init(&pos, d, 0, sp);
	gsu_moments_init(&neg, d, 0, sn);
	gsu_moments_init(&pos1, d, 0, sp1);
	gsu_moments_init(&neg1, d, 0, sn1);
	gsu_moments_init(&pos2, d, 0, sp2);
	gsu_moments_init(&neg2, d, 0, sn2);
	for (i = 0; i < n; i++)
	{
		int			label = (i % 2) ? 1 : -1;

		gsu_moments_add(label > 0 ? &pos : &neg, rows + (size_t) i * d);
		if (i % 3 == 0)
			gsu_moments_add(label > 0 ? &pos1 : &neg1, rows + (size_t) i * d);
		else
			gsu_moments_add(label > 0 ? &pos2 : &neg2, rows + (size_t) i * d);
	}
	CHECK(gsu_moments_merge(&pos1, &pos2) == GSU_OK && gsu_moments_merge(&neg1, &neg2) == GSU_OK, "merge");
	CHECK(gsu_fisher_score(&pos, &neg, 1, out1) == GSU_OK, "one pass");
	CHECK(gsu_fisher_score(&pos1, &neg1, 1, out2) == GSU_OK, "merged");
	for (j = 0; j < d; j++)
		CHECK(fabs(out1[j] - out2[j]) <= 1e-10 * fabs(out1[j]) + 1e-14, "feature %d: %.17g vs %.17g",
			  j, out1[j], out2[j]);
	free(rows);
}

static const gsu_test_case tests[] = {
	{"hann_window", test_hann_window},
	{"periodogram_matches_dft", test_periodogram_matches_dft},
	{"parseval", test_parseval},
	{"band_bins", test_band_bins},
	{"segment_count", test_segment_count},
	{"welch_matches_segments", test_welch_matches_segments},
	{"sinusoid_in_band", test_sinusoid_in_band},
	{"bad_inputs", test_bad_inputs},
	{"fisher_hand", test_fisher_hand},
	{"fisher_degenerate", test_fisher_degenerate},
	{"fisher_merge", test_fisher_merge},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
