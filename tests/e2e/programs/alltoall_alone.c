/* alltoall_alone.c [FORM...]: alltoalls on a communicator of one process
 * (MPI_COMM_WORLD split by rank) while the program has a receive from
 * MPI_ANY_SOURCE with MPI_ANY_TAG pending on it. Legal: a collective's
 * messages never match a point-to-point receive. MPICH (4.0.2, 5.0.2)
 * sends the block to itself with tag 287 on the communicator's
 * point-to-point context, the receive takes it, and the alltoall never
 * completes, natively too.
 *
 * Per form: "FORM: data ok, receive untouched" (the receive is then
 * cancelled), or "FORM: stuck, the receive took tag T" for a nonblocking
 * form that does not complete (the job then aborts: blocking forms would
 * hang). Forms: alltoall alltoallv alltoallw ialltoall ialltoallv
 * ialltoallw (all without arguments). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void one(const char *form, MPI_Comm alone) {
    int send[4] = {11, 12, 13, 14}, recv[4] = {0, 0, 0, 0}, sink[64];
    int counts[1] = {4}, displs[1] = {0}, bytes[1] = {0};
    MPI_Datatype types[1] = {MPI_INT};
    MPI_Request pending, coll = MPI_REQUEST_NULL;
    MPI_Irecv(sink, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, alone, &pending);
    if (!strcmp(form, "alltoall")) MPI_Alltoall(send, 4, MPI_INT, recv, 4, MPI_INT, alone);
    else if (!strcmp(form, "alltoallv")) MPI_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, alone);
    else if (!strcmp(form, "alltoallw")) MPI_Alltoallw(send, counts, bytes, types, recv, counts, bytes, types, alone);
    else if (!strcmp(form, "ialltoall")) MPI_Ialltoall(send, 4, MPI_INT, recv, 4, MPI_INT, alone, &coll);
    else if (!strcmp(form, "ialltoallv")) MPI_Ialltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, alone, &coll);
    else MPI_Ialltoallw(send, counts, bytes, types, recv, counts, bytes, types, alone, &coll);
    int done = 1;
    for (long i = 0; i < 1000000 && coll != MPI_REQUEST_NULL; i++) MPI_Test(&coll, &done, MPI_STATUS_IGNORE);
    if (coll != MPI_REQUEST_NULL) {
        int took = 0;
        MPI_Status st;
        MPI_Test(&pending, &took, &st);
        printf("%s: stuck, the receive took tag %d\n", form, took ? st.MPI_TAG : -1);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Status st;
    int cancelled = 0;
    MPI_Cancel(&pending);
    MPI_Wait(&pending, &st);
    MPI_Test_cancelled(&st, &cancelled);
    int good = !memcmp(send, recv, sizeof send);
    printf("%s: data %s, receive %s\n", form, good ? "ok" : "WRONG", cancelled ? "untouched" : "TAKEN");
}

int main(int argc, char **argv) {
    static const char *forms[] = {"alltoall", "alltoallv", "alltoallw", "ialltoall", "ialltoallv", "ialltoallw"};
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm alone;
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone);
    if (argc > 1)
        for (int i = 1; i < argc; i++) one(argv[i], alone);
    else
        for (unsigned i = 0; i < sizeof forms / sizeof *forms; i++) one(forms[i], alone);
    MPI_Comm_free(&alone);
    MPI_Finalize();
    return 0;
}
