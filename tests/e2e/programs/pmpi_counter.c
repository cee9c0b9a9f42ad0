/* A minimal PMPI profiling library, preloaded the way mpiP or Score-P are:
 * it counts MPI_Allreduce and MPI_Barrier calls, sums the levels given to
 * MPI_Pcontrol, and prints them at MPI_Finalize. Built natively as a shared object with the host's mpicc. */
#include <mpi.h>
#include <stdio.h>

static int allreduces, barriers, pcontrol_levels;

int MPI_Pcontrol(const int level, ...) {
    pcontrol_levels += level;
    return MPI_SUCCESS;
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
    allreduces++;
    return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Barrier(MPI_Comm c) {
    barriers++;
    return PMPI_Barrier(c);
}

int MPI_Finalize(void) {
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "pmpi_counter: rank %d: %d MPI_Allreduce, %d MPI_Barrier, Pcontrol levels %d\n", rank, allreduces, barriers,
            pcontrol_levels);
    return PMPI_Finalize();
}
