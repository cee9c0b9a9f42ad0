/* PMPI interposer that counts MPI calls per function and rank, for the
 * at-scale model (benchmarks/model/README.md).  Native builds only:
 *
 *   mpicc.openmpi -O2 -shared -fPIC -o mpi_count.so mpi_count.c
 *   mpirun -np 4 env LD_PRELOAD=$PWD/mpi_count.so ./hpcg --nx 8 --ny 8 --nz 8 --iters 1
 *
 * The calls are counted per *segment*: MPI_Barrier calls delimit them
 * (segment 0 runs from MPI_Init to the first barrier, segment k from the
 * k-th barrier to the next).  The HPCG-style driver puts a barrier on each
 * side of its timed phase, so one segment holds exactly the timed CG sets,
 * with no setup or validation calls mixed in; the barriers themselves are
 * counted in the segment they open.  At MPI_Finalize every rank's counts
 * are gathered to rank 0 (over PMPI, so uncounted), which prints one line
 * per nonzero (rank, segment, function):
 *
 *   mpi_count rank=R segment=S function=MPI_Isend calls=N
 *   mpi_count ranks=P segments=K
 *
 * Only the functions the benchmarks here use (and a few close relatives)
 * are wrapped; anything else goes straight to the library, uncounted. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEGMENTS 16

#define FUNCTIONS(X)                                                           \
    X(Comm_rank) X(Comm_size) X(Wtime) X(Send) X(Recv) X(Isend) X(Irecv)       \
    X(Wait) X(Waitall) X(Sendrecv) X(Allreduce) X(Reduce) X(Bcast) X(Barrier)

enum {
#define ENUM(name) F_##name,
    FUNCTIONS(ENUM)
#undef ENUM
    F_COUNT
};

static const char *const names[F_COUNT] = {
#define NAME(name) "MPI_" #name,
    FUNCTIONS(NAME)
#undef NAME
};

/* Plain counters: the benchmarks are single-threaded (MPI_THREAD_SINGLE),
 * and atomics would cost more than the calls we count. */
static long long counts[MAX_SEGMENTS][F_COUNT];
static int segment;

static void count(int f) { counts[segment][f]++; }

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
    count(F_Comm_rank);
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
    count(F_Comm_size);
    return PMPI_Comm_size(comm, size);
}

double MPI_Wtime(void) {
    count(F_Wtime);
    return PMPI_Wtime();
}

int MPI_Send(const void *buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm) {
    count(F_Send);
    return PMPI_Send(buf, n, t, dest, tag, comm);
}

int MPI_Recv(void *buf, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Status *st) {
    count(F_Recv);
    return PMPI_Recv(buf, n, t, src, tag, comm, st);
}

int MPI_Isend(const void *buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
    count(F_Isend);
    return PMPI_Isend(buf, n, t, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Request *req) {
    count(F_Irecv);
    return PMPI_Irecv(buf, n, t, src, tag, comm, req);
}

int MPI_Wait(MPI_Request *req, MPI_Status *st) {
    count(F_Wait);
    return PMPI_Wait(req, st);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[]) {
    count(F_Waitall);
    return PMPI_Waitall(n, reqs, sts);
}

int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int dest, int stag, void *rb, int rn,
                 MPI_Datatype rt, int src, int rtag, MPI_Comm comm, MPI_Status *status) {
    count(F_Sendrecv);
    return PMPI_Sendrecv(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, comm, status);
}

int MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    count(F_Allreduce);
    return PMPI_Allreduce(sb, rb, n, t, op, comm);
}

int MPI_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
    count(F_Reduce);
    return PMPI_Reduce(sb, rb, n, t, op, root, comm);
}

int MPI_Bcast(void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm) {
    count(F_Bcast);
    return PMPI_Bcast(buf, n, t, root, comm);
}

/* A barrier opens the next segment (the last one absorbs any overflow, so
 * a program with more barriers than MAX_SEGMENTS still counts every call). */
int MPI_Barrier(MPI_Comm comm) {
    if (segment < MAX_SEGMENTS - 1) segment++;
    count(F_Barrier);
    return PMPI_Barrier(comm);
}

int MPI_Finalize(void) {
    int rank, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    long long *all = NULL;
    if (rank == 0) all = malloc(sizeof counts * (size_t)size);
    PMPI_Gather(counts, MAX_SEGMENTS * F_COUNT, MPI_LONG_LONG, all, MAX_SEGMENTS * F_COUNT, MPI_LONG_LONG, 0,
                MPI_COMM_WORLD);
    if (rank == 0 && all) {
        for (int r = 0; r < size; r++)
            for (int s = 0; s <= segment; s++)
                for (int f = 0; f < F_COUNT; f++) {
                    long long n = all[((size_t)r * MAX_SEGMENTS + s) * F_COUNT + f];
                    if (n) printf("mpi_count rank=%d segment=%d function=%s calls=%lld\n", r, s, names[f], n);
                }
        printf("mpi_count ranks=%d segments=%d\n", size, segment + 1);
        fflush(stdout);
        free(all);
    }
    return PMPI_Finalize();
}
