/* A token travels around the ring of ranks; each rank adds its rank number.
 * Build:  toolchain/bin/wasm-mpicc -o examples/ring.wasm examples/ring.c
 * Run:    mpirun -np 4 ./target/release/embedder examples/ring.wasm [laps]   */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, laps = argc > 1 ? atoi(argv[1]) : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long token = 0; /* 4 bytes on wasm32, 8 on the host: MPI_LONG must follow */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double t0 = MPI_Wtime();
    /* A ring of one has nothing to pass (and a blocking send to oneself
     * before the receive is posted may never complete). */
    for (int lap = 0; size > 1 && lap < laps; lap++) {
        if (rank == 0) {
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
            MPI_Status st;
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, &st);
            if (st.MPI_SOURCE != prev || st.MPI_TAG != lap) {
                fprintf(stderr, "bad status: source %d tag %d\n", st.MPI_SOURCE, st.MPI_TAG);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        } else {
            MPI_Recv(&token, 1, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long expected = (long)laps * size * (size - 1) / 2;
        printf("ring of %d ranks, %d lap(s): token %ld (expected %ld)\n", size, laps, token, expected);
        fprintf(stderr, "%.1f us per hop\n", 1e6 * t / ((double)laps * size));
        if (token != expected) return 1;
    }
    MPI_Finalize();
    return 0;
}
