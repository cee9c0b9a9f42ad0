/* FFTE's 1-D kernel alone (HPCC's HPCC_fft235, the radix-8/4/2 passes
 * that HPCC's FFT spends most of its time in), on one in-cache vector,
 * repeated: the compute part of HPCC's FFT without its transposes and MPI.
 * Built against the HPCC sources build.py unpacks (see README.md, "FFTE's
 * kernel alone"); prints ns per transform and a checksum.
 *
 *     fft_kernel [points (a product of powers of 2, 3, 5; default 4096)] [repetitions] */
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

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4096, reps = argc > 2 ? atoi(argv[2]) : 3000, ip[3];
    if (n < 2 || reps < 1 || HPCC_factor235(n, ip) != 0) {
        fprintf(stderr, "usage: %s [points: a product of powers of 2, 3 and 5] [repetitions]\n", argv[0]);
        return 2;
    }
    fftw_complex *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n), *w = malloc(sizeof *w * n);
    fftw_complex *input = malloc(sizeof *input * n);
    if (!a || !b || !w || !input) return 1;
    for (int i = 0; i < n; i++) {
        c_re(input[i]) = (i * 7 % 13) * 0.1;
        c_im(input[i]) = (i * 5 % 11) * 0.1;
    }
    HPCC_settbl(w, n);
    double t = now();
    for (int r = 0; r < reps; r++) {
        /* the same input every time: values stay finite */
        memcpy(a, input, sizeof *a * n);
        HPCC_fft235(a, b, w, n, ip);
    }
    t = now() - t;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += c_re(a[i]) * (i % 17) + c_im(a[i]);
    printf("fft235 points %d: %.1f ns per transform (%.2f GFLOP/s), checksum %.6e\n", n, 1e9 * t / reps,
           5.0 * n * log2((double)n) * reps / t / 1e9, sum);
    return 0;
}
