/* Karmem regions within nodes, MPI between them (wasm only; run by
 * tests/cluster/test_karmem_two_nodes.py on one node and on two).
 *
 * The ranks of a node (MPI_Comm_split_type SHARED) share regions; one
 * leader per node (node rank 0) joins a leaders communicator:
 *
 *   1. PARTITIONED "cells": every rank fills its slice with mix(world rank,
 *      i); the leader adds the node's slices up into its READ_ONLY
 *      "totals" region, the leaders MPI_Allreduce those sums across the
 *      nodes (in place, in the region), publish, and every rank digests the
 *      totals it reads from the region.
 *   2. OWNED "relay": ownership goes round the node, each owner adding
 *      (world rank + 1)^2 to a counter in the region; the leaders
 *      MPI_Allreduce the node counters and MPI_Bcast the leaders' rank-0
 *      node size; the leader stores both in the relay region, passes
 *      ownership on, and everyone reads them from the region.
 *
 * Every rank prints
 *
 *   node RANK NODE_RANK NODE_SIZE NODES HOSTNAME
 *   result RANK totals=HEX relay=SUM epoch=E
 *   bcast RANK first-node-size=N
 *
 * The result lines depend only on the world size, not on how the ranks are
 * spread over nodes: a run on one node prints the same as a run on two
 * (the bcast line tells the first node's size, which does depend on it).
 *
 * With the argument "span" every rank opens a region on MPI_COMM_WORLD
 * instead, errors returned, and prints "span RANK CLASS"; with
 * "span-fatal" the same under MPI_ERRORS_ARE_FATAL. */
#include <mpi.h>
#include <karmem.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CELLS 4096 /* uint64 per rank: 32 KiB slices */

#define CHECK(call)                                                                \
    do {                                                                           \
        int rc_ = (call);                                                          \
        if (rc_ != MPI_SUCCESS) {                                                  \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, rc_); \
            MPI_Abort(MPI_COMM_WORLD, 3);                                          \
        }                                                                          \
    } while (0)

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static const char *cls(int rc) {
    int c = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    switch (c) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM";
    default: return "other";
    }
}

static int span(int wrank, int fatal) {
    if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    karmem_region r = 0x55;
    int rc = karmem_open(MPI_COMM_WORLD, "spanning", 4096, KARMEM_PARTITIONED, &r);
    printf("span %d %s handle=%s\n", wrank, cls(rc),
           r == 0x55 ? "unchanged" : r == KARMEM_REGION_NULL ? "null" : "set");
    fflush(stdout);
    if (rc == MPI_SUCCESS) CHECK(karmem_close(&r));
    /* the job goes on after a refusal */
    int one = 1, all = 0;
    CHECK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    printf("span %d after %d\n", wrank, all);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int wrank, wsize, me, n, nodes;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (argc > 1 && !strncmp(argv[1], "span", 4)) return span(wrank, !strcmp(argv[1], "span-fatal"));

    MPI_Comm node, leaders;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &node));
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &n);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : MPI_UNDEFINED, wrank, &leaders));
    if (me == 0) MPI_Comm_size(leaders, &nodes);
    CHECK(MPI_Bcast(&nodes, 1, MPI_INT, 0, node));
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    printf("node %d %d %d %d %s\n", wrank, me, n, nodes, host);

    /* 1. cells -> node sums -> totals across the nodes */
    karmem_region cells, totals;
    CHECK(karmem_open(node, "cells", CELLS * sizeof(uint64_t), KARMEM_PARTITIONED, &cells));
    CHECK(karmem_open(node, "totals", CELLS * sizeof(uint64_t), KARMEM_READ_ONLY, &totals));
    uint64_t *mine, *sum;
    size_t sz;
    CHECK(karmem_slice(cells, me, (void **)&mine, &sz));
    for (uint64_t i = 0; i < CELLS; i++) mine[i] = mix((uint64_t)wrank * CELLS + i);
    CHECK(karmem_publish(cells));
    CHECK(karmem_data(totals, (void **)&sum, &sz));
    if (me == 0) {
        for (int k = 0; k < n; k++) {
            uint64_t *s;
            CHECK(karmem_slice(cells, k, (void **)&s, &sz));
            for (int i = 0; i < CELLS; i++) sum[i] = k ? sum[i] + s[i] : s[i];
        }
        /* straight from the region into the region, across the nodes */
        CHECK(MPI_Allreduce(MPI_IN_PLACE, sum, CELLS, MPI_UINT64_T, MPI_SUM, leaders));
    }
    CHECK(karmem_publish(totals));
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (uint64_t i = 0; i < CELLS; i++) h = mix(h ^ sum[i]) + i;

    /* 2. ownership round the node, counters across the nodes */
    karmem_region relay;
    CHECK(karmem_open(node, "relay", 4096, KARMEM_OWNED, &relay));
    uint64_t *counter;
    CHECK(karmem_data(relay, (void **)&counter, &sz));
    for (int k = 0; k < n; k++) {
        if (me == k) counter[0] += (uint64_t)(wrank + 1) * (uint64_t)(wrank + 1);
        CHECK(karmem_pass(relay, (k + 1) % n)); /* back to the leader at the end */
    }
    if (me == 0) {
        uint64_t node_total = counter[0], all = 0;
        int first_node_size = n;
        CHECK(MPI_Allreduce(&node_total, &all, 1, MPI_UINT64_T, MPI_SUM, leaders));
        CHECK(MPI_Bcast(&first_node_size, 1, MPI_INT, 0, leaders));
        counter[1] = all;
        counter[2] = (uint64_t)first_node_size;
    }
    CHECK(karmem_pass(relay, n - 1));
    printf("result %d totals=%016" PRIx64 " relay=%" PRIu64 " epoch=%" PRIu64 "\n", wrank, h, counter[1],
           karmem_header(totals)->epoch);
    printf("bcast %d first-node-size=%" PRIu64 "\n", wrank, counter[2]);

    CHECK(karmem_close(&relay));
    CHECK(karmem_close(&totals));
    CHECK(karmem_close(&cells));
    if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
