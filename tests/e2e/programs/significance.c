/* Arguments MPI reads only at some ranks ("significant only at root / at
 * local_leader") may be anything elsewhere: a non-leader's remote_leader of
 * -1 and MPI_COMM_NULL peer, a non-root's NULL buffers, negative counts and
 * MPI_DATATYPE_NULL. Every call must succeed and the job must not hang. */
#include <stdlib.h>

#include "check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, errors;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    errors = 0;
    if (size >= 2) {
        /* halves: ranks [0, h) and [h, size); leaders 0 and h in MPI_COMM_WORLD */
        int h = size / 2, low = rank < h;
        MPI_Comm half, inter, merged;
        MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
        int hrank;
        MPI_Comm_rank(half, &hrank);
        int leader = hrank == 0;
        int rc = MPI_Intercomm_create(half, 0, leader ? MPI_COMM_WORLD : MPI_COMM_NULL, leader ? (low ? h : 0) : -1,
                                      42, &inter);
        EXPECT(rc == MPI_SUCCESS);
        if (rc == MPI_SUCCESS) {
            int remote = -1, flag = 0;
            MPI_Comm_test_inter(inter, &flag);
            MPI_Comm_remote_size(inter, &remote);
            EXPECT(flag && remote == (low ? size - h : h));
            MPI_Intercomm_merge(inter, !low, &merged);
            int mrank = -1, sum = 0;
            MPI_Comm_rank(merged, &mrank);
            EXPECT(mrank == rank);
            MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
            EXPECT(sum == size * (size - 1) / 2);
            MPI_Comm_free(&merged);
            MPI_Comm_free(&inter);
        }
        MPI_Comm_free(&half);
    }
    check("Intercomm_create: leader-only arguments", errors);

    errors = 0;
    int root = size - 1, me = rank * 3;
    int *all = rank == root ? malloc(sizeof(int) * size) : NULL;
    int *counts = rank == root ? malloc(sizeof(int) * size) : NULL;
    int *displs = rank == root ? malloc(sizeof(int) * size) : NULL;
    if (rank == root)
        for (int i = 0; i < size; i++) counts[i] = 1, displs[i] = size - 1 - i;
    int rc = rank == root ? MPI_Gather(&me, 1, MPI_INT, all, 1, MPI_INT, root, MPI_COMM_WORLD)
                          : MPI_Gather(&me, 1, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
    EXPECT(rc == MPI_SUCCESS);
    if (rank == root)
        for (int i = 0; i < size; i++) EXPECT(all[i] == i * 3);
    rc = MPI_Gatherv(&me, 1, MPI_INT, all, counts, displs, rank == root ? MPI_INT : MPI_DATATYPE_NULL, root,
                     MPI_COMM_WORLD);
    EXPECT(rc == MPI_SUCCESS);
    if (rank == root)
        for (int i = 0; i < size; i++) EXPECT(all[size - 1 - i] == i * 3);
    int got = -1;
    rc = rank == root ? MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, root, MPI_COMM_WORLD)
                      : MPI_Scatter(NULL, -3, MPI_DATATYPE_NULL, &got, 1, MPI_INT, root, MPI_COMM_WORLD);
    EXPECT(rc == MPI_SUCCESS && got == (size - 1 - rank) * 3);
    got = -1;
    rc = MPI_Scatterv(all, counts, displs, rank == root ? MPI_INT : MPI_DATATYPE_NULL, &got, 1, MPI_INT, root,
                      MPI_COMM_WORLD);
    EXPECT(rc == MPI_SUCCESS && got == rank * 3);
    int sum = -1;
    rc = MPI_Reduce(&me, rank == root ? &sum : NULL, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    EXPECT(rc == MPI_SUCCESS);
    if (rank == root) EXPECT(sum == 3 * size * (size - 1) / 2);
    check("rooted collectives: root-only arguments", errors);

    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return failures != 0;
}
