/* MPI_IN_PLACE is accepted only where the standard allows it.
 *
 * "refused" (wasm only): every place that does not accept it, under
 * MPI_ERRORS_RETURN, gets an error class and the program carries on;
 * prints one line per check. Checks that are wrong at one rank only are
 * made by that rank alone (the call must fail before any communication).
 * "allowed": every place that accepts it computes the right result; rank 0
 * prints every rank's results (compared with a native build). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size, failures;

static void expect_refused(const char *what, int rc) {
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    int ok = cls == MPI_ERR_BUFFER || cls == MPI_ERR_ARG;
    if (!ok) {
        failures++;
        printf("rank %d: %-44s FAILED (class %d)\n", rank, what, cls);
    } else if (rank == 0) {
        printf("%-52s ok\n", what);
    }
}

#define IP MPI_IN_PLACE

static void sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void refused(void) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int x[64], y[64], n1[64], d0[64], bytes0[64];
    MPI_Datatype ints[64];
    for (int i = 0; i < 64; i++) x[i] = i, n1[i] = 1, d0[i] = i, bytes0[i] = 4 * i, ints[i] = MPI_INT;
    MPI_Request req;
    MPI_Op op;
    MPI_Op_create(sum, 1, &op);
    /* point to point */
    expect_refused("Send", MPI_Send(IP, 1, MPI_INT, rank, 0, MPI_COMM_SELF));
    expect_refused("Send, count 0", MPI_Send(IP, 0, MPI_INT, rank, 0, MPI_COMM_SELF));
    expect_refused("Isend", MPI_Isend(IP, 1, MPI_INT, rank, 0, MPI_COMM_SELF, &req));
    expect_refused("Recv", MPI_Recv(IP, 1, MPI_INT, rank, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    expect_refused("Irecv", MPI_Irecv(IP, 1, MPI_INT, rank, 0, MPI_COMM_SELF, &req));
    expect_refused("Sendrecv send", MPI_Sendrecv(IP, 1, MPI_INT, rank, 0, y, 1, MPI_INT, rank, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    expect_refused("Sendrecv receive", MPI_Sendrecv(x, 1, MPI_INT, rank, 0, IP, 1, MPI_INT, rank, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    expect_refused("Sendrecv_replace", MPI_Sendrecv_replace(IP, 1, MPI_INT, rank, 0, rank, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    expect_refused("Send_init", MPI_Send_init(IP, 1, MPI_INT, rank, 0, MPI_COMM_SELF, &req));
    /* local */
    expect_refused("Reduce_local in", MPI_Reduce_local(IP, y, 4, MPI_INT, MPI_SUM));
    expect_refused("Reduce_local inout", MPI_Reduce_local(x, IP, 4, MPI_INT, MPI_SUM));
    expect_refused("Reduce_local user op in", MPI_Reduce_local(IP, y, 4, MPI_INT, op));
    int pos = 0;
    expect_refused("Pack", MPI_Pack(IP, 1, MPI_INT, y, sizeof y, &pos, MPI_COMM_SELF));
    /* collectives, wrong at every rank */
    expect_refused("Bcast", MPI_Bcast(IP, 1, MPI_INT, 0, c));
    expect_refused("Ibcast", MPI_Ibcast(IP, 1, MPI_INT, 0, c, &req));
    expect_refused("Allreduce recvbuf", MPI_Allreduce(x, IP, 1, MPI_INT, MPI_SUM, c));
    expect_refused("Iallreduce recvbuf", MPI_Iallreduce(x, IP, 1, MPI_INT, MPI_SUM, c, &req));
    expect_refused("Allgather recvbuf", MPI_Allgather(x, 1, MPI_INT, IP, 1, MPI_INT, c));
    expect_refused("Allgatherv recvbuf", MPI_Allgatherv(x, 1, MPI_INT, IP, n1, d0, MPI_INT, c));
    expect_refused("Alltoall recvbuf", MPI_Alltoall(x, 1, MPI_INT, IP, 1, MPI_INT, c));
    expect_refused("Alltoallv recvbuf", MPI_Alltoallv(x, n1, d0, MPI_INT, IP, n1, d0, MPI_INT, c));
    expect_refused("Alltoallw recvbuf", MPI_Alltoallw(x, n1, bytes0, ints, IP, n1, bytes0, ints, c));
    expect_refused("Ialltoallw recvbuf", MPI_Ialltoallw(x, n1, bytes0, ints, IP, n1, bytes0, ints, c, &req));
    expect_refused("Reduce_scatter recvbuf", MPI_Reduce_scatter(x, IP, n1, MPI_INT, MPI_SUM, c));
    expect_refused("Reduce_scatter_block recvbuf", MPI_Reduce_scatter_block(x, IP, 1, MPI_INT, MPI_SUM, c));
    expect_refused("Scan recvbuf", MPI_Scan(x, IP, 1, MPI_INT, MPI_SUM, c));
    expect_refused("Exscan recvbuf", MPI_Exscan(x, IP, 1, MPI_INT, MPI_SUM, c));
    expect_refused("Iscan recvbuf", MPI_Iscan(x, IP, 1, MPI_INT, MPI_SUM, c, &req));
    /* rooted: wrong at the root */
    if (rank == 0) {
        expect_refused("Gather recvbuf at the root", MPI_Gather(x, 1, MPI_INT, IP, 1, MPI_INT, 0, c));
        expect_refused("Gatherv recvbuf at the root", MPI_Gatherv(x, 1, MPI_INT, IP, n1, d0, MPI_INT, 0, c));
        expect_refused("Scatter sendbuf at the root", MPI_Scatter(IP, 1, MPI_INT, y, 1, MPI_INT, 0, c));
        expect_refused("Scatterv sendbuf at the root", MPI_Scatterv(IP, n1, d0, MPI_INT, y, 1, MPI_INT, 0, c));
        expect_refused("Reduce recvbuf at the root", MPI_Reduce(x, IP, 1, MPI_INT, MPI_SUM, 0, c));
        expect_refused("Igather recvbuf at the root", MPI_Igather(x, 1, MPI_INT, IP, 1, MPI_INT, 0, c, &req));
    }
    /* rooted: the root's in-place form at a rank that is not the root */
    if (size > 1 && rank == 1) {
        expect_refused("Gather sendbuf at a non-root", MPI_Gather(IP, 1, MPI_INT, y, 1, MPI_INT, 0, c));
        expect_refused("Gatherv sendbuf at a non-root", MPI_Gatherv(IP, 1, MPI_INT, y, n1, d0, MPI_INT, 0, c));
        expect_refused("Scatter recvbuf at a non-root", MPI_Scatter(x, 1, MPI_INT, IP, 1, MPI_INT, 0, c));
        expect_refused("Scatterv recvbuf at a non-root", MPI_Scatterv(x, n1, d0, MPI_INT, IP, 1, MPI_INT, 0, c));
        expect_refused("Reduce sendbuf at a non-root", MPI_Reduce(IP, y, 1, MPI_INT, MPI_SUM, 0, c));
        expect_refused("Ireduce sendbuf at a non-root", MPI_Ireduce(IP, y, 1, MPI_INT, MPI_SUM, 0, c, &req));
    }
    /* neighbourhood collectives (a periodic ring) */
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    expect_refused("Neighbor_allgather sendbuf", MPI_Neighbor_allgather(IP, 1, MPI_INT, y, 1, MPI_INT, ring));
    expect_refused("Neighbor_alltoall recvbuf", MPI_Neighbor_alltoall(x, 1, MPI_INT, IP, 1, MPI_INT, ring));
    expect_refused("Neighbor_alltoallv sendbuf", MPI_Neighbor_alltoallv(IP, n1, d0, MPI_INT, y, n1, d0, MPI_INT, ring));
    expect_refused("Ineighbor_allgatherv sendbuf", MPI_Ineighbor_allgatherv(IP, 1, MPI_INT, y, n1, d0, MPI_INT, ring, &req));
    MPI_Comm_free(&ring);
    /* intercommunicators: no in-place form at all */
    if (size > 1) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 7, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        expect_refused("Allreduce sendbuf, intercommunicator", MPI_Allreduce(IP, y, 1, MPI_INT, MPI_SUM, inter));
        expect_refused("Allgather sendbuf, intercommunicator", MPI_Allgather(IP, 1, MPI_INT, y, 1, MPI_INT, inter));
        expect_refused("Alltoallw sendbuf, intercommunicator", MPI_Alltoallw(IP, n1, bytes0, ints, y, n1, bytes0, ints, inter));
        expect_refused("Reduce_scatter_block sendbuf, intercomm", MPI_Reduce_scatter_block(IP, y, 1, MPI_INT, MPI_SUM, inter));
        if (rank == 0)
            expect_refused("Reduce recvbuf at MPI_ROOT, intercomm", MPI_Reduce(x, IP, 1, MPI_INT, MPI_SUM, MPI_ROOT, inter));
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Op_free(&op);
    /* the communicator still works afterwards */
    int one = 1, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, c);
    if (rank == 0) printf("%-52s %s\n", "Allreduce afterwards", total == size ? "ok" : "FAILED");
    if (total != size) failures++;
    MPI_Comm_free(&c);
}

/* rank 0 prints `n` ints of every rank */
static void show(const char *what, const int *a, int n) {
    int all[64 * 16];
    MPI_Gather(a, n, MPI_INT, all, n, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    printf("%s:", what);
    for (int i = 0; i < n * size; i++) printf(" %d", all[i]);
    printf("\n");
}

static void fill(int *a, int n) {
    for (int i = 0; i < n; i++) a[i] = 100 * rank + i;
}

static void allowed(void) {
    int a[64], counts[64], displs[64], bytes[64];
    MPI_Datatype ints[64];
    for (int i = 0; i < size; i++) counts[i] = 2, displs[i] = 2 * i, bytes[i] = 8 * i, ints[i] = MPI_INT;
    MPI_Op op;
    MPI_Op_create(sum, 1, &op);
    fill(a, 4);
    MPI_Allreduce(IP, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    show("Allreduce", a, 4);
    fill(a, 4);
    MPI_Allreduce(IP, a, 4, MPI_INT, op, MPI_COMM_WORLD);
    show("Allreduce user op", a, 4);
    MPI_Request req;
    fill(a, 4);
    MPI_Iallreduce(IP, a, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    show("Iallreduce", a, 4);
    fill(a, 4);
    MPI_Reduce(rank == 0 ? IP : a, a, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) show("Reduce", a, 4); else show("Reduce", (int[4]){0}, 4);
    fill(a, 2 * size);
    MPI_Gather(rank == 0 ? IP : &a[2 * rank], 2, MPI_INT, a, 2, MPI_INT, 0, MPI_COMM_WORLD);
    show("Gather", a, 2 * size);
    fill(a, 2 * size);
    MPI_Gatherv(rank == 0 ? IP : &a[2 * rank], 2, MPI_INT, a, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    show("Gatherv", a, 2 * size);
    fill(a, 2 * size);
    MPI_Scatter(a, 2, MPI_INT, rank == 0 ? IP : a, 2, MPI_INT, 0, MPI_COMM_WORLD);
    show("Scatter", a, 2 * size);
    fill(a, 2 * size);
    MPI_Scatterv(a, counts, displs, MPI_INT, rank == 0 ? IP : a, 2, MPI_INT, 0, MPI_COMM_WORLD);
    show("Scatterv", a, 2 * size);
    fill(a, 2 * size);
    MPI_Allgather(IP, 2, MPI_INT, a, 2, MPI_INT, MPI_COMM_WORLD);
    show("Allgather", a, 2 * size);
    fill(a, 2 * size);
    MPI_Allgatherv(IP, 2, MPI_INT, a, counts, displs, MPI_INT, MPI_COMM_WORLD);
    show("Allgatherv", a, 2 * size);
    fill(a, 2 * size);
    MPI_Alltoall(IP, 2, MPI_INT, a, 2, MPI_INT, MPI_COMM_WORLD);
    show("Alltoall", a, 2 * size);
    fill(a, 2 * size);
    MPI_Alltoallv(IP, counts, displs, MPI_INT, a, counts, displs, MPI_INT, MPI_COMM_WORLD);
    show("Alltoallv", a, 2 * size);
    fill(a, 2 * size);
    MPI_Alltoallw(IP, counts, bytes, ints, a, counts, bytes, ints, MPI_COMM_WORLD);
    show("Alltoallw", a, 2 * size);
    fill(a, 2 * size);
    MPI_Reduce_scatter(IP, a, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    show("Reduce_scatter", a, 2);
    fill(a, 2 * size);
    MPI_Reduce_scatter_block(IP, a, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    show("Reduce_scatter_block", a, 2);
    fill(a, 4);
    MPI_Scan(IP, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    show("Scan", a, 4);
    fill(a, 4);
    MPI_Exscan(IP, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) fill(a, 4); /* undefined at rank 0 */
    show("Exscan", a, 4);
    MPI_Op_free(&op);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "refused")) refused();
    else allowed();
    MPI_Finalize();
    return failures != 0;
}
