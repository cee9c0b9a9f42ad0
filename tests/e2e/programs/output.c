/* Known output on both streams: rank 0 prints one line per rank on stdout,
 * in rank order, and one line on stderr. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int squares[64] = {0}, mine = rank * rank;
    MPI_Gather(&mine, 1, MPI_INT, squares, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size && r < 64; r++) printf("rank %d of %d: %d\n", r, size, squares[r]);
        fprintf(stderr, "guest stderr: %d ranks\n", size);
    }
    MPI_Finalize();
    return 0;
}
