/* Objects freed while operations that use them are pending: MPI lets a
 * program free a datatype or a reduction operation before the nonblocking
 * or persistent collective made with it is done (MPI-4.1 2.5.1), and the
 * operation completes as if it had not been freed. After each free the
 * program makes new objects of the same kind, which may take the freed
 * one's memory or trampoline. Rank 0 prints one line per case: its name,
 * then "ok" when every rank got the data MPI defines.
 *
 *   pending_frees            the nonblocking cases (every host)
 *   pending_frees persistent the persistent collectives (MPI-4.0) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXP 16
#define USER_OPS 64

static int rank, size;

static void report(const char *name, int ok) {
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %s\n", name, all ? "ok" : "WRONG");
}

/* inout += in + 1000, element-wise */
static void plus1000(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) b[i] += a[i] + 1000;
}

/* what a reused trampoline or memory would run instead */
static void clobber(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)in, (void)t;
    int *b = inout;
    for (int i = 0; i < *len; i++) b[i] = -7;
}

/* on (sum, max) pairs of ints; the datatype is not asked: its handle was
 * freed by the time this runs */
static void sum_max(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        b[2 * i] += a[2 * i];
        if (a[2 * i + 1] > b[2 * i + 1]) b[2 * i + 1] = a[2 * i + 1];
    }
}

/* new types of the freed one's kind, which may take its memory */
static void make_others(MPI_Datatype others[4]) {
    for (int i = 0; i < 4; i++) {
        MPI_Type_vector(2, 1, 5 + i, MPI_INT, &others[i]);
        MPI_Type_commit(&others[i]);
    }
}

static void free_others(MPI_Datatype others[4]) {
    for (int i = 0; i < 4; i++) MPI_Type_free(&others[i]);
}

/* every rank's block for every other as one vector(2, 1, 2) of ints: the
 * block from rank p lands at [3p] and [3p + 2], [3p + 1] stays untouched */
static void fill_exchange(int *send, int *recv) {
    for (int i = 0; i < 3 * MAXP; i++) send[i] = rank * 100 + i, recv[i] = -1;
}

static int exchanged(const int *recv) {
    int ok = 1;
    for (int p = 0; p < size; p++)
        ok &= recv[3 * p] == p * 100 + 3 * rank && recv[3 * p + 1] == -1 && recv[3 * p + 2] == p * 100 + 3 * rank + 2;
    return ok;
}

static int sum_plus1000(int r) { return size * (size + 1) / 2 + 1000 * (size - 1) == r; }

/* USER_OPS user operations at once: none of the freed ones still holds
 * what a user operation needs */
static void user_ops_after(const char *name) {
    MPI_Op ops[USER_OPS];
    int made = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    while (made < USER_OPS && MPI_Op_create(plus1000, 1, &ops[made]) == MPI_SUCCESS) made++;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    for (int i = 0; i < made; i++) MPI_Op_free(&ops[i]);
    report(name, made == USER_OPS);
}

static void nonblocking(void) {
    MPI_Request req;
    MPI_Datatype others[4];

    {   /* the operation freed, its trampoline offered to a new one */
        MPI_Op op, other;
        int s = rank + 1, r = 0;
        MPI_Op_create(plus1000, 1, &op);
        MPI_Iallreduce(&s, &r, 1, MPI_INT, op, MPI_COMM_WORLD, &req);
        MPI_Op_free(&op);
        MPI_Op_create(clobber, 1, &other);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Op_free(&other);
        report("Iallreduce, user operation freed before the wait", sum_plus1000(r));
    }
    {   /* a derived type and the operation on it, both freed */
        MPI_Datatype pair, held;
        MPI_Op op;
        int s[4] = {rank, 10 * rank, 1, -rank}, r[4] = {0};
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        MPI_Op_create(sum_max, 1, &op);
        held = pair;
        MPI_Iallreduce(s, r, 2, held, op, MPI_COMM_WORLD, &req);
        MPI_Type_free(&pair);
        MPI_Op_free(&op);
        make_others(others);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free_others(others);
        int ok = r[0] == size * (size - 1) / 2 && r[1] == 10 * (size - 1) && r[2] == size && r[3] == 0;
        report("Iallreduce of a derived type, type and operation freed before the wait", ok);
    }
    {   /* a broadcast of a derived type */
        MPI_Datatype vec;
        int buf[3 * MAXP];
        for (int i = 0; i < 3 * MAXP; i++) buf[i] = rank == 0 ? i : -1;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        MPI_Ibcast(buf, 1, vec, 0, MPI_COMM_WORLD, &req);
        MPI_Type_free(&vec);
        make_others(others);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free_others(others);
        report("Ibcast, datatype freed before the wait", buf[0] == 0 && buf[1] == (rank == 0 ? 1 : -1) && buf[2] == 2);
    }
    {   /* the w-form: its datatypes come in arrays */
        MPI_Datatype vec, types[MAXP];
        int send[3 * MAXP], recv[3 * MAXP], counts[MAXP], displs[MAXP];
        fill_exchange(send, recv);
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (int p = 0; p < size; p++) types[p] = vec, counts[p] = 1, displs[p] = 12 * p;
        MPI_Ialltoallw(send, counts, displs, types, recv, counts, displs, types, MPI_COMM_WORLD, &req);
        MPI_Type_free(&vec);
        make_others(others);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free_others(others);
        report("Ialltoallw, datatypes freed before the wait", exchanged(recv));
    }
    user_ops_after("64 user operations after those freed");
}

#ifdef HAVE_PERSISTENT
/* two rounds of a persistent exchange whose datatype was just freed, with
 * new types made in between: whether every block arrived both times */
static int exchange_rounds(MPI_Request *req, int *send, int *recv) {
    MPI_Datatype others[4];
    int ok = 1;
    make_others(others);
    for (int round = 0; round < 2; round++) {
        fill_exchange(send, recv);
        MPI_Start(req);
        MPI_Wait(req, MPI_STATUS_IGNORE);
        ok &= exchanged(recv);
    }
    MPI_Request_free(req);
    free_others(others);
    return ok;
}

static void persistent(void) {
    MPI_Request req;

    {   /* the datatype freed between the init and the starts */
        MPI_Datatype vec;
        int send[3 * MAXP], recv[3 * MAXP], ok;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        MPI_Alltoall_init(send, 1, vec, recv, 1, vec, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Type_free(&vec);
        ok = exchange_rounds(&req, send, recv);
        report("Alltoall_init, datatype freed before the starts", ok);
    }
    {   /* the operation freed between the init and the starts */
        MPI_Op op, other;
        int s = rank + 1, r = 0, ok = 1;
        MPI_Op_create(plus1000, 1, &op);
        MPI_Allreduce_init(&s, &r, 1, MPI_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Op_free(&op);
        MPI_Op_create(clobber, 1, &other);
        for (int round = 0; round < 2; round++) {
            r = 0;
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            ok &= sum_plus1000(r);
        }
        MPI_Request_free(&req);
        MPI_Op_free(&other);
        report("Allreduce_init, user operation freed before the starts", ok);
    }
    {   /* the w-form */
        MPI_Datatype vec, types[MAXP];
        int send[3 * MAXP], recv[3 * MAXP], counts[MAXP], displs[MAXP], ok;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (int p = 0; p < size; p++) types[p] = vec, counts[p] = 1, displs[p] = 12 * p;
        MPI_Alltoallw_init(send, counts, displs, types, recv, counts, displs, types, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Type_free(&vec);
        ok = exchange_rounds(&req, send, recv);
        report("Alltoallw_init, datatypes freed before the starts", ok);
    }
    user_ops_after("64 user operations after the persistent requests were freed");
}
#endif

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) MPI_Abort(MPI_COMM_WORLD, 2);
    if (argc > 1 && !strcmp(argv[1], "persistent")) {
#ifdef HAVE_PERSISTENT
        persistent();
#else
        if (rank == 0) printf("built without HAVE_PERSISTENT\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
#endif
    } else {
        nonblocking();
    }
    MPI_Finalize();
    return 0;
}
