/* Reduce-scatter in every form with a user operation on MPI_INT resized to
 * lower bound -16 and extent 64 (true extent 4): each element lies 64 bytes
 * from the next. Argument: 0 for a non-commutative operation, 1 for a
 * commutative one. Rank 0 prints, per form, "ok" when every rank got the
 * right sums, else what it saw: the error class of a refused call, or
 * "wrong". MPICH computes the non-commutative case wrongly on a
 * power-of-two number of processes and writes past its own buffers
 * (natively too; on one process its persistent form), so the embedder
 * refuses it there with MPI_ERR_TYPE. A second argument runs only that
 * form (0-7). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 2
#define EXTENT 64
#define LB 16

/* elements EXTENT bytes apart (a user function may call no MPI function
   but MPI_Abort, so it does not ask the datatype) */
static void add(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++) *(int *)((char *)inout + i * EXTENT) += *(int *)((char *)in + i * EXTENT);
}

static int rank, size;

/* the outcome of one form on this rank: 0 right, -1 wrong sums, else the error class + 1 */
static int outcome(int rc, const char *recv) {
    if (rc != MPI_SUCCESS) {
        int cls;
        MPI_Error_class(rc, &cls);
        return cls + 1;
    }
    for (int j = 0; j < COUNT; j++) {
        int index = rank * COUNT + j, want = size * index + size * (size - 1) / 2;
        if (*(const int *)(recv + LB + j * EXTENT) != want) return -1;
    }
    return 0;
}

static void report(const char *form, int mine) {
    int all[64];
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank) return;
    int worst = 0;
    for (int r = 0; r < size; r++) if (all[r] != 0 && worst <= 0) worst = all[r];
    if (worst == 0) printf("%s: ok\n", form);
    else if (worst == -1) printf("%s: wrong\n", form);
    else if (worst - 1 == MPI_ERR_TYPE) printf("%s: MPI_ERR_TYPE\n", form);
    else printf("%s: error class %d\n", form, worst - 1);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int commute = argc > 1 ? atoi(argv[1]) : 0, only = argc > 2 ? atoi(argv[2]) : -1;
    MPI_Op op;
    MPI_Op_create(add, commute, &op);
    MPI_Datatype spaced;
    MPI_Type_create_resized(MPI_INT, -LB, EXTENT, &spaced);
    MPI_Type_commit(&spaced);
    size_t bytes = (size_t)COUNT * size * EXTENT + 2 * EXTENT;
    char *send = malloc(bytes), *recv = malloc(bytes);
    int counts[64];
    for (int r = 0; r < size; r++) counts[r] = COUNT;
#if defined(MPI_ABI_VERSION) || MPI_VERSION >= 4
    MPI_Count counts_c[64];
    for (int r = 0; r < size; r++) counts_c[r] = COUNT;
#endif
    for (int form = 0;; form++) {
        if (only >= 0 && form != only) {
            if (form > 8) break;
            continue;
        }
        memset(send, 0, bytes);
        memset(recv, 0, bytes);
        for (int i = 0; i < COUNT * size; i++) *(int *)(send + LB + i * EXTENT) = rank + i;
        void *s = send + LB, *r = recv + LB;
        MPI_Request req = MPI_REQUEST_NULL;
        const char *name;
        int rc;
        switch (form) {
        case 0: name = "Reduce_scatter_block"; rc = MPI_Reduce_scatter_block(s, r, COUNT, spaced, op, MPI_COMM_WORLD); break;
        case 1: name = "Reduce_scatter"; rc = MPI_Reduce_scatter(s, r, counts, spaced, op, MPI_COMM_WORLD); break;
        case 2: name = "Ireduce_scatter_block"; rc = MPI_Ireduce_scatter_block(s, r, COUNT, spaced, op, MPI_COMM_WORLD, &req); break;
        case 3: name = "Ireduce_scatter"; rc = MPI_Ireduce_scatter(s, r, counts, spaced, op, MPI_COMM_WORLD, &req); break;
#if defined(MPI_ABI_VERSION) || MPI_VERSION >= 4
        case 4: name = "Reduce_scatter_block_init"; rc = MPI_Reduce_scatter_block_init(s, r, COUNT, spaced, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req); break;
        case 5: name = "Reduce_scatter_init"; rc = MPI_Reduce_scatter_init(s, r, counts, spaced, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req); break;
        case 6: name = "Reduce_scatter_block_c"; rc = MPI_Reduce_scatter_block_c(s, r, COUNT, spaced, op, MPI_COMM_WORLD); break;
        case 7: name = "Reduce_scatter_c"; rc = MPI_Reduce_scatter_c(s, r, counts_c, spaced, op, MPI_COMM_WORLD); break;
#endif
        default: name = NULL; rc = 0;
        }
        if (!name) break;
        if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) {
            if (form == 4 || form == 5) rc = MPI_Start(&req);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
        }
        report(name, outcome(rc, recv));
    }
    MPI_Type_free(&spaced);
    MPI_Op_free(&op);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
