/* hostile_state.c MODE: misuse of state the bridge keeps for the guest
 * (requests, the Bsend buffer, error-handler nesting, pending requests at
 * finalize). Each mode prints "<what> ok" lines on success; a failed check
 * prints FAILED. Wasm only where it relies on wasm32's memory layout.
 *
 *   dup-requests   the same request twice in every request-array call
 *   bsend-scribble the guest overwrites its attached buffer between Bsends
 *   bsend-at-end   a Bsend buffer that ends at the last byte of memory
 *   errh-recursion an error handler that raises an error on its own comm
 *   errh-nested    an error handler that raises one nested error (legal)
 *   copy-recursion an attribute copy callback that duplicates the comm again
 *   finalize-idup  MPI_Finalize with an MPI_Comm_idup never completed
 *   finalize-irecv MPI_Finalize with a receive that never matched
 *   idup-free      MPI_Request_free on a pending MPI_Comm_idup request
 *   idup-parent-free MPI_Comm_free of a communicator a pending
 *                  MPI_Comm_idup duplicates (Open MPI 4.1 reads it after
 *                  the free: a use after free, natively too)
 *   nbc-comm-free  MPI_Comm_free of a communicator with a nonblocking
 *                  collective pending on it (legal; Open MPI 4.1 crashes
 *                  natively in the next communicator creation)
 *   free-disagree  rank 0 frees a communicator on which rank 1 then sends
 *                  (erroneous; natively Open MPI 4.1 delivers the messages
 *                  to a later communicator, or hangs)
 *   nbc-request-free MPI_Request_free and MPI_Cancel on the request of a
 *                  nonblocking collective (erroneous: MPI_ERR_REQUEST)
 *   idup-early     collectives on the communicator of an MPI_Comm_idup
 *                  whose request has not completed (erroneous:
 *                  MPI_ERR_COMM), then the same once it has */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failed;

static void report(const char *what, int ok) {
    printf("rank %d: %s %s\n", rank, what, ok ? "ok" : "FAILED");
    if (!ok) failed = 1;
}

static int error_class(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static size_t memory_end(void) {
#ifdef __wasm__
    return __builtin_wasm_memory_size(0) * 65536;
#else
    return 0;
#endif
}

/* ---- dup-requests -------------------------------------------------- */

/* A receive from ourselves, already matched (so a host that took the
 * duplicate would complete, and free, the same request twice). */
static MPI_Request matched_recv(int *into, int tag) {
    MPI_Request r;
    int v = 1000 + tag;
    MPI_Irecv(into, 1, MPI_INT, rank, tag, MPI_COMM_WORLD, &r);
    MPI_Send(&v, 1, MPI_INT, rank, tag, MPI_COMM_WORLD);
    return r;
}

/* The request survived the rejected calls: it completes with its data. */
static void complete(MPI_Request *r, int *into, int tag) {
    int rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    report("request still usable after the rejected calls", rc == MPI_SUCCESS && *into == 1000 + tag && *r == MPI_REQUEST_NULL);
}

static void dup_requests(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Status st[64];
    int x = 0, idx, flag, out, indices[64];
    /* a request list with one duplicate: [r, r], and a long one (sorted
     * path) with the duplicate far apart; nulls around it are legal */
    for (int n = 2; n <= 40; n += 38) {
        MPI_Request r = matched_recv(&x, n), list[40];
        for (int i = 0; i < n; i++) list[i] = MPI_REQUEST_NULL;
        list[0] = r;
        list[n - 1] = r;
        char what[64];
#define CASE(name, call)                                                             \
        snprintf(what, sizeof what, "%s with a duplicate of %d", name, n);           \
        report(what, error_class(call) == MPI_ERR_REQUEST && list[0] == r && list[n - 1] == r);
        CASE("Waitall", MPI_Waitall(n, list, st));
        CASE("Testall", MPI_Testall(n, list, &flag, MPI_STATUSES_IGNORE));
        CASE("Waitany", MPI_Waitany(n, list, &idx, MPI_STATUS_IGNORE));
        CASE("Testany", MPI_Testany(n, list, &idx, &flag, MPI_STATUS_IGNORE));
        CASE("Waitsome", MPI_Waitsome(n, list, &out, indices, st));
        CASE("Testsome", MPI_Testsome(n, list, &out, indices, MPI_STATUSES_IGNORE));
        complete(&r, &x, n);
    }
    {
        MPI_Request p, list[2];
        MPI_Recv_init(&x, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &p);
        list[0] = list[1] = p;
        report("Startall with a duplicate", error_class(MPI_Startall(2, list)) == MPI_ERR_REQUEST);
        MPI_Start(&p);
        int v = 1077;
        MPI_Send(&v, 1, MPI_INT, rank, 77, MPI_COMM_WORLD);
        MPI_Wait(&p, MPI_STATUS_IGNORE);
        report("persistent request still usable", x == v && p != MPI_REQUEST_NULL);
        MPI_Request_free(&p);
    }
    {
        /* MPI_REQUEST_NULL more than once is legal */
        MPI_Request r = matched_recv(&x, 5), list[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        list[1] = r;
        report("Waitall with repeated MPI_REQUEST_NULL", MPI_Waitall(4, list, st) == MPI_SUCCESS && x == 1005 &&
               list[1] == MPI_REQUEST_NULL);
    }
}

/* ---- Bsend ---------------------------------------------------------- */

/* Bsends `rounds` messages to ourselves from a buffer at `buf` that the
 * guest overwrites completely between the sends; every message must
 * arrive intact. */
static void bsend_rounds(char *buf, int bufsize, const char *what) {
    int msg[256], got[256], ok = 1;
    MPI_Buffer_attach(buf, bufsize);
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < 256; i++) msg[i] = round * 1000 + i;
        /* forge MPI's bookkeeping: every byte of the attached buffer */
        memset(buf, round & 1 ? 0xff : 0x41, bufsize);
        ((int *)buf)[0] = 0x7fffffff;
        ((int *)buf)[1] = -bufsize;
        if (MPI_Bsend(msg, 256, MPI_INT, rank, round, MPI_COMM_WORLD) != MPI_SUCCESS) ok = 0;
        memset(buf, 0x5a, bufsize);
        MPI_Recv(got, 256, MPI_INT, rank, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (memcmp(msg, got, sizeof msg)) ok = 0;
    }
    report(what, ok);
    char *addr = NULL;
    int n = -1;
    MPI_Buffer_detach(&addr, &n);
    report("Buffer_detach returns the guest's buffer and size", addr == buf && n == bufsize);
}

static void bsend_scribble(void) {
    int bufsize = 4 * (256 * 4 + MPI_BSEND_OVERHEAD);
    char *buf = malloc(bufsize);
    bsend_rounds(buf, bufsize, "Bsend with a scribbled buffer");
    /* a buffer too small for the message: MPI_ERR_BUFFER, as before */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int msg[256] = {0};
    /* the guest's MPI_BSEND_OVERHEAD: at least every host's (MPICH refuses
       a buffer smaller than its own) */
    MPI_Buffer_attach(buf, MPI_BSEND_OVERHEAD);
    report("Bsend larger than the buffer", error_class(MPI_Bsend(msg, 256, MPI_INT, rank, 1, MPI_COMM_WORLD)) == MPI_ERR_BUFFER);
    char *addr;
    int n;
    MPI_Buffer_detach(&addr, &n);
    report("Buffer_detach after a failed Bsend", addr == buf && n == MPI_BSEND_OVERHEAD);
    free(buf);
}

static void bsend_at_end(void) {
    int bufsize = 2 * (256 * 4 + MPI_BSEND_OVERHEAD);
#ifdef __wasm__
    __builtin_wasm_memory_grow(0, 1); /* a fresh last page, no malloc data in it */
#endif
    bsend_rounds((char *)(memory_end() - bufsize), bufsize, "Bsend with a buffer at the end of memory");
}

/* ---- error handlers ------------------------------------------------- */

static int handler_calls;

/* raises an error on the communicator whose handler it is: unbounded */
static void recursive_handler(MPI_Comm *comm, int *code, ...) {
    (void)code;
    int x = 0;
    handler_calls++;
    MPI_Send(&x, 1, MPI_INT, -5, 0, *comm);
}

/* raises one nested error, then returns */
static void nesting_handler(MPI_Comm *comm, int *code, ...) {
    (void)code;
    int x = 0;
    if (handler_calls++ == 0) MPI_Send(&x, 1, MPI_INT, -5, 0, *comm);
}

/* copying the attribute duplicates the communicator, which copies it... */
static int recursive_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag) {
    (void)k; (void)extra;
    MPI_Comm again;
    handler_calls++;
    MPI_Comm_dup(c, &again);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void copy_recursion(void) {
    int keyval, x = 0;
    MPI_Comm dup;
    MPI_Comm_create_keyval(recursive_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, keyval, &x);
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    printf("rank %d: unexpected return after %d copy calls\n", rank, handler_calls);
    failed = 1;
}

static void errhandler_mode(int recursive) {
    MPI_Errhandler eh;
    int x = 0;
    MPI_Comm_create_errhandler(recursive ? recursive_handler : nesting_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    int rc = MPI_Send(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD);
    if (recursive) {
        printf("rank %d: unexpected return after %d handler calls\n", rank, handler_calls);
        failed = 1;
        return;
    }
    report("error handler with one nested error", error_class(rc) == MPI_ERR_RANK && handler_calls == 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
}

/* ---- finalize with pending requests --------------------------------- */

static void finalize_idup(void) {
    MPI_Comm dup, dup2;
    MPI_Request r, r2;
    /* the ranks arrive at different times, so the duplication is still
     * under way on the host when the first rank finalizes */
    double until = MPI_Wtime() + 0.05 * rank;
    while (MPI_Wtime() < until) {}
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
    MPI_Comm_idup(MPI_COMM_SELF, &dup2, &r2);
    /* never waited for: MPI_Finalize completes them */
}

/* Freeing the request of a duplication still under way: the new
 * communicator must still arrive, and be usable. */
static void idup_free(void) {
    MPI_Comm dup;
    MPI_Request r;
    double until = MPI_Wtime() + 0.05 * rank;
    while (MPI_Wtime() < until) {}
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
    int rc = MPI_Request_free(&r), dsize = -1, sum = 0;
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int rc2 = MPI_Comm_size(dup, &dsize);
    int rc3 = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    report("communicator of a freed idup request", rc == MPI_SUCCESS && r == MPI_REQUEST_NULL && rc2 == MPI_SUCCESS &&
           dsize == size && rc3 == MPI_SUCCESS && sum == size * (size - 1) / 2);
    MPI_Comm_free(&dup);
}

/* The standard lets a communicator be freed while operations on it are
 * pending; the duplicates must still arrive, be usable, and other
 * communicators be made meanwhile (Open MPI crashed in the next
 * MPI_Comm_dup). Two duplications of the same parent, waited in reverse. */
static void idup_parent_free(void) {
    MPI_Comm parent, dup[2], other;
    MPI_Request r[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    MPI_Comm_idup(parent, &dup[0], &r[0]);
    MPI_Comm_idup(parent, &dup[1], &r[1]);
    /* the new communicator exists only once its request completed */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm early = dup[0];
    int rc_early = MPI_Comm_free(&early);
    report("freeing a communicator its MPI_Comm_idup has not made yet", error_class(rc_early) == MPI_ERR_COMM && early == dup[0]);
    int rc = MPI_Comm_free(&parent);
    int ok = rc == MPI_SUCCESS && parent == MPI_COMM_NULL;
    for (int i = 0; i < 10; i++) {
        ok &= MPI_Comm_dup(MPI_COMM_WORLD, &other) == MPI_SUCCESS;
        ok &= MPI_Comm_free(&other) == MPI_SUCCESS;
    }
    for (int i = 1; i >= 0; i--) {
        int sum = 0;
        ok &= MPI_Wait(&r[i], MPI_STATUS_IGNORE) == MPI_SUCCESS;
        ok &= MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup[i]) == MPI_SUCCESS && sum == size * (size - 1) / 2;
        ok &= MPI_Comm_free(&dup[i]) == MPI_SUCCESS;
    }
    report("duplicates of a freed parent", ok);
}

/* A communicator freed while a nonblocking collective on it is pending
 * (rank 1 joins late): the collective completes, with the right result,
 * and communicators made meanwhile work. */
static void nbc_comm_free(void) {
    int ok = 1;
    for (int round = 0; round < 3; round++) {
        MPI_Comm c, other[2];
        int in[4] = {rank, rank + 1, rank + 2, rank + 3}, out[4] = {0};
        MPI_Request r;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        double until = MPI_Wtime() + 0.05 * rank;
        while (MPI_Wtime() < until) {}
        ok &= MPI_Iallreduce(in, out, 4, MPI_INT, MPI_SUM, c, &r) == MPI_SUCCESS;
        ok &= MPI_Comm_free(&c) == MPI_SUCCESS && c == MPI_COMM_NULL;
        for (int i = 0; i < 2; i++) ok &= MPI_Comm_dup(MPI_COMM_WORLD, &other[i]) == MPI_SUCCESS;
        ok &= MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        for (int i = 0; i < 4; i++) ok &= out[i] == size * (size - 1) / 2 + i * size;
        for (int i = 0; i < 2; i++) ok &= MPI_Comm_free(&other[i]) == MPI_SUCCESS;
    }
    report("collective pending on a freed communicator", ok);
}

/* Rank 0 frees a duplicate of MPI_COMM_WORLD; rank 1 sends on it before
 * freeing its own. Those messages must stay with the freed communicator:
 * none may show up on the communicators made afterwards. */
static void free_disagree(void) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (rank == 0) MPI_Comm_free(&c);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        for (int i = 0; i < 3; i++) MPI_Send(&i, 1, MPI_INT, 0, 5, c);
        MPI_Comm_free(&c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int stray = 0;
    for (int k = 0; k < 6; k++) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Barrier(d);
        for (int t = 0; t < 50; t++) {
            int flag = 0, x;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d, &flag, &st);
            if (flag) {
                stray++;
                MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, d, MPI_STATUS_IGNORE);
            }
        }
        MPI_Comm_free(&d);
    }
    /* Open MPI: none; MPICH keeps unexpected messages by context id, so a
     * later communicator with the same id gets them (natively too) */
    printf("stray messages at rank %d: %d\n", rank, stray);
    report("no crash after messages on a communicator freed early", 1);
}

/* MPI-3.1 section 5.12: freeing or cancelling a nonblocking collective's
 * request is erroneous; the request stays valid and completes. */
static void nbc_request_free(void) {
    int in = rank + 1, out = 0;
    MPI_Request r;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Request kept = r;
    report("Request_free of a collective's request", error_class(MPI_Request_free(&r)) == MPI_ERR_REQUEST && r == kept);
    report("Cancel of a collective's request", error_class(MPI_Cancel(&r)) == MPI_ERR_REQUEST);
    report("the collective still completes",
           MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && r == MPI_REQUEST_NULL && out == size * (size + 1) / 2);
}

static void finalize_irecv(void) {
    static int x;
    MPI_Request r;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &r);
}

/* A communicator exists only once its MPI_Comm_idup completed; before,
 * every call on it is MPI_ERR_COMM. The v- and w-collectives read this
 * process's own block count before the host sees the call, and on such a
 * communicator that was a read past an empty array (SIGSEGV in
 * MPI_Ialltoallw, fuzz seed 95031 on MPICH 5). Then, completed, the same
 * calls work. */
static void idup_early(void) {
    enum { N = 64 };
    static int sbuf[N], rbuf[N], counts[N], displs[N], bdispls[N];
    static MPI_Datatype types[N];
    for (int i = 0; i < N; i++) {
        sbuf[i] = rank * 100 + i;
        counts[i] = 1, displs[i] = i, bdispls[i] = i * (int)sizeof(int), types[i] = MPI_INT;
    }
    MPI_Comm dup;
    MPI_Request r, q = MPI_REQUEST_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
    int rc[10], n = 0, dsize = -1;
    rc[n++] = MPI_Ialltoallw(sbuf, counts, bdispls, types, rbuf, counts, bdispls, types, dup, &q);
    rc[n++] = MPI_Alltoallw(sbuf, counts, bdispls, types, rbuf, counts, bdispls, types, dup);
    rc[n++] = MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dup);
    rc[n++] = MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dup);
    rc[n++] = MPI_Allgatherv(sbuf, 1, MPI_INT, rbuf, counts, displs, MPI_INT, dup);
    rc[n++] = MPI_Gatherv(sbuf, 1, MPI_INT, rbuf, counts, displs, MPI_INT, 0, dup);
    rc[n++] = MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, 1, MPI_INT, 0, dup);
    rc[n++] = MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, dup);
    rc[n++] = MPI_Comm_size(dup, &dsize);
    int all_comm = 1;
    for (int i = 0; i < n; i++) all_comm &= error_class(rc[i]) == MPI_ERR_COMM;
    report("calls on a communicator its MPI_Comm_idup has not made yet", all_comm && q == MPI_REQUEST_NULL && dsize == -1);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int ok = MPI_Comm_size(dup, &dsize) == MPI_SUCCESS && dsize == size;
    ok &= MPI_Ialltoallw(sbuf, counts, bdispls, types, rbuf, counts, bdispls, types, dup, &q) == MPI_SUCCESS;
    ok &= MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    for (int i = 0; i < size; i++) ok &= rbuf[i] == i * 100 + rank;
    ok &= MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, dup) == MPI_SUCCESS;
    for (int i = 0; i < size; i++) ok &= rbuf[i] == i * 100 + rank;
    report("the same calls once it completed", ok);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "dup-requests")) dup_requests();
    else if (!strcmp(mode, "bsend-scribble")) bsend_scribble();
    else if (!strcmp(mode, "bsend-at-end")) bsend_at_end();
    else if (!strcmp(mode, "errh-recursion")) errhandler_mode(1);
    else if (!strcmp(mode, "errh-nested")) errhandler_mode(0);
    else if (!strcmp(mode, "idup-parent-free")) idup_parent_free();
    else if (!strcmp(mode, "copy-recursion")) copy_recursion();
    else if (!strcmp(mode, "finalize-idup")) finalize_idup();
    else if (!strcmp(mode, "finalize-irecv")) finalize_irecv();
    else if (!strcmp(mode, "idup-free")) idup_free();
    else if (!strcmp(mode, "nbc-comm-free")) nbc_comm_free();
    else if (!strcmp(mode, "free-disagree")) free_disagree();
    else if (!strcmp(mode, "nbc-request-free")) nbc_request_free();
    else if (!strcmp(mode, "idup-early")) idup_early();
    else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    fflush(stdout);
    int rc = MPI_Finalize();
    printf("rank %d: finalized %s\n", rank, rc == MPI_SUCCESS ? "ok" : "FAILED");
    return failed;
}
