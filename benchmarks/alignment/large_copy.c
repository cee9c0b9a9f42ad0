/* Large MPI copies between two malloc'd guest buffers: to itself on one
 * rank (MPI_Sendrecv on MPI_COMM_SELF) and a ping-pong between two ranks.
 * Built with and without the toolchain's porting layer (-wasm-strict), it
 * shows what page-aligning large blocks does (README.md here). Prints the
 * buffers' offsets within the page and microseconds per operation. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 4 << 20, reps = argc > 2 ? atoi(argv[2]) : 200;
    char *small = malloc(100), *a = malloc(n), *b = malloc(n);
    memset(a, rank + 1, n);
    memset(b, 0, n);
    double t = MPI_Wtime();
    for (int i = 0; i < reps; i++)
        MPI_Sendrecv(a, n, MPI_CHAR, 0, 0, b, n, MPI_CHAR, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    double self = (MPI_Wtime() - t) / reps * 1e6;
    double pingpong = 0;
    if (size >= 2) {
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int i = 0; i < reps && rank < 2; i++) {
            if (rank == 0) {
                MPI_Send(a, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(b, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(b, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(a, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
            }
        }
        pingpong = (MPI_Wtime() - t) / reps * 1e6;
    }
    if (rank == 0)
        printf("bytes %d offsets %lu %lu self_sendrecv_us %.1f pingpong_us %.1f check %d\n", n,
               (unsigned long)((uintptr_t)a % 4096), (unsigned long)((uintptr_t)b % 4096), self, pingpong,
               b[n - 1] == (size >= 2 ? 2 : 1));
    free(small);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
