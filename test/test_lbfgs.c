/*
 * test_lbfgs.c — unit tests of gsu_lbfgs.c: L-BFGS in reverse communication.
 *
 * The driver here plays the caller (gsu.fit): it evaluates f and ∇f at L->x
 * and tells the method, until the accepted gradient is small.  References
 * are independent of the method: minimizers known in closed form (a
 * quadratic built around a chosen x*, Rosenbrock's (1, 1)), and the first
 * steps of the method worked out by hand from its definition (first step
 * 1/‖∇f‖ along −∇f, halving on rejection, the secant pair's exact
 * curvature in one dimension).  Deterministic.
 */
#include "gsu_lbfgs.h"
#include "gsu_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef double (*objective_fn) (int n, const double *x, double *g, const void *arg);

/* ½(x − x*)ᵀA(x − x*) with A = diag(a) + u uᵀ (SPD), so ∇f = A(x − x*) */
typedef struct quadratic
{
	int			n;
	const double *a;
	const double *u;
	const double *xs;
} quadratic;

static double
quadratic_f(int n, const double *x, double *g, const void *arg)
{
	const quadratic *q = arg;
	double		ud = 0.0,
				f = 0.0;
	int			i;

	for (i = 0; i < n; i++)
		ud += q->u[i] * (x[i] - q->xs[i]);
	for (i = 0; i < n; i++)
	{
		double		d = x[i] - q->xs[i];

		g[i] = q->a[i] * d + q->u[i] * ud;
		f += 0.5 * d * g[i];
	}
	return f;
}

/* Rosenbrock: 100(x₂ − x₁²)² + (1 − x₁)², minimum 0 at (1, 1) */
static double
rosenbrock_f(int n, const double *x, double *g, const void *arg)
{
	double		t = x[1] - x[0] * x[0],
				r = 1.0 - x[0];

	(void) n;
	(void) arg;
	g[0] = -400.0 * x[0] * t - 2.0 * r;
	g[1] = 200.0 * t;
	return 100.0 * t * t + r * r;
}

static double
norm2(int n, const double *v)
{
	double		s = 0.0;

	for (int i = 0; i < n; i++)
		s += v[i] * v[i];
	return sqrt(s);
}

/*
 * Runs the method from x0 until ‖∇f(xc)‖ ≤ gtol after an acceptance, or
 * STUCK, or max_evals evaluations.  Returns the number of accepted points
 * (the first evaluation included); *evals the evaluations, *stuck whether
 * the method gave up.  The pair memory is checked after every call.
 */
static int
run(gsu_lbfgs *L, objective_fn fn, const void *arg, double gtol, int max_evals,
	int *evals, int *stuck)
{
	int			n = L->n,
				accepted = 0;
	double	   *g = malloc(sizeof(double) * (size_t) n);

	*evals = 0;
	*stuck = 0;
	while (*evals < max_evals)
	{
		double		f = fn(n, L->x, g, arg);
		gsu_lbfgs_action a;

		(*evals)++;
		a = gsu_lbfgs_tell(L, f, g);
		CHECK(L->pairs >= 0 && L->pairs <= L->m && L->head >= 0 && L->head < L->m,
			  "pairs %d head %d m %d", L->pairs, L->head, L->m);
		if (a == GSU_LBFGS_STUCK)
		{
			*stuck = 1;
			break;
		}
		if (a == GSU_LBFGS_ACCEPTED)
		{
			accepted++;
			if (norm2(n, L->gc) <= gtol)
				break;
		}
	}
	free(g);
	return accepted;
}

/* a 20-dimensional ill-conditioned (κ ≈ 10³) quadratic, m = 5 and m = 1 */
static void
test_quadratic(void)
{
	enum
	{
	N = 20};
	double		a[N],
				u[N],
				xs[N],
				x0[N];
	quadratic	q = {N, a, u, xs};
	int			mem[] = {5, 1, 30},
				counts[3];

	for (int i = 0; i < N; i++)
	{
		a[i] = pow(10.0, 3.0 * i / (N - 1));	/* 1 … 1000 */
		u[i] = 0.3 * sin(1.0 + i);
		xs[i] = cos(0.7 * i) * (1.0 + 0.1 * i);
		x0[i] = 0.0;
	}
	for (size_t c = 0; c < sizeof(mem) / sizeof(mem[0]); c++)
	{
		gsu_lbfgs	L;
		int			evals,
					stuck,
					acc;
		double		err = 0.0,
					g[N];

		CHECK(gsu_lbfgs_init(&L, N, mem[c], x0) == GSU_OK, "init m=%d", mem[c]);
		acc = run(&L, quadratic_f, &q, 1e-10, 5000, &evals, &stuck);
		for (int i = 0; i < N; i++)
			err = fmax(err, fabs(L.xc[i] - xs[i]));
		CHECK(!stuck, "stuck after %d evaluations (m=%d)", evals, mem[c]);
		CHECK(err < 1e-10, "max |x − x*| = %g (m=%d)", err, mem[c]);
		/* xc, gc, fc describe the same point */
		CHECK_CLOSE(L.fc, quadratic_f(N, L.xc, g, &q), 1e-14);
		for (int i = 0; i < N; i++)
			CHECK(g[i] == L.gc[i], "gc[%d] %g vs %g", i, L.gc[i], g[i]);
		/*
		 * Iteration counts (measured 118, 354, 549 accepted points for
		 * m = 30, 5, 1; bounds with ~25% slack): steepest descent with
		 * this line search would need thousands at κ = 10³, and more
		 * memory must not make it slower.
		 */
		counts[c] = acc;
		if (mem[c] == 30)
			CHECK(acc <= 150 && evals <= 160, "m=30: %d accepted, %d evaluations", acc, evals);
		else if (mem[c] == 5)
			CHECK(acc <= 450 && evals <= 500, "m=5: %d accepted, %d evaluations", acc, evals);
		else
			CHECK(acc <= 700 && evals <= 760, "m=1: %d accepted, %d evaluations", acc, evals);
		gsu_lbfgs_free(&L);
	}
	CHECK(counts[2] < counts[0] && counts[0] < counts[1], "accepted: m=30 %d, m=5 %d, m=1 %d",
		  counts[2], counts[0], counts[1]);
}

static void
test_rosenbrock(void)
{
	const double x0[2] = {-1.2, 1.0};
	gsu_lbfgs	L;
	int			evals,
				stuck,
				acc;

	CHECK(gsu_lbfgs_init(&L, 2, 5, x0) == GSU_OK, "init");
	acc = run(&L, rosenbrock_f, NULL, 1e-9, 5000, &evals, &stuck);
	CHECK(!stuck, "stuck after %d evaluations", evals);
	CHECK_CLOSE(L.xc[0], 1.0, 1e-8);
	CHECK_CLOSE(L.xc[1], 1.0, 1e-8);
	CHECK(L.fc < 1e-16, "f = %g", L.fc);
	/* the classic start: 42 accepted points, 54 evaluations (measured) */
	CHECK(acc >= 20 && acc <= 60, "%d accepted", acc);
	CHECK(evals <= 75, "%d evaluations", evals);
	gsu_lbfgs_free(&L);
}

/*
 * The protocol step by step on f(x) = 2x² (n = 1) from x = 3: the first
 * answer is ACCEPTED with (xc, gc, fc) = (3, 12, 18) and the first trial
 * x = 3 − (1/12)·12 = 2.  Told f(2) = 8 (Armijo holds), the pair
 * s = −1, y = −4 has the exact curvature 4, so the next trial is the exact
 * minimizer 0.
 */
static void
test_protocol_by_hand(void)
{
	const double x0 = 3.0;
	gsu_lbfgs	L;
	double		g;

	CHECK(gsu_lbfgs_init(&L, 1, 3, &x0) == GSU_OK, "init");
	CHECK(L.x[0] == 3.0, "x0 %g", L.x[0]);
	g = 12.0;
	CHECK(gsu_lbfgs_tell(&L, 18.0, &g) == GSU_LBFGS_ACCEPTED, "first tell");
	CHECK(L.xc[0] == 3.0 && L.gc[0] == 12.0 && L.fc == 18.0,
		  "xc %g gc %g fc %g", L.xc[0], L.gc[0], L.fc);
	CHECK_CLOSE(L.x[0], 2.0, 1e-15);
	CHECK(L.pairs == 0, "pairs %d", L.pairs);
	g = 4.0 * L.x[0];
	CHECK(gsu_lbfgs_tell(&L, 2.0 * L.x[0] * L.x[0], &g) == GSU_LBFGS_ACCEPTED, "second tell");
	CHECK(L.pairs == 1, "pairs %d", L.pairs);
	CHECK_CLOSE(L.xc[0], 2.0, 1e-15);
	CHECK_CLOSE(L.rho[0], 0.25, 1e-15);
	CHECK_CLOSE(L.x[0], 0.0, 1e-15);
	gsu_lbfgs_free(&L);
}

/*
 * A rejected point (f not finite, or no sufficient decrease) halves the step
 * from the same xc: trials x0 − t·g/‖g‖ with t = 1, ½, ¼, …; xc, gc, fc
 * unchanged.  A point that then satisfies Armijo is accepted.
 */
static void
test_rejection_halves(void)
{
	const double x0[2] = {3.0, 4.0};
	const double g0[2] = {3.0, 4.0};	/* ‖g‖ = 5: trial x0 − g0/5 */
	gsu_lbfgs	L;
	double		t = 1.0 / 5.0,
				g[2] = {0.0, 0.0};

	CHECK(gsu_lbfgs_init(&L, 2, 4, x0) == GSU_OK, "init");
	CHECK(gsu_lbfgs_tell(&L, 12.5, g0) == GSU_LBFGS_ACCEPTED, "first tell");
	for (int k = 0; k < 3; k++)
	{
		CHECK_CLOSE(L.x[0], 3.0 - t * 3.0, 1e-15);
		CHECK_CLOSE(L.x[1], 4.0 - t * 4.0, 1e-15);
		/* NaN, +∞, then a value above f(xc): all rejected */
		CHECK(gsu_lbfgs_tell(&L, k == 0 ? NAN : k == 1 ? INFINITY : 12.5, g) ==
			  GSU_LBFGS_EVALUATE, "trial %d not rejected", k);
		CHECK(L.xc[0] == 3.0 && L.xc[1] == 4.0 && L.fc == 12.5, "xc moved on rejection");
		t *= 0.5;
	}
	/* Armijo: f ≤ fc + 10⁻⁴·t·slope, slope = −‖g‖² = −25 */
	CHECK_CLOSE(L.slope, -25.0, 1e-12);
	CHECK_CLOSE(L.step, t, 1e-17);
	g[0] = L.x[0];
	g[1] = L.x[1];
	CHECK(gsu_lbfgs_tell(&L, 12.5 + 1e-4 * t * L.slope, g) == GSU_LBFGS_ACCEPTED,
		  "a point at the Armijo bound not accepted");
	CHECK_CLOSE(L.xc[0], 3.0 - t * 3.0, 1e-15);
	gsu_lbfgs_free(&L);
}

/*
 * A function that is never lower than at x0: the line search halves down
 * to where x no longer moves (or the step falls under 10⁻²⁰) and says
 * STUCK, after a bounded number of evaluations.
 */
static void
test_stuck(void)
{
	const double x0[3] = {1.0, -2.0, 0.5};
	const double g0[3] = {1.0, 1.0, 1.0};
	gsu_lbfgs	L;
	gsu_lbfgs_action a = GSU_LBFGS_EVALUATE;
	int			k;

	CHECK(gsu_lbfgs_init(&L, 3, 2, x0) == GSU_OK, "init");
	CHECK(gsu_lbfgs_tell(&L, 0.0, g0) == GSU_LBFGS_ACCEPTED, "first tell");
	for (k = 0; k < 200 && a == GSU_LBFGS_EVALUATE; k++)
		a = gsu_lbfgs_tell(&L, 1.0, g0);
	CHECK(a == GSU_LBFGS_STUCK, "action %d after %d rejections", (int) a, k);
	/* x = xc + t·d stops moving once t·‖d‖ < ulp(x): about 55 halvings here */
	CHECK(k >= 40 && k <= 70, "%d rejections", k);
	CHECK(L.xc[0] == 1.0 && L.xc[1] == -2.0 && L.xc[2] == 0.5 && L.fc == 0.0, "xc moved");
	gsu_lbfgs_free(&L);
}

/*
 * The curvature rule: a pair is stored only when sᵀy > 10⁻¹⁰‖s‖‖y‖.  On a
 * linear function y = 0, so no pair is ever stored and every step is
 * steepest descent with step 1 (after the first, 1/‖g‖).
 */
static void
test_no_curvature_no_pair(void)
{
	const double x0[2] = {0.0, 0.0};
	const double c[2] = {1.0, -2.0};
	gsu_lbfgs	L;

	CHECK(gsu_lbfgs_init(&L, 2, 3, x0) == GSU_OK, "init");
	for (int k = 0; k < 6; k++)
	{
		double		f = c[0] * L.x[0] + c[1] * L.x[1];
		double		px = L.x[0],
					py = L.x[1];

		CHECK(gsu_lbfgs_tell(&L, f, c) == GSU_LBFGS_ACCEPTED, "step %d", k);
		CHECK(L.pairs == 0, "pairs %d at step %d", L.pairs, k);
		/* the next trial: x − t·c, t = 1/‖c‖ first, then 1 */
		{
			double		t = k == 0 ? 1.0 / sqrt(5.0) : 1.0;

			CHECK_CLOSE(L.x[0], px - t * c[0], 1e-12);
			CHECK_CLOSE(L.x[1], py - t * c[1], 1e-12);
		}
	}
	gsu_lbfgs_free(&L);
}

/*
 * The ring of pairs: with m = 2 on a quadratic the memory fills, then the
 * oldest slot is overwritten (head advances) and pairs stays at m.
 */
static void
test_pair_ring(void)
{
	enum
	{
	N = 6};
	double		a[N],
				u[N],
				xs[N],
				x0[N],
				g[N];
	quadratic	q = {N, a, u, xs};
	gsu_lbfgs	L;
	int			accepted = 0,
				head_moves = 0,
				last_head = 0;

	for (int i = 0; i < N; i++)
	{
		a[i] = 1.0 + i * i;
		u[i] = 0.0;
		xs[i] = 1.0;
		x0[i] = -1.0;
	}
	CHECK(gsu_lbfgs_init(&L, N, 2, x0) == GSU_OK, "init");
	for (int e = 0; e < 60 && accepted < 8; e++)
	{
		double		f = quadratic_f(N, L.x, g, &q);

		if (gsu_lbfgs_tell(&L, f, g) == GSU_LBFGS_ACCEPTED)
		{
			accepted++;
			if (accepted >= 4)
				CHECK(L.pairs == 2, "pairs %d after %d acceptances", L.pairs, accepted);
			if (L.head != last_head)
				head_moves++;
			last_head = L.head;
		}
	}
	CHECK(accepted == 8, "%d acceptances", accepted);
	CHECK(head_moves >= 3, "head moved %d times", head_moves);
	gsu_lbfgs_free(&L);
}

/* n < 1 or m < 1: GSU_EINVAL with nothing allocated; free is idempotent */
static void
test_invalid_and_free(void)
{
	const double x0[1] = {0.0};
	gsu_lbfgs	L;

	memset(&L, 0xab, sizeof(L));
	CHECK(gsu_lbfgs_init(&L, 0, 5, x0) == GSU_EINVAL, "n = 0");
	CHECK(L.s == NULL && L.x == NULL && L.dir == NULL && L.n == 0, "state not cleared");
	CHECK(gsu_lbfgs_init(&L, -3, 5, x0) == GSU_EINVAL, "n < 0");
	CHECK(gsu_lbfgs_init(&L, 1, 0, x0) == GSU_EINVAL, "m = 0");
	CHECK(L.s == NULL && L.alpha == NULL, "state not cleared");
	gsu_lbfgs_free(&L);			/* after a failed init: frees NULLs */
	CHECK(gsu_lbfgs_init(&L, 4, 2, (const double[4]) {1.0, 2.0, 3.0, 4.0}) == GSU_OK, "init");
	CHECK(L.n == 4 && L.m == 2 && L.pairs == 0 && !L.started, "fresh state");
	CHECK(L.x[3] == 4.0, "x0 copied");
	gsu_lbfgs_free(&L);
	CHECK(L.s == NULL && L.x == NULL && L.n == 0, "free clears");
	gsu_lbfgs_free(&L);			/* twice: harmless (valgrind checks) */
}

static const gsu_test_case tests[] = {
	{"quadratic", test_quadratic},
	{"rosenbrock", test_rosenbrock},
	{"protocol_by_hand", test_protocol_by_hand},
	{"rejection_halves", test_rejection_halves},
	{"stuck", test_stuck},
	{"no_curvature_no_pair", test_no_curvature_no_pair},
	{"pair_ring", test_pair_ring},
	{"invalid_and_free", test_invalid_and_free},
};

int
main(void)
{
	return GSU_TEST_MAIN(tests);
}
