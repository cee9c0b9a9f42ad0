/* Exits with the code given as argv[1] after a clean MPI_Finalize. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return argc > 1 ? atoi(argv[1]) : 0;
}
