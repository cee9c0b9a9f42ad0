/* Instructions per collective call on one rank, for valgrind's callgrind:
 * `vcoll CASE N` makes N calls of one collective with 1-element blocks
 * (0 MPI_Alltoallv, 1 MPI_Allgatherv, 2 MPI_Gatherv, 3 MPI_Allgather,
 * 4 MPI_Scatterv, 5 MPI_Reduce_scatter, 6 MPI_Bcast of one byte,
 * 7 MPI_Barrier, 8 MPI_Alltoall). The difference of the totals at N = 100000 and N = 0,
 * divided by N, is the cost per call; wasm minus native is what the bridge
 * adds:
 *   mpirun -np 1 valgrind --tool=callgrind embedder vcoll.wasm 0 100000  */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int which = argc > 1 ? atoi(argv[1]) : 0;
    long n = argc > 2 ? atol(argv[2]) : 100000L;
    MPI_Init(&argc, &argv);
    double s[4] = {1, 2, 3, 4}, r[4] = {0};
    int sc[1] = {1}, sd[1] = {0}, rc[1] = {1}, rd[1] = {0};
    for (long i = 0; i < n; i++) {
        switch (which) {
        case 0: MPI_Alltoallv(s, sc, sd, MPI_DOUBLE, r, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD); break;
        case 1: MPI_Allgatherv(s, 1, MPI_DOUBLE, r, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD); break;
        case 2: MPI_Gatherv(s, 1, MPI_DOUBLE, r, rc, rd, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
        case 3: MPI_Allgather(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, MPI_COMM_WORLD); break;
        case 5: MPI_Reduce_scatter(s, r, rc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
        case 6: MPI_Bcast(r, 1, MPI_BYTE, 0, MPI_COMM_WORLD); r[0] = 1; break;
        case 7: MPI_Barrier(MPI_COMM_WORLD); r[0] = 1; break;
        case 8: MPI_Alltoall(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, MPI_COMM_WORLD); break;
        default: MPI_Scatterv(s, sc, sd, MPI_DOUBLE, r, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); break;
        }
    }
    MPI_Finalize();
    return n > 0 && r[0] != 1;
}
