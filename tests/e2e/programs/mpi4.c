/* MPI-4.0 and 4.1 functions, one feature per argument. A native build
 * compiles a feature only where its MPI has it (the test defines HAVE_<X>
 * from what the host library provides); the wasm build has them all.
 *   everywhere   Info_get_string, Type_get_value_index, the status field
 *                accessors, Remove_error_* (the embedder's own, any host)
 *   isendrecv    Isendrecv, Isendrecv_replace
 *   isendrecv-null  the same with MPI_PROC_NULL as both peers (natively
 *                MPICH 4.0 crashes or hangs, MPICH 5 leaves the status as
 *                it was)
 *   large-count  _c forms: Send/Recv, Get_count, Bcast, Allreduce, Iallreduce
 *   large-count-v  _c forms with count and displacement arrays: the v- and
 *                w-collectives (blocking, nonblocking, persistent), also
 *                the neighbourhood ones
 *   persistent   persistent collectives: Allreduce_init, Bcast_init,
 *                Barrier_init, Gatherv_init
 *   persistent-inactive  every completion function on persistent
 *                collectives never started, and started once and completed
 *                (inactive: treated as MPI_REQUEST_NULL)
 *   persistent-w Alltoallw_init, Neighbor_alltoallw_init
 *   buffers41    MPI-4.1 Comm_attach_buffer family, Buffer_(i)flush,
 *                MPI_BUFFER_AUTOMATIC
 *   flush-then-detach  nonblocking flushes still pending when their
 *                buffer is detached
 *   partitioned  Psend_init, Precv_init, Pready(_range/_list), Parrived
 *   partition-bounds  the same, with partition numbers outside the request
 *   partition-args  the same, after initializations with a peer outside the
 *                group, MPI_ROOT as the peer, negative partitions or counts,
 *                wildcards in a partitioned receive,
 *                and a partitioned send and receive with MPI_PROC_NULL
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

#if defined(HAVE_EVERYWHERE) && defined(HAVE_MPI40)
/* a large-count user function: sums, and records the len and type it saw */
static MPI_Count seen_len = -1;
static MPI_Datatype seen_type = MPI_DATATYPE_NULL;
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type) {
    seen_len = *len, seen_type = *type;
    for (MPI_Count i = 0; i < *len; i++) ((long long *)inout)[i] += ((long long *)in)[i];
}
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

    errors = 0;
    MPI_Op op;
    long long v[3] = {rank, 1, -rank}, total[3] = {0, 0, 0};
    MPI_Op_create_c(sum_c, 1, &op);
    MPI_Allreduce(v, total, 3, MPI_LONG_LONG, op, MPI_COMM_WORLD);
    EXPECT(total[0] == (long long)size * (size - 1) / 2 && total[1] == size && total[2] == -total[0]);
    /* the host may split the vector; a len read at the wrong width is huge */
    if (seen_len != -1) EXPECT(seen_len >= 1 && seen_len <= 3 && seen_type == MPI_LONG_LONG);
    MPI_Op_free(&op);
    EXPECT(op == MPI_OP_NULL);
    check("Op_create_c", errors);

    errors = 0;
    char bbuf[sizeof(int) + MPI_BSEND_OVERHEAD + 64];
    void *back = NULL;
    MPI_Count bsize = -1;
    int msg = rank + 40, echo = -1;
    MPI_Buffer_attach_c(bbuf, (MPI_Count)sizeof bbuf);
    MPI_Bsend(&msg, 1, MPI_INT, 0, 4, MPI_COMM_SELF);
    MPI_Recv(&echo, 1, MPI_INT, 0, 4, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    MPI_Buffer_detach_c(&back, &bsize);
    EXPECT(echo == rank + 40 && back == bbuf && bsize == (MPI_Count)sizeof bbuf);
    check("Buffer_attach_c, Buffer_detach_c", errors);
#endif
#ifdef MPI_ABI_VERSION
    /* MPI-5.0's ABI queries: the sizes of the program's own ABI */
    errors = 0;
    int major = -1, minor = -1, nkeys = -1;
    MPI_Abi_get_version(&major, &minor);
    EXPECT(major == MPI_ABI_VERSION && minor == MPI_ABI_SUBVERSION);
    MPI_Info abi;
    MPI_Abi_get_info(&abi);
    MPI_Info_get_nkeys(abi, &nkeys);
    EXPECT(nkeys >= 3);
    const char *keys[3] = {"mpi_aint_size", "mpi_count_size", "mpi_offset_size"};
    const int sizes[3] = {sizeof(MPI_Aint), sizeof(MPI_Count), sizeof(MPI_Offset)};
    for (int i = 0; i < 3; i++) {
        char size[16] = "";
        MPI_Info_get(abi, keys[i], 15, size, &flag);
        EXPECT(flag && atoi(size) == sizes[i]);
    }
    MPI_Info_free(&abi);
#ifdef __wasm__
    /* no Fortran of the library's own: nothing known until the program says */
    MPI_Info finfo;
    int t = -1, f = 0, gt = 7, gf = 7, is_set = -1;
    MPI_Abi_get_fortran_info(&finfo);
    MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set);
    EXPECT(finfo == MPI_INFO_NULL && is_set == 0 && gt == 7);
    MPI_Abi_set_fortran_booleans(4, &t, &f);
    MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set);
    EXPECT(is_set == 1 && gt == -1 && gf == 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Abi_set_fortran_booleans(3, &t, &f) == MPI_ERR_ARG);
    MPI_Info_create(&finfo);
    MPI_Info_set(finfo, "mpi_integer_size", "4");
    EXPECT(MPI_Abi_set_fortran_info(finfo) == MPI_SUCCESS);
    EXPECT(MPI_Abi_set_fortran_info(finfo) == MPI_ERR_ABI); /* once only */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&finfo);
    char isize[16] = "";
    MPI_Abi_get_fortran_info(&finfo);
    MPI_Info_get(finfo, "mpi_integer_size", 15, isize, &flag);
    EXPECT(flag && strcmp(isize, "4") == 0);
    MPI_Info_free(&finfo);
#endif
    check("Abi_get_version, Abi_get_info, Abi_*_fortran_*", errors);
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

/* no effect, and at once the status of a receive from MPI_PROC_NULL:
 * source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0 (MPI-4.1 3.10, 3.11), as
 * the host's own MPI_Irecv from it reports (MPICH 4.0.2's: source 0 and
 * tag 0, natively too) */
static void isendrecv_null(void) {
    int errors = 0, out = rank, in = -1, count = -1;
    MPI_Request r;
    MPI_Status st, ref;
    MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &ref);
    for (int replace = 0; replace < 2; replace++) {
        memset(&st, 0x5a, sizeof st);
        if (replace)
            MPI_Isendrecv_replace(&in, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r);
        else
            MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 1, &in, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        EXPECT(st.MPI_SOURCE == ref.MPI_SOURCE && st.MPI_TAG == ref.MPI_TAG && count == 0);
        EXPECT(in == -1 && r == MPI_REQUEST_NULL);
    }
#ifdef __wasm__
    /* the peers do not spare the arguments their checks: a negative count,
     * a buffer running past the guest's memory, a huge count, the send and
     * receive buffers overlapping (errors, the request never made) */
    char *end = (char *)(__builtin_wasm_memory_size(0) * 65536);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    r = MPI_REQUEST_NULL;
    EXPECT(MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 1, &in, -1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r) == MPI_ERR_COUNT);
    EXPECT(MPI_Isendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 1, end - 2, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r) == MPI_ERR_BUFFER);
    EXPECT(MPI_Isendrecv_replace(&in, 1 << 30, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r) == MPI_ERR_BUFFER);
    int pair[2] = {0, 0};
    EXPECT(MPI_Isendrecv(pair, 2, MPI_INT, MPI_PROC_NULL, 1, pair + 1, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r) != MPI_SUCCESS);
    EXPECT(r == MPI_REQUEST_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
    /* the ordinary exchange still goes to the host's MPI_Isendrecv */
    MPI_Isendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(in == left);
    check("Isendrecv, Isendrecv_replace with MPI_PROC_NULL", errors);
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

#ifdef HAVE_LARGE_COUNT_V
/* rank i's block of `count(i)` ints lies at a displacement that runs
 * backwards through the buffer with a one-int gap, so displacements that
 * were not widened (or counts read at the wrong width) move the data */
static MPI_Count vcount(int i) { return i + 1; }
static MPI_Aint vplace(int i, MPI_Aint *end) {
    MPI_Aint at = 0;
    for (int j = size - 1; j > i; j--) at += vcount(j) + 1;
    if (end) {
        *end = 0;
        for (int j = 0; j < size; j++) *end += vcount(j) + 1;
    }
    return at;
}

/* every block holds value(owner, k); everything else is untouched (-1) */
static int vcheck(const int *buf, MPI_Aint len, int (*value)(int, int)) {
    int bad = 0;
    for (MPI_Aint x = 0; x < len; x++) {
        int want = -1;
        for (int i = 0; i < size; i++)
            if (x >= vplace(i, NULL) && x < vplace(i, NULL) + vcount(i)) want = value(i, (int)(x - vplace(i, NULL)));
        bad += buf[x] != want;
    }
    return bad;
}
static int owned(int i, int k) { return i * 100 + k; }

static void large_count_v(void) {
    int errors = 0;
    MPI_Count counts[size];
    MPI_Aint displs[size], len;
    vplace(0, &len);
    for (int i = 0; i < size; i++) counts[i] = vcount(i), displs[i] = vplace(i, NULL);
    int mine[size + 1], all[len], back[size + 1];
    for (int k = 0; k <= size; k++) mine[k] = owned(rank, k), back[k] = -1;
    for (MPI_Aint x = 0; x < len; x++) all[x] = -1;
    MPI_Gatherv_c(mine, vcount(rank), MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) EXPECT(vcheck(all, len, owned) == 0);
    for (MPI_Aint x = 0; x < len; x++) all[x] = -1;
    MPI_Allgatherv_c(mine, vcount(rank), MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    EXPECT(vcheck(all, len, owned) == 0);
    MPI_Scatterv_c(all, counts, displs, MPI_INT, back, vcount(rank), MPI_INT, size - 1, MPI_COMM_WORLD);
    for (int k = 0; k <= size; k++) EXPECT(back[k] == (k < vcount(rank) ? owned(rank, k) : -1));
    for (MPI_Aint x = 0; x < len; x++) all[x] = -1;
    MPI_Request r;
    MPI_Iallgatherv_c(mine, vcount(rank), MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(vcheck(all, len, owned) == 0);
    check("Gatherv_c, Allgatherv_c, Scatterv_c, Iallgatherv_c", errors);

    /* Alltoallv_c: rank r sends j+1 ints to rank j (r*1000 + j*10 + k),
     * receives r+1 from each, both in the backwards layout */
    errors = 0;
    MPI_Count scounts[size], rcounts[size];
    MPI_Aint sdispls[size], rdispls[size], slen = 0, rlen = 0;
    for (int j = size - 1; j >= 0; j--) {
        scounts[j] = j + 1, sdispls[j] = slen, slen += j + 2;
        rcounts[j] = rank + 1, rdispls[j] = rlen, rlen += rank + 2;
    }
    int sbuf[slen], rbuf[rlen];
    for (MPI_Aint x = 0; x < slen; x++) sbuf[x] = -2;
    for (int j = 0; j < size; j++)
        for (int k = 0; k <= j; k++) sbuf[sdispls[j] + k] = rank * 1000 + j * 10 + k;
    for (MPI_Aint x = 0; x < rlen; x++) rbuf[x] = -1;
    MPI_Alltoallv_c(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        for (int k = 0; k <= rank; k++) EXPECT(rbuf[rdispls[j] + k] == j * 1000 + rank * 10 + k);
    for (int j = 0; j < size; j++) EXPECT(rbuf[rdispls[j] + rank + 1] == -1);
    check("Alltoallv_c", errors);

    /* Reduce_scatter_c: rank i gets i+1 sums */
    errors = 0;
    MPI_Count total = 0, before = 0;
    for (int i = 0; i < size; i++) total += vcount(i), before += i < rank ? vcount(i) : 0;
    long long in[total], out[size + 1], iout[size + 1];
    for (MPI_Count x = 0; x < total; x++) in[x] = rank + x;
    for (int k = 0; k <= size; k++) out[k] = iout[k] = -1;
    MPI_Reduce_scatter_c(in, out, counts, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Ireduce_scatter_c(in, iout, counts, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int k = 0; k <= size; k++) {
        long long want = k < vcount(rank) ? (long long)size * (before + k) + (long long)size * (size - 1) / 2 : -1;
        EXPECT(out[k] == want && iout[k] == want);
    }
    check("Reduce_scatter_c, Ireduce_scatter_c", errors);

    /* Alltoallw_c and Ialltoallw_c: between ranks i and j, 2 ints or 2
     * doubles by the parity of i + j, at byte displacements that run
     * backwards */
    errors = 0;
    MPI_Count wcounts[size];
    MPI_Aint wsd[size], wrd[size];
    MPI_Datatype wtypes[size];
    double wsend[2 * size], wrecv[2 * size], wirecv[2 * size];
    for (int j = 0; j < size; j++) {
        int dbl = (rank + j) % 2;
        wcounts[j] = 2, wtypes[j] = dbl ? MPI_DOUBLE : MPI_INT;
        wsd[j] = wrd[j] = (MPI_Aint)(sizeof(double) * 2 * (size - 1 - j));
        char *s = (char *)wsend + wsd[j];
        if (dbl) ((double *)s)[0] = rank + j / 8.0, ((double *)s)[1] = -rank;
        else ((int *)s)[0] = rank * 10 + j, ((int *)s)[1] = -j;
    }
    memset(wrecv, 0xff, sizeof wrecv);
    memset(wirecv, 0xff, sizeof wirecv);
    MPI_Alltoallw_c(wsend, wcounts, wsd, wtypes, wrecv, wcounts, wrd, wtypes, MPI_COMM_WORLD);
    MPI_Ialltoallw_c(wsend, wcounts, wsd, wtypes, wirecv, wcounts, wrd, wtypes, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int j = 0; j < size; j++) {
        for (int pass = 0; pass < 2; pass++) {
            char *g = (char *)(pass ? wirecv : wrecv) + wrd[j];
            if ((rank + j) % 2) EXPECT(((double *)g)[0] == j + rank / 8.0 && ((double *)g)[1] == -j);
            else EXPECT(((int *)g)[0] == j * 10 + rank && ((int *)g)[1] == -rank);
        }
    }
    check("Alltoallw_c, Ialltoallw_c", errors);

    /* persistent large-count forms, started twice with new data */
    errors = 0;
    MPI_Request ag, ar, aw;
    long long one = 0, sum = -1;
    MPI_Allgatherv_init_c(mine, vcount(rank), MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &ag);
    MPI_Allreduce_init_c(&one, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    MPI_Alltoallw_init_c(wsend, wcounts, wsd, wtypes, wrecv, wcounts, wrd, wtypes, MPI_COMM_WORLD, MPI_INFO_NULL, &aw);
    for (int round = 1; round <= 2; round++) {
        for (int k = 0; k <= size; k++) mine[k] = owned(rank, k) * round;
        for (MPI_Aint x = 0; x < len; x++) all[x] = -1;
        one = (long long)rank * round;
        memset(wrecv, 0xff, sizeof wrecv);
        MPI_Request three[3] = {ag, ar, aw};
        MPI_Start(&ag), MPI_Start(&ar), MPI_Start(&aw);
        MPI_Waitall(3, three, MPI_STATUSES_IGNORE);
        for (int i = 0; i < size; i++)
            for (int k = 0; k < vcount(i); k++) EXPECT(all[vplace(i, NULL) + k] == owned(i, k) * round);
        EXPECT(sum == (long long)round * size * (size - 1) / 2);
        EXPECT(memcmp(wrecv, wirecv, sizeof wrecv) == 0);
    }
    MPI_Request_free(&ag), MPI_Request_free(&ar), MPI_Request_free(&aw);
    check("Allgatherv/Allreduce/Alltoallw_init_c", errors);

    /* neighbourhood forms on a periodic ring: 1 int from the left
     * neighbour, 2 from the right, placed backwards */
    errors = 0;
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Count ncounts[2] = {1, 2}, nrcounts[2] = {2, 1};
    MPI_Aint nsd[2] = {3, 0}, nrd[2] = {1, 0}, nsdb[2] = {12, 0}, nrdb[2] = {4, 0};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    /* to the left neighbour (index 0) 1 int, to the right (index 1) 2 */
    int ns[4] = {rank * 10 + 1, rank * 10 + 2, -7, rank * 10}, nr[3], nwr[3], niwr[3], npr[3];
    MPI_Neighbor_alltoallv_c(ns, ncounts, nsd, MPI_INT, nr, nrcounts, nrd, MPI_INT, ring);
    MPI_Neighbor_alltoallw_c(ns, ncounts, nsdb, ints, nwr, nrcounts, nrdb, ints, ring);
    MPI_Ineighbor_alltoallw_c(ns, ncounts, nsdb, ints, niwr, nrcounts, nrdb, ints, ring, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request np;
    MPI_Neighbor_alltoallw_init_c(ns, ncounts, nsdb, ints, npr, nrcounts, nrdb, ints, ring, MPI_INFO_NULL, &np);
    MPI_Start(&np);
    MPI_Wait(&np, MPI_STATUS_IGNORE);
    MPI_Request_free(&np);
    if (size > 2) {
        /* from the left (sends 2 to its right): left*10+1, left*10+2; from the right: right*10 */
        int want[3] = {right * 10, left * 10 + 1, left * 10 + 2};
        for (int k = 0; k < 3; k++) EXPECT(nr[k] == want[k] && nwr[k] == want[k] && niwr[k] == want[k] && npr[k] == want[k]);
    }
    MPI_Comm_free(&ring);
    check("Neighbor_alltoallv/w_c, Ineighbor_alltoallw_c, _init_c", errors);
}
#endif

#ifdef HAVE_BUFFERS41
/* MPI-4.1: buffers attached to a communicator, flushing, automatic buffers */
static void buffers41(void) {
    /* receives are posted first: a flush waits until the buffered messages
     * are out, which a send to oneself is only once it is received */
    int errors = 0, msg[2] = {rank, -rank}, got[2] = {-1, -1};
    char cbuf[2 * sizeof msg + 2 * MPI_BSEND_OVERHEAD];
    void *back = NULL;
    int bsize = -1;
    MPI_Comm dup;
    MPI_Request rr, r;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_attach_buffer(dup, cbuf, (int)sizeof cbuf);
    MPI_Irecv(got, 2, MPI_INT, left, 5, dup, &rr);
    MPI_Bsend(msg, 2, MPI_INT, right, 5, dup);
    MPI_Comm_flush_buffer(dup);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    EXPECT(got[0] == left && got[1] == -left);
    MPI_Irecv(got, 2, MPI_INT, left, 6, dup, &rr);
    MPI_Bsend(msg, 2, MPI_INT, right, 6, dup);
    MPI_Comm_iflush_buffer(dup, &r);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_detach_buffer(dup, &back, &bsize);
    EXPECT(back == cbuf && bsize == (int)sizeof cbuf);
    MPI_Count csize = -1;
    MPI_Comm_attach_buffer_c(dup, cbuf, (MPI_Count)sizeof cbuf - 1);
    MPI_Comm_detach_buffer_c(dup, &back, &csize);
    EXPECT(back == cbuf && csize == (MPI_Count)sizeof cbuf - 1);
    MPI_Comm_free(&dup);

    /* the process's buffer: automatic, flushed both ways */
    MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0);
    MPI_Irecv(got, 2, MPI_INT, left, 7, MPI_COMM_WORLD, &rr);
    MPI_Bsend(msg, 2, MPI_INT, right, 7, MPI_COMM_WORLD);
    MPI_Buffer_flush();
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    MPI_Irecv(got, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &rr);
    MPI_Bsend(msg, 1, MPI_INT, right, 8, MPI_COMM_WORLD);
    MPI_Buffer_iflush(&r);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&back, &bsize);
    EXPECT(back == MPI_BUFFER_AUTOMATIC && got[0] == left);
    check("Comm_attach/detach/(i)flush_buffer, Buffer_(i)flush", errors);
}

/* A nonblocking flush the program has not completed when it detaches the
 * buffer: MPICH 5 freed the flush's state at the detach, and the
 * request's next test read freed memory (a crash once that memory was
 * reused; the test runs with glibc's MALLOC_PERTURB_, which fills freed
 * memory). The request completes as an empty flush. */
static void flush_then_detach(void) {
    int errors = 0, flag = 0, bsize = -1;
    static char pbuf[4096], cbuf[4096];
    void *back = NULL;
    MPI_Request r;
    MPI_Comm dup;
    MPI_Buffer_attach(pbuf, (int)sizeof pbuf);
    MPI_Buffer_iflush(&r);
    MPI_Buffer_detach(&back, &bsize);
    EXPECT(back == pbuf && bsize == (int)sizeof pbuf);
    while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    EXPECT(r == MPI_REQUEST_NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_attach_buffer(dup, cbuf, (int)sizeof cbuf);
    MPI_Comm_iflush_buffer(dup, &r);
    MPI_Comm_detach_buffer(dup, &back, &bsize);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(r == MPI_REQUEST_NULL && back == cbuf);
    MPI_Comm_free(&dup);
    MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0);
    MPI_Buffer_iflush(&r);
    MPI_Buffer_detach(&back, &bsize);
    flag = 0;
    while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    EXPECT(r == MPI_REQUEST_NULL && back == MPI_BUFFER_AUTOMATIC);
    /* such a request may still be cancelled (no effect) and freed */
    MPI_Buffer_attach(pbuf, (int)sizeof pbuf);
    MPI_Buffer_iflush(&r);
    MPI_Buffer_detach(&back, &bsize);
    EXPECT(MPI_Cancel(&r) == MPI_SUCCESS && MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    check("flushes still pending at a detach", errors);
}
#endif

#ifdef HAVE_PERSISTENT_W
/* Alltoallw_init and Neighbor_alltoallw_init: the persistent w-forms */
static void persistent_w(void) {
    int errors = 0;
    int counts[size], sd[size], rd[size];
    MPI_Datatype types[size];
    int out[size], in[size];
    for (int j = 0; j < size; j++)
        counts[j] = 1, types[j] = MPI_INT, sd[j] = rd[j] = (int)sizeof(int) * (size - 1 - j);
    MPI_Request r;
    MPI_Alltoallw_init(out, counts, sd, types, in, counts, rd, types, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int round = 1; round <= 2; round++) {
        for (int j = 0; j < size; j++) out[size - 1 - j] = (rank * 100 + j) * round, in[j] = -1;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int j = 0; j < size; j++) EXPECT(in[size - 1 - j] == (j * 100 + rank) * round);
    }
    MPI_Request_free(&r);
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1}, two[2] = {1, 1}, from[2] = {-1, -1}, mine = rank;
    MPI_Aint nd[2] = {0, 0}, rdd[2] = {sizeof(int), 0};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_alltoallw_init(&mine, two, nd, ints, from, two, rdd, ints, ring, MPI_INFO_NULL, &r);
    for (int round = 1; round <= 2; round++) {
        mine = rank * round;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        EXPECT(from[1] == left * round && from[0] == right * round);
    }
    MPI_Request_free(&r);
    MPI_Comm_free(&ring);
    check("Alltoallw_init, Neighbor_alltoallw_init", errors);
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

/* An empty status (MPI-4.1 3.7.3): what a completion call returns for an
 * inactive request. */
static int empty(MPI_Status *st) {
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && count == 0;
}

/* Inactive persistent collectives, never started and then started and
 * completed once: every completion function treats them as
 * MPI_REQUEST_NULL, and they start again afterwards. Natively MPICH's
 * MPI_Wait (4.0) and MPI_Waitall (4.0, 5.0) hang on one never started, and
 * its MPI_Test and MPI_Testall say it is not complete. */
static void persistent_inactive(void) {
    int errors = 0, mine = rank + 1, sum = -1, flag, index, out, idx[2];
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    for (int round = 0; round < 2; round++) {
        st[0].MPI_TAG = st[1].MPI_TAG = 99;
        EXPECT(MPI_Wait(&r[0], &st[0]) == MPI_SUCCESS && empty(&st[0]));
        flag = -1, st[1].MPI_TAG = 99;
        EXPECT(MPI_Test(&r[1], &flag, &st[1]) == MPI_SUCCESS && flag == 1 && empty(&st[1]));
        st[0].MPI_TAG = st[1].MPI_TAG = 99;
        EXPECT(MPI_Waitall(2, r, st) == MPI_SUCCESS && empty(&st[0]) && empty(&st[1]));
        flag = -1;
        EXPECT(MPI_Testall(2, r, &flag, st) == MPI_SUCCESS && flag == 1 && empty(&st[1]));
        index = -5;
        EXPECT(MPI_Waitany(2, r, &index, &st[0]) == MPI_SUCCESS && index == MPI_UNDEFINED);
        index = -5, flag = -1;
        EXPECT(MPI_Testany(2, r, &index, &flag, &st[0]) == MPI_SUCCESS && index == MPI_UNDEFINED && flag == 1);
        out = -5;
        EXPECT(MPI_Waitsome(2, r, &out, idx, st) == MPI_SUCCESS && out == MPI_UNDEFINED);
        out = -5;
        EXPECT(MPI_Testsome(2, r, &out, idx, st) == MPI_SUCCESS && out == MPI_UNDEFINED);
        flag = -1, st[0].MPI_TAG = 99;
        EXPECT(MPI_Request_get_status(r[0], &flag, &st[0]) == MPI_SUCCESS && flag == 1 && empty(&st[0]));
#ifdef HAVE_MPI41
        flag = -1;
        EXPECT(MPI_Request_get_status_all(2, r, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && flag == 1);
#endif
        EXPECT(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL);
        MPI_Startall(2, r);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        EXPECT(sum == size * (size + 1) / 2);
        sum = -1;
    }
    /* one started beside one never started since it last completed */
    MPI_Start(&r[0]);
    index = -5;
    EXPECT(MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS && index == 0 && sum == size * (size + 1) / 2);
    MPI_Start(&r[1]);
    flag = 0;
    while (!flag) EXPECT(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    check("inactive persistent collectives", errors);
}
#endif

#ifdef HAVE_PARTITIONED
static int error_class(int rc) {
    int class = MPI_SUCCESS;
    MPI_Error_class(rc, &class);
    return class;
}

static void partitioned(int bounds, int args) {
    enum { PARTS = 4, EACH = 2 };
    int errors = 0, out[PARTS * EACH], in[PARTS * EACH];
    for (int i = 0; i < PARTS * EACH; i++) out[i] = rank * 100 + i, in[i] = -1;
    MPI_Request send, recv;
    if (args) {
        /* errors, not a job that Open MPI 5 aborts (a peer past the group)
         * or crashes in (MPI_ROOT) natively */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Request r;
        EXPECT(error_class(MPI_Psend_init(out, PARTS, EACH, MPI_INT, size, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r)) == MPI_ERR_RANK);
        EXPECT(error_class(MPI_Precv_init(in, PARTS, EACH, MPI_INT, size + 5, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r)) == MPI_ERR_RANK);
        EXPECT(error_class(MPI_Psend_init(out, PARTS, EACH, MPI_INT, MPI_ROOT, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r)) == MPI_ERR_RANK);
        EXPECT(error_class(MPI_Precv_init(in, PARTS, EACH, MPI_INT, MPI_ROOT, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r)) == MPI_ERR_RANK);
        EXPECT(error_class(MPI_Psend_init(out, -1, -2, MPI_INT, right, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r)) == MPI_ERR_ARG);
        EXPECT(error_class(MPI_Precv_init(in, 0, -2, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r)) == MPI_ERR_COUNT);
        /* no wildcards in a partitioned receive (MPI-4.1 4.2.2): Open MPI 5 took them */
        EXPECT(error_class(MPI_Precv_init(in, PARTS, EACH, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r)) == MPI_ERR_RANK);
        EXPECT(error_class(MPI_Precv_init(in, PARTS, EACH, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &r)) == MPI_ERR_TAG);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        /* MPI_PROC_NULL: no effect, twice over (MPICH crashes natively) */
        MPI_Request none[2];
        MPI_Psend_init(out, PARTS, EACH, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &none[0]);
        MPI_Precv_init(in, PARTS, EACH, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &none[1]);
        for (int round = 0; round < 2; round++) {
            MPI_Startall(2, none);
            MPI_Pready(0, none[0]);
            MPI_Pready_range(1, PARTS - 1, none[0]);
            int arrived = 0, count = -1;
            MPI_Parrived(none[1], PARTS - 1, &arrived);
            EXPECT(arrived);
            MPI_Status st[2];
            MPI_Waitall(2, none, st);
            MPI_Get_count(&st[1], MPI_INT, &count);
            /* MPICH's persistent receives from MPI_PROC_NULL say MPI_ANY_SOURCE
             * (MPI_Recv_init's too, natively) */
            EXPECT((st[1].MPI_SOURCE == MPI_PROC_NULL || st[1].MPI_SOURCE == MPI_ANY_SOURCE) && st[1].MPI_TAG == MPI_ANY_TAG && count == 0);
            EXPECT(none[0] != MPI_REQUEST_NULL && none[1] != MPI_REQUEST_NULL);
        }
        for (int i = 0; i < PARTS * EACH; i++) EXPECT(in[i] == -1);
        MPI_Request_free(&none[0]);
        MPI_Request_free(&none[1]);
    }
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
    check(args ? "partitioned initializations checked" : bounds ? "partition numbers checked" : "partitioned communication", errors);
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
    if (!strcmp(what, "isendrecv-null")) isendrecv_null();
#endif
#ifdef HAVE_LARGE_COUNT
    if (!strcmp(what, "large-count")) large_count();
#endif
#ifdef HAVE_LARGE_COUNT_V
    if (!strcmp(what, "large-count-v")) large_count_v();
#endif
#ifdef HAVE_PERSISTENT
    if (!strcmp(what, "persistent")) persistent();
    if (!strcmp(what, "persistent-inactive")) persistent_inactive();
#endif
#ifdef HAVE_PERSISTENT_W
    if (!strcmp(what, "persistent-w")) persistent_w();
#endif
#ifdef HAVE_BUFFERS41
    if (!strcmp(what, "buffers41")) buffers41();
    if (!strcmp(what, "flush-then-detach")) flush_then_detach();
#endif
#ifdef HAVE_PARTITIONED
    if (!strcmp(what, "partitioned")) partitioned(0, 0);
    if (!strcmp(what, "partition-bounds")) partitioned(1, 0);
    if (!strcmp(what, "partition-args")) partitioned(0, 1);
#endif
#ifdef HAVE_IDUP_INFO
    if (!strcmp(what, "idup-info")) idup_info();
#endif
    MPI_Finalize();
    return failures != 0;
}
