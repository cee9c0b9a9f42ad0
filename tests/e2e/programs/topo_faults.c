/* topo_faults.c [fatal]: bad arguments to topology functions and
 * neighbourhood collectives come back as MPI error classes (under
 * MPI_ERRORS_RETURN), never as a crash of the embedder; with "fatal" the
 * default handler ends the job. Wasm only: it relies on wasm32's memory
 * layout (addresses near the end of linear memory). Every rank makes the
 * same calls, which fail before any communication. */
#include <string.h>
#include "check.h"

static size_t memory_end(void) {
#ifdef __wasm__
    return __builtin_wasm_memory_size(0) * 65536;
#else
    return 0;
#endif
}

static void expect_class(const char *what, int rc, int expected) {
    int errors = 0, cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != expected) fprintf(stderr, "%s: got class %d, expected %d\n", what, cls, expected);
    EXPECT(cls == expected);
    check(what, errors);
}

/* How many ints of `buf[0..n)` differ from the canary, from `from` on. */
static int changed(const int *buf, int from, int n) {
    int k = 0;
    for (int i = from; i < n; i++) k += buf[i] != 0x5a5a5a5a;
    return k;
}

/* Topology arguments the host MPI may not validate: every one must be
 * refused by the embedder before the host sees it, and the host must
 * never copy more than the guest asked for. */
static void graph_arguments(int size, int rank, MPI_Comm cart) {
    static int out[2048];
    MPI_Comm c = MPI_COMM_NULL;
    int rc;
    {
        /* index[0] > index[1]: the host would take index[nnodes-1] = 1 as
         * the edge count and node 0's 0x400 edges from its own heap */
        int index[2] = {0x400, 1}, edges[2] = {1, 0};
        rc = MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &c);
        expect_class("Graph_create non-monotonic index", rc, MPI_ERR_ARG);
        if (rc == MPI_SUCCESS && c != MPI_COMM_NULL) {
            memset(out, 0x5a, sizeof out);
            MPI_Graph_neighbors(c, 0, 0x400, out);
            fprintf(stderr, "rank %d: Graph_neighbors wrote %d ints for a graph of 2 edges\n", rank, changed(out, 0, 0x400));
            MPI_Comm_free(&c);
        }
        int newrank;
        expect_class("Graph_map non-monotonic index", MPI_Graph_map(MPI_COMM_WORLD, 2, index, edges, &newrank), MPI_ERR_ARG);
    }
    {
        int index[1] = {-1}, edges[1] = {0};
        expect_class("Graph_create negative index", MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG);
    }
    {
        int index[1] = {2}, edges[2] = {0, 5};
        expect_class("Graph_create edge out of range", MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG);
        edges[1] = -1;
        expect_class("Graph_create negative edge", MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG);
    }
    {
        int index[8] = {0}, edges[1] = {0};
        expect_class("Graph_create nnodes > size", MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &c), MPI_ERR_ARG);
        expect_class("Graph_create negative nnodes", MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &c), MPI_ERR_ARG);
    }
    {
        /* a valid ring: every node has two neighbours; asking for one must
         * write one, and a negative maximum is refused */
        int index[8], edges[16], nb = 0;
        for (int i = 0; i < size; i++) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i + 1) % size;
            edges[2 * i + 1] = (i + size - 1) % size;
        }
        MPI_Comm g;
        MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
        MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        memset(out, 0x5a, sizeof out);
        rc = MPI_Graph_neighbors(g, rank, 1, out);
        int errors = 0;
        EXPECT(rc == MPI_SUCCESS && out[0] == edges[2 * rank] && changed(out, 1, 2048) == 0);
        check("Graph_neighbors writes maxneighbors", errors);
        expect_class("Graph_neighbors negative maxneighbors", MPI_Graph_neighbors(g, rank, -1, out), MPI_ERR_ARG);
        expect_class("Graph_get negative maxindex", MPI_Graph_get(g, -1, 2, out, out + 8), MPI_ERR_ARG);
        MPI_Graph_neighbors_count(g, rank, &nb);
        errors = 0;
        EXPECT(nb == 2);
        check("Graph_neighbors_count of a valid graph", errors);
        MPI_Comm_free(&g);
    }
    {
        int dims[3] = {0, 1, 1}, periods[3] = {0, 0, 0};
        expect_class("Cart_create zero dimension", MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), MPI_ERR_DIMS);
        dims[0] = -1;
        expect_class("Cart_create negative dimension", MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), MPI_ERR_DIMS);
        expect_class("Cart_create negative ndims", MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &c), MPI_ERR_DIMS);
        dims[0] = size + 1;
        expect_class("Cart_create dims larger than comm", MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), MPI_ERR_ARG);
        dims[0] = dims[1] = dims[2] = 1 << 16; /* the product overflows 32 bits */
        expect_class("Cart_create dims product overflows", MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &c), MPI_ERR_ARG);
        dims[0] = -2;
        expect_class("Cart_map negative dimension", MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &rc), MPI_ERR_DIMS);
        dims[0] = -1;
        expect_class("Dims_create negative dims entry", MPI_Dims_create(size, 1, dims), MPI_ERR_DIMS);
        expect_class("Dims_create negative ndims", MPI_Dims_create(size, -1, dims), MPI_ERR_DIMS);
        /* no grid has 0 nodes: MPICH searched for one forever */
        dims[0] = dims[1] = dims[2] = 0;
        expect_class("Dims_create nnodes 0", MPI_Dims_create(0, 3, dims), MPI_ERR_DIMS);
        /* nnodes not a multiple of the entries set; MPICH multiplied them in
         * an int (65536 * 65536 = 0) and divided by it (SIGFPE) */
        dims[1] = 5;
        expect_class("Dims_create nnodes not a multiple of dims set", MPI_Dims_create(12, 2, dims), MPI_ERR_DIMS);
        dims[0] = 0, dims[1] = dims[2] = 1 << 16;
        expect_class("Dims_create dims set whose product overflows", MPI_Dims_create(12, 3, dims), MPI_ERR_DIMS);
    }
    {
        /* cart: dims {size, 1}, periods {1, 0} */
        int coords[2] = {0, 5}, src, dst;
        expect_class("Cart_rank coordinate off a non-periodic dim", MPI_Cart_rank(cart, coords, &src), MPI_ERR_ARG);
        expect_class("Cart_shift direction out of range", MPI_Cart_shift(cart, 7, 1, &src, &dst), MPI_ERR_ARG);
        expect_class("Cart_shift negative direction", MPI_Cart_shift(cart, -1, 1, &src, &dst), MPI_ERR_ARG);
        expect_class("Cart_get negative maxdims", MPI_Cart_get(cart, -1, out, out, out), MPI_ERR_ARG);
        expect_class("Cart_coords negative maxdims", MPI_Cart_coords(cart, 0, -1, out), MPI_ERR_ARG);
        coords[0] = size + 3; /* periodic: wraps, fine */
        coords[1] = 0;
        int errors = 0;
        EXPECT(MPI_Cart_rank(cart, coords, &src) == MPI_SUCCESS && src == 3 % size);
        check("Cart_rank wraps a periodic dim", errors);
    }
    {
        int one = 1, zero = 0, bad = size, neg = -3;
        expect_class("Dist_graph_create source out of range",
                     MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &bad, &one, &zero, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c), MPI_ERR_RANK);
        expect_class("Dist_graph_create destination out of range",
                     MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &one, &bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c), MPI_ERR_RANK);
        expect_class("Dist_graph_create negative weight",
                     MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &one, &zero, &neg, MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
        expect_class("Dist_graph_create negative n",
                     MPI_Dist_graph_create(MPI_COMM_WORLD, -1, &zero, &one, &zero, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
        expect_class("Dist_graph_create_adjacent negative indegree",
                     MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, &zero, MPI_UNWEIGHTED, 1, &zero, MPI_UNWEIGHTED,
                                                    MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
        expect_class("Dist_graph_create_adjacent source out of range",
                     MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 1, &zero, MPI_UNWEIGHTED,
                                                    MPI_INFO_NULL, 0, &c), MPI_ERR_RANK);
        expect_class("Dist_graph_create_adjacent destination negative",
                     MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, MPI_UNWEIGHTED, 1, &neg, MPI_UNWEIGHTED,
                                                    MPI_INFO_NULL, 0, &c), MPI_ERR_RANK);
        expect_class("Dist_graph_create_adjacent negative weight",
                     MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, &neg, 1, &zero, &one,
                                                    MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
        MPI_Comm d;
        int src = rank, dst = rank, w = 4, ins[4], outs[4];
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0, &d);
        MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
        expect_class("Dist_graph_neighbors negative maxindegree",
                     MPI_Dist_graph_neighbors(d, -1, ins, MPI_UNWEIGHTED, 1, outs, MPI_UNWEIGHTED), MPI_ERR_ARG);
        MPI_Comm_free(&d);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *end = (char *)memory_end();
    int dims[2] = {size, 1}, periods[2] = {1, 0}, ring_dims[1] = {size}, ints[8] = {0};
    MPI_Comm cart, ring;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_create(MPI_COMM_WORLD, 1, ring_dims, periods, 0, &ring);
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        /* MPI_ERRORS_ARE_FATAL: two neighbours' worth of ints, room for one */
        MPI_Neighbor_alltoall(ints, 1, MPI_INT, end - 4, 1, MPI_INT, ring);
        printf("unexpected return\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    MPI_Comm c;

    /* two dims, the array starts 4 bytes before the end of memory */
    expect_class("Cart_create dims past the end", MPI_Cart_create(MPI_COMM_WORLD, 2, (int *)(end - 4), periods, 0, &c),
                 MPI_ERR_BUFFER);
    {
        /* maxdims 1 on a 2-dimensional grid, dims in the last int of
         * memory: the arrays hold one entry each, and one entry each is
         * what they get (some MPIs write every dimension whatever maxdims
         * says; the embedder gives the guest the first maxdims) */
        int *last = (int *)(end - 4), got[8], errors = 0;
        memset(got, 0x5a, sizeof got);
        *last = -7;
        int rc = MPI_Cart_get(cart, 1, last, got, got + 4);
        EXPECT(rc == MPI_SUCCESS && *last == size && got[0] == 1 && got[4] == rank);
        EXPECT(changed(got, 1, 4) == 0 && changed(got, 5, 8) == 0);
        check("Cart_get maxdims 1 at the end of memory", errors);
    }
    expect_class("Cart_coords rank out of range", MPI_Cart_coords(cart, size, 2, ints), MPI_ERR_RANK);
    expect_class("Neighbor_alltoall short buffer",
                 MPI_Neighbor_alltoall(ints, 1, MPI_INT, end - 4, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    {
        int rc, counts[2] = {1, 1};
        MPI_Aint displs[2] = {0, (MPI_Aint)(end - (char *)ints)}; /* block 1 lies past the end */
        MPI_Datatype types[2] = {MPI_INT, MPI_INT};
        MPI_Request req;
        rc = MPI_Ineighbor_alltoallw(ints, counts, displs, types, ints + 4, counts, (MPI_Aint *)(end - 4), types, ring, &req);
        expect_class("Ineighbor_alltoallw displs past the end", rc, MPI_ERR_BUFFER);
        rc = MPI_Neighbor_alltoallw(ints, counts, displs, types, ints + 4, counts, displs, types, ring);
        expect_class("Neighbor_alltoallw block past the end", rc, MPI_ERR_BUFFER);
    }
    expect_class("Neighbor_allgather MPI_IN_PLACE",
                 MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, ints, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    expect_class("Neighbor_allgather without topology",
                 MPI_Neighbor_allgather(ints, 1, MPI_INT, ints + 2, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
    {
        int one = rank, w = 1, neg = -1;
        expect_class("Dist_graph_create_adjacent WEIGHTS_EMPTY",
                     MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &one, MPI_WEIGHTS_EMPTY, 1, &one, &w,
                                                    MPI_INFO_NULL, 0, &c), MPI_ERR_ARG);
        expect_class("Dist_graph_create negative degree",
                     MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &one, &neg, &one, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
                     MPI_ERR_ARG);
    }
    graph_arguments(size, rank, cart);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return failures ? 1 : 0;
}
