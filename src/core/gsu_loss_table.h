/*
 * gsu_loss_table.h — the losses a model is trained with and their table
 * (gsu_loss_table.c): each loss's SQL name, what the rest of the code asks
 * of it, its policies, and the memory its solver holds.  The row losses
 * themselves are gsu_loss.h (the Gaussian family) and gsu_robust.h (the
 * worst-case family).
 */
#ifndef GSU_LOSS_TABLE_H
#define GSU_LOSS_TABLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The losses a model is trained with.  This enum and the table of
 * gsu_loss_kind_info (gsu_loss_table.c) are the one place a loss is
 * declared: its SQL name and what the rest of the code asks of it.  Adding
 * a loss means a value here, a row there (with its policies: default
 * solver, default options, what its solver holds in memory), its row loss
 * (gsu_loss.c for the Gaussian family, gsu_robust.h for the worst-case
 * family) and, when it needs a solver of its own, its branch in
 * gsu_train_binary (gsu_binary.c).
 * The values are stored in gsu.model.
 */
typedef enum gsu_loss_kind
{
	GSU_LOSS_GSU = 0,			/* expected hinge loss under the row's Gaussian */
	GSU_LOSS_HINGE = 1,			/* the plain hinge loss on the means */
	GSU_LOSS_TSVC = 2,			/* Total SVC: best case over a ball per row */
	GSU_LOSS_ROBUST = 3,		/* worst case over an ellipsoid per row */
	GSU_LOSS_PSVM = 4,			/* Power SVM: best case over a ball of a given radius */
	/* regression (gsu.train_regression; gsu_regression.h): the model's task follows its loss */
	GSU_LOSS_EPS_INSENSITIVE = 5,	/* SVR-GSU: expected ε-insensitive loss */
	GSU_LOSS_SQUARED = 6		/* ridge-GSU: expected squared loss */
} gsu_loss_kind;
#define GSU_LOSS_MAX GSU_LOSS_SQUARED

typedef struct gsu_loss_kind_info
{
	const char *name;			/* the SQL name ("loss" option, model text) */
	int			uses_covariance;	/* 0: the rows' covariances are ignored */
	int			robust;			/* solved by the robust core (gsu_robust.h):
								 * reads gamma, delta_scale, epsilon, q */
	int			gradient_pass;	/* has the smoothed Gaussian-family gradient of
								 * gsu_row_loss_grad: streaming sgd, gsu.gradient,
								 * gsu.fit */
	int			radius;			/* a row's single number (gsu.train's float8
								 * "variance") is the radius of its ball, not a
								 * variance; rows take no covariance array */
	/* the loss's policies: its defaults and what its solvers hold */
	int			default_solver; /* gsu_solver_kind without an option "solver"
								 * (nor "init", the Newton solver's warm start) */
	double		default_gamma;	/* > 0: the loss takes the norm bound "gamma"
								 * (tsvc, robust), this value unless given */
	double		default_delta_scale;	/* > 0: its default "delta_scale" */
	int			default_max_iterations; /* > 0: its iterations unless given
										 * (else gsu_solve_options_default's) */
	int			holds_cov_copy; /* the solver copies the rows' covariances
								 * (the robust core's shapes; not the worst
								 * case over a feature map's box) */
	int			holds_shifted_rows; /* the solver keeps a radius and a shifted
									 * mean per row (TSVC's, PSVM's rounds) */
	int			regression;		/* a regression loss (real targets, gsu_regression.h):
								 * trained by gsu.train_regression only, its model
								 * scored by the regression functions; its solver
								 * holds a dense (d+1)² Hessian */
} gsu_loss_kind_info;

/* The description of a loss; NULL for a value that is not a loss. */
const gsu_loss_kind_info *gsu_loss_info(int kind);

/* The SQL name of a loss, "?" for a value that is not a loss. */
const char *gsu_loss_name(int kind);

/* The loss of a SQL name, −1 for a name that is not a loss's. */
int			gsu_loss_by_name(const char *name);

/*
 * The doubles that training n rows of dimension d with loss and solver (a
 * gsu_solver_kind) holds besides the rows themselves, from the loss's row of
 * the table: the per-row and per-weight vectors every solver keeps (10 a
 * row: margins, weights, labels; 40 a weight: Newton's and L-BFGS's
 * vectors), the robust core's copy of the covariances (cov_per doubles a
 * row, unless worst: the worst case over a feature map's box), TSVC's and
 * PSVM's radii and shifted rows, the hinge polish's support rows and system
 * for a loss that ignores covariances (at most d + 2 rows, 3000 at most),
 * the solver dcd's dual variables, diagonal, bounds and order (4 a row) with
 * the polish's band (gsu_hinge_polish_band_doubles), and, for the solver
 * newton with full covariances (cov_per = d²) or factors of rank columns
 * (rank ≥ 1, cov_per = d·rank; rank is 0 for every other kind), the rows
 * reduced to their span (gsu_span_doubles).  The glue counts it against
 * gsu.max_training_memory before it trains.
 */
double		gsu_solver_doubles(int loss, int solver, int64_t n, int d, size_t cov_per, int rank,
							   int worst);

#endif							/* GSU_LOSS_TABLE_H */
