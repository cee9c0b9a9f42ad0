/* Ring exchange: every rank passes its rank number to the next one. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, token;
    char name[MPI_MAX_PROCESSOR_NAME];
    int len;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);

    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0,
                 &token, 1, MPI_INT, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d of %d on %s received %d\n", rank, size, name, token);

    MPI_Finalize();
    return 0;
}
