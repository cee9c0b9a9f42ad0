/* hostile_callbacks.c MODE: callback indices out of range, null or of the
 * wrong signature, and MPI_Alloc_mem sizes that do not fit (MODE "args",
 * errors returned, see hostile.h); MODE "op-writes-out": a user reduction
 * function stores past the end of memory while every rank is in the
 * MPI_Allreduce that runs it: the guest traps and the job ends cleanly;
 * MODE "op-calls-mpi": a user reduction function calls MPI_Comm_rank, which
 * it may not: the job ends with the bridge's reason. */
#include "hostile.h"

#include <limits.h>
#include <stdlib.h>

static double wrong_signature(double x) { return x * 2; }
static void sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}
static void writes_out(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)in; (void)inout; (void)len; (void)dt;
    volatile int *past = (volatile int *)(mem_end() + 64);
    *past = 1;
}

/* a function pointer that is a table index out of range, null, or a
 * function of another type (the casts are the point) */
static void calls_mpi(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)in; (void)inout; (void)len; (void)dt;
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
}

#define OUT_OF_RANGE ((void *)0x7ffffff0)
#define WRONG ((void *)wrong_signature)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    hostile_setup();
    int rc, me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc > 1 && (!strcmp(argv[1], "op-writes-out") || !strcmp(argv[1], "op-calls-mpi"))) {
        MPI_Op op;
        MPI_Op_create(!strcmp(argv[1], "op-writes-out") ? writes_out : calls_mpi, 1, &op);
        int in = me, out = 0;
        MPI_Allreduce(&in, &out, 1, MPI_INT, op, MPI_COMM_WORLD);
        MPI_Reduce_local(&in, &out, 1, MPI_INT, op); /* alone, this is where it runs */
        printf("rank %d: unexpected return from a reduction that %s\n", me, argv[1]);
        return 1;
    }

    MPI_Op op = MPI_OP_NULL;
    void *bad[3] = {OUT_OF_RANGE, NULL, WRONG};
    const char *what[3] = {"out of range", "null", "of the wrong signature"};
    char name[128];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "op_create function %s", what[i]);
        rc = MPI_Op_create((MPI_User_function *)bad[i], 1, &op);
        expect(name, rc, MPI_ERR_ARG, op == MPI_OP_NULL);
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
        snprintf(name, sizeof name, "comm_create_errhandler function %s", what[i]);
        rc = MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)bad[i], &eh);
        expect(name, rc, MPI_ERR_ARG, eh == MPI_ERRHANDLER_NULL);
        int kv = MPI_KEYVAL_INVALID;
        snprintf(name, sizeof name, "comm_create_keyval copy function %s", what[i]);
        if (bad[i] == NULL) { /* NULL is MPI_COMM_NULL_COPY_FN: valid */
            rc = MPI_Comm_create_keyval(NULL, (MPI_Comm_delete_attr_function *)OUT_OF_RANGE, &kv, NULL);
            snprintf(name, sizeof name, "comm_create_keyval delete function out of range");
        } else {
            rc = MPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)bad[i], MPI_COMM_NULL_DELETE_FN, &kv, NULL);
        }
        expect(name, rc, MPI_ERR_ARG, kv == MPI_KEYVAL_INVALID);
        snprintf(name, sizeof name, "type_create_keyval delete function %s", what[i]);
        kv = MPI_KEYVAL_INVALID;
        if (bad[i] != NULL) {
            rc = MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, (MPI_Type_delete_attr_function *)bad[i], &kv, NULL);
            expect(name, rc, MPI_ERR_ARG, kv == MPI_KEYVAL_INVALID);
        }
    }
    /* a valid user op still works after the refusals */
    rc = MPI_Op_create(sum, 1, &op);
    int in = 1, out = 0, np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&in, &out, 1, MPI_INT, op, MPI_COMM_WORLD);
    expect("valid user op after the refusals", rc, MPI_SUCCESS, out == np);
    MPI_Op_free(&op);
    /* an out-handle for the op at the end of memory */
    char *t = tail(2);
    rc = MPI_Op_create(sum, 1, (MPI_Op *)t);
    expect("op_create handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, (int *)t, NULL);
    expect("comm_create_keyval keyval past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));

    /* Alloc_mem: bad sizes, then sizes that do not fit (last: the memory grows) */
    void *p = NULL, *q = NULL;
    rc = MPI_Alloc_mem(-1, MPI_INFO_NULL, &p);
    expect("alloc_mem -1 bytes", rc, MPI_ERR_ARG, p == NULL);
    rc = MPI_Alloc_mem(INT_MIN, MPI_INFO_NULL, &p);
    expect("alloc_mem INT_MIN bytes", rc, MPI_ERR_ARG, p == NULL);
    rc = MPI_Alloc_mem(16, (MPI_Info)0x7ff00001, &p);
    expect("alloc_mem invalid info", rc, MPI_ERR_INFO, p == NULL);
    t = tail(2);
    rc = MPI_Alloc_mem(16, MPI_INFO_NULL, (void **)t);
    expect("alloc_mem baseptr past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    rc = MPI_Alloc_mem(16, MPI_INFO_NULL, &p);
    int fits = rc == MPI_SUCCESS && p != NULL && (uintptr_t)p + 16 <= mem_end();
    if (fits) memset(p, 1, 16);
    expect("alloc_mem 16 bytes", rc, MPI_SUCCESS, fits);
    if (fits) MPI_Free_mem(p);
    /* 2 GiB may fit once in a 4 GiB memory, never twice */
    p = NULL;
    rc = MPI_Alloc_mem(INT_MAX, MPI_INFO_NULL, &p);
    fits = rc == MPI_SUCCESS ? p != NULL && (uintptr_t)p + INT_MAX <= mem_end() : class_of(rc) == MPI_ERR_NO_MEM && p == NULL;
    rc = MPI_Alloc_mem(INT_MAX, MPI_INFO_NULL, &q);
    expect("alloc_mem INT_MAX bytes twice", rc, MPI_ERR_NO_MEM, fits && q == NULL);
    if (p) MPI_Free_mem(p);
    MPI_Barrier(MPI_COMM_WORLD);
    return hostile_finish();
}
