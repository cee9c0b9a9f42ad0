/* Self-check of cblas.c against straightforward definitions: every
 * transpose/side/uplo/diag combination, both orders, odd sizes, strides.
 * Prints one line per function and "cblas check: PASSED" (exit 0) or the
 * first failures (exit 1). Plain C, no MPI: tests/bench/test_external.py
 * builds it natively and with wasm-mpicc and runs both.
 *
 *     cc -O2 -I. check.c cblas.c -lm && ./a.out */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cblas.h"

static int failures;
static unsigned long long seed = 12345;

static double rnd(void)
{
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0 - 0.5;
}

static void fill(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = rnd();
}

static void expect(const char *what, double err, double tol)
{
    if (!(err <= tol)) {
        failures++;
        if (failures <= 20)
            printf("FAIL %s: error %.3e > %.1e\n", what, err, tol);
    }
}

/* Element (i, j) of a matrix stored in `order` with leading dimension ld. */
static double el(const double *a, int ld, int order, int i, int j)
{
    return order == CblasColMajor ? a[i + j * ld] : a[i * ld + j];
}

/* op(A)(i, j) */
static double op(const double *a, int ld, int order, int trans, int i, int j)
{
    return trans == CblasNoTrans ? el(a, ld, order, i, j) : el(a, ld, order, j, i);
}

static void check_gemm(void)
{
    int sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 9, 33}, {130, 70, 300}, {5, 300, 2}, {64, 64, 64}};
    int orders[] = {CblasColMajor, CblasRowMajor}, trans[] = {CblasNoTrans, CblasTrans};
    double betas[] = {0.0, 1.0, -0.5};
    for (int s = 0; s < 6; s++)
        for (int o = 0; o < 2; o++)
            for (int ta = 0; ta < 2; ta++)
                for (int tb = 0; tb < 2; tb++)
                    for (int bi = 0; bi < 3; bi++) {
                        int m = sizes[s][0], n = sizes[s][1], k = sizes[s][2], order = orders[o];
                        int ar = trans[ta] == CblasNoTrans ? m : k, ac = trans[ta] == CblasNoTrans ? k : m;
                        int br = trans[tb] == CblasNoTrans ? k : n, bc = trans[tb] == CblasNoTrans ? n : k;
                        int lda = (order == CblasColMajor ? ar : ac) + 3;
                        int ldb = (order == CblasColMajor ? br : bc) + 1;
                        int ldc = (order == CblasColMajor ? m : n) + 2;
                        double *a = malloc(sizeof(double) * lda * (ar > ac ? ar : ac));
                        double *b = malloc(sizeof(double) * ldb * (br > bc ? br : bc));
                        double *c = malloc(sizeof(double) * ldc * (m > n ? m : n));
                        double *r = malloc(sizeof(double) * ldc * (m > n ? m : n));
                        fill(a, lda * (ar > ac ? ar : ac));
                        fill(b, ldb * (br > bc ? br : bc));
                        fill(c, ldc * (m > n ? m : n));
                        if (betas[bi] == 0.0) /* beta == 0: C must not be read */
                            for (int i = 0; i < ldc * (m > n ? m : n); i++)
                                c[i] = NAN;
                        for (int i = 0; i < ldc * (m > n ? m : n); i++)
                            r[i] = c[i];
                        double alpha = 1.5, beta = betas[bi];
                        cblas_dgemm(order, trans[ta], trans[tb], m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
                        double err = 0.0;
                        for (int i = 0; i < m; i++)
                            for (int j = 0; j < n; j++) {
                                double sum = 0.0;
                                for (int p = 0; p < k; p++)
                                    sum += op(a, lda, order, trans[ta], i, p) * op(b, ldb, order, trans[tb], p, j);
                                double want = alpha * sum + (beta == 0.0 ? 0.0 : beta * el(r, ldc, order, i, j));
                                double d = fabs(el(c, ldc, order, i, j) - want);
                                err = d > err || d != d ? d : err;
                            }
                        expect("dgemm", err, 1e-12 * (k + 1));
                        free(a), free(b), free(c), free(r);
                    }
    printf("dgemm ok\n");
}

/* A well-conditioned triangular n x n matrix (the other triangle is garbage). */
static void tri(double *a, int lda, int n)
{
    fill(a, lda * n);
    for (int i = 0; i < n; i++)
        a[i + i * lda] += i % 2 ? 4.0 : -4.0;
}

static double tri_el(const double *a, int lda, int order, int uplo, int diag, int i, int j)
{
    if (i == j)
        return diag == CblasUnit ? 1.0 : el(a, lda, order, i, i);
    if ((uplo == CblasUpper) != (i < j))
        return 0.0;
    return el(a, lda, order, i, j);
}

static void check_trsm(void)
{
    int sizes[][2] = {{1, 1}, {4, 7}, {33, 5}, {9, 70}, {80, 80}};
    int orders[] = {CblasColMajor, CblasRowMajor}, sides[] = {CblasLeft, CblasRight};
    int uplos[] = {CblasUpper, CblasLower}, trans[] = {CblasNoTrans, CblasTrans};
    int diags[] = {CblasNonUnit, CblasUnit};
    for (int s = 0; s < 5; s++)
        for (int o = 0; o < 2; o++)
            for (int si = 0; si < 2; si++)
                for (int u = 0; u < 2; u++)
                    for (int t = 0; t < 2; t++)
                        for (int d = 0; d < 2; d++) {
                            int m = sizes[s][0], n = sizes[s][1], order = orders[o];
                            int na = sides[si] == CblasLeft ? m : n, lda = na + 2;
                            int ldb = (order == CblasColMajor ? m : n) + 1, bsz = ldb * (m > n ? m : n);
                            double *a = malloc(sizeof(double) * lda * na), *b = malloc(sizeof(double) * bsz);
                            double *x = malloc(sizeof(double) * bsz);
                            tri(a, lda, na);
                            fill(b, bsz);
                            for (int i = 0; i < bsz; i++)
                                x[i] = b[i];
                            double alpha = 0.75;
                            cblas_dtrsm(order, sides[si], uplos[u], trans[t], diags[d], m, n, alpha, a, lda, x, ldb);
                            double err = 0.0; /* residual of op(A) X = alpha B or X op(A) = alpha B */
                            for (int i = 0; i < m; i++)
                                for (int j = 0; j < n; j++) {
                                    double sum = 0.0;
                                    for (int p = 0; p < na; p++) {
                                        if (sides[si] == CblasLeft) {
                                            int r = trans[t] == CblasNoTrans ? i : p, c = trans[t] == CblasNoTrans ? p : i;
                                            sum += tri_el(a, lda, order, uplos[u], diags[d], r, c) * el(x, ldb, order, p, j);
                                        } else {
                                            int r = trans[t] == CblasNoTrans ? p : j, c = trans[t] == CblasNoTrans ? j : p;
                                            sum += el(x, ldb, order, i, p) * tri_el(a, lda, order, uplos[u], diags[d], r, c);
                                        }
                                    }
                                    double dd = fabs(sum - alpha * el(b, ldb, order, i, j));
                                    err = dd > err || dd != dd ? dd : err;
                                }
                            expect("dtrsm", err, 1e-10);
                            free(a), free(b), free(x);
                        }
    printf("dtrsm ok\n");
}

static void check_level2(void)
{
    int orders[] = {CblasColMajor, CblasRowMajor}, trans[] = {CblasNoTrans, CblasTrans};
    int uplos[] = {CblasUpper, CblasLower}, diags[] = {CblasNonUnit, CblasUnit}, incs[] = {1, 2, -3};
    for (int o = 0; o < 2; o++)
        for (int ii = 0; ii < 3; ii++) {
            int order = orders[o], inc = incs[ii], m = 13, n = 7, lda = 15;
            double a[15 * 15], x[64], y[64], y0[64];
            for (int t = 0; t < 2; t++) { /* dgemv */
                int lx = trans[t] == CblasNoTrans ? n : m, ly = trans[t] == CblasNoTrans ? m : n;
                fill(a, 225), fill(x, 64), fill(y, 64);
                for (int i = 0; i < 64; i++)
                    y0[i] = y[i];
                cblas_dgemv(order, trans[t], m, n, 2.0, a, lda, x, inc, 0.5, y, -inc);
                double err = 0.0;
                for (int i = 0; i < ly; i++) {
                    double sum = 0.0;
                    for (int p = 0; p < lx; p++) /* element p of x with increment inc */
                        sum += op(a, lda, order, trans[t], i, p) * x[inc > 0 ? p * inc : (lx - 1 - p) * -inc];
                    int iy = -inc > 0 ? i * -inc : (ly - 1 - i) * inc;
                    err = fmax(err, fabs(y[iy] - (2.0 * sum + 0.5 * y0[iy])));
                }
                expect("dgemv", err, 1e-13);
            }
            { /* dger */
                double a0[225];
                fill(a, 225), fill(x, 64), fill(y, 64);
                for (int i = 0; i < 225; i++)
                    a0[i] = a[i];
                cblas_dger(order, m, n, -1.25, x, inc, y, 1, a, lda);
                double err = 0.0;
                for (int i = 0; i < m; i++)
                    for (int j = 0; j < n; j++) {
                        double xi = x[inc > 0 ? i * inc : (m - 1 - i) * -inc];
                        err = fmax(err, fabs(el(a, lda, order, i, j) - (el(a0, lda, order, i, j) - 1.25 * xi * y[j])));
                    }
                expect("dger", err, 1e-14);
            }
            for (int u = 0; u < 2; u++) /* dtrsv */
                for (int t = 0; t < 2; t++)
                    for (int d = 0; d < 2; d++) {
                        tri(a, lda, n);
                        fill(x, 64);
                        for (int i = 0; i < 64; i++)
                            y0[i] = x[i];
                        cblas_dtrsv(order, uplos[u], trans[t], diags[d], n, a, lda, x, inc);
                        double err = 0.0;
                        for (int i = 0; i < n; i++) {
                            double sum = 0.0;
                            for (int p = 0; p < n; p++) {
                                int r = trans[t] == CblasNoTrans ? i : p, c = trans[t] == CblasNoTrans ? p : i;
                                sum += tri_el(a, lda, order, uplos[u], diags[d], r, c) * x[inc > 0 ? p * inc : (n - 1 - p) * -inc];
                            }
                            err = fmax(err, fabs(sum - y0[inc > 0 ? i * inc : (n - 1 - i) * -inc]));
                        }
                        expect("dtrsv", err, 1e-12);
                    }
        }
    printf("dgemv dger dtrsv ok\n");
}

static void check_level1(void)
{
    double x[40], y[40], x0[40], y0[40];
    fill(x, 40), fill(y, 40);
    x[17] = 9.0, x[23] = -9.0, x[18] = 7.0; /* the first of equal |maxima| wins */
    expect("idamax", cblas_idamax(40, x, 1) == 17 ? 0 : 1, 0);
    expect("idamax inc", cblas_idamax(13, x, 3) == 6 ? 0 : 1, 0); /* x[0, 3, ..., 36]: 7 at x[18] */
    expect("idamax n=0", cblas_idamax(0, x, 1) == 0 ? 0 : 1, 0);
    for (int i = 0; i < 40; i++)
        x0[i] = x[i], y0[i] = y[i];
    cblas_daxpy(10, 3.0, x, 2, y, -3); /* y(last..first) += 3 x(0, 2, ...) */
    double err = 0.0;
    for (int i = 0; i < 10; i++)
        err = fmax(err, fabs(y[(9 - i) * 3] - (y0[(9 - i) * 3] + 3.0 * x0[2 * i])));
    expect("daxpy", err, 1e-15);
    cblas_dcopy(10, x, 1, y, 1);
    cblas_dscal(10, -2.0, y, 1);
    cblas_dswap(5, x, 1, y, 2);
    err = 0.0;
    for (int i = 0; i < 5; i++)
        err = fmax(err, fabs(x[i] + 2.0 * x0[2 * i]) + fabs(y[2 * i] - x0[i]));
    expect("dcopy dscal dswap", err, 1e-15);
    printf("idamax dswap dcopy daxpy dscal ok\n");
}

int main(void)
{
    check_level1();
    check_level2();
    check_gemm();
    check_trsm();
    printf("cblas check: %s (%d failures)\n", failures ? "FAILED" : "PASSED", failures);
    return failures != 0;
}
