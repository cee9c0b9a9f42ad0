/* What a job script test checks on every rank: where it runs, collectives
 * and point-to-point across nodes, and what reached the guest's environment.
 *
 *   cluster_check            one line per rank (rank order), then "ok"
 *   cluster_check trap       rank 1 reads far outside its memory: the job must end
 *   cluster_check spin       every rank waits forever (until scancel)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    const char *mode = argc > 1 ? argv[1] : "check";

    if (strcmp(mode, "trap") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            volatile int *far = (volatile int *)(uintptr_t)0xfffffff0u;
            printf("rank 1 read %d\n", *far);
        }
        MPI_Barrier(MPI_COMM_WORLD);  /* the others wait here until the job ends */
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "spin") == 0) {
        printf("rank %d spinning on %s\n", rank, host);
        fflush(stdout);
        for (;;) sleep(1);
    }

    /* sum of squares, and each rank's value passed around the ring */
    long mine = (long)(rank + 1) * (rank + 1), sum = 0, left = -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(&mine, 1, MPI_LONG, (rank + 1) % size, 0, &left, 1, MPI_LONG, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* how many ranks share this rank's host */
    MPI_Comm node;
    int node_size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    const char *procid = getenv("SLURM_PROCID");

    for (int r = 0; r < size; r++) {  /* one rank at a time keeps lines whole */
        if (r == rank) {
            printf("rank %d of %d on %s: node ranks %d, sum %ld, from left %ld, SLURM_PROCID %s\n", rank, size,
                   host, node_size, sum, left, procid ? procid : "unset");
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&node);
    if (rank == 0) printf("ok\n");
    MPI_Finalize();
    return 0;
}
