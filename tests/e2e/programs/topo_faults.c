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
    /* maxdims 0, but the grid has 2 dimensions some MPIs write anyway */
    expect_class("Cart_get short arrays", MPI_Cart_get(cart, 0, (int *)(end - 4), ints, ints), MPI_ERR_BUFFER);
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
    MPI_Comm_free(&ring);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return failures ? 1 : 0;
}
