/*
 * fanout.c: one writer per node publishes D bytes of SoA data (four double
 * columns) every step; every rank of the node reads all of it (sums it).
 *
 *   mpirun -np N embedder [--mapdir /hold:DIR] fanout.wasm MODE BYTES STEPS [HOLDFILE]
 *
 * MODE bcast:  the writer fills its private buffer, MPI_Bcast copies it into
 *              every other rank's private buffer (N copies on the node), each
 *              rank sums its copy, and a barrier ends the step.
 * MODE region: one KARMEM_READ_ONLY region (one copy on the node): the writer
 *              fills it in place, karmem_publish, every rank sums it through
 *              plain loads, karmem_acquire (which also ends the step).
 * A step is timed on rank 0 from the end of the previous one to its own end,
 * i.e. until every rank has read the step's data; the result line gives the
 * median, minimum and maximum over the steps. The values are small integers,
 * so the sums are exact and both modes print the same checksum.
 *
 * Then, with HOLDFILE, the program prints `ready` and every rank keeps its
 * buffers until HOLDFILE exists (polled every 10 ms): the driver (run.py)
 * reads each process's /proc/PID/smaps_rollup meanwhile, since a wasm guest
 * cannot see its own process.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <mpi.h>
#include <karmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define COLUMNS 4

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The writer's step s: column c, element i = s + c + (i % 1024). */
static void fill(double *data, size_t per_column, int s)
{
    for (int c = 0; c < COLUMNS; c++) {
        double *col = data + c * per_column;
        for (size_t i = 0; i < per_column; i++)
            col[i] = (double)(s + c + (int)(i & 1023));
    }
}

static double sum(const double *data, size_t per_column)
{
    double t = 0;
    for (int c = 0; c < COLUMNS; c++) {
        const double *col = data + c * per_column;
        double a = 0, b = 0; /* two chains: less latency-bound, still exact */
        size_t i = 0;
        for (; i + 1 < per_column; i += 2)
            a += col[i], b += col[i + 1];
        if (i < per_column)
            a += col[i];
        t += a + b;
    }
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4 || (strcmp(argv[1], "bcast") != 0 && strcmp(argv[1], "region") != 0)) {
        fprintf(stderr, "usage: fanout bcast|region BYTES STEPS [HOLDFILE]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int region_mode = strcmp(argv[1], "region") == 0;
    const size_t per_column = strtoull(argv[2], NULL, 10) / sizeof(double) / COLUMNS;
    const size_t bytes = per_column * COLUMNS * sizeof(double);
    const int steps = atoi(argv[3]);
    const char *hold = argc > 4 ? argv[4] : NULL;

    MPI_Comm node;
    int rank, ranks;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &ranks);

    double *data;
    karmem_region region = KARMEM_REGION_NULL;
    if (region_mode) {
        size_t size;
        if (karmem_open(node, "fanout", bytes, KARMEM_READ_ONLY, &region) != MPI_SUCCESS ||
            karmem_data(region, (void **)&data, &size) != MPI_SUCCESS || size < bytes) {
            fprintf(stderr, "fanout: karmem_open of %zu bytes failed\n", bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else if (!(data = malloc(bytes ? bytes : 1))) {
        fprintf(stderr, "fanout: malloc of %zu bytes failed\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    double *t = malloc((steps + 1) * sizeof *t), check = 0;
    MPI_Barrier(node);
    double last = MPI_Wtime();
    for (int s = 0; s < steps; s++) {
        if (rank == 0)
            fill(data, per_column, s);
        if (region_mode) {
            karmem_publish(region);
            check += sum(data, per_column);
            karmem_acquire(region); /* all have read: the writer may write again */
        } else {
            MPI_Bcast(data, (int)bytes, MPI_BYTE, 0, node);
            check += sum(data, per_column);
            MPI_Barrier(node);
        }
        double now = MPI_Wtime();
        t[s] = now - last;
        last = now;
    }

    double lo = check, hi = check;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, node);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, node);
    if (rank == 0) {
        qsort(t, steps, sizeof *t, cmp);
        double median = steps % 2 ? t[steps / 2] : (t[steps / 2 - 1] + t[steps / 2]) / 2;
        printf("result mode=%s ranks=%d bytes=%zu steps=%d median_us=%.1f min_us=%.1f max_us=%.1f checksum=%.17g\n",
               argv[1], ranks, bytes, steps, median * 1e6, t[0] * 1e6, t[steps - 1] * 1e6, check);
        if (lo != hi)
            printf("error: the ranks' sums differ (%.17g .. %.17g)\n", lo, hi);
        fflush(stdout);
    }
    if (hold) {
        MPI_Barrier(node);
        if (rank == 0) {
            printf("ready\n");
            fflush(stdout);
        }
        const struct timespec tick = { 0, 10 * 1000 * 1000 };
        while (access(hold, F_OK) != 0)
            nanosleep(&tick, NULL);
    }
    MPI_Barrier(node);
    if (region_mode)
        karmem_close(&region);
    else
        free(data);
    free(t);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return lo == hi ? 0 : 1;
}
