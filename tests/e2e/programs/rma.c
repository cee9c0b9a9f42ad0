/* One-sided communication (RMA), end to end: every window flavour (create,
 * allocate, dynamic, shared), every synchronisation mode (fence, PSCW,
 * passive target with locks and flushes, request-based operations) and the
 * window queries. Each check runs on ints and on doubles: the values are
 * small integers, exact in both, so one expected value serves both types.
 *
 * Self-checking (check.h): rank 0 prints one "<check> ok" line per check,
 * identical natively and in wasm, whatever the MPI; a failed expectation is
 * a "rma.c:LINE: ..." line on stderr. Results that depend on the order in
 * which origins reached a target (fetch-and-op, compare-and-swap) are
 * checked for consistency, never printed. Runs with 2..MAX_RANKS ranks. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 128         /* elements in each rank's window */
#define MAX_RANKS 16  /* one slot per origin rank in the SLOTS_* regions */
#define K 4           /* elements per rank in the shared windows */

/* Where each check lives in a window, so that no two checks in one epoch
 * touch the same element (conflicting accesses would make results
 * undefined, not wrong). */
enum {
    PUT = 0,        /* 4: written by the left neighbour */
    GET = 4,        /* 4: read by the right neighbour, never written */
    SUM = 8,        /* accumulated by every rank */
    MAX = 9,        /* accumulated by every rank */
    REPLACE = 10,   /* replaced by the left neighbour */
    GACC = 11,      /* get_accumulate counter */
    FOP = 12,       /* fetch_and_op counter */
    CAS = 13,       /* compare_and_swap target */
    COUNTER = 14,   /* read-modify-write under an exclusive lock */
    VEC = 16,       /* 8: a strided put fills every other element */
    RPUT = 24,      /* 4: request-based put and get */
    SLOTS_A = 32,   /* MAX_RANKS each: one element per origin rank */
    SLOTS_B = 48,
    SLOTS_C = 64,
};

static int rank, size, left, right;

/* ------------------------------------------------------------ element types */

typedef struct {
    const char *name;
    MPI_Datatype type;
    int bytes;
} Elem;

/* Element i of buf (memcpy: buffers are declared double, read as either) */
static void store(const Elem *e, void *buf, int i, double v) {
    int as_int = (int)v;
    memcpy((char *)buf + (size_t)i * e->bytes, e->type == MPI_INT ? (void *)&as_int : (void *)&v, e->bytes);
}

static double load(const Elem *e, const void *buf, int i) {
    int as_int;
    double as_double;
    const char *at = (const char *)buf + (size_t)i * e->bytes;
    memcpy(e->type == MPI_INT ? (void *)&as_int : (void *)&as_double, at, e->bytes);
    return e->type == MPI_INT ? as_int : as_double;
}

/* What element i of rank r's window holds before any RMA. */
static double initial(int r, int i) {
    switch (i) {
    case SUM: return 100;
    case MAX: return -50;
    case GACC: case FOP: return 0;
    case CAS: return -1;
    default: return 1000 * r + i;
    }
}

static void *new_buffer(const Elem *e, int n, int owner) {
    void *buf = malloc((size_t)n * e->bytes);
    for (int i = 0; i < n; i++) store(e, buf, i, initial(owner, i));
    return buf;
}

/* ------------------------------------------------------------------ checks */

#define EXPECT_EQ(got, want)                                                                        \
    do {                                                                                            \
        double got_ = (got), want_ = (want);                                                        \
        if (got_ != want_) {                                                                        \
            errors++;                                                                               \
            fprintf(stderr, "%s:%d: rank %d: %s is %g, want %g\n", __FILE__, __LINE__, rank, #got, \
                    got_, want_);                                                                   \
        }                                                                                           \
    } while (0)

#define CHECK(call) EXPECT((call) == MPI_SUCCESS)

static void verdict(const Elem *e, const char *what, int errors) {
    char name[64];
    snprintf(name, sizeof name, "%s %s", e ? e->name : "win", what);
    check(name, errors);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every rank added 1 to one counter starting at 0, atomically: whatever
 * the order, the values fetched are 0..size-1, each once. */
static int fetched_once_each(double fetched) {
    int errors = 0;
    double *all = malloc(size * sizeof *all);
    MPI_Allgather(&fetched, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    qsort(all, size, sizeof *all, cmp_double);
    for (int r = 0; r < size; r++) EXPECT_EQ(all[r], r);
    free(all);
    return errors;
}

/* The predefined attributes of a window (MPI_WIN_BASE is compared with the
 * pointer the program knows: a guest address must come back as itself). */
static int attributes(MPI_Win win, void *base, MPI_Aint bytes, int disp_unit, int flavor) {
    int errors = 0, flag = 0;
    void *got_base = NULL;
    MPI_Aint *got_size = NULL;
    int *got_disp = NULL, *got_flavor = NULL, *got_model = NULL;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_BASE, &got_base, &flag));
    EXPECT(flag && got_base == base);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
    EXPECT(flag && got_size && *got_size == bytes);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &got_disp, &flag));
    EXPECT(flag && got_disp && *got_disp == disp_unit);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &got_flavor, &flag));
    EXPECT(flag && got_flavor && *got_flavor == flavor);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &got_model, &flag));
    EXPECT(flag && got_model && (*got_model == MPI_WIN_UNIFIED || *got_model == MPI_WIN_SEPARATE));
    return errors;
}

static int free_window(MPI_Win *win) {
    int errors = 0;
    CHECK(MPI_Win_free(win));
    EXPECT(*win == MPI_WIN_NULL);
    return errors;
}

/* After a barrier, makes the puts other ranks completed visible to this
 * rank's loads (needed under the separate memory model). */
static void see_remote_updates(MPI_Win win) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Win_sync(win);
    MPI_Win_unlock(rank, win);
}

/* MPI_Win_create over a malloc'd buffer, one element per displacement. */
static MPI_Win create_window(const Elem *e, void **buf) {
    MPI_Win win;
    *buf = new_buffer(e, N, rank);
    MPI_Win_create(*buf, (MPI_Aint)N * e->bytes, e->bytes, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    return win;
}

/* -------------------------------------------------------------------- fence */

static void fence(const Elem *e) {
    void *buf;
    MPI_Win win = create_window(e, &buf);
    double origin[4], got[4], vec[4];
    double one[1], fetched_gacc[1], fetched_fop[1], both[2];
    int errors = 0;

    for (int k = 0; k < 4; k++) {
        store(e, origin, k, rank * 10 + k);
        store(e, vec, k, rank * 7 + k);
    }
    MPI_Datatype every_other;
    MPI_Type_vector(4, 1, 2, e->type, &every_other);
    MPI_Type_commit(&every_other);

    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    CHECK(MPI_Put(origin, 4, e->type, right, PUT, 4, e->type, win));
    CHECK(MPI_Get(got, 4, e->type, left, GET, 4, e->type, win));
    CHECK(MPI_Put(vec, 4, e->type, right, VEC, 1, every_other, win));
    CHECK(MPI_Win_fence(0, win));
    verdict(e, "fence put get calls", errors);

    errors = 0;
    for (int k = 0; k < 4; k++) EXPECT_EQ(load(e, buf, PUT + k), left * 10 + k);
    verdict(e, "fence put", errors);
    errors = 0;
    for (int k = 0; k < 4; k++) EXPECT_EQ(load(e, got, k), initial(left, GET + k));
    verdict(e, "fence get", errors);
    errors = 0;
    for (int k = 0; k < 4; k++) {
        EXPECT_EQ(load(e, buf, VEC + 2 * k), left * 7 + k);
        EXPECT_EQ(load(e, buf, VEC + 2 * k + 1), initial(rank, VEC + 2 * k + 1)); /* the gaps */
    }
    verdict(e, "fence put vector target type", errors);

    /* Accumulates from every origin to one element are atomic with respect
     * to each other: results do not depend on the order they arrive in. */
    double sum_in[1], max_in[1], replace_in[1];
    store(e, sum_in, 0, rank + 1);
    store(e, max_in, 0, rank * 7 - 20);
    store(e, replace_in, 0, 2000 + rank);
    store(e, one, 0, 1);
    int cas_in = rank, cas_compare = -1, cas_result = -2;
    errors = 0;
    for (int t = 0; t < size; t++) {
        CHECK(MPI_Accumulate(sum_in, 1, e->type, t, SUM, 1, e->type, MPI_SUM, win));
        CHECK(MPI_Accumulate(max_in, 1, e->type, t, MAX, 1, e->type, MPI_MAX, win));
    }
    CHECK(MPI_Accumulate(replace_in, 1, e->type, right, REPLACE, 1, e->type, MPI_REPLACE, win));
    CHECK(MPI_Get_accumulate(one, 1, e->type, fetched_gacc, 1, e->type, 0, GACC, 1, e->type, MPI_SUM, win));
    CHECK(MPI_Fetch_and_op(one, fetched_fop, e->type, size - 1, FOP, MPI_SUM, win));
    /* compare-and-swap takes integer types only */
    if (e->type == MPI_INT) CHECK(MPI_Compare_and_swap(&cas_in, &cas_compare, &cas_result, MPI_INT, 0, CAS, win));
    CHECK(MPI_Win_fence(0, win));
    /* reading back what the others accumulated, in its own epoch */
    CHECK(MPI_Get_accumulate(NULL, 0, e->type, both, 2, e->type, right, SUM, 2, e->type, MPI_NO_OP, win));
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    verdict(e, "fence accumulate calls", errors);

    errors = 0;
    EXPECT_EQ(load(e, buf, SUM), initial(rank, SUM) + size * (size + 1) / 2);
    verdict(e, "fence accumulate sum", errors);
    errors = 0;
    EXPECT_EQ(load(e, buf, MAX), (size - 1) * 7 - 20);
    verdict(e, "fence accumulate max", errors);
    errors = 0;
    EXPECT_EQ(load(e, buf, REPLACE), 2000 + left);
    verdict(e, "fence accumulate replace", errors);
    errors = fetched_once_each(load(e, fetched_gacc, 0));
    if (rank == 0) EXPECT_EQ(load(e, buf, GACC), size);
    verdict(e, "fence get_accumulate sum", errors);
    errors = fetched_once_each(load(e, fetched_fop, 0));
    if (rank == size - 1) EXPECT_EQ(load(e, buf, FOP), size);
    verdict(e, "fence fetch_and_op sum", errors);
    errors = 0;
    EXPECT_EQ(load(e, both, 0), initial(right, SUM) + size * (size + 1) / 2);
    EXPECT_EQ(load(e, both, 1), (size - 1) * 7 - 20);
    verdict(e, "fence get_accumulate no_op", errors);

    if (e->type == MPI_INT) {
        /* exactly one rank found -1 and swapped in its rank; every other
         * rank found the winner's rank */
        errors = 0;
        int *results = malloc(size * sizeof *results), winner = -1, winners = 0;
        MPI_Allgather(&cas_result, 1, MPI_INT, results, 1, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < size; r++)
            if (results[r] == -1) winner = r, winners++;
        EXPECT_EQ(winners, 1);
        for (int r = 0; r < size; r++)
            if (r != winner) EXPECT_EQ(results[r], winner);
        int final = rank == 0 ? ((int *)buf)[CAS] : 0;
        MPI_Bcast(&final, 1, MPI_INT, 0, MPI_COMM_WORLD);
        EXPECT_EQ(final, winner);
        free(results);
        verdict(e, "fence compare_and_swap", errors);
    }

    MPI_Type_free(&every_other);
    errors = free_window(&win);
    verdict(e, "fence win_free", errors);
    free(buf);
}

/* --------------------------------------------------------------------- PSCW */

/* A ring: each rank exposes its window to its left neighbour and accesses
 * its right one (with 2 ranks both are the other rank). */
static void pscw(const Elem *e) {
    void *buf;
    MPI_Win win = create_window(e, &buf);
    MPI_Group world, from_left, to_right;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &from_left);
    MPI_Group_incl(world, 1, &right, &to_right);
    double origin[4], got[4], sum_in[1], max_in[1];
    for (int k = 0; k < 4; k++) store(e, origin, k, rank * 10 + k);
    store(e, sum_in, 0, rank + 1);
    store(e, max_in, 0, 500 + rank);
    int errors = 0;

    /* round 1: put and accumulate, exposure closed by MPI_Win_wait */
    CHECK(MPI_Win_post(from_left, 0, win));
    CHECK(MPI_Win_start(to_right, 0, win));
    CHECK(MPI_Put(origin, 4, e->type, right, PUT, 4, e->type, win));
    CHECK(MPI_Accumulate(sum_in, 1, e->type, right, SUM, 1, e->type, MPI_SUM, win));
    CHECK(MPI_Win_complete(win));
    CHECK(MPI_Win_wait(win));
    for (int k = 0; k < 4; k++) EXPECT_EQ(load(e, buf, PUT + k), left * 10 + k);
    EXPECT_EQ(load(e, buf, SUM), initial(rank, SUM) + left + 1);
    verdict(e, "pscw put accumulate wait", errors);

    /* round 2: get and accumulate, exposure closed by polling MPI_Win_test */
    errors = 0;
    CHECK(MPI_Win_post(from_left, MPI_MODE_NOPUT, win));
    CHECK(MPI_Win_start(to_right, 0, win));
    CHECK(MPI_Get(got, 4, e->type, right, GET, 4, e->type, win));
    CHECK(MPI_Accumulate(max_in, 1, e->type, right, MAX, 1, e->type, MPI_MAX, win));
    CHECK(MPI_Win_complete(win));
    int flag = 0;
    while (!flag) CHECK(MPI_Win_test(win, &flag));
    for (int k = 0; k < 4; k++) EXPECT_EQ(load(e, got, k), initial(right, GET + k));
    EXPECT_EQ(load(e, buf, MAX), 500 + left);
    verdict(e, "pscw get accumulate test", errors);

    MPI_Group_free(&from_left);
    MPI_Group_free(&to_right);
    MPI_Group_free(&world);
    errors = free_window(&win);
    verdict(e, "pscw win_free", errors);
    free(buf);
}

/* ---------------------------------------------------------- passive target */

static void passive(const Elem *e) {
    void *buf;
    MPI_Win win = create_window(e, &buf);
    double value[1], mine[1], got[MAX_RANKS];
    int errors = 0;

    /* exclusive lock: a read-modify-write that only mutual exclusion makes
     * correct; the flush makes the get's value usable inside the epoch */
    for (int round = 0; round < 2; round++) {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK(MPI_Get(value, 1, e->type, 0, COUNTER, 1, e->type, win));
        CHECK(MPI_Win_flush(0, win));
        store(e, value, 0, load(e, value, 0) + 1);
        CHECK(MPI_Put(value, 1, e->type, 0, COUNTER, 1, e->type, win));
        CHECK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(MPI_Get(value, 1, e->type, 0, COUNTER, 1, e->type, win));
    CHECK(MPI_Win_unlock(0, win));
    EXPECT_EQ(load(e, value, 0), initial(0, COUNTER) + 2 * size);
    verdict(e, "lock exclusive counter", errors);

    /* shared locks, one target at a time: each origin owns one slot */
    errors = 0;
    for (int t = 0; t < size; t++) {
        store(e, value, 0, rank * 10 + t);
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        CHECK(MPI_Put(value, 1, e->type, t, SLOTS_A + rank, 1, e->type, win));
        CHECK(MPI_Win_unlock(t, win));
    }
    see_remote_updates(win);
    for (int o = 0; o < size; o++) EXPECT_EQ(load(e, buf, SLOTS_A + o), o * 10 + rank);
    verdict(e, "lock shared put", errors);

    /* lock_all: puts completed remotely by flush_all, read back by gets
     * completed locally by flush_local / flush_local_all */
    errors = 0;
    double values[MAX_RANKS];
    CHECK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < size; t++) {
        store(e, values, t, 300 + rank * 10 + t);
        CHECK(MPI_Put((char *)values + t * e->bytes, 1, e->type, t, SLOTS_B + rank, 1, e->type, win));
    }
    CHECK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < size; t++) {
        CHECK(MPI_Get((char *)got + t * e->bytes, 1, e->type, t, SLOTS_B + right, 1, e->type, win));
        if (t == right) {
            CHECK(MPI_Win_flush_local(t, win));
            EXPECT_EQ(load(e, got, t), 300 + right * 10 + t);
        }
    }
    CHECK(MPI_Win_flush_local_all(win));
    for (int t = 0; t < size; t++) EXPECT_EQ(load(e, got, t), 300 + right * 10 + t);

    /* flush to one target, then the target's own loads after MPI_Win_sync */
    store(e, mine, 0, 700 + rank);
    CHECK(MPI_Put(mine, 1, e->type, right, SLOTS_C + rank, 1, e->type, win));
    CHECK(MPI_Win_flush(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_sync(win));
    EXPECT_EQ(load(e, buf, SLOTS_C + left), 700 + left);
    CHECK(MPI_Win_unlock_all(win));
    verdict(e, "lock_all flush flush_local win_sync", errors);

    errors = free_window(&win);
    verdict(e, "passive win_free", errors);
    free(buf);
}

/* Request-based operations: the request completes the operation locally
 * only; a flush completes it at the target. */
static void requests(const Elem *e) {
    void *buf;
    MPI_Win win = create_window(e, &buf);
    double origin[4], got[4], sum_in[1], one[1], fetched[1];
    for (int k = 0; k < 4; k++) store(e, origin, k, rank * 10 + k);
    store(e, sum_in, 0, rank + 1);
    store(e, one, 0, 1);
    MPI_Request req;
    int errors = 0;

    CHECK(MPI_Win_lock_all(0, win));
    CHECK(MPI_Rput(origin, 4, e->type, right, RPUT, 4, e->type, win, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    EXPECT(req == MPI_REQUEST_NULL);
    CHECK(MPI_Win_flush(right, win));
    CHECK(MPI_Rget(got, 4, e->type, right, RPUT, 4, e->type, win, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int k = 0; k < 4; k++) EXPECT_EQ(load(e, got, k), rank * 10 + k);
    verdict(e, "rput rget wait", errors);

    errors = 0;
    CHECK(MPI_Raccumulate(sum_in, 1, e->type, 0, SUM, 1, e->type, MPI_SUM, win, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(MPI_Rget_accumulate(one, 1, e->type, fetched, 1, e->type, size - 1, GACC, 1, e->type, MPI_SUM, win, &req));
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(MPI_Win_unlock_all(win));
    see_remote_updates(win);
    if (rank == 0) EXPECT_EQ(load(e, buf, SUM), initial(0, SUM) + size * (size + 1) / 2);
    if (rank == size - 1) EXPECT_EQ(load(e, buf, GACC), size);
    for (int k = 0; k < 4; k++) EXPECT_EQ(load(e, buf, RPUT + k), left * 10 + k);
    errors += fetched_once_each(load(e, fetched, 0));
    verdict(e, "raccumulate rget_accumulate wait", errors);

    errors = free_window(&win);
    verdict(e, "requests win_free", errors);
    free(buf);
}

/* ----------------------------------------------------------- other flavours */

static void allocate(const Elem *e) {
    void *base = NULL;
    MPI_Win win;
    int errors = 0;
    CHECK(MPI_Win_allocate((MPI_Aint)N * e->bytes, e->bytes, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    EXPECT(base != NULL);
    /* the memory is the guest's own: plain stores before the first epoch */
    for (int i = 0; i < N; i++) store(e, base, i, initial(rank, i));
    errors += attributes(win, base, (MPI_Aint)N * e->bytes, e->bytes, MPI_WIN_FLAVOR_ALLOCATE);
    verdict(e, "win_allocate attributes", errors);

    errors = 0;
    double origin[4], got[4];
    for (int k = 0; k < 4; k++) store(e, origin, k, rank * 10 + k);
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Put(origin, 4, e->type, right, PUT, 4, e->type, win));
    CHECK(MPI_Get(got, 4, e->type, left, GET, 4, e->type, win));
    CHECK(MPI_Win_fence(0, win));
    for (int k = 0; k < 4; k++) {
        EXPECT_EQ(load(e, base, PUT + k), left * 10 + k);
        EXPECT_EQ(load(e, got, k), initial(left, GET + k));
    }
    errors += free_window(&win);
    verdict(e, "win_allocate put get", errors);
}

/* Dynamic windows are addressed by absolute addresses (MPI_Get_address at
 * the target), disp_unit 1. */
static void dynamic(const Elem *e) {
    MPI_Win win;
    int errors = 0;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    errors += attributes(win, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    void *mem = new_buffer(e, 8, rank);
    CHECK(MPI_Win_attach(win, mem, 8 * e->bytes));
    MPI_Aint addr, *addrs = malloc(size * sizeof *addrs);
    CHECK(MPI_Get_address(mem, &addr));
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    verdict(e, "win_create_dynamic attach", errors);

    errors = 0;
    double origin[4], got[4];
    for (int k = 0; k < 4; k++) store(e, origin, k, rank * 10 + k);
    CHECK(MPI_Win_lock_all(0, win));
    CHECK(MPI_Put(origin, 4, e->type, right, addrs[right], 4, e->type, win));
    CHECK(MPI_Get(got, 4, e->type, right, MPI_Aint_add(addrs[right], 4 * e->bytes), 4, e->type, win));
    CHECK(MPI_Win_flush(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_sync(win));
    for (int k = 0; k < 4; k++) {
        EXPECT_EQ(load(e, mem, k), left * 10 + k);
        EXPECT_EQ(load(e, got, k), initial(right, 4 + k));
    }
    CHECK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD); /* nobody detaches memory another rank still accesses */
    CHECK(MPI_Win_detach(win, mem));
    errors += free_window(&win);
    verdict(e, "dynamic put get detach", errors);
    free(mem);
    free(addrs);
}

/* Shared windows on the node: each rank stores into its own segment and
 * loads everyone's through the pointers MPI_Win_shared_query gives. */
static void shared_case(const Elem *e, MPI_Comm node, int noncontig) {
    int nrank, nsize, errors = 0;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    /* non-contiguous: rank 0 contributes nothing, so that a query for
     * MPI_PROC_NULL has to find the first segment that is not empty */
    MPI_Aint bytes = noncontig && nrank == 0 && nsize > 1 ? 0 : (MPI_Aint)K * e->bytes;
    void *mine = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate_shared(bytes, e->bytes, info, node, &mine, &win));
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    errors += attributes(win, mine, bytes, e->bytes, MPI_WIN_FLAVOR_SHARED);

    CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int k = 0; k * e->bytes < bytes; k++) store(e, mine, k, nrank * 10 + k);
    CHECK(MPI_Win_sync(win));
    MPI_Barrier(node);
    CHECK(MPI_Win_sync(win));
    int first = -1;
    char *previous_end = NULL;
    for (int r = 0; r < nsize; r++) {
        MPI_Aint seg = -1;
        int disp = -1;
        void *ptr = NULL;
        CHECK(MPI_Win_shared_query(win, r, &seg, &disp, &ptr));
        MPI_Aint want = noncontig && r == 0 && nsize > 1 ? 0 : (MPI_Aint)K * e->bytes;
        /* Open MPI rounds each non-contiguous segment up to a page */
        if (noncontig && want > 0)
            EXPECT(seg >= want);
        else
            EXPECT_EQ(seg, want);
        EXPECT_EQ(disp, e->bytes);
        if (r == nrank) EXPECT(ptr == mine);
        if (!noncontig && previous_end) EXPECT(ptr == previous_end); /* the default is contiguous */
        if (seg > 0) {
            if (first < 0) first = r;
            for (int k = 0; k < K; k++) EXPECT_EQ(load(e, ptr, k), r * 10 + k);
            previous_end = (char *)ptr + seg;
        }
    }
    MPI_Aint seg = -1;
    int disp = -1;
    void *ptr = NULL, *first_ptr = NULL;
    MPI_Aint first_seg;
    int first_disp;
    CHECK(MPI_Win_shared_query(win, first, &first_seg, &first_disp, &first_ptr));
    CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &seg, &disp, &ptr));
    EXPECT(ptr == first_ptr);
    EXPECT_EQ(seg, first_seg);
    EXPECT(seg >= K * e->bytes);
    EXPECT_EQ(disp, e->bytes);
    CHECK(MPI_Win_unlock_all(win));
    errors += free_window(&win);
    verdict(e, noncontig ? "win_allocate_shared noncontig" : "win_allocate_shared", errors);
}

static void shared(const Elem *e) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    shared_case(e, node, 0);
    shared_case(e, node, 1);
    MPI_Comm_free(&node);
}

/* ----------------------------------------------------------- window queries */

static void queries(void) {
    const Elem e = {"int", MPI_INT, sizeof(int)};
    void *buf;
    MPI_Win win = create_window(&e, &buf);
    int errors = attributes(win, buf, (MPI_Aint)N * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_CREATE);
    verdict(NULL, "get_attr base size disp_unit flavor model", errors);

    errors = 0;
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK(MPI_Win_set_name(win, "rma test window"));
    CHECK(MPI_Win_get_name(win, name, &len));
    EXPECT(len == (int)strlen("rma test window") && strcmp(name, "rma test window") == 0);
    verdict(NULL, "set_name get_name", errors);

    errors = 0;
    MPI_Group group, world;
    int gsize = -1, result = -1;
    CHECK(MPI_Win_get_group(win, &group));
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    CHECK(MPI_Group_size(group, &gsize));
    EXPECT_EQ(gsize, size);
    CHECK(MPI_Group_compare(group, world, &result));
    EXPECT_EQ(result, MPI_IDENT);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    verdict(NULL, "get_group", errors);

    /* hints may be ignored: only that the calls work and the info is real */
    errors = 0;
    MPI_Info info, used = MPI_INFO_NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ops", "same_op");
    CHECK(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    CHECK(MPI_Win_get_info(win, &used));
    EXPECT(used != MPI_INFO_NULL);
    int nkeys = -1;
    CHECK(MPI_Info_get_nkeys(used, &nkeys));
    EXPECT(nkeys >= 0);
    CHECK(MPI_Info_free(&used));
    EXPECT(used == MPI_INFO_NULL);
    verdict(NULL, "set_info get_info", errors);

    errors = free_window(&win);
    verdict(NULL, "free leaves MPI_WIN_NULL", errors);
    free(buf);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > MAX_RANKS) {
        if (rank == 0) printf("rma needs 2..%d ranks\n", MAX_RANKS);
        MPI_Finalize();
        return 1;
    }
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    const Elem elems[] = {{"int", MPI_INT, sizeof(int)}, {"double", MPI_DOUBLE, sizeof(double)}};
    for (int i = 0; i < 2; i++) {
        const Elem *e = &elems[i];
        fence(e);
        pscw(e);
        passive(e);
        requests(e);
        allocate(e);
        dynamic(e);
        shared(e);
    }
    queries();
    MPI_Finalize();
    return failures != 0;
}
