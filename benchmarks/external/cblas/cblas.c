/* A small portable CBLAS subset in double precision: the ten functions HPL
 * (inside HPCC) calls when built with -DHPL_CALL_CBLAS.
 *
 * Our own code, written from the semantics of the reference BLAS (netlib
 * BLAS 3.x: dgemm.f, dtrsm.f, dgemv.f, dger.f, dtrsv.f and the level-1
 * routines). It is compiled unchanged for the native build (mpicc) and for
 * the wasm32-wasi build (wasm-mpicc) of HPCC, so both run the same code.
 *
 * - Column-major is the native layout; a row-major call is turned into the
 *   column-major call on the transposed matrices (HPL only passes
 *   CblasColMajor, the row-major path is there for completeness).
 * - dgemm is blocked for the caches the usual way (Goto/BLIS): an MC x KC
 *   block of alpha*op(A) and a KC x NC block of op(B) are packed into
 *   contiguous buffers, then a 4 x 4 register-blocked kernel walks them.
 *   Plain C: the compiler vectorises the kernel (SSE2 natively, simd128 in
 *   wasm: both 2 doubles per vector).
 * - dtrsm and the level-2 routines follow the reference loops, ordered so
 *   the innermost loop walks a column (unit stride).
 * - Like the reference BLAS, beta == 0 sets C (or y) without reading it,
 *   and a zero n, m or k returns early. Arguments are not checked (no
 *   xerbla): HPL never passes invalid ones.
 */
#include <stdlib.h>
#include <string.h>

#include "cblas.h"

#define MR 4    /* rows of the register block */
#define NR 4    /* columns of the register block */
#define MC 128  /* rows of a packed block of A */
#define KC 256  /* depth of a packed block */
#define NC 2048 /* columns of a packed block of B */

/* Column-major element (i, j) of a matrix with leading dimension ld. */
#define AT(a, ld, i, j) ((a)[(i) + (size_t)(j) * (ld)])

/* First element of a strided vector of n elements, as in the reference BLAS:
 * a negative increment walks the vector backwards from its end. */
static long start(int n, int inc) { return inc < 0 ? (long)(1 - n) * inc : 0; }

static int is_trans(enum CBLAS_TRANSPOSE t) { return t != CblasNoTrans; }

static enum CBLAS_TRANSPOSE flip_trans(enum CBLAS_TRANSPOSE t)
{
    return is_trans(t) ? CblasNoTrans : CblasTrans;
}

static enum CBLAS_UPLO flip_uplo(enum CBLAS_UPLO u)
{
    return u == CblasUpper ? CblasLower : CblasUpper;
}

/* ------------------------------------------------------------------------
 * Level 1 */

int cblas_idamax(const int n, const double *x, const int incx)
{
    if (n < 1 || incx < 1)
        return 0;
    int best = 0;
    double max = x[0] < 0 ? -x[0] : x[0];
    for (int i = 1; i < n; i++) {
        double v = x[(size_t)i * incx];
        v = v < 0 ? -v : v;
        if (v > max) { /* the first of equal maxima wins */
            max = v;
            best = i;
        }
    }
    return best;
}

void cblas_dswap(const int n, double *x, const int incx, double *y, const int incy)
{
    long ix = start(n, incx), iy = start(n, incy);
    for (int i = 0; i < n; i++, ix += incx, iy += incy) {
        double t = x[ix];
        x[ix] = y[iy];
        y[iy] = t;
    }
}

void cblas_dcopy(const int n, const double *x, const int incx, double *y, const int incy)
{
    if (incx == 1 && incy == 1) {
        if (n > 0)
            memmove(y, x, (size_t)n * sizeof *x);
        return;
    }
    long ix = start(n, incx), iy = start(n, incy);
    for (int i = 0; i < n; i++, ix += incx, iy += incy)
        y[iy] = x[ix];
}

void cblas_daxpy(const int n, const double alpha, const double *x, const int incx, double *y,
                 const int incy)
{
    if (n < 1 || alpha == 0.0)
        return;
    if (incx == 1 && incy == 1) {
        for (int i = 0; i < n; i++)
            y[i] += alpha * x[i];
        return;
    }
    long ix = start(n, incx), iy = start(n, incy);
    for (int i = 0; i < n; i++, ix += incx, iy += incy)
        y[iy] += alpha * x[ix];
}

void cblas_dscal(const int n, const double alpha, double *x, const int incx)
{
    if (n < 1 || incx < 1)
        return;
    for (int i = 0; i < n; i++)
        x[(size_t)i * incx] *= alpha;
}

/* ------------------------------------------------------------------------
 * Level 2 */

void cblas_dgemv(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE trans, const int m,
                 const int n, const double alpha, const double *a, const int lda, const double *x,
                 const int incx, const double beta, double *y, const int incy)
{
    if (order == CblasRowMajor) { /* A row-major m x n is A^T column-major n x m */
        cblas_dgemv(CblasColMajor, flip_trans(trans), n, m, alpha, a, lda, x, incx, beta, y, incy);
        return;
    }
    if (m < 1 || n < 1 || (alpha == 0.0 && beta == 1.0))
        return;
    int t = is_trans(trans);
    int lenx = t ? m : n, leny = t ? n : m;
    long kx = start(lenx, incx), ky = start(leny, incy);
    if (beta != 1.0) { /* y = beta*y */
        long iy = ky;
        for (int i = 0; i < leny; i++, iy += incy)
            y[iy] = beta == 0.0 ? 0.0 : beta * y[iy];
    }
    if (alpha == 0.0)
        return;
    if (!t) { /* y += alpha*A*x, a column of A at a time */
        long jx = kx;
        for (int j = 0; j < n; j++, jx += incx) {
            double tmp = alpha * x[jx];
            const double *col = &AT(a, lda, 0, j);
            long iy = ky;
            if (incy == 1)
                for (int i = 0; i < m; i++)
                    y[i] += tmp * col[i];
            else
                for (int i = 0; i < m; i++, iy += incy)
                    y[iy] += tmp * col[i];
        }
    } else { /* y += alpha*A^T*x, a dot product per column of A */
        long jy = ky;
        for (int j = 0; j < n; j++, jy += incy) {
            const double *col = &AT(a, lda, 0, j);
            double tmp = 0.0;
            long ix = kx;
            for (int i = 0; i < m; i++, ix += incx)
                tmp += col[i] * x[ix];
            y[jy] += alpha * tmp;
        }
    }
}

void cblas_dger(const enum CBLAS_ORDER order, const int m, const int n, const double alpha,
                const double *x, const int incx, const double *y, const int incy, double *a,
                const int lda)
{
    if (order == CblasRowMajor) { /* A^T += alpha*y*x^T, column-major */
        cblas_dger(CblasColMajor, n, m, alpha, y, incy, x, incx, a, lda);
        return;
    }
    if (m < 1 || n < 1 || alpha == 0.0)
        return;
    long jy = start(n, incy), kx = start(m, incx);
    for (int j = 0; j < n; j++, jy += incy) {
        if (y[jy] == 0.0)
            continue;
        double tmp = alpha * y[jy];
        double *col = &AT(a, lda, 0, j);
        long ix = kx;
        for (int i = 0; i < m; i++, ix += incx)
            col[i] += x[ix] * tmp;
    }
}

void cblas_dtrsv(const enum CBLAS_ORDER order, const enum CBLAS_UPLO uplo,
                 const enum CBLAS_TRANSPOSE trans, const enum CBLAS_DIAG diag, const int n,
                 const double *a, const int lda, double *x, const int incx)
{
    if (order == CblasRowMajor) { /* row-major A is column-major A^T */
        cblas_dtrsv(CblasColMajor, flip_uplo(uplo), flip_trans(trans), diag, n, a, lda, x, incx);
        return;
    }
    if (n < 1)
        return;
    int nonunit = diag == CblasNonUnit, upper = uplo == CblasUpper;
    long kx = start(n, incx);
#define X(i) x[kx + (long)(i) * incx]
    if (!is_trans(trans)) { /* A*x = b: column-oriented substitution */
        for (int s = 0; s < n; s++) {
            int j = upper ? n - 1 - s : s;
            if (X(j) == 0.0)
                continue;
            if (nonunit)
                X(j) /= AT(a, lda, j, j);
            double tmp = X(j);
            if (upper)
                for (int i = 0; i < j; i++)
                    X(i) -= tmp * AT(a, lda, i, j);
            else
                for (int i = j + 1; i < n; i++)
                    X(i) -= tmp * AT(a, lda, i, j);
        }
    } else { /* A^T*x = b: a dot product with column j of A per unknown */
        for (int s = 0; s < n; s++) {
            int j = upper ? s : n - 1 - s;
            double tmp = X(j);
            if (upper)
                for (int i = 0; i < j; i++)
                    tmp -= AT(a, lda, i, j) * X(i);
            else
                for (int i = j + 1; i < n; i++)
                    tmp -= AT(a, lda, i, j) * X(i);
            X(j) = nonunit ? tmp / AT(a, lda, j, j) : tmp;
        }
    }
#undef X
}

/* ------------------------------------------------------------------------
 * Level 3: dgemm */

/* Packs alpha*op(A)[i0:i0+mc, p0:p0+kc] into MR-row panels: panel r holds
 * rows r*MR.. of the block, element (i, p) at ap[r*kc*MR + p*MR + i%MR];
 * rows past mc are zero, so the kernel needs no edge cases. */
static void pack_a(int ta, const double *a, int lda, int i0, int p0, int mc, int kc, double alpha,
                   double *ap)
{
    for (int r = 0; r < mc; r += MR, ap += (size_t)kc * MR)
        for (int p = 0; p < kc; p++)
            for (int i = 0; i < MR; i++) {
                int ii = i0 + r + i, pp = p0 + p;
                ap[p * MR + i] = r + i >= mc ? 0.0
                                 : alpha * (ta ? AT(a, lda, pp, ii) : AT(a, lda, ii, pp));
            }
}

/* Packs op(B)[p0:p0+kc, j0:j0+nc] into NR-column panels: element (p, j) at
 * bp[c*kc*NR + p*NR + j%NR] for panel c; columns past nc are zero. */
static void pack_b(int tb, const double *b, int ldb, int p0, int j0, int kc, int nc, double *bp)
{
    for (int c = 0; c < nc; c += NR, bp += (size_t)kc * NR)
        for (int p = 0; p < kc; p++)
            for (int j = 0; j < NR; j++) {
                int jj = j0 + c + j, pp = p0 + p;
                bp[p * NR + j] = c + j >= nc ? 0.0 : (tb ? AT(b, ldb, jj, pp) : AT(b, ldb, pp, jj));
            }
}

/* C[0:mr, 0:nr] += (packed MR x kc panel) * (packed kc x NR panel). */
static void kernel(int kc, const double *ap, const double *bp, double *c, int ldc, int mr, int nr)
{
    double t[NR][MR] = {{0.0}};
    for (int p = 0; p < kc; p++, ap += MR, bp += NR)
        for (int j = 0; j < NR; j++)
            for (int i = 0; i < MR; i++)
                t[j][i] += ap[i] * bp[j];
    for (int j = 0; j < nr; j++)
        for (int i = 0; i < mr; i++)
            AT(c, ldc, i, j) += t[j][i];
}

static int round_up(int v, int to) { return (v + to - 1) / to * to; }

void cblas_dgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE transa,
                 const enum CBLAS_TRANSPOSE transb, const int m, const int n, const int k,
                 const double alpha, const double *a, const int lda, const double *b,
                 const int ldb, const double beta, double *c, const int ldc)
{
    if (order == CblasRowMajor) { /* C^T = op(B)^T op(A)^T, column-major */
        cblas_dgemm(CblasColMajor, transb, transa, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
        return;
    }
    if (m < 1 || n < 1)
        return;
    if (beta != 1.0) /* C = beta*C */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                AT(c, ldc, i, j) = beta == 0.0 ? 0.0 : beta * AT(c, ldc, i, j);
    if (alpha == 0.0 || k < 1)
        return;
    int ta = is_trans(transa), tb = is_trans(transb);
    int mcmax = round_up(m < MC ? m : MC, MR), kcmax = k < KC ? k : KC;
    int ncmax = round_up(n < NC ? n : NC, NR);
    double *ap = malloc(sizeof(double) * ((size_t)mcmax * kcmax + (size_t)kcmax * ncmax));
    if (!ap)
        abort();
    double *bp = ap + (size_t)mcmax * kcmax;
    for (int j0 = 0; j0 < n; j0 += NC) {
        int nc = n - j0 < NC ? n - j0 : NC;
        for (int p0 = 0; p0 < k; p0 += KC) {
            int kc = k - p0 < KC ? k - p0 : KC;
            pack_b(tb, b, ldb, p0, j0, kc, nc, bp);
            for (int i0 = 0; i0 < m; i0 += MC) {
                int mc = m - i0 < MC ? m - i0 : MC;
                pack_a(ta, a, lda, i0, p0, mc, kc, alpha, ap);
                for (int jr = 0; jr < nc; jr += NR)
                    for (int ir = 0; ir < mc; ir += MR)
                        kernel(kc, ap + (size_t)ir * kc, bp + (size_t)jr * kc,
                               &AT(c, ldc, i0 + ir, j0 + jr), ldc,
                               mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR);
            }
        }
    }
    free(ap);
}

/* ------------------------------------------------------------------------
 * Level 3: dtrsm, solves op(A)*X = alpha*B (left) or X*op(A) = alpha*B
 * (right) for X, overwriting B (m x n); A is triangular, m x m or n x n. */

/* y[0:m] -= s*x[0:m] */
static void col_axpy(int m, double s, const double *x, double *y)
{
    for (int i = 0; i < m; i++)
        y[i] -= s * x[i];
}

static void col_scal(int m, double s, double *x)
{
    for (int i = 0; i < m; i++)
        x[i] *= s;
}

void cblas_dtrsm(const enum CBLAS_ORDER order, const enum CBLAS_SIDE side,
                 const enum CBLAS_UPLO uplo, const enum CBLAS_TRANSPOSE transa,
                 const enum CBLAS_DIAG diag, const int m, const int n, const double alpha,
                 const double *a, const int lda, double *b, const int ldb)
{
    if (order == CblasRowMajor) { /* row-major B (m x n) is column-major B^T (n x m) */
        cblas_dtrsm(CblasColMajor, side == CblasLeft ? CblasRight : CblasLeft, flip_uplo(uplo),
                    transa, diag, n, m, alpha, a, lda, b, ldb);
        return;
    }
    if (m < 1 || n < 1)
        return;
    if (alpha == 0.0) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                AT(b, ldb, i, j) = 0.0;
        return;
    }
    int nonunit = diag == CblasNonUnit, upper = uplo == CblasUpper, t = is_trans(transa);
    if (side == CblasLeft) {
        for (int j = 0; j < n; j++) { /* each column of B is an independent solve */
            double *x = &AT(b, ldb, 0, j);
            if (!t) { /* A*x = alpha*b, column-oriented */
                if (alpha != 1.0)
                    col_scal(m, alpha, x);
                for (int s = 0; s < m; s++) {
                    int kk = upper ? m - 1 - s : s;
                    if (x[kk] == 0.0)
                        continue;
                    if (nonunit)
                        x[kk] /= AT(a, lda, kk, kk);
                    if (upper)
                        col_axpy(kk, x[kk], &AT(a, lda, 0, kk), x);
                    else
                        col_axpy(m - kk - 1, x[kk], &AT(a, lda, kk + 1, kk), x + kk + 1);
                }
            } else { /* A^T*x = alpha*b: dot products with the columns of A */
                for (int s = 0; s < m; s++) {
                    int i = upper ? s : m - 1 - s;
                    double tmp = alpha * x[i];
                    const double *col = &AT(a, lda, 0, i);
                    if (upper)
                        for (int kk = 0; kk < i; kk++)
                            tmp -= col[kk] * x[kk];
                    else
                        for (int kk = i + 1; kk < m; kk++)
                            tmp -= col[kk] * x[kk];
                    x[i] = nonunit ? tmp / col[i] : tmp;
                }
            }
        }
    } else if (!t) { /* X*A = alpha*B: column j of X from the columns before (upper) or after it */
        for (int s = 0; s < n; s++) {
            int j = upper ? s : n - 1 - s;
            double *bj = &AT(b, ldb, 0, j);
            if (alpha != 1.0)
                col_scal(m, alpha, bj);
            int k0 = upper ? 0 : j + 1, k1 = upper ? j : n;
            for (int kk = k0; kk < k1; kk++)
                if (AT(a, lda, kk, j) != 0.0)
                    col_axpy(m, AT(a, lda, kk, j), &AT(b, ldb, 0, kk), bj);
            if (nonunit)
                col_scal(m, 1.0 / AT(a, lda, j, j), bj);
        }
    } else { /* X*A^T = alpha*B: finish column k of X, then remove it from the others */
        for (int s = 0; s < n; s++) {
            int kk = upper ? n - 1 - s : s;
            double *bk = &AT(b, ldb, 0, kk);
            if (nonunit)
                col_scal(m, 1.0 / AT(a, lda, kk, kk), bk);
            int j0 = upper ? 0 : kk + 1, j1 = upper ? kk : n;
            for (int j = j0; j < j1; j++)
                if (AT(a, lda, j, kk) != 0.0)
                    col_axpy(m, AT(a, lda, j, kk), bk, &AT(b, ldb, 0, j));
            if (alpha != 1.0)
                col_scal(m, alpha, bk);
        }
    }
}
