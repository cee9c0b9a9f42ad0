/* A minimal PMPI profiling library, preloaded the way mpiP or Score-P are:
 * it counts MPI_Allreduce and MPI_Barrier calls and prints the counts at
 * MPI_Finalize. Built natively as a shared object with the host's mpicc. */
#include <mpi.h>
#include <stdio.h>

static int allreduces, barriers;

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
    fprintf(stderr, "pmpi_counter: rank %d: %d MPI_Allreduce, %d MPI_Barrier\n", rank, allreduces, barriers);
    return PMPI_Finalize();
}
