/*
 * gsu_welch.c — Welch's method reduced to per-band log powers, with FFTW
 * for the transforms (see gsu_welch.h for the equations).
 */
#include "gsu_welch.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct gsu_rfft
{
	int			n;
	fftw_plan	plan;
	double	   *in;				/* n doubles, fftw_malloc'd (SIMD-aligned) */
	fftw_complex *out;			/* n/2 + 1 complex */
};

gsu_status
gsu_rfft_create(int n, gsu_rfft **out)
{
	gsu_rfft   *f;

	*out = NULL;
	if (n < 2 || n > GSU_WELCH_MAX_SEGMENT)
		return GSU_EINVAL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return GSU_ENOMEM;
	f->n = n;
	f->in = fftw_malloc(sizeof(double) * (size_t) n);
	f->out = fftw_malloc(sizeof(fftw_complex) * ((size_t) n / 2 + 1));
	if (f->in == NULL || f->out == NULL)
	{
		gsu_rfft_destroy(f);
		return GSU_ENOMEM;
	}
	f->plan = fftw_plan_dft_r2c_1d(n, f->in, f->out, FFTW_ESTIMATE);
	if (f->plan == NULL)
	{
		gsu_rfft_destroy(f);
		return GSU_ENOMEM;
	}
	*out = f;
	return GSU_OK;
}

void
gsu_rfft_destroy(gsu_rfft *f)
{
	if (f == NULL)
		return;
	if (f->plan != NULL)
		fftw_destroy_plan(f->plan);
	fftw_free(f->in);
	fftw_free(f->out);
	free(f);
}

int
gsu_rfft_length(const gsu_rfft *f)
{
	return f->n;
}

int64_t
gsu_welch_segments(int64_t n, int segment_length, int step)
{
	if (segment_length < 1 || step < 1 || n < segment_length)
		return 0;
	return (n - segment_length) / step + 1;
}

/* f_j = j·fs/L, the frequency of bin j, as every comparison here computes it */
static inline double
bin_freq(int j, double fs, int L)
{
	return (double) j * fs / (double) L;
}

/* the first bin j ≥ 0 with f_j ≥ v (L/2 + 1 when there is none) */
static int
first_bin_at_or_above(double v, double fs, int L)
{
	int			half = L / 2;
	double		guess = ceil(v * (double) L / fs);
	int			j = guess < 0.0 ? 0 : guess > (double) half + 1.0 ? half + 1 : (int) guess;

	/* the guess is within a bin of the answer; settle it with f_j itself */
	while (j > 0 && bin_freq(j - 1, fs, L) >= v)
		j--;
	while (j <= half && bin_freq(j, fs, L) < v)
		j++;
	return j;
}

/*
 * Bins j of band [lo, hi): lo ≤ f_j < hi, plus j = L/2 (L even: the
 * Nyquist bin, at fs/2 exactly) when hi ≥ fs/2.  They are contiguous:
 * *j0 ≤ j < *j1 (empty when *j1 ≤ *j0).
 */
static void
band_range(double fs, int L, double lo, double hi, int *j0, int *j1)
{
	*j0 = first_bin_at_or_above(lo, fs, L);
	*j1 = first_bin_at_or_above(hi, fs, L);
	if (L % 2 == 0 && hi >= 0.5 * fs && *j1 == L / 2)
		*j1 = L / 2 + 1;
	if (*j1 < *j0)
		*j1 = *j0;
}

int
gsu_welch_band_bins(double fs, int segment_length, double lo, double hi)
{
	int			j0,
				j1;

	band_range(fs, segment_length, lo, hi, &j0, &j1);
	return j1 - j0;
}

void
gsu_welch_window(int kind, int L, double *w)
{
	const double two_pi = 6.283185307179586476925286766559;
	int			t;

	for (t = 0; t < L; t++)
	{
		double		c = cos(two_pi * (double) t / (double) L);

		switch (kind)
		{
			case GSU_WINDOW_HANN:
				w[t] = 0.5 - 0.5 * c;
				break;
			case GSU_WINDOW_HAMMING:
				w[t] = 0.54 - 0.46 * c;
				break;
			default:
				w[t] = 1.0;
				break;
		}
	}
}

static int
params_valid(const gsu_welch_params *p)
{
	int			b;

	if (!(p->fs > 0.0) || !isfinite(p->fs) ||
		p->segment_length < 2 || p->segment_length > GSU_WELCH_MAX_SEGMENT ||
		p->step < 1 || p->step > p->segment_length ||
		p->window < GSU_WINDOW_HANN || p->window > GSU_WINDOW_RECTANGULAR ||
		p->detrend < GSU_DETREND_NONE || p->detrend > GSU_DETREND_LINEAR ||
		p->scale < GSU_SCALE_LOG || p->scale > GSU_SCALE_LINEAR ||
		!(p->floor >= 0.0) || !isfinite(p->floor) ||
		(p->ddof != 0 && p->ddof != 1) || p->nbands < 1)
		return 0;
	for (b = 0; b < p->nbands; b++)
		if (!(p->lo[b] >= 0.0) || !(p->lo[b] < p->hi[b]) || !(p->hi[b] <= 0.5 * p->fs))
			return 0;
	return 1;
}

/*
 * One segment's density into psd (L/2 + 1 values): detrend and window into
 * the plan's input, transform, scale.  wnorm = 1 / (fs Σ w²).
 */
static gsu_status
segment_psd(gsu_rfft *f, const double *x, int detrend, const double *w, double wnorm,
			double *psd)
{
	int			L = f->n;
	int			half = L / 2;
	double		a = 0.0,
				slope = 0.0,
				tbar = 0.5 * (double) (L - 1);
	int			t,
				j;

	if (detrend != GSU_DETREND_NONE)
	{
		/* the mean as Σ x_t/L, which cannot overflow for finite x */
		for (t = 0; t < L; t++)
			a += x[t] / (double) L;
	}
	if (detrend == GSU_DETREND_LINEAR)
	{
		/* least squares: slope = Σ (t − t̄)(x_t − x̄) / Σ (t − t̄)², the latter L(L²−1)/12 */
		double		sxy = 0.0;
		double		sxx = (double) L * ((double) L * (double) L - 1.0) / 12.0;

		for (t = 0; t < L; t++)
			sxy += ((double) t - tbar) * (x[t] - a);
		slope = sxy / sxx;
	}
	for (t = 0; t < L; t++)
		f->in[t] = w[t] * ((x[t] - a) - slope * ((double) t - tbar));
	fftw_execute_dft_r2c(f->plan, f->in, f->out);
	for (j = 0; j <= half; j++)
	{
		double		re = f->out[j][0],
					im = f->out[j][1];
		double		c = (j == 0 || 2 * j == L) ? 1.0 : 2.0;

		psd[j] = c * (re * re + im * im) * wnorm;
		if (!isfinite(psd[j]))
			return GSU_ENOTFINITE;
	}
	return GSU_OK;
}

static double
window_norm(const double *w, int L, double fs)
{
	double		s = 0.0;
	int			t;

	for (t = 0; t < L; t++)
		s += w[t] * w[t];
	return 1.0 / (fs * s);
}

gsu_status
gsu_welch_periodogram(gsu_rfft *f, const double *x, const gsu_welch_params *p, double *psd)
{
	double	   *w;
	gsu_status	s;

	if (f == NULL || f->n != p->segment_length || !params_valid(p))
		return GSU_EINVAL;
	w = malloc(sizeof(double) * (size_t) f->n);
	if (w == NULL)
		return GSU_ENOMEM;
	gsu_welch_window(p->window, f->n, w);
	s = segment_psd(f, x, p->detrend, w, window_norm(w, f->n, p->fs), psd);
	free(w);
	return s;
}

/* v = the band power in the chosen scale; GSU_EINVAL for log 0 */
static gsu_status
scaled_value(double power, const gsu_welch_params *p, double *v)
{
	if (power < p->floor)
		power = p->floor;
	switch (p->scale)
	{
		case GSU_SCALE_LINEAR:
			*v = power;
			return GSU_OK;
		case GSU_SCALE_LOG10:
			*v = log10(power);
			break;
		case GSU_SCALE_DB:
			*v = 10.0 * log10(power);
			break;
		default:
			*v = log(power);
			break;
	}
	return power > 0.0 ? GSU_OK : GSU_EINVAL;
}

gsu_status
gsu_welch(const double *x, int64_t n, const gsu_welch_params *p, gsu_rfft *f,
		  double *mean, double *var, gsu_welch_info *info, gsu_progress *pg)
{
	int			L = p->segment_length;
	int			half = L / 2;
	int			nb = p->nbands;
	int64_t		K,
				k;
	gsu_rfft   *own = NULL;
	double	   *w = NULL,
			   *psd,
			   *m2;
	int		   *j0,
			   *j1;
	double		wnorm,
				df,
				work;
	gsu_status	s = GSU_OK;
	int			b;

	info->segments = 0;
	info->zero_band = -1;
	info->zero_segment = -1;
	if (!params_valid(p) || n < 0)
		return GSU_EINVAL;
	K = gsu_welch_segments(n, L, p->step);
	info->segments = K;
	if (K < 1 + p->ddof || (f != NULL && f->n != L))
		return GSU_EINVAL;
	if (f == NULL)
	{
		s = gsu_rfft_create(L, &own);
		if (s != GSU_OK)
			return s;
		f = own;
	}

	/* one block: window (L), psd (L/2 + 1), M2 (nb), then the bin ranges */
	w = malloc(sizeof(double) * ((size_t) L + (size_t) half + 1 + (size_t) nb) +
			   sizeof(int) * 2 * (size_t) nb);
	if (w == NULL)
	{
		gsu_rfft_destroy(own);
		return GSU_ENOMEM;
	}
	psd = w + L;
	m2 = psd + half + 1;
	j0 = (int *) (m2 + nb);
	j1 = j0 + nb;
	gsu_welch_window(p->window, L, w);
	wnorm = window_norm(w, L, p->fs);
	df = p->fs / (double) L;
	for (b = 0; b < nb; b++)
	{
		band_range(p->fs, L, p->lo[b], p->hi[b], &j0[b], &j1[b]);
		mean[b] = 0.0;
		m2[b] = 0.0;
	}
	/* about the flops of a segment: the transform, the window and the band sums */
	work = 5.0 * L * log2((double) L) + 10.0 * L + nb;

	for (k = 0; k < K && s == GSU_OK; k++)
	{
		if (gsu_progress_tick(pg, work))
		{
			s = GSU_ECANCELLED;
			break;
		}
		s = segment_psd(f, x + k * (int64_t) p->step, p->detrend, w, wnorm, psd);
		for (b = 0; b < nb && s == GSU_OK; b++)
		{
			double		power = 0.0,
						v,
						delta;
			int			j;

			for (j = j0[b]; j < j1[b]; j++)
				power += psd[j];
			power *= df;
			s = scaled_value(power, p, &v);
			if (s == GSU_EINVAL)
			{
				info->zero_band = b;
				info->zero_segment = k;
				break;
			}
			if (!isfinite(power) || !isfinite(v))
			{
				s = GSU_ENOTFINITE;
				break;
			}
			/* Welford: δ = v − mean, mean += δ/(k+1), M2 += δ (v − mean) */
			delta = v - mean[b];
			mean[b] += delta / (double) (k + 1);
			m2[b] += delta * (v - mean[b]);
		}
	}
	if (s == GSU_OK)
		for (b = 0; b < nb; b++)
		{
			var[b] = m2[b] / (double) (K - p->ddof);
			if (!isfinite(mean[b]) || !isfinite(var[b]))
				s = GSU_ENOTFINITE;
		}
	free(w);
	gsu_rfft_destroy(own);
	return s;
}
