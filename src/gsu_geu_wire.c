/*
 * gsu_geu_wire.c — the serialized state of the gsu.geu_fit aggregate
 * (gsu_geu_fit.h), which parallel workers send to the leader: its
 * serialize and deserialize functions, the state read back as hostile
 * input (gsu_wire_error) and counted against gsu.max_training_memory
 * before its buffers are allocated.
 */
#include "gsu_geu_fit.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gsu_geu_fit_serialfn);
PG_FUNCTION_INFO_V1(gsu_geu_fit_deserialfn);

/*
 * Serialized state: a fixed header, then for lda the per-class arrays
 * (labels, counts, means, m2, vdiag, vfull if any), for mfa the rows (x, y,
 * vd if any, vf if any).  Checked as hostile input.
 */
typedef struct GeuWire
{
	uint32		magic;
	int32		dim;
	GeuOptions	opt;
	int64		n;
	int32		uncertain;
	int32		nclass;
	int32		has_a;			/* lda: vfull; mfa: vd */
	int32		has_b;			/* mfa: vf */
} GeuWire;

#define GEU_MAGIC 0x47455531	/* "GEU1" */

Datum
gsu_geu_fit_serialfn(PG_FUNCTION_ARGS)
{
	GeuFitState *st = (GeuFitState *) PG_GETARG_POINTER(0);
	GeuWire		w;
	StringInfoData buf;
	Size		d = st->dim;

	memset(&w, 0, sizeof(w));
	w.magic = GEU_MAGIC;
	w.dim = st->dim;
	w.opt = st->opt;
	w.n = st->n;
	w.uncertain = st->uncertain;
	w.nclass = st->opt.method == GSU_PROJ_LDA ? st->nclass : 0;
	w.has_a = st->opt.method == GSU_PROJ_LDA ? st->vfull != NULL : st->vd != NULL;
	w.has_b = st->opt.method == GSU_PROJ_MFA && st->vf != NULL;
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) &w, sizeof(w));
	if (st->opt.method == GSU_PROJ_LDA && st->nclass > 0)
	{
		Size		c = st->nclass;

		pq_sendbytes(&buf, (const char *) st->labels, sizeof(int32) * c);
		pq_sendbytes(&buf, (const char *) st->counts, sizeof(int64) * c);
		pq_sendbytes(&buf, (const char *) st->means, sizeof(double) * c * d);
		pq_sendbytes(&buf, (const char *) st->m2, sizeof(double) * c * d * d);
		pq_sendbytes(&buf, (const char *) st->vdiag, sizeof(double) * c * d);
		if (st->vfull)
			pq_sendbytes(&buf, (const char *) st->vfull, sizeof(double) * c * d * d);
	}
	else if (st->opt.method == GSU_PROJ_MFA && st->n > 0)
	{
		Size		n = st->n;

		pq_sendbytes(&buf, (const char *) st->x, sizeof(double) * n * d);
		pq_sendbytes(&buf, (const char *) st->y, sizeof(int32) * n);
		if (st->vd)
			pq_sendbytes(&buf, (const char *) st->vd, sizeof(double) * n * d);
		if (st->vf)
			pq_sendbytes(&buf, (const char *) st->vf, sizeof(double) * n * d * d);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* copies count doubles from *p, checking finite (and ≥ 0 on the diagonal of d×d blocks) */
static double *
read_doubles(const char **p, Size count, int nonneg_stride, int dim)
{
	double	   *v = palloc_extended(sizeof(double) * Max(count, 1), MCXT_ALLOC_HUGE);
	Size		i;

	memcpy(v, *p, sizeof(double) * count);
	*p += sizeof(double) * count;
	for (i = 0; i < count; i++)
	{
		if (!isfinite(v[i]))
			gsu_wire_error("gsu.geu_fit", "non-finite value");
		/* nonneg_stride 1: every element ≥ 0; 2: diagonals of dim×dim blocks ≥ 0 */
		if (nonneg_stride == 1 && v[i] < 0.0)
			gsu_wire_error("gsu.geu_fit", "negative variance");
		if (nonneg_stride == 2 && (i % ((Size) dim * dim)) % ((Size) dim + 1) == 0 && v[i] < 0.0)
			gsu_wire_error("gsu.geu_fit", "negative diagonal");
	}
	return v;
}

Datum
gsu_geu_fit_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	MemoryContext aggctx = gsu_agg_context(fcinfo, "gsu_geu_fit_deserialfn");
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in),
				expect,
				d,
				i;
	GeuWire		w;
	GeuFitState *st;
	MemoryContext old;
	bool		lda;

	if (len < sizeof(w))
		gsu_wire_error("gsu.geu_fit", "too short");
	memcpy(&w, p, sizeof(w));
	p += sizeof(w);
	if (w.magic != GEU_MAGIC)
		gsu_wire_error("gsu.geu_fit", "bad magic number");
	lda = w.opt.method == GSU_PROJ_LDA;
	if ((w.opt.method != GSU_PROJ_LDA && w.opt.method != GSU_PROJ_MFA) ||
		w.opt.dims < 0 || w.opt.dims > GSU_MAX_DIM ||
		!(isfinite(w.opt.regularization) && w.opt.regularization >= 0.0) ||
		(w.opt.regularize != GEU_REG_BOTH && w.opt.regularize != GEU_REG_PENALTY) ||
		w.opt.pad != 0 ||
		(lda && (w.opt.k1 != 0 || w.opt.k2 != 0)) ||
		(!lda && (w.opt.k1 < 1 || w.opt.k1 > GEU_MAX_K || w.opt.k2 < 1 || w.opt.k2 > GEU_MAX_K)))
		gsu_wire_error("gsu.geu_fit", "bad options");
	if (w.dim < 0 || w.dim > GSU_MAX_DIM || w.n < 0 || (w.dim == 0 && w.n != 0) ||
		(w.uncertain != 0 && w.uncertain != 1) || (w.has_a != 0 && w.has_a != 1) ||
		(w.has_b != 0 && w.has_b != 1) || (lda && w.has_b) || w.nclass < 0 ||
		(!lda && w.nclass != 0) || (lda && (w.nclass > w.n || (w.n > 0 && w.nclass == 0))))
		gsu_wire_error("gsu.geu_fit", "bad header");
	d = w.dim;
	/* sizes in doubles, guarded against overflow */
	if ((double) Max(w.n, w.nclass) * ((double) d * d * 2 + 2 * d + 2) * sizeof(double) >
		(double) MaxAllocHugeSize)
		gsu_wire_error("gsu.geu_fit", "too large");
	if (lda)
		expect = (Size) w.nclass * (sizeof(int32) + sizeof(int64) +
									sizeof(double) * (2 * d + d * d * (w.has_a ? 2 : 1)));
	else
		expect = (Size) w.n * (sizeof(int32) + sizeof(double) *
							   (d + (w.has_a ? d : 0) + (w.has_b ? d * d : 0)));
	if (len - sizeof(w) != expect)
		gsu_wire_error("gsu.geu_fit", "wrong length");

	old = MemoryContextSwitchTo(aggctx);
	st = palloc0(sizeof(GeuFitState));
	st->opt = w.opt;
	st->uncertain = w.uncertain != 0;
	st->mem = gsu_mem_charge_deserialized(aggctx);
	st->wire_bytes = VARSIZE_ANY(in);
	if (w.dim > 0)
		gsu_geu_set_dim(st, w.dim);
	st->n = w.n;
	if (lda && w.nclass > 0)
	{
		Size		c = w.nclass;
		int64		total = 0;
		int32	   *sorted;

		if (lda_bytes(st, c, w.has_a) > limit_bytes_of(st))
			gsu_geu_memory_error(st, lda_bytes(st, c, w.has_a),
						 psprintf("Keeping statistics for %d classes", w.nclass));
		gsu_mem_set(st->mem, (Size) lda_bytes(st, c, w.has_a) + st->wire_bytes);
		st->nclass = st->capclass = w.nclass;
		st->labels = palloc(sizeof(int32) * c);
		memcpy(st->labels, p, sizeof(int32) * c);
		p += sizeof(int32) * c;
		st->counts = palloc(sizeof(int64) * c);
		memcpy(st->counts, p, sizeof(int64) * c);
		p += sizeof(int64) * c;
		for (i = 0; i < c; i++)
		{
			if (st->counts[i] < 1 || st->counts[i] > w.n)
				gsu_wire_error("gsu.geu_fit", "bad class count");
			total += st->counts[i];
		}
		if (total != w.n)
			gsu_wire_error("gsu.geu_fit", "class counts do not add up");
		sorted = palloc(sizeof(int32) * c);
		memcpy(sorted, st->labels, sizeof(int32) * c);
		qsort(sorted, c, sizeof(int32), cmp_int32);
		for (i = 1; i < c; i++)
			if (sorted[i] == sorted[i - 1])
				gsu_wire_error("gsu.geu_fit", "repeated class");
		pfree(sorted);
		st->means = read_doubles(&p, c * d, 0, 0);
		st->m2 = read_doubles(&p, c * d * d, 2, (int) d);
		st->vdiag = read_doubles(&p, c * d, 1, 0);
		if (w.has_a)
			st->vfull = read_doubles(&p, c * d * d, 2, (int) d);
	}
	else if (!lda && w.n > 0)
	{
		Size		n = w.n;

		if (mfa_bytes(st, n, w.has_a, w.has_b) > limit_bytes_of(st))
			gsu_geu_memory_error(st, mfa_bytes(st, n, w.has_a, w.has_b),
						 psprintf("Holding " INT64_FORMAT " rows", w.n));
		gsu_mem_set(st->mem, (Size) mfa_bytes(st, n, w.has_a, w.has_b) + st->wire_bytes);
		st->cap = w.n;
		st->x = read_doubles(&p, n * d, 0, 0);
		st->y = palloc_extended(sizeof(int32) * n, MCXT_ALLOC_HUGE);
		memcpy(st->y, p, sizeof(int32) * n);
		p += sizeof(int32) * n;
		if (w.has_a)
			st->vd = read_doubles(&p, n * d, 1, 0);
		if (w.has_b)
			st->vf = read_doubles(&p, n * d * d, 2, (int) d);
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}
