/* Shared by the family tests: every rank counts its own errors; rank 0
 * prints one line per check with the job-wide result. A rank's own errors
 * fail it even when the job-wide sum (our own MPI_Allreduce) says none, so a
 * broken Allreduce cannot hide them from the exit code. */
#include <mpi.h>
#include <stdio.h>

static int failures;

static void check(const char *what, int errors) {
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int failed = total || errors;
    if (rank == 0) printf("%-40s %s\n", what, failed ? "FAILED" : "ok");
    if (failed) failures++;
}

#define EXPECT(cond) \
    do { if (!(cond)) { errors++; fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)
