/*
 * particles.c: an N-body code whose state is kept once per node, in a Karmem
 * region, instead of once per rank.
 *
 *   make -C examples/karmem
 *   mpirun -np 4 target/release/embedder examples/karmem/particles.wasm [steps [particles]]
 *
 * The system (N particles, softened all-pairs gravity, symplectic Euler) is
 * cut into one block per rank (particles.km: SoA columns). Every node holds
 * ALL the blocks in one KARMEM_READ_ONLY region: each rank reads every
 * particle from it with plain loads (zero-copy; no per-rank replica), and the
 * node leader (node rank 0) is its one writer. One step:
 *   1. each rank computes its block's next state from the region into a
 *      private block (the region is published: everyone only reads);
 *   2. karmem_acquire: all reads are done, so the leader may write;
 *   3. each rank sends the columns a step changes (x..vz, one datatype made
 *      by the generated particles_columns_type) to its leader, which receives
 *      them straight into its node's blocks in the region;
 *   4. the leaders swap their nodes' blocks across nodes (whole blocks, as
 *      bytes: headers, step stamps and all);
 *   5. karmem_publish: the new state is visible to every rank of the node.
 * A particle's update sums over all particles in global order, so the result
 * is bit-for-bit the same however many ranks there are and however they are
 * spread over nodes (1 x 4, 2 x 2, 1 x 1): the last line, `checksum E`, is the
 * total energy, which every rank computes from its own node's copy (and the
 * ranks check that they agree).
 */
#include <math.h>
#include <mpi.h>
#include <karmem.h>
#include <stdio.h>
#include <stdlib.h>
#include "particles.h"

#define DT 1e-3
#define EPS2 1e-2 /* softening: no close encounters blow up */

#define CHECK(call) do { int rc_ = (call); if (rc_ != 0) { \
    fprintf(stderr, "particles: %s failed (%d)\n", #call, rc_); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

/* A deterministic number in [-1, 1) from an index (splitmix64's mixer): the
 * initial state depends on a particle's global index only. */
static double uniform(uint64_t i)
{
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-52 - 1.0;
}

/* Block b of nb holds the particles [start(b), start(b + 1)). */
static uint32_t start(int b, int nb, uint32_t n) { return (uint32_t)((uint64_t)n * b / nb); }

static void init_block(void *blk, size_t bytes, uint32_t cap, uint32_t n, uint32_t first, uint32_t len)
{
    CHECK(particles_init_with(blk, bytes, &cap));
    CHECK(particles_p_set_length(blk, len));
    CHECK(particles_set_first(blk, first));
    for (uint32_t k = 0; k < len; k++) {
        uint64_t i = 7 * (uint64_t)(first + k);
        particles_Particle p = { uniform(i), uniform(i + 1), uniform(i + 2), 0.1 * uniform(i + 3),
                                 0.1 * uniform(i + 4), 0.1 * uniform(i + 5), 0 };
        p.mass = (1.0 + 0.5 * uniform(i + 6)) / n; /* total mass about 1 */
        CHECK(particles_p_set(blk, k, &p));
    }
}

/* The acceleration at (x, y, z) due to every particle, blocks in order. */
static void accel(const char *data, size_t bytes, int nb, double x, double y, double z, double a[3])
{
    double ax = 0, ay = 0, az = 0;
    for (int b = 0; b < nb; b++) {
        const void *blk = data + b * bytes;
        const double *px = particles_p_x_const(blk), *py = particles_p_y_const(blk);
        const double *pz = particles_p_z_const(blk), *m = particles_p_mass_const(blk);
        for (uint32_t j = 0, n = particles_p_length(blk); j < n; j++) {
            double dx = px[j] - x, dy = py[j] - y, dz = pz[j] - z;
            double r2 = dx * dx + dy * dy + dz * dz + EPS2, s = m[j] / (r2 * sqrt(r2));
            ax += s * dx, ay += s * dy, az += s * dz;
        }
    }
    a[0] = ax, a[1] = ay, a[2] = az;
}

/* Total energy, kinetic + pair potential over i < j, in global order. */
static double energy(const char *data, size_t bytes, int nb)
{
    double e = 0;
    for (int b = 0; b < nb; b++) {
        const void *B = data + b * bytes;
        for (uint32_t i = 0, n = particles_p_length(B); i < n; i++) {
            particles_Particle p;
            CHECK(particles_p_get(B, i, &p));
            double pot = 0;
            for (int c = b; c < nb; c++) {
                const void *C = data + c * bytes;
                const double *x = particles_p_x_const(C), *y = particles_p_y_const(C);
                const double *z = particles_p_z_const(C), *m = particles_p_mass_const(C);
                for (uint32_t j = c == b ? i + 1 : 0, nc = particles_p_length(C); j < nc; j++) {
                    double dx = x[j] - p.x, dy = y[j] - p.y, dz = z[j] - p.z;
                    pot -= m[j] / sqrt(dx * dx + dy * dy + dz * dz + EPS2);
                }
            }
            e += 0.5 * p.mass * (p.vx * p.vx + p.vy * p.vy + p.vz * p.vz) + p.mass * pot;
        }
    }
    return e;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    uint32_t n = argc > 2 ? (uint32_t)atol(argv[2]) : 2048;
    int rank, nb, nr, nn;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nb); /* one block per rank */

    /* The node: the ranks that can share memory. The leaders: one per node. */
    MPI_Comm node, leaders;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &nn);
    MPI_Comm_split(MPI_COMM_WORLD, nr == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);

    /* Every block has the same capacity and so the same byte size: block b
     * is at data + b * bytes in every node's region. */
    uint32_t cap = (n + nb - 1) / nb;
    size_t bytes = particles_bytes_with(&cap);
    karmem_region region;
    char *data;
    size_t size;
    CHECK(karmem_open(node, "particles", bytes * nb, KARMEM_READ_ONLY, &region));
    CHECK(karmem_data(region, (void **)&data, &size));

    /* Blocks are numbered node by node: this node's are [first, first + nn).
     * The leaders also learn every node's share, in bytes, for step 4. */
    int first = 0, nodes = 1, *counts = NULL, *displs = NULL;
    if (nr == 0) {
        int lrank;
        MPI_Comm_rank(leaders, &lrank);
        MPI_Comm_size(leaders, &nodes);
        MPI_Exscan(&nn, &first, 1, MPI_INT, MPI_SUM, leaders);
        if (lrank == 0)
            first = 0; /* MPI_Exscan leaves it undefined there */
        counts = malloc(2 * nodes * sizeof *counts), displs = counts + nodes;
        MPI_Allgather(&nn, 1, MPI_INT, counts, 1, MPI_INT, leaders);
        MPI_Allgather(&first, 1, MPI_INT, displs, 1, MPI_INT, leaders);
        for (int i = 0; i < nodes; i++)
            counts[i] *= (int)bytes, displs[i] *= (int)bytes;
        for (int b = 0; b < nb; b++) /* the initial state, the same on every node */
            init_block(data + b * bytes, bytes, cap, n, start(b, nb, n), start(b + 1, nb, n) - start(b, nb, n));
    }
    MPI_Bcast(&first, 1, MPI_INT, 0, node);
    MPI_Bcast(&nodes, 1, MPI_INT, 0, node);
    CHECK(karmem_publish(region));
    for (int b = 0; b < nb; b++) /* a reader validates each block once: O(columns), not O(particles) */
        CHECK(particles_check(data + b * bytes, bytes));

    /* My block (read from the region) and its next state (private). */
    const int me = first + nr;
    const void *mine = data + me * bytes;
    void *next = aligned_alloc(64, bytes);
    init_block(next, bytes, cap, n, particles_get_first(mine), particles_p_length(mine));

    /* The columns a step changes, as a datatype per block: the sender's over
     * `next`, the leader's over each of its node's blocks in the region. */
    static const uint32_t moving[] = { particles_COL_p_x, particles_COL_p_y, particles_COL_p_z,
                                       particles_COL_p_vx, particles_COL_p_vy, particles_COL_p_vz };
    MPI_Datatype send_t, *recv_t = malloc(nn * sizeof *recv_t);
    CHECK(particles_columns_type(next, moving, 6, &send_t));
    for (int k = 0; nr == 0 && k < nn; k++)
        CHECK(particles_columns_type(data + (first + k) * bytes, moving, 6, &recv_t[k]));
    MPI_Request *req = malloc((nn + 1) * sizeof *req);

    const double e0 = energy(data, bytes, nb);
    for (int s = 0; s < steps; s++) {
        /* 1. my particles' next state, from everyone's current one */
        const double *x = particles_p_x_const(mine), *y = particles_p_y_const(mine), *z = particles_p_z_const(mine);
        const double *vx = particles_p_vx_const(mine), *vy = particles_p_vy_const(mine), *vz = particles_p_vz_const(mine);
        double *nx = particles_p_x(next), *ny = particles_p_y(next), *nz = particles_p_z(next);
        double *nvx = particles_p_vx(next), *nvy = particles_p_vy(next), *nvz = particles_p_vz(next);
        for (uint32_t i = 0, len = particles_p_length(mine); i < len; i++) {
            double a[3];
            accel(data, bytes, nb, x[i], y[i], z[i], a);
            nvx[i] = vx[i] + DT * a[0], nvy[i] = vy[i] + DT * a[1], nvz[i] = vz[i] + DT * a[2];
            nx[i] = x[i] + DT * nvx[i], ny[i] = y[i] + DT * nvy[i], nz[i] = z[i] + DT * nvz[i];
        }
        /* 2. everyone has read step s: the leader may write step s + 1 */
        CHECK(karmem_acquire(region));
        /* 3. the node's blocks into the region (the leader's own too) */
        int nreq = 0;
        for (int k = 0; nr == 0 && k < nn; k++)
            MPI_Irecv(data + (first + k) * bytes, 1, recv_t[k], k, 0, node, &req[nreq++]);
        MPI_Isend(next, 1, send_t, 0, 0, node, &req[nreq++]);
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        /* 4. the other nodes' blocks, whole, over the network */
        if (nr == 0) {
            for (int k = 0; k < nn; k++)
                CHECK(particles_set_step(data + (first + k) * bytes, (uint32_t)s + 1));
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, counts, displs, MPI_BYTE, leaders);
        }
        /* 5. step s + 1 is visible to the whole node */
        CHECK(karmem_publish(region));
    }

    /* Every rank, from its node's copy: the same blocks, the same answer. */
    for (int b = 0; b < nb; b++)
        if (particles_get_step(data + b * bytes) != (uint32_t)steps)
            fprintf(stderr, "particles: rank %d: block %d is at step %u\n", rank, b,
                    (unsigned)particles_get_step(data + b * bytes));
    double e = energy(data, bytes, nb), lo, hi;
    MPI_Allreduce(&e, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&e, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        fprintf(stderr, "particles: %d ranks on %d node(s), %zu bytes per block\n", nb, nodes, bytes);
        printf("particles %u, steps %d\n", (unsigned)n, steps);
        printf("energy %.12f -> %.12f (relative change %.2e)\n", e0, e, (e - e0) / fabs(e0));
        if (lo != hi)
            printf("ranks disagree: energy from %.17g to %.17g\n", lo, hi);
        printf("checksum %.17g\n", e);
    }

    MPI_Type_free(&send_t);
    for (int k = 0; nr == 0 && k < nn; k++)
        MPI_Type_free(&recv_t[k]);
    CHECK(karmem_close(&region));
    free(next), free(req), free(recv_t), free(counts);
    if (leaders != MPI_COMM_NULL)
        MPI_Comm_free(&leaders);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return lo == hi ? 0 : 1;
}
