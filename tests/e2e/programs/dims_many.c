/* dims_many NNODES NDIMS: MPI_Dims_create over NDIMS dimensions, all free
 * but dims[1] = 2. Prints the return code, the first 40 dimensions, and
 * whether the rest are all 1 (tests/e2e/test_topo_faults.py). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int nnodes = argc > 2 ? atoi(argv[1]) : 384, ndims = argc > 2 ? atoi(argv[2]) : 64;
    int* dims = calloc((size_t)ndims, sizeof(int));
    if (!dims || ndims < 41) return 2;
    dims[1] = 2;
    int rc = MPI_Dims_create(nnodes, ndims, dims);
    printf("rc %d:", rc);
    for (int i = 0; i < 40; i++) printf(" %d", dims[i]);
    int ones = 0;
    for (int i = 40; i < ndims; i++) ones += dims[i] == 1;
    printf(", then %s\n", ones == ndims - 40 ? "all 1" : "not all 1");
    MPI_Finalize();
    return 0;
}
