/* Compute kernels, one process, for comparing generated code (native vs
 * wasm): each kernel runs `reps` times and prints its best rate and a
 * checksum (both builds must print the same checksum).
 *
 *   kernels [names...]       (default: all)
 *
 * Output, one line per kernel:
 *   kernel <name> <rate> <unit> checksum <hex>
 *
 * dgemm      cblas_dgemm (benchmarks/external/cblas), n = 512, GFLOP/s
 * stencil7   7-point 3-D Jacobi sweep, 128^3, GFLOP/s (8 flops per point)
 * triad      STREAM triad a = b + s*c, 8 Mi doubles, GB/s (24 bytes per element)
 * random     HPCC-style RandomAccess: xor updates of a 2^22-entry table, GUP/s
 * fft        radix-2 complex FFT, 2^16 points, GFLOP/s (5 n log2 n)
 * spmv       27-point stencil matrix (HPCG's), CSR, 64^3 rows, GFLOP/s
 * copy       memcpy of blocks of 64 B to 64 KiB (each size the same number
 *            of bytes) through 16 MiB, GB/s copied
 * fill       memset of the same blocks, GB/s written
 *
 * Uses MPI only for its clock, so that both builds time alike. */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../external/cblas/cblas.h"

static double now(void) { return MPI_Wtime(); }

static void *xalloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 4096, n)) {
        fprintf(stderr, "kernels: cannot allocate %zu bytes\n", n);
        exit(2);
    }
    memset(p, 0, n);
    return p;
}

/* a checksum that is the same on every platform for the same doubles */
static uint64_t mix(uint64_t h, double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (h ^ bits) * 0x100000001b3ULL;
}

static uint64_t sum_array(const double *a, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i += 97) h = mix(h, a[i]);
    return h;
}

typedef struct {
    double rate;
    uint64_t check;
} result;

static result dgemm(int reps) {
    const int n = 512;
    double *a = xalloc(sizeof(double) * n * n), *b = xalloc(sizeof(double) * n * n),
           *c = xalloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++) {
        a[i] = (double)(i % 13) / 13.0;
        b[i] = (double)(i % 7) / 7.0 - 0.5;
    }
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = now();
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
        t = now() - t;
        if (t < best) best = t;
    }
    result res = {2.0 * n * n * n / best / 1e9, sum_array(c, (size_t)n * n)};
    free(a), free(b), free(c);
    return res;
}

static result stencil7(int reps) {
    const int n = 128;
    const size_t total = (size_t)n * n * n;
    double *u = xalloc(sizeof(double) * total), *v = xalloc(sizeof(double) * total);
    for (size_t i = 0; i < total; i++) u[i] = (double)(i % 101) / 101.0;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = now();
        for (int k = 1; k < n - 1; k++)
            for (int j = 1; j < n - 1; j++) {
                const double *c = u + ((size_t)k * n + j) * n;
                double *o = v + ((size_t)k * n + j) * n;
                for (int i = 1; i < n - 1; i++)
                    o[i] = 0.5 * c[i] + (1.0 / 12.0) * (c[i - 1] + c[i + 1] + c[i - n] + c[i + n] +
                                                        c[i - n * n] + c[i + n * n]);
            }
        t = now() - t;
        if (t < best) best = t;
    }
    double points = (double)(n - 2) * (n - 2) * (n - 2);
    result res = {8.0 * points / best / 1e9, sum_array(v, total)};
    free(u), free(v);
    return res;
}

static result triad(int reps) {
    const size_t n = 8u << 20;
    double *a = xalloc(sizeof(double) * n), *b = xalloc(sizeof(double) * n), *c = xalloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) b[i] = 1.0 + (double)(i & 255), c[i] = 2.0 - (double)(i & 127);
    const double s = 3.0;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = now();
        for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        t = now() - t;
        if (t < best) best = t;
    }
    result res = {24.0 * n / best / 1e9, sum_array(a, n)};
    free(a), free(b), free(c);
    return res;
}

static result random_access(int reps) {
    const unsigned log2n = 22;
    const uint64_t n = 1ULL << log2n, updates = 4 * n;
    uint64_t *table = xalloc(sizeof(uint64_t) * n);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        for (uint64_t i = 0; i < n; i++) table[i] = i;
        double t = now();
        uint64_t x = 1;
        for (uint64_t i = 0; i < updates; i++) {
            /* HPCC's generator: x = (x << 1) ^ (x < 0 ? POLY : 0) */
            x = (x << 1) ^ ((int64_t)x < 0 ? 0x0000000000000007ULL : 0);
            table[x & (n - 1)] ^= x;
        }
        t = now() - t;
        if (t < best) best = t;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint64_t i = 0; i < n; i += 61) h = (h ^ table[i]) * 0x100000001b3ULL;
    result res = {updates / best / 1e9, h};
    free(table);
    return res;
}

static void fft_once(double *re, double *im, int n) {
    for (int i = 1, j = 0; i < n; i++) { /* bit reversal */
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i]; re[i] = re[j]; re[j] = t;
            t = im[i]; im[i] = im[j]; im[j] = t;
        }
    }
    /* twiddles by half-angle steps from w = -1 (sqrt is correctly rounded
     * everywhere, libm's sin/cos are not: both builds compute the same) */
    double wr = -1.0, wi = 0.0;
    for (int len = 2; len <= n; len <<= 1) {
        if (len > 2) {
            double c = sqrt((1.0 + wr) / 2.0);
            wi = -sqrt((1.0 - wr) / 2.0), wr = c;
        }
        for (int i = 0; i < n; i += len) {
            double cr = 1.0, ci = 0.0;
            for (int k = 0; k < len / 2; k++) {
                double *ar = re + i + k, *ai = im + i + k, *br = ar + len / 2, *bi = ai + len / 2;
                double tr = *br * cr - *bi * ci, ti = *br * ci + *bi * cr;
                *br = *ar - tr, *bi = *ai - ti;
                *ar += tr, *ai += ti;
                double ncr = cr * wr - ci * wi;
                ci = cr * wi + ci * wr, cr = ncr;
            }
        }
    }
}

static result fft(int reps) {
    const int n = 1 << 16;
    double *re = xalloc(sizeof(double) * n), *im = xalloc(sizeof(double) * n);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) re[i] = (double)((i * 7919) % 1000) / 1000.0, im[i] = 0.0;
        double t = now();
        fft_once(re, im, n);
        t = now() - t;
        if (t < best) best = t;
    }
    result res = {5.0 * n * 16 / best / 1e9, sum_array(re, n) ^ sum_array(im, n)};
    free(re), free(im);
    return res;
}

static result spmv(int reps) {
    const int n = 64;
    const int rows = n * n * n;
    int *start = xalloc(sizeof(int) * (rows + 1)), *col = xalloc(sizeof(int) * rows * 27);
    double *val = xalloc(sizeof(double) * rows * 27), *x = xalloc(sizeof(double) * rows),
           *y = xalloc(sizeof(double) * rows);
    int nnz = 0;
    for (int z = 0; z < n; z++)
        for (int yy = 0; yy < n; yy++)
            for (int xx = 0; xx < n; xx++) {
                int row = (z * n + yy) * n + xx;
                start[row] = nnz;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int a = xx + dx, b = yy + dy, c = z + dz;
                            if (a < 0 || b < 0 || c < 0 || a >= n || b >= n || c >= n) continue;
                            col[nnz] = (c * n + b) * n + a;
                            val[nnz++] = (dx | dy | dz) ? -1.0 : 26.0;
                        }
                x[row] = 1.0 + (row % 17) / 17.0;
            }
    start[rows] = nnz;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = now();
        for (int i = 0; i < rows; i++) {
            double s = 0.0;
            for (int k = start[i]; k < start[i + 1]; k++) s += val[k] * x[col[k]];
            y[i] = s;
        }
        t = now() - t;
        if (t < best) best = t;
    }
    result res = {2.0 * nnz / best / 1e9, sum_array(y, rows)};
    free(start), free(col), free(val), free(x), free(y);
    return res;
}

/* Block sizes for copy and fill: each size moves the same number of bytes
 * (4 MiB) per pass, so no single size dominates the rate. */
static const size_t BLOCKS[] = {64, 256, 1024, 4096, 16384, 65536};
#define NBLOCKS (sizeof BLOCKS / sizeof BLOCKS[0])
#define BLOCK_AREA (16u << 20)
#define PER_SIZE (4u << 20)

static result block_ops(int reps, int fill) {
    double *a = xalloc(BLOCK_AREA), *b = xalloc(BLOCK_AREA);
    for (size_t i = 0; i < BLOCK_AREA / sizeof(double); i++) a[i] = (double)(i % 1009);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = now();
        for (size_t s = 0; s < NBLOCKS; s++) {
            size_t n = BLOCKS[s], at = 0;
            for (size_t done = 0; done < PER_SIZE; done += n) {
                /* a different 8-byte offset each time: source and
                 * destination alignments vary as in real codes */
                size_t off = (done / n % 8) * 8;
                if (at + n + off > BLOCK_AREA) at = 0;
                if (fill)
                    memset((char *)b + at + off, (int)(done / n), n);
                else
                    memcpy((char *)b + at + off, (char *)a + (BLOCK_AREA - at - n), n);
                at += n + off;
            }
        }
        t = now() - t;
        if (t < best) best = t;
    }
    result res = {(double)NBLOCKS * PER_SIZE / best / 1e9, sum_array(b, BLOCK_AREA / sizeof(double))};
    free(a), free(b);
    return res;
}

static result copy(int reps) { return block_ops(reps, 0); }
static result fill(int reps) { return block_ops(reps, 1); }

static const struct {
    const char *name, *unit;
    result (*run)(int);
    int reps;
} KERNELS[] = {
    {"dgemm", "GFLOP/s", dgemm, 5},     {"stencil7", "GFLOP/s", stencil7, 5},
    {"triad", "GB/s", triad, 10},       {"random", "GUP/s", random_access, 3},
    {"fft", "GFLOP/s", fft, 10},        {"spmv", "GFLOP/s", spmv, 10},
    {"copy", "GB/s", copy, 10},         {"fill", "GB/s", fill, 10},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int status = 0;
    for (size_t k = 0; k < sizeof KERNELS / sizeof KERNELS[0]; k++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= !strcmp(argv[a], KERNELS[k].name);
        if (!wanted) continue;
        result r = KERNELS[k].run(KERNELS[k].reps);
        printf("kernel %s %.4f %s checksum %016llx\n", KERNELS[k].name, r.rate, KERNELS[k].unit,
               (unsigned long long)r.check);
        fflush(stdout);
    }
    for (int a = 1; a < argc; a++) {
        int known = 0;
        for (size_t k = 0; k < sizeof KERNELS / sizeof KERNELS[0]; k++) known |= !strcmp(argv[a], KERNELS[k].name);
        if (!known) fprintf(stderr, "kernels: no kernel named %s\n", argv[a]), status = 2;
    }
    MPI_Finalize();
    return status;
}
