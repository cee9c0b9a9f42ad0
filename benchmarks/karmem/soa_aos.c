/*
 * soa_aos.c: the same particle loops over SoA columns (one array per field,
 * as karmem-gen lays out an @soa array) and over AoS records (one array of
 * structs, as @aos), timed in one run. Plain C without MPI: build it
 * natively (gcc -O2) and to wasm (wasm-mpicc -O2) and compare.
 *
 *   soa_aos [PARTICLES [SECONDS]]      (default 16384 particles, 0.2 s)
 *
 * Kernels, per particle and repetition:
 *   drift   x += vx*dt, y += vy*dt, z += vz*dt   (6 of the record's 8 fields)
 *   kinetic e += m*(vx*vx + vy*vy + vz*vz)       (4 of 8, a reduction)
 * The record is 8 doubles (64 bytes: x y z vx vy vz mass charge), so AoS
 * drags the untouched fields through the cache and cannot load a field of
 * consecutive particles as one vector. Each (kernel, layout) repeats the loop
 * until SECONDS have passed, 3 times, and the best time per particle counts.
 * Output, one line each:
 *   kernel=drift layout=soa particles=16384 reps=... ns_per_particle=0.412 checksum=...
 * The checksum is the same for both layouts (and builds): the same
 * operations in the same order.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct { double x, y, z, vx, vy, vz, mass, charge; } particle;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const double dt = 1e-6;

/* noinline: the compiler sees one loop at a time, as a library would give it */
__attribute__((noinline)) static void drift_soa(size_t n, double *restrict x, double *restrict y,
                                               double *restrict z, const double *restrict vx,
                                               const double *restrict vy, const double *restrict vz)
{
    for (size_t i = 0; i < n; i++) {
        x[i] += vx[i] * dt;
        y[i] += vy[i] * dt;
        z[i] += vz[i] * dt;
    }
}

__attribute__((noinline)) static void drift_aos(size_t n, particle *restrict p)
{
    for (size_t i = 0; i < n; i++) {
        p[i].x += p[i].vx * dt;
        p[i].y += p[i].vy * dt;
        p[i].z += p[i].vz * dt;
    }
}

__attribute__((noinline)) static double kinetic_soa(size_t n, const double *restrict vx, const double *restrict vy,
                                                   const double *restrict vz, const double *restrict m)
{
    double e = 0;
    for (size_t i = 0; i < n; i++)
        e += m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
    return e;
}

__attribute__((noinline)) static double kinetic_aos(size_t n, const particle *restrict p)
{
    double e = 0;
    for (size_t i = 0; i < n; i++)
        e += p[i].mass * (p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].vz * p[i].vz);
    return e;
}

static volatile double sink;

/* The state, in both layouts. */
static size_t n;
static double *x, *y, *z, *vx, *vy, *vz, *m, *q;
static particle *aos;

static void init(void)
{
    for (size_t i = 0; i < n; i++) {
        particle p = { i * 1e-3, -(double)i, 0.5, (i % 7) - 3.0, (i % 11) * 0.25, 1.0, 1.0 + i % 3, 0 };
        x[i] = p.x, y[i] = p.y, z[i] = p.z, vx[i] = p.vx, vy[i] = p.vy, vz[i] = p.vz, m[i] = p.mass, q[i] = 0;
        aos[i] = p;
    }
}

/* `reps` repetitions of a kernel over one layout; the reductions' sum */
static double run(int kernel, int soa, long reps)
{
    double e = 0;
    for (long r = 0; r < reps; r++) {
        /* "memory changed": no repetition of a pure kernel may be merged
         * with another (gcc -O3 would call kinetic_* once otherwise) */
        __asm__ volatile("" ::: "memory");
        if (kernel == 0 && soa)
            drift_soa(n, x, y, z, vx, vy, vz);
        else if (kernel == 0)
            drift_aos(n, aos);
        else if (soa)
            e += kinetic_soa(n, vx, vy, vz, m);
        else
            e += kinetic_aos(n, aos);
    }
    return e;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? strtoull(argv[1], NULL, 10) : 16384;
    double budget = argc > 2 ? atof(argv[2]) : 0.2;
    double *cols = aligned_alloc(64, 8 * n * sizeof(double) + 64);
    aos = aligned_alloc(64, n * sizeof(particle) + 64);
    if (!cols || !aos || n == 0) {
        fprintf(stderr, "soa_aos: cannot allocate %zu particles\n", n);
        return 1;
    }
    x = cols, y = x + n, z = y + n, vx = z + n, vy = vx + n, vz = vy + n, m = vz + n, q = m + n;

    for (int kernel = 0; kernel < 2; kernel++) {
        for (int soa = 1; soa >= 0; soa--) {
            double best = 1e30;
            long reps = 0;
            for (int trial = 0; trial < 3; trial++) {
                init();
                double t0 = now(), t;
                long r = 0;
                do {
                    sink += run(kernel, soa, 16); /* a used result: no dead loop */
                    r += 16;
                    t = now() - t0;
                } while (t < budget);
                if (t / r < best)
                    best = t / r;
                reps = r;
            }
            /* 16 repetitions from the initial state again: a value that
             * depends on every result (so no loop is dead) and not on the
             * timing, the same for both layouts and both builds */
            init();
            double check = run(kernel, soa, 16);
            for (size_t i = 0; i < n; i++)
                check += soa ? x[i] + y[i] + z[i] : aos[i].x + aos[i].y + aos[i].z;
            printf("kernel=%s layout=%s particles=%zu reps=%ld ns_per_particle=%.4f checksum=%.17g\n",
                   kernel == 0 ? "drift" : "kinetic", soa ? "soa" : "aos", n, reps, best / n * 1e9, check);
            fflush(stdout);
        }
    }
    free(cols);
    free(aos);
    return 0;
}
