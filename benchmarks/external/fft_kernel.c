/* FFTE's 1-D kernel alone (HPCC's HPCC_fft235, the radix-8/4/2/3/5
 * passes that HPCC's FFT spends most of its time in), on one vector,
 * repeated: the compute part of HPCC's FFT without its transposes and MPI.
 * Built against the HPCC sources build.py unpacks (see README.md, "FFTE's
 * kernel alone"); prints ns per transform, the transform's first value
 * (the sum of the input, which a caller can check) and a checksum.
 *
 *     fft_kernel [points (a product of powers of 2, 3, 5, at most 2^24; default 4096)] [repetitions] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpccfft.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The whole of `s` as a number in [lo, hi], else -1. */
static long parse(const char *s, long lo, long hi) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return (errno || end == s || *end || v < lo || v > hi) ? -1 : v;
}

int main(int argc, char **argv) {
    /* 2^24 points: four arrays of 256 MiB, within a wasm32 memory */
    long n = argc > 1 ? parse(argv[1], 2, 1L << 24) : 4096, reps = argc > 2 ? parse(argv[2], 1, 1L << 30) : 3000;
    int ip[3];
    if (argc > 3 || n < 0 || reps < 0 || HPCC_factor235((int)n, ip) != 0) {
        fprintf(stderr, "usage: %s [points: a product of powers of 2, 3 and 5, 2..2^24] [repetitions: 1..2^30]\n",
                argv[0]);
        return 2;
    }
    fftw_complex *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n), *w = malloc(sizeof *w * n);
    fftw_complex *input = malloc(sizeof *input * n);
    if (!a || !b || !w || !input) {
        fprintf(stderr, "%s: cannot allocate four arrays of %ld points\n", argv[0], n);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        c_re(input[i]) = (i * 7 % 13) * 0.1;
        c_im(input[i]) = (i * 5 % 11) * 0.1;
    }
    HPCC_settbl(w, n);
    double t = now();
    for (long r = 0; r < reps; r++) {
        /* the same input every time: values stay finite */
        memcpy(a, input, sizeof *a * n);
        HPCC_fft235(a, b, w, n, ip);
    }
    t = now() - t;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += c_re(a[i]) * (i % 17) + c_im(a[i]);
    printf("fft235 points %ld: %.1f ns per transform (%.2f GFLOP/s), first value %.10g %.10g, checksum %.6e\n", n,
           1e9 * t / reps, 5.0 * n * log2((double)n) * reps / t / 1e9, c_re(a[0]), c_im(a[0]), sum);
    return 0;
}
