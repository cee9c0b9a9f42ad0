/* Two-node check: every rank names its host, then the ranks run an
 * Allreduce, an Alltoall and a ring exchange whose data depend on the rank,
 * with messages large enough to take the transports' rendezvous paths. Each
 * rank prints
 *
 *   host RANK SIZE NAME
 *   result RANK allreduce=HEX alltoall=HEX ring=HEX
 *
 * The result lines depend only on the rank count, not on where the ranks
 * run or which transport carried the bytes, so a run across two nodes must
 * print the same ones as a run on one node, natively and in wasm. Integers
 * only (sums wrap modulo 2^64), so no reduction order can change a digit. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDUCE_N 100003         /* uint64: ~800 KB, pipelined */
#define A2A_N 20011             /* uint32 per peer: ~80 KB, rendezvous */
#define RING_N 300007           /* uint32: ~1.2 MB */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* order-sensitive digest of a buffer */
static uint64_t digest(const void *buf, size_t bytes)
{
    const unsigned char *p = buf;
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < bytes; i++)
        h = mix(h ^ p[i]) + i;
    return h;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static uint64_t allreduce(int rank)
{
    uint64_t *in = xmalloc(REDUCE_N * sizeof *in), *out = xmalloc(REDUCE_N * sizeof *out);
    for (size_t i = 0; i < REDUCE_N; i++)
        in[i] = mix((uint64_t)rank * REDUCE_N + i);
    MPI_Allreduce(in, out, REDUCE_N, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    uint64_t h = digest(out, REDUCE_N * sizeof *out);
    free(in);
    free(out);
    return h;
}

static uint64_t alltoall(int rank, int size)
{
    uint32_t *in = xmalloc((size_t)size * A2A_N * sizeof *in);
    uint32_t *out = xmalloc((size_t)size * A2A_N * sizeof *out);
    for (int to = 0; to < size; to++)
        for (size_t i = 0; i < A2A_N; i++)
            in[(size_t)to * A2A_N + i] = (uint32_t)mix(((uint64_t)rank << 40) ^ ((uint64_t)to << 20) ^ i);
    MPI_Alltoall(in, A2A_N, MPI_UINT32_T, out, A2A_N, MPI_UINT32_T, MPI_COMM_WORLD);
    uint64_t h = digest(out, (size_t)size * A2A_N * sizeof *out);
    free(in);
    free(out);
    return h;
}

/* A buffer travels the whole ring (size - 1 hops, each rank stirring its
 * rank into it), so every rank's result depends on every link's bytes. */
static uint64_t ring(int rank, int size)
{
    uint32_t *buf = xmalloc(RING_N * sizeof *buf), *next = xmalloc(RING_N * sizeof *next);
    for (size_t i = 0; i < RING_N; i++)
        buf[i] = (uint32_t)mix(((uint64_t)rank << 32) | i);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int hop = 1; hop < size; hop++) {
        MPI_Sendrecv(buf, RING_N, MPI_UINT32_T, right, hop, next, RING_N, MPI_UINT32_T, left, hop,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < RING_N; i++)
            buf[i] = next[i] * 2654435761u + (uint32_t)(rank + hop);
    }
    uint64_t h = digest(buf, RING_N * sizeof *buf);
    free(buf);
    free(next);
    return h;
}

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    printf("host %d %d %s\n", rank, size, name);

    uint64_t r = allreduce(rank), a = alltoall(rank, size), g = ring(rank, size);
    printf("result %d allreduce=%016llx alltoall=%016llx ring=%016llx\n", rank, (unsigned long long)r,
           (unsigned long long)a, (unsigned long long)g);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
