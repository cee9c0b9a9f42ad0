/* dims_create NNODES D0 D1 ...: MPI_Dims_create of NNODES over the given
 * dimensions (0: free); prints the return code and the dimensions
 * (tests/e2e/test_topo_faults.py). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (argc < 3) return 2;
    int nnodes = atoi(argv[1]), ndims = argc - 2, dims[16];
    if (ndims > 16) return 2;
    for (int i = 0; i < ndims; i++) dims[i] = atoi(argv[i + 2]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Dims_create(nnodes, ndims, dims);
    printf("rc %d:", rc);
    for (int i = 0; i < ndims; i++) printf(" %d", dims[i]);
    printf("\n");
    MPI_Finalize();
    return 0;
}
