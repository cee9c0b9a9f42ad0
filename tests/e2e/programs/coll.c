/* Collective family: every blocking collective and its nonblocking form,
 * MPI_IN_PLACE in every reduction, v-collectives with holes, pair types for
 * MINLOC/MAXLOC, and nonblocking collectives overlapping point-to-point. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rank, size;
#define HOLE (-777)

/* Runs `body` twice: blocking (req == NULL) and nonblocking. */
#define BOTH(name, ...)                                                \
    do {                                                               \
        for (int nb = 0; nb < 2; nb++) {                               \
            int errors = 0;                                            \
            MPI_Request req_, *req = nb ? &req_ : NULL;                \
            __VA_ARGS__;                                               \
            check(nb ? "I" name : name, errors);                       \
        }                                                              \
    } while (0)
#define DONE() do { if (req) { overlap(); MPI_Wait(req, MPI_STATUS_IGNORE); EXPECT(*req == MPI_REQUEST_NULL); } } while (0)

/* Point-to-point traffic while a nonblocking collective is in flight. */
static void overlap(void) {
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, out = rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, next, 900, &in, 1, MPI_INT, prev, 900, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in != prev) fprintf(stderr, "overlap: got %d\n", in), failures++;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = size, *a = malloc(4 * n * sizeof(int)), *b = malloc(4 * n * sizeof(int));
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    /* v-layout with holes: rank i's block has i+1 ints at offset 2*i*(i+1)/2 + i
     * (one unused int between blocks) */
    int total = 0;
    for (int i = 0; i < n; i++) { counts[i] = i + 1; displs[i] = total; total += i + 2; }
    int *v = malloc(total * sizeof(int));

    BOTH("Barrier", { if (req) MPI_Ibarrier(MPI_COMM_WORLD, req); else MPI_Barrier(MPI_COMM_WORLD); DONE(); });

    for (int root = 0; root < size; root += 2) {
        BOTH("Bcast", {
            long x[3] = {0, 0, 0};
            if (rank == root) { x[0] = 42; x[1] = -root; x[2] = 2147483647L; }
            if (req) MPI_Ibcast(x, 3, MPI_LONG, root, MPI_COMM_WORLD, req); else MPI_Bcast(x, 3, MPI_LONG, root, MPI_COMM_WORLD);
            DONE();
            EXPECT(x[0] == 42 && x[1] == -root && x[2] == 2147483647L);
        });
    }
    BOTH("Gather (IN_PLACE at root)", {
        int root = size - 1;
        for (int i = 0; i < n; i++) a[i] = HOLE;
        a[rank] = rank * 3;
        int mine = rank * 3;
        if (rank == root)
            req ? MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, a, 1, MPI_INT, root, MPI_COMM_WORLD, req)
                : MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, a, 1, MPI_INT, root, MPI_COMM_WORLD);
        else /* non-root receive arguments are garbage on purpose */
            req ? MPI_Igather(&mine, 1, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD, req)
                : MPI_Gather(&mine, 1, MPI_INT, NULL, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
        DONE();
        if (rank == root) for (int i = 0; i < n; i++) EXPECT(a[i] == i * 3);
    });
    BOTH("Gatherv with holes", {
        int root = 0, mine[64];
        for (int i = 0; i <= rank; i++) mine[i] = rank * 100 + i;
        for (int i = 0; i < total; i++) v[i] = HOLE;
        req ? MPI_Igatherv(mine, rank + 1, MPI_INT, v, counts, displs, MPI_INT, root, MPI_COMM_WORLD, req)
            : MPI_Gatherv(mine, rank + 1, MPI_INT, v, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
        DONE();
        if (rank == root)
            for (int i = 0; i < n; i++) {
                for (int j = 0; j <= i; j++) EXPECT(v[displs[i] + j] == i * 100 + j);
                EXPECT(v[displs[i] + i + 1] == HOLE);
            }
    });
    BOTH("Scatter / Scatterv", {
        int root = size / 2, got = -1, gotv[64];
        for (int i = 0; i < n; i++) a[i] = 5 * i;
        for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) v[displs[i] + j] = i * 100 + j;
        if (req) {
            MPI_Iscatter(a, 1, MPI_INT, &got, 1, MPI_INT, root, MPI_COMM_WORLD, req);
            DONE();
            MPI_Iscatterv(v, counts, displs, MPI_INT, gotv, rank + 1, MPI_INT, root, MPI_COMM_WORLD, req);
            DONE();
        } else {
            MPI_Scatter(a, 1, MPI_INT, &got, 1, MPI_INT, root, MPI_COMM_WORLD);
            MPI_Scatterv(v, counts, displs, MPI_INT, gotv, rank + 1, MPI_INT, root, MPI_COMM_WORLD);
        }
        EXPECT(got == 5 * rank);
        for (int j = 0; j <= rank; j++) EXPECT(gotv[j] == rank * 100 + j);
    });
    BOTH("Allgather / Allgatherv (IN_PLACE)", {
        for (int i = 0; i < n; i++) a[i] = HOLE;
        a[rank] = rank + 1000;
        if (req) { MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_INT, MPI_COMM_WORLD, req); DONE(); }
        else MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) EXPECT(a[i] == i + 1000);
        int mine[64];
        for (int j = 0; j <= rank; j++) mine[j] = rank * 100 + j;
        for (int i = 0; i < total; i++) v[i] = HOLE;
        if (req) { MPI_Iallgatherv(mine, rank + 1, MPI_INT, v, counts, displs, MPI_INT, MPI_COMM_WORLD, req); DONE(); }
        else MPI_Allgatherv(mine, rank + 1, MPI_INT, v, counts, displs, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) EXPECT(v[displs[i] + j] == i * 100 + j);
            EXPECT(v[displs[i] + i + 1] == HOLE);
        }
    });
    BOTH("Alltoall / Alltoallv", {
        for (int i = 0; i < n; i++) { a[i] = rank * 1000 + i; b[i] = HOLE; }
        if (req) { MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, req); DONE(); }
        else MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) EXPECT(b[i] == i * 1000 + rank);
        /* rank r sends r+1 ints to everyone, blocks spaced with holes */
        int *sc = malloc(n * sizeof(int)), *sd = malloc(n * sizeof(int)), *rc = malloc(n * sizeof(int)), *rd = malloc(n * sizeof(int));
        int *sv = malloc(n * (rank + 2) * sizeof(int)), *rv = malloc(total * sizeof(int));
        for (int i = 0; i < n; i++) {
            sc[i] = rank + 1; sd[i] = i * (rank + 2);
            for (int j = 0; j <= rank; j++) sv[sd[i] + j] = rank * 100 + i * 10 + j;
            rc[i] = i + 1; rd[i] = displs[i];
        }
        for (int i = 0; i < total; i++) rv[i] = HOLE;
        if (req) { MPI_Ialltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, MPI_COMM_WORLD, req); DONE(); }
        else MPI_Alltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) EXPECT(rv[rd[i] + j] == i * 100 + rank * 10 + j);
            EXPECT(rv[rd[i] + i + 1] == HOLE);
        }
        free(sc); free(sd); free(rc); free(rd); free(sv); free(rv);
    });
    BOTH("Reduce / Allreduce (IN_PLACE)", {
        int root = size > 2 ? 2 : 0;
        long s[2] = {rank + 1, -(long)rank}, r[2] = {0, 0};
        if (rank == root) { r[0] = s[0]; r[1] = s[1]; }
        if (rank == root)
            req ? MPI_Ireduce(MPI_IN_PLACE, r, 2, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD, req)
                : MPI_Reduce(MPI_IN_PLACE, r, 2, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
        else
            req ? MPI_Ireduce(s, NULL, 2, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD, req)
                : MPI_Reduce(s, NULL, 2, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
        DONE();
        if (rank == root) EXPECT(r[0] == (long)n * (n + 1) / 2 && r[1] == -(long)n * (n - 1) / 2);
        double d[3] = {rank, 1.5, -rank};
        if (req) { MPI_Iallreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, req); DONE(); }
        else MPI_Allreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        EXPECT(d[0] == n - 1 && d[1] == 1.5 && d[2] == 0);
        unsigned u = 1u << (rank % 32), all = 0;
        if (req) { MPI_Iallreduce(&u, &all, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD, req); DONE(); }
        else MPI_Allreduce(&u, &all, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD);
        EXPECT(all == (n >= 32 ? ~0u : (1u << n) - 1));
    });
    BOTH("MINLOC/MAXLOC on DOUBLE_INT and 2INT", {
        struct { double v; int i; } dmin = {(rank - 1.5) * (rank - 1.5), rank}, dout;
        struct { int v; int i; } imax = {rank % 3, rank}, iout;
        if (req) {
            MPI_Iallreduce(&dmin, &dout, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD, req); DONE();
            MPI_Iallreduce(&imax, &iout, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD, req); DONE();
        } else {
            MPI_Allreduce(&dmin, &dout, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
            MPI_Allreduce(&imax, &iout, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
        }
        int best = n == 1 ? 0 : (n == 2 ? 1 : 1); /* (r-1.5)^2 smallest at r=1 (ties -> lowest) */
        EXPECT(dout.i == best);
        EXPECT(iout.v == (n >= 3 ? 2 : n - 1) && iout.i == (n >= 3 ? 2 : n - 1));
    });
    BOTH("Reduce_scatter(_block) (IN_PLACE)", {
        /* each rank contributes [0..total) with value i+rank; block i has i+1 elements */
        int *rsc = malloc(n * sizeof(int)), sum_counts = 0;
        for (int i = 0; i < n; i++) { rsc[i] = i + 1; sum_counts += i + 1; }
        int *buf = malloc(sum_counts * sizeof(int));
        for (int i = 0; i < sum_counts; i++) buf[i] = i + rank;
        if (req) { MPI_Ireduce_scatter(MPI_IN_PLACE, buf, rsc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req); DONE(); }
        else MPI_Reduce_scatter(MPI_IN_PLACE, buf, rsc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        int first = rank * (rank + 1) / 2;
        for (int j = 0; j <= rank; j++) EXPECT(buf[j] == n * (first + j) + n * (n - 1) / 2);
        for (int i = 0; i < 2 * n; i++) a[i] = i * 2 + rank;
        if (req) { MPI_Ireduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req); DONE(); }
        else MPI_Reduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        EXPECT(b[0] == n * (4 * rank) + n * (n - 1) / 2 && b[1] == n * (4 * rank + 2) + n * (n - 1) / 2);
        free(rsc); free(buf);
    });
    BOTH("Scan / Exscan (IN_PLACE)", {
        int x = rank + 1, y = rank + 1;
        if (req) {
            MPI_Iscan(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req); DONE();
            MPI_Iexscan(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD, req); DONE();
        } else {
            MPI_Scan(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            MPI_Exscan(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
        }
        EXPECT(x == (rank + 1) * (rank + 2) / 2);
        int fact = 1;
        for (int i = 1; i <= rank; i++) fact *= i;
        if (rank > 0) EXPECT(y == fact); /* undefined on rank 0 */
    });
    {
        int errors = 0;
        int in[4] = {1, 2, 3, 4}, inout[4] = {10, 20, 30, 40};
        MPI_Reduce_local(in, inout, 4, MPI_INT, MPI_SUM);
        EXPECT(inout[0] == 11 && inout[3] == 44);
        check("Reduce_local", errors);
    }
    free(a); free(b); free(counts); free(displs); free(v);
    MPI_Finalize();
    return failures ? 1 : 0;
}
