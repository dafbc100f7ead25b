/*
 * gsu_welch.h — Welch's method (Welch, IEEE Trans. Audio Electroacoust.
 * 15(2), 1967) reduced to per-band log powers, and their mean and variance
 * over the segments: one Gaussian training row per signal, as in the EEG
 * experiment of Tzelepis et al., TPAMI 2018, Sect. 4.4 (DEAP).
 *
 * A signal x_0 … x_{n−1} sampled at fs Hz is cut into K segments of L
 * samples that start every S samples (S = L − overlap samples), so
 * K = ⌊(n − L)/S⌋ + 1; samples after the last full segment are not used
 * (as in scipy.signal.welch).  For each segment k:
 *
 *   detrend   y_t = x_{kS+t} − (its mean), or − (its least-squares line), or nothing
 *   window    z_t = w_t y_t,  Hann (periodic, "DFT-even"): w_t = ½ − ½ cos(2πt/L)
 *             Hamming: w_t = 0.54 − 0.46 cos(2πt/L); rectangular: w_t = 1
 *   DFT       Z_j = Σ_t z_t e^{−2πi jt/L},  j = 0 … ⌊L/2⌋  (FFTW, real to complex)
 *   density   P_j = c_j |Z_j|² / (fs Σ_t w_t²),  c_j = 2 for 0 < j < L/2, else 1
 *             (one-sided power spectral density, scipy's scaling="density")
 *   band      B_b = Σ_{j ∈ b} P_j Δf,  Δf = fs/L,  j ∈ b when lo_b ≤ j·fs/L < hi_b,
 *             or j·fs/L = hi_b = fs/2 (the Nyquist bin belongs to a band that
 *             ends there)
 *   value     v_kb = log(max(B_b, floor)) in the chosen scale (natural log,
 *             log10, decibels 10·log10, or B_b itself)
 *
 * By Parseval, Σ_j P_j Δf = Σ_t z_t² / Σ_t w_t²: B_b is the part of the
 * (window-weighted) mean square of the segment that lies in the band, in
 * signal units squared.  A sinusoid A·sin(2πf₀t) of frequency well inside a
 * band gives B ≈ A²/2 there.
 *
 * The result per band is the mean of v_kb over the K segments and its
 * variance, Σ_k (v_kb − mean)² / (K − ddof), ddof = 1 (sample) or 0
 * (population), computed with Welford's update.
 */
#ifndef GSU_WELCH_H
#define GSU_WELCH_H

#include "gsu_base.h"

/* the longest segment gsu_welch accepts (FFTW aborts when its own allocations fail) */
#define GSU_WELCH_MAX_SEGMENT (1 << 20)

typedef enum gsu_window_kind
{
	GSU_WINDOW_HANN = 0,
	GSU_WINDOW_HAMMING = 1,
	GSU_WINDOW_RECTANGULAR = 2
} gsu_window_kind;

typedef enum gsu_detrend_kind
{
	GSU_DETREND_NONE = 0,
	GSU_DETREND_CONSTANT = 1,
	GSU_DETREND_LINEAR = 2
} gsu_detrend_kind;

typedef enum gsu_power_scale
{
	GSU_SCALE_LOG = 0,			/* natural logarithm */
	GSU_SCALE_LOG10 = 1,
	GSU_SCALE_DB = 2,			/* 10·log10 */
	GSU_SCALE_LINEAR = 3		/* the band power itself */
} gsu_power_scale;

typedef struct gsu_welch_params
{
	double		fs;				/* sampling rate, > 0 */
	int			segment_length; /* L, 2 ≤ L ≤ GSU_WELCH_MAX_SEGMENT */
	int			step;			/* S, 1 ≤ S ≤ L */
	int			window;			/* gsu_window_kind */
	int			detrend;		/* gsu_detrend_kind */
	int			scale;			/* gsu_power_scale */
	double		floor;			/* ≥ 0: powers below it count as it */
	int			ddof;			/* 1 sample, 0 population */
	int			nbands;
	const double *lo;			/* nbands edges, 0 ≤ lo < hi ≤ fs/2 */
	const double *hi;
} gsu_welch_params;

/* What went wrong, for the caller's message (filled by gsu_welch). */
typedef struct gsu_welch_info
{
	int64_t		segments;		/* K */
	int			zero_band;		/* GSU_EINVAL for a zero power under a log scale: its band, else −1 */
	int64_t		zero_segment;	/* and its segment (0-based) */
} gsu_welch_info;

/* An FFTW real-to-complex transform of one length, with its buffers. */
typedef struct gsu_rfft gsu_rfft;

/*
 * A plan of length n (2 ≤ n ≤ GSU_WELCH_MAX_SEGMENT) made with
 * FFTW_ESTIMATE, which measures nothing (so it takes microseconds, and the
 * planner leaves the buffers alone).  FFTW's planner is not thread-safe:
 * create and destroy plans from one thread at a time.  GSU_ENOMEM or
 * GSU_EINVAL (bad n).
 */
gsu_status	gsu_rfft_create(int n, gsu_rfft **out);
void		gsu_rfft_destroy(gsu_rfft *f);
int			gsu_rfft_length(const gsu_rfft *f);

/* K = ⌊(n − L)/S⌋ + 1, or 0 when n < L. */
int64_t		gsu_welch_segments(int64_t n, int segment_length, int step);

/* The number of DFT bins j (0 ≤ j ≤ L/2) that belong to band [lo, hi). */
int			gsu_welch_band_bins(double fs, int segment_length, double lo, double hi);

/* The window w_0 … w_{L−1} of a kind. */
void		gsu_welch_window(int kind, int L, double *w);

/*
 * The one-sided power spectral density of one segment x (L samples,
 * detrended and windowed here): psd[j], j = 0 … L/2, as defined above.
 * f is a plan of length L.  GSU_ENOMEM, GSU_EINVAL (bad parameters) or
 * GSU_ENOTFINITE (the power overflows).
 */
gsu_status	gsu_welch_periodogram(gsu_rfft *f, const double *x, const gsu_welch_params *p,
								  double *psd);

/*
 * The per-band mean and variance of the values v_kb over the segments of
 * x (n samples): mean[b], var[b] for b < nbands.  f is a plan of length L,
 * or NULL (one is made and destroyed here).  pg (NULL allowed) is ticked
 * once per segment.  Needs K ≥ 2 (K ≥ 1 when ddof = 0).
 *
 * GSU_EINVAL: bad parameters (info->zero_band = −1), or a band power of 0
 * under a log scale with floor 0 (info->zero_band, zero_segment say where);
 * GSU_ENOTFINITE: a power or a value overflows; GSU_ENOMEM;
 * GSU_ECANCELLED when pg asked to stop.  Everything allocated here is freed
 * before returning, whatever the status.
 */
gsu_status	gsu_welch(const double *x, int64_t n, const gsu_welch_params *p, gsu_rfft *f,
					  double *mean, double *var, gsu_welch_info *info, gsu_progress *pg);

#endif							/* GSU_WELCH_H */
