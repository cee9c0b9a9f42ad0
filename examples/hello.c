/* Every rank reports where it runs; rank 0 prints the reports in rank order.
 * Run: mpirun -np 4 ./target/release/embedder examples/hello.wasm            */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, size, len, provided;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);

    char line[512];
    snprintf(line, sizeof line, "hello from rank %d of %d on %s (name length %d, %s)", rank, size, name,
             len, provided >= MPI_THREAD_FUNNELED ? "funneled threads" : "single thread");
    if (rank == 0) {
        puts(line);
        for (int r = 1; r < size; r++) {
            MPI_Status st;
            MPI_Recv(line, sizeof line, MPI_CHAR, r, 7, MPI_COMM_WORLD, &st);
            puts(line);
        }
    } else {
        MPI_Send(line, (int)strlen(line) + 1, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
    }
    int flag;
    MPI_Finalize();
    MPI_Finalized(&flag);
    if (rank == 0) printf("finalized: %d\n", flag);
    return 0;
}
