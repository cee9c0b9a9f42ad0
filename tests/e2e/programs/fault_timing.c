/* fault_timing.c FAULT WAIT: the last rank commits FAULT while every other
 * rank blocks in WAIT ("collective": an MPI_Allreduce the culprit never
 * joins; "receive": an MPI_Recv from the culprit that never comes).
 * FAULT is "trap", "abort" (MPI_Abort), "exit" (exit(3) without
 * MPI_Finalize) or "kill": the culprit blocks like the others and the test
 * kills its process from outside.
 * Before faulting the culprit prints "fault at <seconds>" (wall clock, the
 * host's, through WASI) so the test can time the job's end from the fault. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double wall_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void block(const char *wait, int from) {
    int x = 0, sum = 0;
    if (!strcmp(wait, "collective"))
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Recv(&x, 1, MPI_INT, from, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0) fprintf(stderr, "usage: fault_timing FAULT collective|receive\n");
        MPI_Finalize();
        return 2;
    }
    const char *fault = argv[1], *wait = argv[2];
    int culprit = size - 1;
    MPI_Barrier(MPI_COMM_WORLD); /* every rank is up */
    if (rank != culprit || !strcmp(fault, "kill")) {
        if (rank == culprit) {
            printf("rank %d ready\n", rank);
            fflush(stdout);
        }
        /* a killed culprit waits in a receive: it must not complete the
         * others' collective */
        block(rank == culprit ? "receive" : wait, rank == culprit ? 0 : culprit);
        printf("rank %d: unexpected return from the blocking call\n", rank);
        MPI_Finalize();
        return 1;
    }
    usleep(300 * 1000); /* let the others enter the blocking call */
    printf("fault at %.6f\n", wall_clock());
    fflush(stdout);
    if (!strcmp(fault, "trap")) __builtin_trap();
    if (!strcmp(fault, "abort")) MPI_Abort(MPI_COMM_WORLD, 5);
    if (!strcmp(fault, "exit")) exit(3);
    printf("unknown fault %s\n", fault);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
}
