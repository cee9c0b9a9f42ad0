/* A small portable subset of the C interface to the BLAS (CBLAS), double
 * precision: what HPL (in HPCC) calls with -DHPL_CALL_CBLAS. Our own code,
 * written from the reference BLAS semantics; see cblas.c and README.md.
 *
 * The enum values are those of the standard cblas.h (and of HPL's
 * hpl_blas.h, which declares these functions itself). */
#ifndef EXTERNAL_CBLAS_H
#define EXTERNAL_CBLAS_H

enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 };
enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 };
enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 };

int cblas_idamax(const int n, const double *x, const int incx);
void cblas_dswap(const int n, double *x, const int incx, double *y, const int incy);
void cblas_dcopy(const int n, const double *x, const int incx, double *y, const int incy);
void cblas_daxpy(const int n, const double alpha, const double *x, const int incx, double *y,
                 const int incy);
void cblas_dscal(const int n, const double alpha, double *x, const int incx);

void cblas_dgemv(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE trans, const int m,
                 const int n, const double alpha, const double *a, const int lda, const double *x,
                 const int incx, const double beta, double *y, const int incy);
void cblas_dger(const enum CBLAS_ORDER order, const int m, const int n, const double alpha,
                const double *x, const int incx, const double *y, const int incy, double *a,
                const int lda);
void cblas_dtrsv(const enum CBLAS_ORDER order, const enum CBLAS_UPLO uplo,
                 const enum CBLAS_TRANSPOSE trans, const enum CBLAS_DIAG diag, const int n,
                 const double *a, const int lda, double *x, const int incx);

void cblas_dgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE transa,
                 const enum CBLAS_TRANSPOSE transb, const int m, const int n, const int k,
                 const double alpha, const double *a, const int lda, const double *b,
                 const int ldb, const double beta, double *c, const int ldc);
void cblas_dtrsm(const enum CBLAS_ORDER order, const enum CBLAS_SIDE side,
                 const enum CBLAS_UPLO uplo, const enum CBLAS_TRANSPOSE transa,
                 const enum CBLAS_DIAG diag, const int m, const int n, const double alpha,
                 const double *a, const int lda, double *b, const int ldb);

#endif
