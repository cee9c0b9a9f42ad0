/* A program a profiler watches: known numbers of MPI_Allreduce and
 * MPI_Barrier calls, and MPI_Pcontrol levels (see test_host_library.py). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; i++) {
        int one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 2; i++) MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(2); /* profilers switch on and off with it */
    MPI_Pcontrol(3);
    printf("rank %d sum %d\n", rank, sum);
    MPI_Finalize();
    return 0;
}
