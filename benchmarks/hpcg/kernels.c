/*
 * HPCG-style benchmark: computational kernels and their operation counts.
 *
 * Every kernel adds the flops it performs and the bytes of memory traffic it
 * implies to g_cnt (per rank; the driver sums over ranks).  Counts are in
 * doubles so long runs cannot overflow.
 *
 * Flop model (one flop per floating-point add, subtract, multiply; the
 * counts are exactly the operations in the loops below):
 *   DDOT    x.y                          2n
 *   WAXPBY  w = a*x + b*y                2n when a == 1 or b == 1, else 3n
 *           (copies count 0 flops)
 *   SpMV    y = A*x                      2*nnz
 *   SYMGS   forward + backward sweep     2 * (2*nnz + 3n): per row
 *           s = r_i - sum_j a_ij x_j  (2 per nonzero, diagonal included),
 *           s += a_ii x_i  (2), x_i = s * (1/a_ii)  (1)
 *   MG level with a coarser level:  SYMGS + SpMV + restriction (nc
 *           subtractions) + recursive MG + prolongation (nc additions) +
 *           SYMGS; coarsest level: one SYMGS.
 *
 * Byte model (8-byte doubles, 4-byte ints, CSR storage; every array entry
 * is counted once per kernel call, i.e. we assume the cache captures the
 * reuse of x inside a stencil sweep but nothing survives between calls;
 * write-allocate traffic is not counted):
 *   DDOT    read x, y                    16n   (8n when x == y)
 *   WAXPBY  read x, y, write w           24n   (copy: 16n, zero fill: 8n)
 *   SpMV    read val 8nnz + col 4nnz + rowptr 4(n+1) + x 8*ncol,
 *           write y 8n
 *   SYMGS   per sweep: val 8nnz + col 4nnz + rowptr 4(n+1) + diag 8n +
 *           1/diag 8n + r 8n + read x 8*ncol + write x 8n
 *   restriction  read f2c 4nc, r 8nc, Ax 8nc, write rc 8nc   = 28nc
 *   prolongation read f2c 4nc, xc 8nc, read+write x 16nc     = 28nc
 *   MG      zeroing x on each level      8n
 *   halo    pack: read index 4 + gather 8 + write buffer 8 per sent value;
 *           unpack: MPI writes 8 per received value into the halo
 * (ncol = n + halo entries, nc = coarse rows)
 */
#include <stdlib.h>
#include <string.h>

#include "hpcg.h"

Counters g_cnt;

const char *const kernel_names[K_COUNT] = {
    "DDOT", "WAXPBY", "SpMV", "MG/SYMGS", "MG/SpMV", "MG/transfer", "halo"
};

void counters_reset(void) { memset(&g_cnt, 0, sizeof(g_cnt)); }

void halo_exchange(Level *L, double *x)
{
    int k, m, nn = L->nnbr;
    double t0;
    double *buf = L->send_buf;
    const int *idx = L->send_idx;
    if (nn == 0) return;
    t0 = MPI_Wtime();
    for (k = 0; k < nn; k++)
        /* The neighbour in direction d sends with tag = our direction seen
         * from it, i.e. 26 - d. */
        MPI_Irecv(x + L->n + L->recv_off[k], L->recv_cnt[k], MPI_DOUBLE,
                  L->nbr_rank[k], 26 - L->nbr_dir[k], MPI_COMM_WORLD, &L->reqs[k]);
    for (m = 0; m < L->nsend; m++) buf[m] = x[idx[m]];
    for (k = 0; k < nn; k++)
        MPI_Isend(buf + L->send_off[k], L->send_cnt[k], MPI_DOUBLE,
                  L->nbr_rank[k], L->nbr_dir[k], MPI_COMM_WORLD, &L->reqs[nn + k]);
    MPI_Waitall(2 * nn, L->reqs, MPI_STATUSES_IGNORE);
    g_cnt.bytes[K_HALO] += 20.0 * L->nsend + 8.0 * (L->ncol - L->n);
    g_cnt.t_halo += MPI_Wtime() - t0;
}

double ddot(const Level *L, const double *x, const double *y)
{
    double local = 0.0, global = 0.0, t0;
    int i, n = L->n;
    for (i = 0; i < n; i++) local += x[i] * y[i];
    g_cnt.flops[K_DDOT] += 2.0 * n;
    g_cnt.bytes[K_DDOT] += (x == y ? 8.0 : 16.0) * n;
    t0 = MPI_Wtime();
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    g_cnt.t_allreduce += MPI_Wtime() - t0;
    return global;
}

/* w = alpha*x + beta*y; w may alias x or y. */
void waxpby(int n, double alpha, const double *x, double beta, const double *y, double *w)
{
    int i;
    if (alpha == 1.0) {
        for (i = 0; i < n; i++) w[i] = x[i] + beta * y[i];
        g_cnt.flops[K_WAXPBY] += 2.0 * n;
    } else if (beta == 1.0) {
        for (i = 0; i < n; i++) w[i] = alpha * x[i] + y[i];
        g_cnt.flops[K_WAXPBY] += 2.0 * n;
    } else {
        for (i = 0; i < n; i++) w[i] = alpha * x[i] + beta * y[i];
        g_cnt.flops[K_WAXPBY] += 3.0 * n;
    }
    g_cnt.bytes[K_WAXPBY] += 24.0 * n;
}

void vec_zero(int n, double *x)
{
    memset(x, 0, sizeof(double) * (size_t)n);
}

void vec_copy(int n, const double *x, double *y)
{
    memcpy(y, x, sizeof(double) * (size_t)n);
    g_cnt.bytes[K_WAXPBY] += 16.0 * n;
}

int kernel_times(void)
{
    static int on = -1;
    if (on < 0) on = getenv("HPCG_KERNEL_TIMES") != NULL;
    return on;
}

static void spmv_local(int n, const int *restrict rp, const int *restrict col,
                       const double *restrict val, const double *restrict x,
                       double *restrict y)
{
    int i, k;
    for (i = 0; i < n; i++) {
        double s = 0.0;
        int k1 = rp[i + 1];
        for (k = rp[i]; k < k1; k++) s += val[k] * x[col[k]];
        y[i] = s;
    }
}

static void spmv_counted(Level *L, double *x, double *y, int cat)
{
    halo_exchange(L, x);
    double t0 = kernel_times() ? MPI_Wtime() : 0.0;
    spmv_local(L->n, L->rowptr, L->col, L->val, x, y);
    if (kernel_times()) g_cnt.t_spmv += MPI_Wtime() - t0;
    g_cnt.flops[cat] += 2.0 * (double)L->nnz;
    g_cnt.bytes[cat] += 12.0 * (double)L->nnz + 4.0 * (L->n + 1) + 8.0 * L->ncol + 8.0 * L->n;
}

/* y = A*x; x must have room for the halo (L->ncol entries). */
void spmv(Level *L, double *x, double *y) { spmv_counted(L, x, y, K_SPMV); }

static void symgs_sweeps(int n, const int *restrict rp, const int *restrict col,
                         const double *restrict val, const double *restrict diag,
                         const double *restrict invd, const double *restrict r,
                         double *restrict x)
{
    int i, k;
    for (i = 0; i < n; i++) {
        double s = r[i];
        int k1 = rp[i + 1];
        for (k = rp[i]; k < k1; k++) s -= val[k] * x[col[k]];
        s += diag[i] * x[i];
        x[i] = s * invd[i];
    }
    for (i = n - 1; i >= 0; i--) {
        double s = r[i];
        int k1 = rp[i + 1];
        for (k = rp[i]; k < k1; k++) s -= val[k] * x[col[k]];
        s += diag[i] * x[i];
        x[i] = s * invd[i];
    }
}

/* One symmetric Gauss-Seidel step for A x = r: halo values of x are
 * exchanged once, then a forward and a backward sweep over the local rows
 * (halo values stay fixed during both sweeps). */
void symgs(Level *L, const double *r, double *x)
{
    int n = L->n;
    halo_exchange(L, x);
    double t0 = kernel_times() ? MPI_Wtime() : 0.0;
    symgs_sweeps(n, L->rowptr, L->col, L->val, L->diag, L->invdiag, r, x);
    if (kernel_times()) g_cnt.t_symgs += MPI_Wtime() - t0;
    g_cnt.flops[K_MG_SYMGS] += 2.0 * (2.0 * (double)L->nnz + 3.0 * n);
    g_cnt.bytes[K_MG_SYMGS] += 2.0 * (12.0 * (double)L->nnz + 4.0 * (n + 1) +
                                      32.0 * n + 8.0 * L->ncol);
}

static void restrict_residual(int nc, const int *restrict f2c, const double *restrict r,
                              const double *restrict Ax, double *restrict rc)
{
    int i;
    for (i = 0; i < nc; i++) rc[i] = r[f2c[i]] - Ax[f2c[i]];
}

static void prolongate(int nc, const int *restrict f2c, const double *restrict xc,
                       double *restrict x)
{
    int i;
    for (i = 0; i < nc; i++) x[f2c[i]] += xc[i];
}

/* Multigrid V-cycle x = M^{-1} r, starting from x = 0.  Restriction by
 * injection of the residual r - A x, prolongation by adding the coarse
 * correction back at the injected points. */
void mg(Level *L, const double *r, double *x)
{
    vec_zero(L->n, x);
    g_cnt.bytes[K_MG_TRANSFER] += 8.0 * L->n;
    if (L->coarse) {
        int nc = L->coarse->n;
        symgs(L, r, x);
        spmv_counted(L, x, L->Axf, K_MG_SPMV);
        restrict_residual(nc, L->f2c, r, L->Axf, L->rc);
        mg(L->coarse, L->rc, L->xc);
        prolongate(nc, L->f2c, L->xc, x);
        g_cnt.flops[K_MG_TRANSFER] += 2.0 * nc;
        g_cnt.bytes[K_MG_TRANSFER] += 56.0 * nc;
        symgs(L, r, x);
    } else {
        symgs(L, r, x);
    }
}
