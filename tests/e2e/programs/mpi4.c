/* MPI-4.0 and 4.1 functions, one feature per argument. A native build
 * compiles a feature only where its MPI has it (the test defines HAVE_<X>
 * from what the host library provides); the wasm build has them all.
 *   everywhere   Info_get_string, Type_get_value_index, the status field
 *                accessors, Remove_error_* (the embedder's own, any host)
 *   isendrecv    Isendrecv, Isendrecv_replace
 *   large-count  _c forms: Send/Recv, Get_count, Bcast, Allreduce, Iallreduce
 *   persistent   persistent collectives: Allreduce_init, Bcast_init,
 *                Barrier_init, Gatherv_init
 *   partitioned  Psend_init, Precv_init, Pready(_range/_list), Parrived
 *   partition-bounds  the same, with partition numbers outside the request
 *   idup-info    Comm_idup_with_info */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size, right, left;

/* the guest mpi.h (MPI_ABI_VERSION) has every function; a native mpi.h those
 * of its MPI version */
#if defined(MPI_ABI_VERSION) || MPI_VERSION >= 4
#define HAVE_MPI40
#endif
#if defined(MPI_ABI_VERSION) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define HAVE_MPI41
#endif

#ifdef HAVE_EVERYWHERE
static void everywhere(void) {
    int errors = 0, flag = 0;
    (void)errors, (void)flag;
#ifdef HAVE_MPI40
    int buflen = 0;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "color", "blue-green");
    char value[16];
    MPI_Info_get_string(info, "color", &buflen, value, &flag);
    EXPECT(flag && buflen == 11);
    buflen = 5;
    MPI_Info_get_string(info, "color", &buflen, value, &flag);
    EXPECT(flag && buflen == 11 && strcmp(value, "blue") == 0);
    buflen = sizeof value;
    MPI_Info_get_string(info, "shape", &buflen, value, &flag);
    EXPECT(!flag);
    MPI_Info_free(&info);
    check("Info_get_string", errors);

    errors = 0;
    MPI_Count csize = -1, lb = -1, extent = -1, tlb = -1, textent = -1;
    MPI_Datatype spread;
    MPI_Type_create_resized(MPI_INT, -4, 16, &spread);
    MPI_Type_size_c(spread, &csize);
    MPI_Type_get_extent_c(spread, &lb, &extent);
    MPI_Type_get_true_extent_c(spread, &tlb, &textent);
    EXPECT(csize == 4 && lb == -4 && extent == 16 && tlb == 0 && textent == 4);
    MPI_Type_free(&spread);
    check("Type_size_c, Type_get_(true_)extent_c", errors);
#endif
#ifdef HAVE_MPI41
    errors = 0;
    MPI_Datatype pair;
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &pair);
    EXPECT(pair == MPI_DOUBLE_INT);
    MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &pair);
    EXPECT(pair == MPI_DATATYPE_NULL);
    check("Type_get_value_index", errors);

    errors = 0;
    MPI_Status st;
    int source = -1, tag = -1, error = -1;
    MPI_Status_set_source(&st, 3);
    MPI_Status_set_tag(&st, 77);
    MPI_Status_set_error(&st, MPI_ERR_TAG);
    MPI_Status_get_source(&st, &source);
    MPI_Status_get_tag(&st, &tag);
    MPI_Status_get_error(&st, &error);
    EXPECT(source == 3 && tag == 77 && error == MPI_ERR_TAG && st.MPI_TAG == 77);
    check("Status_get/set_source/tag/error", errors);

    errors = 0;
    int class, code;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Add_error_class(&class);
    MPI_Add_error_code(class, &code);
    MPI_Add_error_string(code, "a code to remove");
    EXPECT(MPI_Remove_error_class(class) != MPI_SUCCESS); /* it still has a code */
    EXPECT(MPI_Remove_error_string(code) == MPI_SUCCESS);
    EXPECT(MPI_Remove_error_code(code) == MPI_SUCCESS);
    EXPECT(MPI_Remove_error_class(class) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    check("Remove_error_class/code/string", errors);

    errors = 0;
    int got = -1, mine = rank + 5, idx = -1, outcount = -1, indices[2];
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status sts[2];
    MPI_Irecv(&got, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &rq[0]);
    MPI_Request_get_status_any(2, rq, &idx, &flag, MPI_STATUS_IGNORE);
    EXPECT(!flag && idx == MPI_UNDEFINED); /* nothing sent yet */
    MPI_Send(&mine, 1, MPI_INT, 0, 9, MPI_COMM_SELF);
    do MPI_Request_get_status_all(2, rq, &flag, sts); while (!flag);
    EXPECT(sts[0].MPI_TAG == 9 && rq[0] != MPI_REQUEST_NULL); /* reported, not freed */
    MPI_Request_get_status_some(2, rq, &outcount, indices, sts);
    EXPECT(outcount == 1 && indices[0] == 0 && sts[0].MPI_SOURCE == 0);
    MPI_Request_get_status_any(2, rq, &idx, &flag, &st);
    EXPECT(flag && idx == 0 && st.MPI_TAG == 9);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    EXPECT(got == rank + 5);
    MPI_Request_get_status_any(2, rq, &idx, &flag, MPI_STATUS_IGNORE);
    MPI_Request_get_status_some(2, rq, &outcount, indices, MPI_STATUSES_IGNORE);
    EXPECT(flag && idx == MPI_UNDEFINED && outcount == MPI_UNDEFINED); /* none active */
    check("Request_get_status_all/any/some", errors);
#endif
}
#endif

#ifdef HAVE_ISENDRECV
static void isendrecv(void) {
    int errors = 0, out = rank * 10, in = -1;
    MPI_Request r;
    MPI_Status st;
    MPI_Isendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st); /* MPICH 4.0.2 leaves source and tag of this status 0 */
    EXPECT(in == left * 10 && r == MPI_REQUEST_NULL);
    int buf[2] = {rank, -rank};
    MPI_Isendrecv_replace(buf, 2, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(buf[0] == left && buf[1] == -left);
    check("Isendrecv, Isendrecv_replace", errors);
}
#endif

#ifdef HAVE_LARGE_COUNT
static void large_count(void) {
    int errors = 0;
    MPI_Count n = 3, count = -1;
    double out[3] = {rank, rank + 0.5, rank + 0.25}, in[3] = {0, 0, 0};
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv_c(in, n, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &r);
    MPI_Send_c(out, n, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    MPI_Get_count_c(&st, MPI_DOUBLE, &count);
    EXPECT(count == 3 && in[0] == left && in[2] == left + 0.25);
    int root_value[2] = {rank == 0 ? 42 : 0, rank == 0 ? 43 : 0};
    MPI_Bcast_c(root_value, 2, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT(root_value[0] == 42 && root_value[1] == 43);
    long long mine = rank + 1, sum = 0, isum = 0;
    MPI_Allreduce_c(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Iallreduce_c(&mine, &isum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(sum == (long long)size * (size + 1) / 2 && isum == sum);
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1}, from[2] = {-1, -1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_allgather_c(&rank, 1, MPI_INT, from, 1, MPI_INT, ring);
    EXPECT(from[0] == left && from[1] == right);
    MPI_Comm_free(&ring);
    check("large-count (_c) forms", errors);
}
#endif

#ifdef HAVE_PERSISTENT
static void persistent(void) {
    int errors = 0, mine = 0, sum = -1, token = -1;
    MPI_Request reduce, bcast, barrier, gather;
    MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reduce);
    MPI_Bcast_init(&token, 1, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bcast);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &barrier);
    for (int round = 1; round <= 2; round++) {
        mine = rank * round;
        token = rank == size - 1 ? 100 + round : -1;
        MPI_Start(&reduce);
        MPI_Wait(&reduce, MPI_STATUS_IGNORE);
        MPI_Start(&bcast);
        MPI_Start(&barrier);
        MPI_Request both[2] = {bcast, barrier};
        MPI_Status sts[2];
        MPI_Waitall(2, both, sts);
        EXPECT(sum == round * size * (size - 1) / 2 && token == 100 + round);
        EXPECT(reduce != MPI_REQUEST_NULL && both[0] == bcast);
    }
    MPI_Comm ring;
    MPI_Request neighbors;
    int dims[1] = {size}, periods[1] = {1}, from[2] = {-1, -1}, value = -1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_allgather_init(&value, 1, MPI_INT, from, 1, MPI_INT, ring, MPI_INFO_NULL, &neighbors);
    for (int round = 1; round <= 2; round++) {
        value = rank * round;
        MPI_Start(&neighbors);
        MPI_Wait(&neighbors, MPI_STATUS_IGNORE);
        EXPECT(from[0] == left * round && from[1] == right * round);
    }
    MPI_Request_free(&neighbors);
    MPI_Comm_free(&ring);
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size), *all = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) counts[i] = 1, displs[i] = size - 1 - i, all[i] = -1;
    int me = rank + 7;
    MPI_Gatherv_init(&me, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &gather);
    MPI_Start(&gather);
    MPI_Wait(&gather, MPI_STATUS_IGNORE);
    if (rank == 0)
        for (int i = 0; i < size; i++) EXPECT(all[size - 1 - i] == i + 7);
    MPI_Request_free(&reduce);
    MPI_Request_free(&bcast);
    MPI_Request_free(&barrier);
    MPI_Request_free(&gather);
    EXPECT(reduce == MPI_REQUEST_NULL && gather == MPI_REQUEST_NULL);
    free(counts);
    free(displs);
    free(all);
    check("persistent collectives", errors);
}
#endif

#ifdef HAVE_PARTITIONED
static void partitioned(int bounds) {
    enum { PARTS = 4, EACH = 2 };
    int errors = 0, out[PARTS * EACH], in[PARTS * EACH];
    for (int i = 0; i < PARTS * EACH; i++) out[i] = rank * 100 + i, in[i] = -1;
    MPI_Request send, recv;
    MPI_Psend_init(out, PARTS, EACH, MPI_INT, right, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &send);
    MPI_Precv_init(in, PARTS, EACH, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &recv);
    MPI_Start(&recv);
    MPI_Start(&send);
    if (bounds) {
        /* partitions outside the request's are errors, not memory accesses
         * (Open MPI 5 does not check them natively) */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int outside[1] = {PARTS}, flag = 0;
        EXPECT(MPI_Pready(PARTS, send) != MPI_SUCCESS && MPI_Pready(-1, send) != MPI_SUCCESS);
        EXPECT(MPI_Pready_range(2, 1, send) != MPI_SUCCESS && MPI_Pready_list(1, outside, send) != MPI_SUCCESS);
        EXPECT(MPI_Parrived(recv, 1 << 20, &flag) != MPI_SUCCESS);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Pready(0, send);
    MPI_Pready_range(1, 2, send);
    int last[1] = {3};
    MPI_Pready_list(1, last, send);
    int arrived = 0;
    while (!arrived) MPI_Parrived(recv, PARTS - 1, &arrived);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    for (int i = 0; i < PARTS * EACH; i++) EXPECT(in[i] == left * 100 + i);
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
    check(bounds ? "partition numbers checked" : "partitioned communication", errors);
}
#endif

#ifdef HAVE_IDUP_INFO
static void idup_info(void) {
    int errors = 0, n = -1;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm dup;
    MPI_Request r;
    MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &dup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_size(dup, &n);
    EXPECT(n == size);
    MPI_Comm_free(&dup);
    MPI_Info_free(&info);
    check("Comm_idup_with_info", errors);
}
#endif

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size, left = (rank + size - 1) % size;
    const char *what = argc > 1 ? argv[1] : "";
    (void)what;
#ifdef HAVE_EVERYWHERE
    if (!strcmp(what, "everywhere")) everywhere();
#endif
#ifdef HAVE_ISENDRECV
    if (!strcmp(what, "isendrecv")) isendrecv();
#endif
#ifdef HAVE_LARGE_COUNT
    if (!strcmp(what, "large-count")) large_count();
#endif
#ifdef HAVE_PERSISTENT
    if (!strcmp(what, "persistent")) persistent();
#endif
#ifdef HAVE_PARTITIONED
    if (!strcmp(what, "partitioned")) partitioned(0);
    if (!strcmp(what, "partition-bounds")) partitioned(1);
#endif
#ifdef HAVE_IDUP_INFO
    if (!strcmp(what, "idup-info")) idup_info();
#endif
    MPI_Finalize();
    return failures != 0;
}
