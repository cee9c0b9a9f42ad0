/*
 * HPCG-style benchmark: (preconditioned) conjugate gradients.
 */
#include <math.h>
#include <stdlib.h>

#include "hpcg.h"

void cg_data_init(CgData *d, const Level *L)
{
    d->r = vec_alloc(L->ncol);
    d->z = vec_alloc(L->ncol);
    d->p = vec_alloc(L->ncol);
    d->Ap = vec_alloc(L->ncol);
}

void cg_data_free(CgData *d)
{
    free(d->r); free(d->z); free(d->p); free(d->Ap);
}

/* Solve A x = b from the given x (length A->ncol) for at most max_iter
 * iterations or until ||r||/||r0|| <= tol (tol = 0: always max_iter).
 * precond != 0: z = M^{-1} r with the multigrid V-cycle, else z = r. */
CgResult cg(Level *A, CgData *d, const double *b, double *x, int max_iter,
            double tol, int precond, double report_tol)
{
    CgResult res;
    int n = A->n, k;
    double normr, normr0, rtz = 0.0, oldrtz, alpha, beta, pAp;
    double *r = d->r, *z = d->z, *p = d->p, *Ap = d->Ap;

    res.iters = 0;
    res.iters_to_tol = max_iter + 1;

    vec_copy(n, x, p);
    spmv(A, p, Ap);                       /* Ap = A x */
    waxpby(n, 1.0, b, -1.0, Ap, r);       /* r = b - A x */
    normr = sqrt(ddot(A, r, r));
    normr0 = normr;
    res.normr0 = normr0;
    res.normr = normr;
    if (normr0 == 0.0) {
        res.iters_to_tol = 0;
        return res;
    }

    for (k = 1; k <= max_iter && normr / normr0 > tol; k++) {
        if (precond)
            mg(A, r, z);
        else
            vec_copy(n, r, z);
        if (k == 1) {
            vec_copy(n, z, p);
            rtz = ddot(A, r, z);
        } else {
            oldrtz = rtz;
            rtz = ddot(A, r, z);
            beta = rtz / oldrtz;
            waxpby(n, 1.0, z, beta, p, p);    /* p = z + beta p */
        }
        spmv(A, p, Ap);
        pAp = ddot(A, p, Ap);
        if (!(pAp > 0.0)) break;              /* breakdown (only at round-off level) */
        alpha = rtz / pAp;
        waxpby(n, 1.0, x, alpha, p, x);       /* x = x + alpha p */
        waxpby(n, 1.0, r, -alpha, Ap, r);     /* r = r - alpha A p */
        normr = sqrt(ddot(A, r, r));
        res.iters = k;
        if (res.iters_to_tol > max_iter && normr / normr0 <= report_tol)
            res.iters_to_tol = k;
        if (normr == 0.0) break;
    }
    res.normr = normr;
    return res;
}
