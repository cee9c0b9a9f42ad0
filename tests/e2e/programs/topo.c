/* Topology family: Dims_create, a 2-D Cartesian grid (periodic in one
 * dimension only, so shifts meet MPI_PROC_NULL), Cart_sub/map, graphs,
 * distributed graphs (adjacent and not, weighted and MPI_UNWEIGHTED),
 * Topo_test on every kind, and every neighbourhood collective, blocking and
 * nonblocking, on a periodic ring and on a distributed graph. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rank, size;
#define HOLE (-777)
#define HOLE_BYTE 0xEE

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* Point-to-point traffic while a nonblocking collective is in flight. */
static void overlap(void) {
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, out = rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, next, 900, &in, 1, MPI_INT, prev, 900, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in != prev) fprintf(stderr, "overlap: got %d\n", in), failures++;
}

/* Runs `body` twice, blocking (req == NULL) and nonblocking, as checks
 * "<name> (<where>)" and "I<name> (<where>)". */
#define BOTH(name, where, ...)                                              \
    do {                                                                    \
        for (int nb = 0; nb < 2; nb++) {                                    \
            int errors = 0;                                                 \
            MPI_Request req_, *req = nb ? &req_ : NULL;                     \
            __VA_ARGS__;                                                    \
            char what_[64];                                                 \
            snprintf(what_, sizeof what_, "%s%s (%s)", nb ? "I" : "", name, where); \
            check(what_, errors);                                           \
        }                                                                   \
    } while (0)
#define DONE() do { if (req) { overlap(); MPI_Wait(req, MPI_STATUS_IGNORE); EXPECT(*req == MPI_REQUEST_NULL); } } while (0)

/* A path graph on n nodes (i -- i+1): fills index/edges, returns the edges. */
static int path_graph(int n, int *index, int *edges) {
    int ne = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0) edges[ne++] = i - 1;
        if (i < n - 1) edges[ne++] = i + 1;
        index[i] = ne;
    }
    return ne;
}

/* The directed graph of the dist-graph tests: i -> i+1 and, with 3 ranks or
 * more, i -> i+2 (no duplicate edges at any size). */
static int dg_outs(int r, int *outs) {
    int n = 0;
    outs[n++] = mod(r + 1, size);
    if (size > 2) outs[n++] = mod(r + 2, size);
    return n;
}
static int dg_ins(int r, int *ins) {
    int n = 0;
    ins[n++] = mod(r - 1, size);
    if (size > 2) ins[n++] = mod(r - 2, size);
    return n;
}
static int weight(int from, int to) { return 100 * from + to + 1; }

static void sort_pairs(int n, int *a, int *w) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (a[j - 1] > a[j] || (a[j - 1] == a[j] && w && w[j - 1] > w[j])); j--) {
            int t = a[j]; a[j] = a[j - 1]; a[j - 1] = t;
            if (w) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t; }
        }
}

/* Checks a dist graph's neighbours against the expected ones (as sets when
 * `any_order`: MPI_Dist_graph_create leaves the order to the library). */
static void expect_dist_neighbors(int *errors_, MPI_Comm dg, int weighted, int any_order) {
    int errors = 0, ins[2], outs[2], inw[2], outw[2];
    int nin = dg_ins(rank, ins), nout = dg_outs(rank, outs);
    for (int i = 0; i < nin; i++) inw[i] = weight(ins[i], rank);
    for (int i = 0; i < nout; i++) outw[i] = weight(rank, outs[i]);
    int gi, go, gw;
    MPI_Dist_graph_neighbors_count(dg, &gi, &go, &gw);
    EXPECT(gi == nin && go == nout && !!gw == weighted);
    int s[2] = {HOLE, HOLE}, sw[2] = {HOLE, HOLE}, d[2] = {HOLE, HOLE}, dw[2] = {HOLE, HOLE};
    if (weighted)
        MPI_Dist_graph_neighbors(dg, nin, s, sw, nout, d, dw);
    else
        MPI_Dist_graph_neighbors(dg, nin, s, MPI_UNWEIGHTED, nout, d, MPI_UNWEIGHTED);
    if (any_order) {
        sort_pairs(nin, ins, inw); sort_pairs(nout, outs, outw);
        sort_pairs(nin, s, weighted ? sw : NULL); sort_pairs(nout, d, weighted ? dw : NULL);
    }
    for (int i = 0; i < nin; i++) EXPECT(s[i] == ins[i] && (!weighted || sw[i] == inw[i]));
    for (int i = 0; i < nout; i++) EXPECT(d[i] == outs[i] && (!weighted || dw[i] == outw[i]));
    if (!weighted) EXPECT(sw[0] == HOLE && dw[0] == HOLE);
    *errors_ += errors;
}

/* A Cart_map/Graph_map result for a rank left out of an n-node topology:
 * MPI_UNDEFINED (OpenMPI 4.1 returns the rank itself, also >= n). */
static int outside(int newrank, int n) { return newrank == MPI_UNDEFINED || newrank >= n; }

/* value k of the block sender s sends as its out-block b */
static int val(int s, int b, int k) { return s * 1000 + b * 100 + k; }

/* Every neighbourhood collective on `comm`, whose in-neighbours are ins[],
 * out-neighbours outs[]; in-block j holds what ins[j] sent as its out-block
 * sb[j]. On a periodic ring of 1 or 2 ranks the left and right neighbours
 * are the same process and MPIs differ in which of its two blocks lands
 * where: `ambiguous` accepts either. */
static void neighbor_collectives(const char *where, MPI_Comm comm, int nin, const int *ins, int nout,
                                 const int *outs, const int *sb, int ambiguous) {
    (void)outs;
    int sbuf[64], rbuf[64];
    BOTH("Neighbor_allgather", where, {
        int mine[2] = {val(rank, 9, 0), val(rank, 9, 1)};
        for (int i = 0; i < 64; i++) rbuf[i] = HOLE;
        req ? MPI_Ineighbor_allgather(mine, 2, MPI_INT, rbuf, 2, MPI_INT, comm, req)
            : MPI_Neighbor_allgather(mine, 2, MPI_INT, rbuf, 2, MPI_INT, comm);
        DONE();
        for (int j = 0; j < nin; j++)
            for (int k = 0; k < 2; k++) EXPECT(rbuf[2 * j + k] == val(ins[j], 9, k));
        EXPECT(rbuf[2 * nin] == HOLE);
    });
    BOTH("Neighbor_allgatherv", where, {
        /* ins[j] sends ins[j] % 3 + 1 ints; blocks land in reverse order,
         * one unused int between them */
        int rcounts[2], rdispls[2], at = 0;
        for (int j = nin - 1; j >= 0; j--) { rcounts[j] = ins[j] % 3 + 1; rdispls[j] = at; at += rcounts[j] + 1; }
        int n = rank % 3 + 1;
        for (int k = 0; k < n; k++) sbuf[k] = val(rank, 9, k);
        for (int i = 0; i < 64; i++) rbuf[i] = HOLE;
        req ? MPI_Ineighbor_allgatherv(sbuf, n, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, comm, req)
            : MPI_Neighbor_allgatherv(sbuf, n, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, comm);
        DONE();
        for (int j = 0; j < nin; j++) {
            for (int k = 0; k < rcounts[j]; k++) EXPECT(rbuf[rdispls[j] + k] == val(ins[j], 9, k));
            EXPECT(rbuf[rdispls[j] + rcounts[j]] == HOLE);
        }
    });
    BOTH("Neighbor_alltoall", where, {
        for (int b = 0; b < nout; b++)
            for (int k = 0; k < 2; k++) sbuf[2 * b + k] = val(rank, b, k);
        for (int i = 0; i < 64; i++) rbuf[i] = HOLE;
        req ? MPI_Ineighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, comm, req)
            : MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, comm);
        DONE();
        int std = 1, alt = 1;
        for (int j = 0; j < nin; j++)
            for (int k = 0; k < 2; k++) {
                std &= rbuf[2 * j + k] == val(ins[j], sb[j], k);
                alt &= rbuf[2 * j + k] == val(ins[j], j, k);
            }
        EXPECT(std || (ambiguous && alt));
        EXPECT(rbuf[2 * nin] == HOLE);
    });
    BOTH("Neighbor_alltoallv", where, {
        /* rank r sends r % 3 + 1 ints per block; send blocks have a gap of
         * two ints, receive blocks land in reverse order with a gap of one */
        int scounts[2], sdispls[2], rcounts[2], rdispls[2], at = 0;
        for (int b = 0; b < nout; b++) {
            scounts[b] = rank % 3 + 1; sdispls[b] = at; at += scounts[b] + 2;
            for (int k = 0; k < scounts[b]; k++) sbuf[sdispls[b] + k] = val(rank, b, k);
        }
        at = 0;
        for (int j = nin - 1; j >= 0; j--) { rcounts[j] = ins[j] % 3 + 1; rdispls[j] = at; at += rcounts[j] + 1; }
        for (int i = 0; i < 64; i++) rbuf[i] = HOLE;
        req ? MPI_Ineighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, comm, req)
            : MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, comm);
        DONE();
        int std = 1, alt = 1;
        for (int j = 0; j < nin; j++) {
            for (int k = 0; k < rcounts[j]; k++) {
                std &= rbuf[rdispls[j] + k] == val(ins[j], sb[j], k);
                alt &= rbuf[rdispls[j] + k] == val(ins[j], j, k);
            }
            EXPECT(rbuf[rdispls[j] + rcounts[j]] == HOLE);
        }
        EXPECT(std || (ambiguous && alt));
    });
    BOTH("Neighbor_alltoallw", where, {
        /* odd ranks send one double per block, even ranks two ints; blocks
         * at byte displacements 8 + 24*b (send) and 8 + 24*(nin-1-j)
         * (receive, reverse order), unused bytes in between */
        union { double d[16]; unsigned char c[128]; } s, r;
        int scounts[2], rcounts[2];
        MPI_Aint sdispls[2], rdispls[2];
        MPI_Datatype stypes[2], rtypes[2];
        memset(s.c, HOLE_BYTE, sizeof s.c);
        memset(r.c, HOLE_BYTE, sizeof r.c);
        for (int b = 0; b < nout; b++) {
            sdispls[b] = 8 + 24 * b;
            if (rank % 2) {
                scounts[b] = 1; stypes[b] = MPI_DOUBLE;
                double x = val(rank, b, 0);
                memcpy(s.c + sdispls[b], &x, sizeof x);
            } else {
                scounts[b] = 2; stypes[b] = MPI_INT;
                int x[2] = {val(rank, b, 0), val(rank, b, 1)};
                memcpy(s.c + sdispls[b], x, sizeof x);
            }
        }
        for (int j = 0; j < nin; j++) {
            rdispls[j] = 8 + 24 * (nin - 1 - j);
            rcounts[j] = ins[j] % 2 ? 1 : 2;
            rtypes[j] = ins[j] % 2 ? MPI_DOUBLE : MPI_INT;
        }
        req ? MPI_Ineighbor_alltoallw(s.c, scounts, sdispls, stypes, r.c, rcounts, rdispls, rtypes, comm, req)
            : MPI_Neighbor_alltoallw(s.c, scounts, sdispls, stypes, r.c, rcounts, rdispls, rtypes, comm);
        DONE();
        int std = 1, alt = 1;
        for (int j = 0; j < nin; j++) {
            for (int which = 0; which < 2; which++) {
                int b = which ? j : sb[j], ok = 1;
                if (ins[j] % 2) {
                    double x;
                    memcpy(&x, r.c + rdispls[j], sizeof x);
                    ok = x == val(ins[j], b, 0);
                } else {
                    int x[2];
                    memcpy(x, r.c + rdispls[j], sizeof x);
                    ok = x[0] == val(ins[j], b, 0) && x[1] == val(ins[j], b, 1);
                }
                if (which) alt &= ok; else std &= ok;
            }
            EXPECT(r.c[rdispls[j] - 1] == HOLE_BYTE && r.c[rdispls[j] + 8] == HOLE_BYTE);
        }
        EXPECT(std || (ambiguous && alt));
        EXPECT(r.c[0] == HOLE_BYTE && r.c[8 + 24 * nin] == HOLE_BYTE);
    });
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    {
        int errors = 0, d2[2] = {0, 0}, d3[3] = {0, 0, 0}, fixed[3] = {0, 3, 0};
        MPI_Dims_create(size, 2, d2);
        EXPECT(d2[0] * d2[1] == size && d2[0] >= d2[1] && d2[1] >= 1);
        MPI_Dims_create(12, 3, d3);
        EXPECT(d3[0] == 3 && d3[1] == 2 && d3[2] == 2);
        MPI_Dims_create(12, 3, fixed);
        EXPECT(fixed[0] == 2 && fixed[1] == 3 && fixed[2] == 2);
        check("Dims_create", errors);
    }

    /* a 2-D grid, periodic in dimension 0 only */
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int me[2] = {rank / dims[1], rank % dims[1]};
    {
        int errors = 0, nd = -1, gd[2], gp[2], gc[2];
        EXPECT(cart != MPI_COMM_NULL);
        MPI_Cartdim_get(cart, &nd);
        EXPECT(nd == 2);
        MPI_Cart_get(cart, 2, gd, gp, gc);
        EXPECT(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0);
        EXPECT(gc[0] == me[0] && gc[1] == me[1]);
        check("Cart_create / Cartdim_get / Cart_get", errors);
    }
    {
        int errors = 0;
        for (int r = 0; r < size; r++) {
            int c[2] = {r / dims[1], r % dims[1]}, got = -1, back[2] = {-1, -1};
            MPI_Cart_rank(cart, c, &got);
            EXPECT(got == r);
            int wrapped[2] = {c[0] - dims[0], c[1]}; /* periodic dimension wraps */
            MPI_Cart_rank(cart, wrapped, &got);
            EXPECT(got == r);
            MPI_Cart_coords(cart, r, 2, back);
            EXPECT(back[0] == c[0] && back[1] == c[1]);
        }
        check("Cart_rank / Cart_coords", errors);
    }
    {
        int errors = 0, src, dst;
        MPI_Cart_shift(cart, 0, 1, &src, &dst);
        EXPECT(src == mod(me[0] - 1, dims[0]) * dims[1] + me[1]);
        EXPECT(dst == mod(me[0] + 1, dims[0]) * dims[1] + me[1]);
        MPI_Cart_shift(cart, 1, 1, &src, &dst);
        EXPECT(src == (me[1] == 0 ? MPI_PROC_NULL : rank - 1));
        EXPECT(dst == (me[1] == dims[1] - 1 ? MPI_PROC_NULL : rank + 1));
        MPI_Cart_shift(cart, 1, -2, &src, &dst);
        EXPECT(src == (me[1] + 2 >= dims[1] ? MPI_PROC_NULL : rank + 2));
        EXPECT(dst == (me[1] - 2 < 0 ? MPI_PROC_NULL : rank - 2));
        check("Cart_shift (PROC_NULL at edges)", errors);
    }
    {
        int errors = 0, remain_row[2] = {0, 1}, remain_col[2] = {1, 0};
        MPI_Comm row, col;
        MPI_Cart_sub(cart, remain_row, &row);
        MPI_Cart_sub(cart, remain_col, &col);
        int rs, rr, cs, cr, nd, d, p, c, kind;
        MPI_Comm_size(row, &rs); MPI_Comm_rank(row, &rr);
        MPI_Comm_size(col, &cs); MPI_Comm_rank(col, &cr);
        EXPECT(rs == dims[1] && rr == me[1] && cs == dims[0] && cr == me[0]);
        MPI_Cartdim_get(row, &nd);
        EXPECT(nd == 1);
        MPI_Cart_get(row, 1, &d, &p, &c);
        EXPECT(d == dims[1] && p == 0 && c == me[1]);
        MPI_Cart_get(col, 1, &d, &p, &c);
        EXPECT(d == dims[0] && p == 1 && c == me[0]);
        MPI_Topo_test(row, &kind);
        EXPECT(kind == MPI_CART);
        MPI_Comm_free(&row);
        MPI_Comm_free(&col);
        check("Cart_sub", errors);
    }
    {
        int errors = 0, n = size > 1 ? size - 1 : 1, d[1] = {n}, p[1] = {0}, newrank = -5;
        MPI_Cart_map(MPI_COMM_WORLD, 1, d, p, &newrank);
        EXPECT(rank < n ? newrank == rank : outside(newrank, n));
        MPI_Comm small;
        MPI_Cart_create(MPI_COMM_WORLD, 1, d, p, 0, &small);
        if (rank < n) {
            int s = -1;
            EXPECT(small != MPI_COMM_NULL);
            if (small != MPI_COMM_NULL) { MPI_Comm_size(small, &s); MPI_Comm_free(&small); }
            EXPECT(s == n);
        } else {
            EXPECT(small == MPI_COMM_NULL);
        }
        check("Cart_map / Cart_create (MPI_COMM_NULL)", errors);
    }

    /* graphs: a path 0 - 1 - ... - size-1 */
    int *index = malloc(size * sizeof(int)), *edges = malloc(2 * size * sizeof(int));
    int nedges = path_graph(size, index, edges);
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    {
        int errors = 0, nn = -1, ne = -1;
        int *gi = malloc(size * sizeof(int)), *ge = malloc((2 * size + 1) * sizeof(int));
        MPI_Graphdims_get(graph, &nn, &ne);
        EXPECT(nn == size && ne == nedges);
        ge[nedges] = HOLE;
        MPI_Graph_get(graph, size, nedges, gi, ge);
        for (int i = 0; i < size; i++) EXPECT(gi[i] == index[i]);
        for (int i = 0; i < nedges; i++) EXPECT(ge[i] == edges[i]);
        EXPECT(ge[nedges] == HOLE);
        for (int r = 0; r < size; r++) {
            int first = r ? index[r - 1] : 0, count = -1, nb[2] = {HOLE, HOLE};
            MPI_Graph_neighbors_count(graph, r, &count);
            EXPECT(count == index[r] - first);
            MPI_Graph_neighbors(graph, r, 2, nb);
            for (int i = 0; i < count; i++) EXPECT(nb[i] == edges[first + i]);
        }
        free(gi); free(ge);
        check("Graph_create / Graph_get / Graph_neighbors", errors);
    }
    {
        int errors = 0, n = size > 1 ? size - 1 : 1, newrank = -5;
        int *mi = malloc(n * sizeof(int)), *me_ = malloc(2 * n * sizeof(int));
        path_graph(n, mi, me_);
        MPI_Graph_map(MPI_COMM_WORLD, n, mi, me_, &newrank);
        EXPECT(rank < n ? newrank == rank : outside(newrank, n));
        free(mi); free(me_);
        check("Graph_map", errors);
    }

    /* distributed graphs: i -> i+1, i -> i+2 */
    int ins[2], outs[2], inw[2], outw[2];
    int nin = dg_ins(rank, ins), nout = dg_outs(rank, outs);
    for (int i = 0; i < nin; i++) inw[i] = weight(ins[i], rank);
    for (int i = 0; i < nout; i++) outw[i] = weight(rank, outs[i]);
    MPI_Comm dg;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, ins, inw, nout, outs, outw, MPI_INFO_NULL, 0, &dg);
    {
        int errors = 0;
        expect_dist_neighbors(&errors, dg, 1, 0);
        check("Dist_graph_create_adjacent (weighted)", errors);
    }
    {
        int errors = 0;
        MPI_Comm u;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, ins, MPI_UNWEIGHTED, nout, outs, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &u);
        expect_dist_neighbors(&errors, u, 0, 0);
        MPI_Comm_free(&u);
        /* no edges at all: MPI_WEIGHTS_EMPTY */
        int none = 0, gi = -1, go = -1, gw;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, &none, MPI_WEIGHTS_EMPTY, 0, &none, MPI_WEIGHTS_EMPTY,
                                       MPI_INFO_NULL, 0, &u);
        MPI_Dist_graph_neighbors_count(u, &gi, &go, &gw);
        EXPECT(gi == 0 && go == 0);
        MPI_Comm_free(&u);
        check("Dist_graph_create_adjacent (UNWEIGHTED)", errors);
    }
    {
        /* rank 0 describes the whole graph, the others nothing */
        int errors = 0, n = rank == 0 ? size : 0, *src = malloc(size * sizeof(int)), *deg = malloc(size * sizeof(int));
        int *dst = malloc(2 * size * sizeof(int)), *w = malloc(2 * size * sizeof(int)), ne = 0;
        for (int r = 0; r < size; r++) {
            int o[2], no = dg_outs(r, o);
            src[r] = r; deg[r] = no;
            for (int i = 0; i < no; i++) { dst[ne] = o[i]; w[ne++] = weight(r, o[i]); }
        }
        MPI_Comm g;
        MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst, n ? w : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g);
        expect_dist_neighbors(&errors, g, 1, 1);
        int kind;
        MPI_Topo_test(g, &kind);
        EXPECT(kind == MPI_DIST_GRAPH);
        MPI_Comm_free(&g);
        free(src); free(deg); free(dst); free(w);
        check("Dist_graph_create (weighted)", errors);
    }
    {
        /* every rank describes its own out-edges */
        int errors = 0, one = nout;
        MPI_Comm g;
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, outs, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
        expect_dist_neighbors(&errors, g, 0, 1);
        MPI_Comm_free(&g);
        check("Dist_graph_create (UNWEIGHTED)", errors);
    }
    {
        int errors = 0, kind = -1;
        MPI_Topo_test(MPI_COMM_WORLD, &kind);
        EXPECT(kind == MPI_UNDEFINED);
        MPI_Topo_test(cart, &kind);
        EXPECT(kind == MPI_CART);
        MPI_Topo_test(graph, &kind);
        EXPECT(kind == MPI_GRAPH);
        MPI_Topo_test(dg, &kind);
        EXPECT(kind == MPI_DIST_GRAPH);
        MPI_Comm dup;
        MPI_Comm_dup(cart, &dup); /* the topology comes along */
        MPI_Topo_test(dup, &kind);
        EXPECT(kind == MPI_CART);
        MPI_Comm_free(&dup);
        check("Topo_test", errors);
    }

    /* neighbourhood collectives: a periodic ring (in/out order: left, right;
     * my in-block 0 is what the left neighbour sent to its right) */
    MPI_Comm ring;
    int rd[1] = {size}, rp[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, rd, rp, 0, &ring);
    int lr[2] = {mod(rank - 1, size), mod(rank + 1, size)}, ring_sb[2] = {1, 0};
    neighbor_collectives("ring", ring, 2, lr, 2, lr, ring_sb, size <= 2);
    /* the dist graph: ins[j] = rank-1-j reaches me with its out-block j */
    int dg_sb[2] = {0, 1};
    neighbor_collectives("dist graph", dg, nin, ins, nout, outs, dg_sb, 0);
    {
        /* graph and 2-D grid neighbourhoods (MPI_PROC_NULL neighbours leave
         * their blocks alone) */
        int errors = 0, got[8], first = rank ? index[rank - 1] : 0, mine = val(rank, 9, 0);
        for (int i = 0; i < 8; i++) got[i] = HOLE;
        MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, graph);
        for (int i = first; i < index[rank]; i++) EXPECT(got[i - first] == val(edges[i], 9, 0));
        EXPECT(got[index[rank] - first] == HOLE);
        for (int i = 0; i < 8; i++) got[i] = HOLE;
        MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, cart);
        for (int d = 0; d < 2; d++) {
            int src, dst;
            MPI_Cart_shift(cart, d, 1, &src, &dst);
            EXPECT(got[2 * d] == (src == MPI_PROC_NULL ? HOLE : val(src, 9, 0)));
            EXPECT(got[2 * d + 1] == (dst == MPI_PROC_NULL ? HOLE : val(dst, 9, 0)));
        }
        EXPECT(got[4] == HOLE);
        check("Neighbor_allgather (graph, 2-D grid)", errors);
    }

    MPI_Comm_free(&ring);
    MPI_Comm_free(&dg);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&cart);
    free(index); free(edges);
    MPI_Finalize();
    return failures ? 1 : 0;
}
