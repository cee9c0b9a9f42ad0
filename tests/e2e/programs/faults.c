/* faults.c FAULT: rank 1 (or rank 0 alone) commits FAULT while the other
 * ranks wait for a message that never comes, so only a job-wide abort ends
 * the run; "op-trap" is committed inside a collective that all ranks are in.
 * "returns" checks errors returned under MPI_ERRORS_RETURN and carries on.
 * Faults that rely on wasm32's memory layout are wasm-only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int depth(int n) { volatile int pad[64]; pad[n % 64] = n; return n + depth(n + 1) + pad[0]; }

/* Recursion that calls MPI in every frame: host calls made deep in the
 * guest's stack (the embedder runs them on the Wasm stack only while 8 MiB
 * of it are left, else on the host's). levels < 0: until the stack runs out. */
static int rank_out;
static long deep_mpi(long n, long levels) {
    volatile long frame = n; /* keeps the recursion a recursion */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_out);
    if (n == levels) return rank_out;
    return deep_mpi(n + 1, levels) + 1 + (frame - n);
}

/* an attribute copy callback that traps (run when the communicator is duplicated) */
static int trapping_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag) {
    (void)c; (void)k; (void)extra; (void)in; (void)out; (void)flag;
    __builtin_trap();
}

/* a user reduction op that traps wherever MPI runs it */
static void trapping_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)in; (void)inout; (void)len; (void)dt;
    __builtin_trap();
}

static int grequest_query(void *extra, MPI_Status *status) { return (void)extra, MPI_Status_set_cancelled(status, 0); }
static int grequest_free(void *extra) { return (void)extra, MPI_SUCCESS; }
static int grequest_cancel(void *extra, int complete) { return (void)extra, (void)complete, MPI_SUCCESS; }
static int grequest_free_fails(void *extra) { return (void)extra, MPI_ERR_OTHER; }

static void abort_handler(MPI_Comm *comm, int *code, ...) {
    (void)code;
    MPI_Abort(*comm, 42);
}

static size_t memory_end(void);

/* errors that come back as return codes: prints one line per check */
static void returned_errors(int rank) {
    int x[4] = {0, 0, 0, 0}, cls, rc;
    /* errors outside communication go to COMM_WORLD (MPI-3) or COMM_SELF (MPI-4) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    /* a vector whose first element is inside memory and second is 64 KiB past its end */
    MPI_Datatype far, below, bogus = (MPI_Datatype)0x7ff00001;
    MPI_Type_vector(2, 1, 1 << 14, MPI_INT, &far);
    MPI_Type_commit(&far);
    rc = MPI_Send((void *)(memory_end() - 64), 1, far, rank, 5, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    printf("derived type past the end of memory %s\n", cls == MPI_ERR_BUFFER ? "ok" : "FAILED");
    if (rc == MPI_SUCCESS) MPI_Recv(x, 2, MPI_INT, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* lower bound -4096 from address 64: the span starts below address 0 */
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {-4096, 0};
    MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &below);
    MPI_Type_commit(&below);
    rc = MPI_Send((void *)64, 1, below, rank, 6, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    printf("derived type below address 0 %s\n", cls == MPI_ERR_BUFFER ? "ok" : "FAILED");
    if (rc == MPI_SUCCESS) MPI_Recv(x, 2, MPI_INT, rank, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rc = MPI_Send(x, 1, bogus, rank, 7, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    printf("invalid datatype handle %s\n", cls == MPI_ERR_TYPE ? "ok" : "FAILED");
    MPI_Aint lb, extent;
    rc = MPI_Type_get_extent(bogus, &lb, &extent);
    MPI_Error_class(rc, &cls);
    printf("invalid datatype handle in Type_get_extent %s\n", cls == MPI_ERR_TYPE ? "ok" : "FAILED");
    rc = MPI_Send(x, 1, MPI_DATATYPE_NULL, rank, 8, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    printf("MPI_DATATYPE_NULL %s\n", cls == MPI_ERR_TYPE ? "ok" : "FAILED");
    /* a derived type that fits is fine: both elements arrive, the last 64
     * bytes before the end of memory */
    int *fits = (int *)(memory_end() - (1 << 16) - 64), y[2] = {-1, -1};
    fits[0] = 11;
    fits[1 << 14] = 22;
    rc = MPI_Sendrecv(fits, 1, far, rank, 9, y, 2, MPI_INT, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("derived type ending inside memory %s\n", rc == MPI_SUCCESS && y[0] == 11 && y[1] == 22 ? "ok" : "FAILED");
    MPI_Type_free(&far);
    MPI_Type_free(&below);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    fflush(stdout);
}

/* an MPI error under MPI_ERRORS_ARE_FATAL, guest callbacks that trap (a
 * reduction, an attribute copy), or one that calls MPI_Abort; out of line,
 * so that deep_fault's frames stay small */
__attribute__((noinline)) static void fault_here(const char *fault, int size) {
    int x = 0;
    if (!strcmp(fault, "bad-comm")) {
        MPI_Send(&x, 1, MPI_INT, 0, 1, (MPI_Comm)0x1234);
    } else if (!strcmp(fault, "op-trap")) {
        MPI_Op op;
        MPI_Op_create(trapping_op, 1, &op);
        int in = 1, out = 0;
        MPI_Reduce_local(&in, &out, 1, MPI_INT, op);
    } else if (!strcmp(fault, "errhandler-abort")) {
        MPI_Errhandler eh;
        MPI_Comm_create_errhandler(abort_handler, &eh);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
        MPI_Send(&x, 1, MPI_INT, size, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "keyval-trap")) {
        int keyval;
        MPI_Comm dup;
        MPI_Comm_create_keyval(trapping_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, &x);
        MPI_Comm_dup(MPI_COMM_SELF, &dup);
    }
}

/* `fault_here` at depth `levels` */
static long deep_fault(long n, long levels, const char *fault, int size) {
    volatile long frame = n;
    if (n < levels) return deep_fault(n + 1, levels, fault, size) + 1 + (frame - n);
    fault_here(fault, size);
    return 0;
}

static size_t memory_end(void) {
#ifdef __wasm__
    return __builtin_wasm_memory_size(0) * 65536;
#else
    return 0;
#endif
}

int main(int argc, char **argv) {
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *fault = argc > 1 ? argv[1] : "none";
    int culprit = size > 1 ? 1 : 0;
    if (!strcmp(fault, "op-trap")) {
        /* every rank in the collective; with two or more ranks some rank
         * combines two contributions, alone the Reduce_local does */
        MPI_Op op;
        MPI_Op_create(trapping_op, 1, &op);
        int in = rank, out = 0;
        MPI_Allreduce(&in, &out, 1, MPI_INT, op, MPI_COMM_WORLD);
        MPI_Reduce_local(&in, &out, 1, MPI_INT, op);
        printf("rank %d: unexpected message\n", rank);
        return 1;
    }
    if (rank != culprit) {
        /* never satisfied: only an abort of the whole job ends this */
        MPI_Recv(&x, 1, MPI_INT, culprit, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank %d: unexpected message\n", rank);
        return 1;
    }
    fflush(stdout);
    if (!strcmp(fault, "trap")) {
        __builtin_trap();
    } else if (!strcmp(fault, "oob-load")) {
        volatile char *p = (volatile char *)(memory_end() + 4096);
        x = *p;
    } else if (!strcmp(fault, "recursion")) {
        x = depth(0);
    } else if (!strcmp(fault, "divzero")) {
        volatile int numerator = 7, zero = 0, quotient;
        quotient = numerator / zero;
        x = quotient;
    } else if (!strcmp(fault, "deep-mpi")) {
        long levels = argc > 2 ? atol(argv[2]) : -1;
        printf("deep-mpi %ld\n", deep_mpi(0, levels));
    } else if (!strncmp(fault, "deep-", 5) && argc > 2) {
        /* the fault argv[2] frames down, where host calls move to the host
         * stack: it must end the job as it does from main */
        deep_fault(0, atol(argv[2]), fault + 5, size);
        printf("rank %d: unexpected message\n", rank);
    } else if (!strcmp(fault, "send-oob")) {
        /* 8 ints starting 16 bytes before the end of memory: the first
         * element is inside, the buffer is not */
        MPI_Send((void *)(memory_end() - 16), 8, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "recv-oob")) {
        MPI_Recv((void *)(memory_end() - 4), 2, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(fault, "send-wrap")) {
        MPI_Send((void *)0xfffffff0u, 64, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "send-at-end")) {
        /* exactly up to the last byte: valid; sent to ourselves via PROC_NULL */
        MPI_Send((void *)(memory_end() - 16), 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
        printf("send-at-end ok\n");
    } else if (!strcmp(fault, "bad-rank")) {
        MPI_Send(&x, 1, MPI_INT, -2, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "bad-comm") || !strcmp(fault, "errhandler-abort") || !strcmp(fault, "keyval-trap")) {
        /* the same faults as deep in the stack (the error handler aborts
         * the job with its own code) */
        fault_here(fault, size);
    } else if (!strcmp(fault, "grequest-wait")) {
        /* nobody calls MPI_Grequest_complete: natively this waits forever */
        MPI_Request r;
        MPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, NULL, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (!strcmp(fault, "grequest-free-fails")) {
        /* free_fn's error is the completing call's, here fatal */
        MPI_Request r;
        MPI_Grequest_start(grequest_query, grequest_free_fails, grequest_cancel, NULL, &r);
        MPI_Grequest_complete(r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (!strcmp(fault, "bad-op")) {
        long double a = 1, b = 0; /* MPI defines no bitwise AND on floating types */
        MPI_Allreduce(&a, &b, 1, MPI_LONG_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "derived-ld-op")) {
        /* a predefined operation on a derived type of long double: the
         * bridge refuses it with its own message (the host MPI would too,
         * with another), which it knows from the type's entry; a duplicate
         * of a derived type, so that making and committing keep it */
        MPI_Datatype pair, dup;
        MPI_Type_contiguous(2, MPI_LONG_DOUBLE, &pair);
        MPI_Type_dup(pair, &dup);
        MPI_Type_commit(&dup);
        long double a[2] = {1, 2}, b[2];
        MPI_Allreduce(a, b, 1, dup, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "unsupported")) {
        MPI_Comm parent; /* dynamic process management: not bridged */
        MPI_Comm_get_parent(&parent);
    } else if (!strcmp(fault, "abort")) {
        MPI_Abort(MPI_COMM_WORLD, 7);
    } else if (!strcmp(fault, "bad-datatype")) {
        MPI_Send(&x, 1, (MPI_Datatype)0x7ff00001, 0, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "returns")) {
        returned_errors(rank);
    }
    if (size > 1) MPI_Send(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
