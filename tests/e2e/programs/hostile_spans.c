/* Buffers whose datatype runs downwards: a negative extent (resized types,
 * types built from them) puts element i at buf + i*extent, below the pointer.
 *
 * "low" (wasm only): layouts that reach below guest address 0 from a low
 * pointer, in every kind of buffer argument, must come back as
 * MPI_ERR_BUFFER under MPI_ERRORS_RETURN; prints one line per check.
 * "legal": the same layouts fully inside memory move the right bytes;
 * prints what arrived (compared with a native build). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, size, failures;

static void expect_buffer_error(const char *what, int rc) {
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_BUFFER) failures++;
    if (rank == 0) printf("%-44s %s\n", what, cls == MPI_ERR_BUFFER ? "ok" : "FAILED");
}

/* a user op walking its operands by the extent of the type in use (MPI
 * may not be called from a user function: set before each use) */
static MPI_Aint op_extent;

static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    MPI_Aint extent = op_extent;
    for (int i = 0; i < *len; i++)
        *(int *)((char *)inout + i * extent) += *(int *)((char *)in + i * extent);
}

/* the same for MPI_Type_create_hvector(2, 1, -8, MPI_INT): ints at 0 and
 * -8 bytes, extent 12 */
static void sum_back(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++)
        for (int k = 0; k < 2; k++)
            *(int *)((char *)inout + 12 * i - 8 * k) += *(int *)((char *)in + 12 * i - 8 * k);
}

/* types whose elements run downwards */
static MPI_Datatype down, down_gap, three_down;

static void make_types(void) {
    /* element i at -4i */
    MPI_Type_create_resized(MPI_INT, 0, -4, &down);
    MPI_Type_commit(&down);
    /* element i at -12i (lower bound -8: the data lies 8 bytes above it) */
    MPI_Type_create_resized(MPI_INT, -8, -12, &down_gap);
    MPI_Type_commit(&down_gap);
    /* built from a negative-extent type: true bounds [-8, 4), extent 4 */
    MPI_Type_contiguous(3, down, &three_down);
    MPI_Type_commit(&three_down);
}

static void low(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int x[16] = {0}, y[16] = {0};
    char *at64 = (char *)64; /* a low guest address: 16 ints down reach below 0 */
    MPI_Request req;
    expect_buffer_error("Send, extent -4, 1000 elements at 64",
                        MPI_Send(at64, 1000, down, rank, 1, MPI_COMM_SELF));
    expect_buffer_error("Recv, extent -4, 1000 elements at 64",
                        MPI_Recv(at64, 1000, down, rank, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    expect_buffer_error("Isend, extent -12, 8 elements at 64",
                        MPI_Isend(at64, 8, down_gap, rank, 1, MPI_COMM_SELF, &req));
    expect_buffer_error("Irecv, contiguous of extent -4, 2 at 4",
                        MPI_Irecv((char *)4, 2, three_down, rank, 1, MPI_COMM_SELF, &req));
    expect_buffer_error("Sendrecv, extent -4 receive at 64",
                        MPI_Sendrecv(x, 1, MPI_INT, rank, 2, at64, 4096, down, rank, 2, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    expect_buffer_error("Send at MPI_BOTTOM, extent -4, 2 elements",
                        MPI_Send(MPI_BOTTOM, 2, down, rank, 1, MPI_COMM_SELF));
    expect_buffer_error("Bcast, extent -4, 1000 elements at 64",
                        MPI_Bcast(at64, 1000, down, 0, MPI_COMM_SELF));
    expect_buffer_error("Allreduce, extent -4 receive at 64",
                        MPI_Allreduce(x, at64, 1000, down, MPI_SUM, MPI_COMM_SELF));
    expect_buffer_error("Reduce_local MPI_SUM, extent -4 at 64",
                        MPI_Reduce_local(x, at64, 1000, down, MPI_SUM));
    MPI_Op op;
    MPI_Op_create(sum_ints, 1, &op);
    op_extent = -4;
    expect_buffer_error("Reduce_local user op, extent -4 at 64",
                        MPI_Reduce_local(at64, y, 1000, down, op));
    MPI_Op_free(&op);
    int counts[1] = {1000}, displs[1] = {0};
    expect_buffer_error("Gatherv receive blocks, extent -4 at 64",
                        MPI_Gatherv(x, 1000, MPI_INT, at64, counts, displs, down, 0, MPI_COMM_SELF));
    int one[1] = {1}, up[1] = {40};
    expect_buffer_error("Scatterv, displacement 40 of extent -4 at 64",
                        MPI_Scatterv(at64, one, up, down, y, 1, MPI_INT, 0, MPI_COMM_SELF));
    MPI_Datatype types[1] = {down}, ints[1] = {MPI_INT};
    int bytes0[1] = {0};
    expect_buffer_error("Alltoallw send block, extent -4 at 64",
                        MPI_Alltoallw(at64, counts, bytes0, types, y, one, bytes0, ints, MPI_COMM_SELF));
    int below[1] = {-128};
    expect_buffer_error("Alltoallw receive block at byte -128 from 64",
                        MPI_Alltoallw(x, one, bytes0, ints, at64, one, below, ints, MPI_COMM_SELF));
    char packed[64];
    int pos = 0;
    expect_buffer_error("Pack, extent -4, 1000 elements at 64",
                        MPI_Pack(at64, 1000, down, packed, sizeof packed, &pos, MPI_COMM_SELF));
    pos = 0;
    expect_buffer_error("Unpack, extent -12, 4 elements at 16",
                        MPI_Unpack(packed, sizeof packed, &pos, (char *)16, 4, down_gap, MPI_COMM_SELF));
}

/* prints ints [from, to) of a with a label */
static void show(const char *what, const int *a, int from, int to) {
    if (rank != 0) return;
    printf("%s:", what);
    for (int i = from; i < to; i++) printf(" %d", a[i]);
    printf("\n");
}

static void fill(int *a, int n, int base) {
    for (int i = 0; i < n; i++) a[i] = base + i;
}

static void legal(void) {
    int src[64], dst[64], next = (rank + 1) % size, prev = (rank + size - 1) % size;
    /* p2p between neighbours: 10 ints read downwards from src[40] */
    fill(src, 64, 1000 * rank);
    memset(dst, 0, sizeof dst);
    MPI_Sendrecv(&src[40], 10, down, next, 1, dst, 10, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    show("send extent -4", dst, 0, 10);
    /* received downwards from dst[50] */
    memset(dst, 0, sizeof dst);
    MPI_Sendrecv(src, 10, MPI_INT, next, 2, &dst[50], 10, down, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    show("recv extent -4", dst, 38, 54);
    /* extent -12: element i at int index -3i */
    memset(dst, 0, sizeof dst);
    MPI_Sendrecv(&src[60], 5, down_gap, next, 3, &dst[40], 5, down_gap, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    show("extent -12 both sides", dst, 20, 42);
    /* a contiguous type of three downward ints: 2 of them from src[30] */
    memset(dst, 0, sizeof dst);
    MPI_Sendrecv(&src[30], 1, three_down, next, 4, &dst[30], 1, three_down, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&src[30], 2, three_down, next, 5, &dst[40], 6, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    show("contiguous of extent -4", dst, 20, 48);
    /* collectives */
    /* Open MPI's reductions do not support negative extents between
     * processes; a negative lower bound they do: two ints 8 bytes apart
     * going down, extent 12 (operands the host MPI holds itself reach the
     * user function through guest scratch memory) */
    MPI_Datatype back;
    MPI_Type_create_hvector(2, 1, -8, MPI_INT, &back);
    MPI_Type_commit(&back);
    MPI_Op op, op_back;
    MPI_Op_create(sum_back, 1, &op_back);
    memset(dst, 0, sizeof dst);
    MPI_Allreduce(&src[10], &dst[10], 4, back, op_back, MPI_COMM_WORLD);
    show("allreduce user op lower bound -8", dst, 0, 24);
    MPI_Op_free(&op_back);
    MPI_Type_free(&back);
    MPI_Op_create(sum_ints, 1, &op);
    memcpy(dst, src, sizeof dst);
    op_extent = -4;
    MPI_Reduce_local(&src[20], &dst[63], 12, down, op);
    show("reduce_local user op extent -4", dst, 48, 64);
    MPI_Op_free(&op);
    /* Gatherv at rank 0 with negative displacements (in extents of -4) */
    int counts[64], displs[64];
    for (int i = 0; i < size; i++) counts[i] = 3, displs[i] = -4 * i;
    memset(dst, 0, sizeof dst);
    MPI_Gatherv(&src[3], 3, MPI_INT, &dst[8], counts, displs, down, 0, MPI_COMM_WORLD);
    show("gatherv extent -4", dst, 0, 16);
    /* Alltoallw: every block 2 downward ints, at byte displacements going down */
    MPI_Datatype types[64], ints[64];
    int sd[64], rd[64], two[64];
    for (int i = 0; i < size; i++) types[i] = down, ints[i] = MPI_INT, two[i] = 2, sd[i] = -8 * i, rd[i] = 8 * i;
    memset(dst, 0, sizeof dst);
    MPI_Alltoallw(&src[50], two, sd, types, dst, two, rd, ints, MPI_COMM_WORLD);
    show("alltoallw extent -4", dst, 0, 2 * size);
    /* Pack and Unpack */
    char packed[256];
    int pos = 0;
    MPI_Pack(&src[30], 7, down, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    memset(dst, 0, sizeof dst);
    int in = 0;
    MPI_Unpack(packed, pos, &in, &dst[20], 7, down_gap, MPI_COMM_WORLD);
    show("pack extent -4, unpack extent -12", dst, 0, 22);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_types();
    const char *mode = argc > 1 ? argv[1] : "legal";
    if (!strcmp(mode, "low")) low();
    else legal();
    MPI_Finalize();
    return failures != 0;
}
