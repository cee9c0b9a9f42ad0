/* MPI_Win_allocate_shared over the node communicator, natively and in wasm
 * with the same output (tests/e2e/test_karmem.py). Every rank fills its own
 * part through its own pointer, MPI_Win_sync + barrier, then reads every
 * part through the pointers MPI_Win_shared_query gives; thousands of
 * mallocs after the mapping never land in any part as this rank sees it,
 * and the parts keep their contents. Rank 0 prints, for each rank:
 *
 *   rank R part=BYTES disp=D sum=S contents=ok|bad contiguous=yes|no
 *   malloc overlaps=N intact=yes|no (max over the ranks; "yes" = all)
 *
 * Under MPI_ERRORS_RETURN; where the embedder cannot make windows on this
 * host MPI it prints instead
 *
 *   win_allocate_shared CLASS (the same at every rank, or "disagree")
 *   allreduce after the refusal SUM
 *
 * and ends cleanly. With the argument "fatal" errors are not returned
 * (MPI_ERRORS_ARE_FATAL stays). Integers only. */
#include <mpi.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_class.h"

#define K 3001 /* int64 per rank: ~24 KB, not a page multiple */
#define NALLOC 3000


#define CHECK(call) CHECK_OK(call)

static int64_t value(int rank, int k) { return (int64_t)rank * 1000003 + (int64_t)k * 7 - 5; }

static unsigned rnd_state;
static unsigned rnd(void) {
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    /* "fatal": errors keep MPI_ERRORS_ARE_FATAL (a refusal ends the job
     * with the embedder's reason) */
    int fatal = argc > 1 && !strcmp(argv[1], "fatal");
    if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int wrank, me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm node;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    if (!fatal) MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &n);

    int64_t *mine = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate_shared((MPI_Aint)K * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, node, &mine, &win);
    int refused = rc != MPI_SUCCESS, all_refused = 0;
    CHECK(MPI_Allreduce(&refused, &all_refused, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (all_refused) {
        /* every rank must have the same class */
        int c = MPI_SUCCESS, lo, hi;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
        CHECK(MPI_Allreduce(&c, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
        CHECK(MPI_Allreduce(&c, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        /* the job goes on: a collective after the refusal */
        int one = wrank + 1, sum = 0;
        CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (wrank == 0)
            printf("win_allocate_shared %s\nallreduce after the refusal %d\n", lo == hi ? error_class_name(rc) : "disagree", sum);
        MPI_Comm_free(&node);
        MPI_Finalize();
        return 0;
    }

    CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int k = 0; k < K; k++) mine[k] = value(me, k);
    CHECK(MPI_Win_sync(win));
    MPI_Barrier(node);
    CHECK(MPI_Win_sync(win));

    /* every part through the queried pointers */
    int64_t **part = malloc(n * sizeof *part);
    MPI_Aint *bytes = malloc(n * sizeof *bytes);
    int *disp = malloc(n * sizeof *disp);
    long long *stats = malloc(4 * (size_t)n * sizeof *stats); /* bytes, disp, sum, ok */
    int contiguous = 1;
    for (int r = 0; r < n; r++) {
        CHECK(MPI_Win_shared_query(win, r, &bytes[r], &disp[r], &part[r]));
        int ok = bytes[r] == (MPI_Aint)K * (MPI_Aint)sizeof(int64_t) && disp[r] == (int)sizeof(int64_t);
        if (r == me && part[r] != mine) ok = 0;
        if (r > 0 && (char *)part[r] != (char *)part[r - 1] + bytes[r - 1]) contiguous = 0;
        int64_t sum = 0;
        for (int k = 0; k < K; k++) {
            sum += part[r][k];
            if (part[r][k] != value(r, k)) ok = 0;
        }
        stats[4 * r] = bytes[r];
        stats[4 * r + 1] = disp[r];
        stats[4 * r + 2] = sum;
        stats[4 * r + 3] = ok;
    }

    /* heavy malloc: never inside any part as this rank sees it */
    static unsigned char *blocks[NALLOC];
    int overlaps = 0;
    rnd_state = 777u + (unsigned)me;
    for (int i = 0; i < NALLOC; i++) {
        size_t sz = rnd() % 10 == 0 ? 65537 + rnd() % 300000 : 1 + rnd() % 4096;
        unsigned char *p = malloc(sz);
        if (!p) MPI_Abort(MPI_COMM_WORLD, 4);
        for (int r = 0; r < n; r++)
            if ((uintptr_t)p < (uintptr_t)part[r] + (uintptr_t)bytes[r] && (uintptr_t)p + sz > (uintptr_t)part[r])
                overlaps++;
        memset(p, i & 0xff, sz);
        blocks[i] = p;
        if (i % 3 == 2) {
            int j = (int)(rnd() % (unsigned)i);
            free(blocks[j]);
            blocks[j] = NULL;
        }
    }
    for (int i = 0; i < NALLOC; i++) free(blocks[i]);
    CHECK(MPI_Win_sync(win));
    MPI_Barrier(node);
    CHECK(MPI_Win_sync(win));
    int intact = 1;
    for (int r = 0; r < n; r++)
        for (int k = 0; k < K; k++)
            if (part[r][k] != value(r, k)) intact = 0;

    /* rank 0 of the node prints what every rank saw */
    long long mine_stats[2] = {overlaps, intact}, *all = NULL, *all_stats = NULL;
    int *all_contig = NULL;
    if (me == 0) {
        all = malloc(2 * (size_t)n * sizeof *all);
        all_stats = malloc(4 * (size_t)n * (size_t)n * sizeof *all_stats);
        all_contig = malloc(n * sizeof *all_contig);
    }
    CHECK(MPI_Gather(mine_stats, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, 0, node));
    CHECK(MPI_Gather(stats, 4 * n, MPI_LONG_LONG, all_stats, 4 * n, MPI_LONG_LONG, 0, node));
    CHECK(MPI_Gather(&contiguous, 1, MPI_INT, all_contig, 1, MPI_INT, 0, node));
    if (me == 0) {
        for (int r = 0; r < n; r++) {
            /* what every rank saw of part r must agree */
            int agree = 1, contig = 1;
            for (int s = 0; s < n; s++) {
                for (int f = 0; f < 4; f++)
                    if (all_stats[4 * n * s + 4 * r + f] != all_stats[4 * r + f]) agree = 0;
                if (!all_contig[s]) contig = 0;
            }
            printf("rank %d part=%lld disp=%lld sum=%lld contents=%s agree=%s contiguous=%s\n", r, all_stats[4 * r],
                   all_stats[4 * r + 1], all_stats[4 * r + 2], all_stats[4 * r + 3] ? "ok" : "bad",
                   agree ? "yes" : "no", contig ? "yes" : "no");
        }
        long long over = 0, ok = 1;
        for (int s = 0; s < n; s++) {
            over += all[2 * s];
            ok = ok && all[2 * s + 1];
        }
        printf("malloc overlaps=%lld intact=%s\n", over, ok ? "yes" : "no");
    }
    CHECK(MPI_Win_unlock_all(win));
    CHECK(MPI_Win_free(&win));
    if (me == 0) printf("win_free %s\n", win == MPI_WIN_NULL ? "MPI_WIN_NULL" : "not null");
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
