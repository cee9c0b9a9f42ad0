/* Hostile RMA arguments under MPI_ERRORS_RETURN (wasm only: a native MPI
 * need not check target ranges, and the far addresses below are only
 * "past the memory" in a 32-bit guest). Every case must come back as an
 * error class, with the job still running: rank 0 prints
 * "<case> <error class>" (the class every rank got: they all make the same
 * call), or "(ranks disagree ...)", with " (guest data CHANGED)" appended
 * when a buffer MPI must not write was written. Ends with "done". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_class.h"

#define N 1024 /* ints per window: a 1024-int transfer fits, so only its origin side is wrong */
#define FAR ((void *)(uintptr_t)0xFFFFFF00u)  /* the last 256 bytes of the 4 GiB: past the guest memory */
#define EDGE ((void *)(uintptr_t)0xFFFFFFFEu) /* an int there wraps around the 32-bit address space */
#define PATTERN 0x5A

/* 16 bytes before the end of the guest memory: a buffer that starts inside
 * and runs out without wrapping around */
#ifdef __wasm__
#define NEAR_END ((void *)((uintptr_t)__builtin_wasm_memory_size(0) * 65536 - 16))
#else
#define NEAR_END FAR
#endif

static int rank, size, left, right;



static void report_data(const char *what, int rc, int data_ok) {
    int cls = error_class_of(rc), lo, hi, all_ok;
    MPI_Allreduce(&cls, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&data_ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) {
        if (lo == hi)
            printf("%s %s%s\n", what, error_class_name(lo), all_ok ? "" : " (guest data CHANGED)");
        else
            printf("%s (ranks disagree: classes %d to %d)\n", what, lo, hi);
        fflush(stdout);
    }
}

static void report(const char *what, int rc) { report_data(what, rc, 1); }

/* A result buffer MPI must leave alone when it refuses the call. */
static int *patterned(int *buf, int n) {
    memset(buf, PATTERN, n * sizeof *buf);
    return buf;
}

static int intact(const int *buf, int n) {
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < n * sizeof *buf; i++)
        if (p[i] != PATTERN) return 0;
    return 1;
}

/* Target ranges past the end of the target's window (the origin side is
 * fine), in a fence epoch and in a passive-target one. */
static void target_ranges(MPI_Win win) {
    int src[4] = {1, 2, 3, 4}, res[4], one = 1, cmp = 0;
    MPI_Datatype spread;
    /* extent 3 * N/2 + 1 ints: one element fits, the type does not */
    MPI_Type_vector(4, 1, N / 2, MPI_INT, &spread);
    MPI_Type_commit(&spread);

    MPI_Win_fence(0, win);
    report("put past target window", MPI_Put(src, 4, MPI_INT, right, N - 2, 4, MPI_INT, win));
    report("put displacement past target window", MPI_Put(src, 1, MPI_INT, right, N + 100, 1, MPI_INT, win));
    report("put vector target type past target window", MPI_Put(src, 4, MPI_INT, right, 0, 1, spread, win));
    report("put negative displacement", MPI_Put(src, 1, MPI_INT, right, -1, 1, MPI_INT, win));
    int rc = MPI_Get(patterned(res, 4), 4, MPI_INT, right, N - 2, 4, MPI_INT, win);
    report_data("get past target window", rc, intact(res, 4));
    report("accumulate past target window", MPI_Accumulate(src, 4, MPI_INT, right, N - 1, 4, MPI_INT, MPI_SUM, win));
    rc = MPI_Get_accumulate(src, 4, MPI_INT, patterned(res, 4), 4, MPI_INT, right, N - 1, 4, MPI_INT, MPI_SUM, win);
    report_data("get_accumulate past target window", rc, intact(res, 4));
    rc = MPI_Fetch_and_op(&one, patterned(res, 1), MPI_INT, right, N, MPI_SUM, win);
    report_data("fetch_and_op past target window", rc, intact(res, 1));
    rc = MPI_Compare_and_swap(&one, &cmp, patterned(res, 1), MPI_INT, right, N, win);
    report_data("compare_and_swap past target window", rc, intact(res, 1));
    MPI_Win_fence(0, win);

    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    rc = MPI_Get(patterned(res, 4), 4, MPI_INT, right, N - 1, 4, MPI_INT, win);
    report_data("get past target window under lock", rc, intact(res, 4));
    MPI_Request req = MPI_REQUEST_NULL;
    rc = MPI_Rput(src, 4, MPI_INT, right, N - 3, 4, MPI_INT, win, &req);
    report("rput past target window", rc);
    if (rc == MPI_SUCCESS) MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock(right, win);
    MPI_Type_free(&spread);
}

/* A transfer is a send of one side and a receive of the other, and the
 * two must hold as many bytes here. MPICH asserted in its unpack (3 chars
 * into an int) and aborted the job, natively too; Open MPI wrote the put.
 * Larger receiving sides are legal, but MPICH 4.0 then moved the
 * receiving side's amount (a get of one int into two read two from the
 * target): refused too. */
static void transfer_sizes(MPI_Win win) {
    char chars[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int src[4] = {1, 2, 3, 4}, res[4];

    MPI_Win_fence(0, win);
    report("put 3 chars into an int", MPI_Put(chars, 3, MPI_CHAR, right, 8, 1, MPI_INT, win));
    int rc = MPI_Get(chars, 3, MPI_CHAR, right, 8, 1, MPI_INT, win);
    report_data("get an int into 3 chars", rc, chars[0] == 1 && chars[3] == 4);
    report("accumulate 3 ints into 2", MPI_Accumulate(src, 3, MPI_INT, right, 8, 2, MPI_INT, MPI_SUM, win));
    rc = MPI_Get_accumulate(src, 2, MPI_INT, patterned(res, 1), 1, MPI_INT, right, 8, 2, MPI_INT, MPI_SUM, win);
    report_data("get_accumulate of 2 ints into a 1-int result", rc, intact(res, 1));
    report("put 3 ints into a target of 4", MPI_Put(src, 3, MPI_INT, right, 8, 4, MPI_INT, win));
    rc = MPI_Get(patterned(res, 2), 2, MPI_INT, right, 8, 1, MPI_INT, win);
    report_data("get an int into 2", rc, intact(res, 2));
    report("put 4 chars into an int", MPI_Put(chars, 4, MPI_CHAR, right, 8, 1, MPI_INT, win));
    MPI_Win_fence(0, win);
}

/* Origin, result and compare buffers that run past the guest memory. */
static void origin_buffers(MPI_Win win) {
    int src[4] = {1, 2, 3, 4}, res[4], one = 1;
    MPI_Request req = MPI_REQUEST_NULL;

    MPI_Win_fence(0, win);
    report("put origin past memory", MPI_Put(FAR, N, MPI_INT, right, 0, N, MPI_INT, win));
    report("get origin past memory", MPI_Get(FAR, N, MPI_INT, right, 0, N, MPI_INT, win));
    report("put origin running past the memory end", MPI_Put(NEAR_END, N, MPI_INT, right, 0, N, MPI_INT, win));
    report("get origin running past the memory end", MPI_Get(NEAR_END, N, MPI_INT, right, 0, N, MPI_INT, win));
    report("accumulate origin past memory", MPI_Accumulate(FAR, N, MPI_INT, right, 0, N, MPI_INT, MPI_SUM, win));
    report("get_accumulate result past memory",
           MPI_Get_accumulate(src, 4, MPI_INT, FAR, N, MPI_INT, right, 0, 4, MPI_INT, MPI_SUM, win));
    report("fetch_and_op result wrapping around memory", MPI_Fetch_and_op(&one, EDGE, MPI_INT, right, 0, MPI_SUM, win));
    int rc = MPI_Compare_and_swap(&one, FAR, patterned(res, 1), MPI_INT, right, 0, win);
    report_data("compare_and_swap compare past memory", rc, intact(res, 1));
    MPI_Win_fence(0, win);

    MPI_Win_lock_all(0, win);
    rc = MPI_Rput(FAR, N, MPI_INT, right, 0, N, MPI_INT, win, &req);
    report("rput origin past memory", rc);
    if (rc == MPI_SUCCESS) MPI_Wait(&req, MPI_STATUS_IGNORE);
    rc = MPI_Rget(FAR, N, MPI_INT, right, 0, N, MPI_INT, win, &req);
    report("rget origin past memory", rc);
    if (rc == MPI_SUCCESS) MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
}

static void ranks_and_handles(MPI_Win win) {
    int src = 7, res = 0;
    MPI_Win bogus = (MPI_Win)(uintptr_t)12345;

    MPI_Win_fence(0, win);
    report("put to rank -5", MPI_Put(&src, 1, MPI_INT, -5, 0, 1, MPI_INT, win));
    report("put to rank size", MPI_Put(&src, 1, MPI_INT, size, 0, 1, MPI_INT, win));
    report("get from rank size", MPI_Get(&res, 1, MPI_INT, size, 0, 1, MPI_INT, win));
    /* the one out-of-range rank that is valid: a no-op */
    report("put to MPI_PROC_NULL", MPI_Put(&src, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    report("put on an invalid window", MPI_Put(&src, 1, MPI_INT, right, 0, 1, MPI_INT, bogus));
    report("put on MPI_WIN_NULL", MPI_Put(&src, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_WIN_NULL));
    report("fence on an invalid window", MPI_Win_fence(0, bogus));
    MPI_Win_fence(0, win);

    report("lock with an invalid lock type", MPI_Win_lock(999, right, 0, win));
    report("lock rank size", MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win));
    report("lock rank -5", MPI_Win_lock(MPI_LOCK_EXCLUSIVE, -5, 0, win));
    report("lock an invalid window", MPI_Win_lock(MPI_LOCK_SHARED, right, 0, bogus));
    /* MPI_PROC_NULL is a target of the communication calls only: Open
     * MPI 5 took it here for a peer's index (natively a SIGSEGV) */
    report("lock MPI_PROC_NULL", MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, 0, win));
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    report("flush rank size", MPI_Win_flush(size, win));
    report("flush MPI_PROC_NULL", MPI_Win_flush(MPI_PROC_NULL, win));
    report("flush_local MPI_PROC_NULL", MPI_Win_flush_local(MPI_PROC_NULL, win));
    report("unlock MPI_PROC_NULL", MPI_Win_unlock(MPI_PROC_NULL, win));
    MPI_Win_unlock(right, win);
    report("free an invalid window", MPI_Win_free(&bogus));

    /* post/start groups with processes outside the window's group (a
     * window over MPI_COMM_SELF, the world group): Open MPI 5 indexed its
     * peer arrays by them (SIGSEGV) */
    MPI_Win self_win;
    MPI_Group world_group;
    MPI_Win_create(&res, sizeof res, 1, MPI_INFO_NULL, MPI_COMM_SELF, &self_win);
    MPI_Win_set_errhandler(self_win, MPI_ERRORS_RETURN);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    report("post a group outside the window's", MPI_Win_post(world_group, 0, self_win));
    report("start a group outside the window's", MPI_Win_start(world_group, 0, self_win));
    MPI_Group_free(&world_group);
    MPI_Win_free(&self_win);
}

/* Window creation over memory the guest does not have (collective: every
 * rank passes the same bad arguments, so none waits for the others). */
static void creation(void) {
    MPI_Win w = MPI_WIN_NULL;
    int rc = MPI_Win_create((void *)(uintptr_t)0xFFFFF000u, 0x10000, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    report("win_create past memory", rc);
    if (rc == MPI_SUCCESS) MPI_Win_free(&w);
    rc = MPI_Win_create(NEAR_END, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    report("win_create running past the memory end", rc);
    if (rc == MPI_SUCCESS) MPI_Win_free(&w);

    MPI_Win dyn;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
    MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN);
    rc = MPI_Win_attach(dyn, FAR, N);
    report("win_attach past memory", rc);
    if (rc == MPI_SUCCESS) MPI_Win_detach(dyn, FAR);
    MPI_Win_free(&dyn);
}

/* Guest callbacks on a window that misbehave: an error handler that calls
 * MPI on the window it was called for, an attribute delete callback that
 * fails once (MPI_Win_free must then fail and leave the window usable). */
static int handler_calls, delete_failures;
static void on_win_error(MPI_Win *w, int *code, ...) {
    int flag;
    void *base;
    handler_calls++;
    MPI_Win_get_attr(*w, MPI_WIN_BASE, &base, &flag); /* MPI from inside the handler */
    (void)code;
}
static int failing_delete(MPI_Win w, int key, void *value, void *extra) {
    (void)w, (void)key, (void)value, (void)extra;
    return delete_failures++ ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static void callbacks(void) {
    int *mem = calloc(4, sizeof *mem);
    MPI_Win w;
    MPI_Win_create(mem, 4 * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Errhandler eh;
    MPI_Win_create_errhandler(on_win_error, &eh);
    MPI_Win_set_errhandler(w, eh);
    int rc = MPI_Win_lock(12345, right, 0, w);
    report_data("lock with an invalid lock type, user handler", rc, handler_calls == 1);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    int key;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, failing_delete, &key, NULL);
    MPI_Win_set_attr(w, key, mem);
    rc = MPI_Win_free(&w);
    report_data("free with a failing delete callback", rc, w != MPI_WIN_NULL);
    MPI_Win_fence(0, w); /* still a window */
    rc = MPI_Win_fence(0, w);
    report_data("fence after the refused free", rc, 1);
    rc = MPI_Win_free(&w);
    report_data("free once the callback succeeds", rc, w == MPI_WIN_NULL);
    MPI_Win_free_keyval(&key);
    free(mem);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    /* errors with no valid window (a bad handle, creation) are raised on a
     * communicator: MPI_COMM_WORLD, or MPI_COMM_SELF since MPI-4 */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    int *buf = calloc(N, sizeof *buf);
    MPI_Win win;
    MPI_Win_create(buf, N * sizeof *buf, sizeof *buf, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    /* a window's default handler is MPI_ERRORS_ARE_FATAL, whatever the communicator's */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    target_ranges(win);
    origin_buffers(win);
    ranks_and_handles(win);
    transfer_sizes(win);
    creation();
    callbacks();

    /* the refused calls left the window usable */
    int value = 1000 + rank;
    MPI_Win_fence(0, win);
    int rc = MPI_Put(&value, 1, MPI_INT, right, 5, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    report_data("valid put after the errors", rc, buf[5] == 1000 + left);

    MPI_Win_free(&win);
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("done\n");
    MPI_Finalize();
    return 0;
}
