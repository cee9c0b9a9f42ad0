/*
 * imb.c - an IMB-style MPI benchmark suite (PingPong ... Alltoallv).
 *
 * Written for this repository from the published IMB-MPI1 methodology
 * (message sizes, repetition rules, timing and output format); it contains
 * no Intel code.  It is plain C99 + MPI-3.1 and builds unchanged with the
 * host's mpicc and with toolchain/bin/wasm-mpicc (guest mpi.h):
 *
 *     mpicc -O2 -o imb imb.c -lm
 *     ../../toolchain/bin/wasm-mpicc -O3 -o imb.wasm imb.c -lm
 *
 * Run `imb -h` for the options.  Output follows IMB's tables, so parsers of
 * IMB output read it; every other line starts with '#'.
 *
 * Method, per benchmark, process count and message size:
 *   - sizes 0 and 2^min .. 2^max bytes (-msglog, default 0:22); data movement
 *     uses MPI_BYTE, reductions MPI_FLOAT with count = bytes/4 (sizes 1 and 2
 *     are skipped for reductions);
 *   - repetitions: reps_max = min(iter, max(1, overall_vol / bytes)) (iter 1000,
 *     overall_vol 40 MiB by default; bytes = 0 gives iter);
 *   - one untimed warm-up iteration, then a short timed pre-run (reps_max/10
 *     iterations, 1..10) whose slowest rank's time per iteration t_est limits
 *     the sample to the time budget: reps = min(reps_max, max(1, time/t_est));
 *   - MPI_Barrier, then reps iterations between two MPI_Wtime calls; each
 *     rank's time per iteration is reduced to t_min/t_max/t_avg (usec) over
 *     the active ranks;
 *   - PingPong reports half the round trip; Mbytes/sec = bytes / t with
 *     1 MB = 2^20 bytes (Sendrecv counts 2x, Exchange 4x the size; for them t
 *     is t_max);
 *   - collectives with a root (Bcast, Reduce, Gather(v), Scatter(v)) move the
 *     root cyclically over the ranks from iteration to iteration
 *     (-root_shift 0 keeps root 0);
 *   - -off_cache cycles through enough buffer copies (cache-line aligned) that
 *     the data of one iteration has left a cache of the given size before it is
 *     used again.
 * PingPong and PingPing run on 2 processes; the others on npmin, 2*npmin,
 * 4*npmin, ... (< P) and P processes, via MPI_Comm_split; ranks outside the
 * active group wait in MPI_Barrier on MPI_COMM_WORLD.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign under -std=c99 */
#include <mpi.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB (1024.0 * 1024.0)
#define TAG_PING 100
#define TAG_RIGHT 101 /* Exchange: message travelling to the right neighbour */
#define TAG_LEFT 102  /* Exchange: message travelling to the left neighbour */
#define SLOT_ALIGN 64 /* off-cache slot alignment (default cache line) */
#define MAX_MSGLOG 30

/* ------------------------------------------------------------------------- */
/* Options                                                                   */

enum {
    B_PINGPONG,
    B_PINGPING,
    B_SENDRECV,
    B_EXCHANGE,
    B_ALLREDUCE,
    B_REDUCE,
    B_REDUCE_SCATTER,
    B_ALLGATHER,
    B_ALLGATHERV,
    B_GATHER,
    B_GATHERV,
    B_SCATTER,
    B_SCATTERV,
    B_ALLTOALL,
    B_ALLTOALLV,
    B_BCAST,
    B_BARRIER,
    NBENCH
};

typedef struct {
    int npmin;           /* smallest process count for the multi-process benchmarks */
    int msglog_min;      /* sizes 2^msglog_min .. 2^msglog_max, plus 0 */
    int msglog_max;
    long iter;           /* maximum repetitions per sample */
    double overall_vol;  /* bytes: reps * size stays below this */
    double time_budget;  /* seconds per sample */
    double off_cache;    /* MiB of cache to defeat; 0 = off */
    int cache_line;      /* alignment of off-cache slots */
    double mem_gib;      /* buffer memory limit per process */
    int root_shift;      /* rotate the root of rooted collectives */
    int check;           /* verify results */
    int inject;          /* testing: corrupt one result value under -check */
    int selected[NBENCH];
} options_t;

static options_t opt;
static int world_rank, world_size;

/* ------------------------------------------------------------------------- */
/* Benchmark context and operations                                          */

typedef struct {
    MPI_Comm comm;
    int rank, np;
    size_t bytes;      /* message size of this sample */
    int count;         /* elements per block: bytes (MPI_BYTE) or bytes/4 (MPI_FLOAT) */
    char *sbuf, *rbuf; /* slot 0; slot k at + k * stride */
    size_t sstride, rstride;
    long nslots;
    int *scounts, *sdispls, *rcounts, *rdispls;
} ctx_t;

typedef void (*op_fn)(const ctx_t *c, char *sb, char *rb, int root);

enum { K_SINGLE, K_MULTI, K_COLL, K_BARRIER };

typedef struct {
    const char *name;
    int kind;
    int reduction; /* MPI_FLOAT data, sizes >= 4 */
    int bw_mult;   /* bytes counted per iteration for Mbytes/sec (0: none) */
    op_fn op;
} bench_t;

static void op_pingpong(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)root;
    if (c->rank == 0) {
        MPI_Send(sb, c->count, MPI_BYTE, 1, TAG_PING, c->comm);
        MPI_Recv(rb, c->count, MPI_BYTE, 1, TAG_PING, c->comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rb, c->count, MPI_BYTE, 0, TAG_PING, c->comm, MPI_STATUS_IGNORE);
        MPI_Send(rb, c->count, MPI_BYTE, 0, TAG_PING, c->comm);
    }
}

static void op_pingping(const ctx_t *c, char *sb, char *rb, int root)
{
    MPI_Request req;
    int other = 1 - c->rank;
    (void)root;
    MPI_Isend(sb, c->count, MPI_BYTE, other, TAG_PING, c->comm, &req);
    MPI_Recv(rb, c->count, MPI_BYTE, other, TAG_PING, c->comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void op_sendrecv(const ctx_t *c, char *sb, char *rb, int root)
{
    int right = (c->rank + 1) % c->np, left = (c->rank + c->np - 1) % c->np;
    (void)root;
    MPI_Sendrecv(sb, c->count, MPI_BYTE, right, TAG_PING, rb, c->count, MPI_BYTE, left,
                 TAG_PING, c->comm, MPI_STATUS_IGNORE);
}

static void op_exchange(const ctx_t *c, char *sb, char *rb, int root)
{
    MPI_Request req[4];
    int right = (c->rank + 1) % c->np, left = (c->rank + c->np - 1) % c->np;
    (void)root;
    MPI_Irecv(rb, c->count, MPI_BYTE, left, TAG_RIGHT, c->comm, &req[0]);
    MPI_Irecv(rb + c->bytes, c->count, MPI_BYTE, right, TAG_LEFT, c->comm, &req[1]);
    MPI_Isend(sb, c->count, MPI_BYTE, right, TAG_RIGHT, c->comm, &req[2]);
    MPI_Isend(sb, c->count, MPI_BYTE, left, TAG_LEFT, c->comm, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

static void op_allreduce(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)root;
    MPI_Allreduce(sb, rb, c->count, MPI_FLOAT, MPI_SUM, c->comm);
}

static void op_reduce(const ctx_t *c, char *sb, char *rb, int root)
{
    MPI_Reduce(sb, rb, c->count, MPI_FLOAT, MPI_SUM, root, c->comm);
}

static void op_reduce_scatter(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)root;
    MPI_Reduce_scatter(sb, rb, c->rcounts, MPI_FLOAT, MPI_SUM, c->comm);
}

static void op_allgather(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)root;
    MPI_Allgather(sb, c->count, MPI_BYTE, rb, c->count, MPI_BYTE, c->comm);
}

static void op_allgatherv(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)root;
    MPI_Allgatherv(sb, c->count, MPI_BYTE, rb, c->rcounts, c->rdispls, MPI_BYTE, c->comm);
}

static void op_gather(const ctx_t *c, char *sb, char *rb, int root)
{
    MPI_Gather(sb, c->count, MPI_BYTE, rb, c->count, MPI_BYTE, root, c->comm);
}

static void op_gatherv(const ctx_t *c, char *sb, char *rb, int root)
{
    MPI_Gatherv(sb, c->count, MPI_BYTE, rb, c->rcounts, c->rdispls, MPI_BYTE, root, c->comm);
}

static void op_scatter(const ctx_t *c, char *sb, char *rb, int root)
{
    MPI_Scatter(sb, c->count, MPI_BYTE, rb, c->count, MPI_BYTE, root, c->comm);
}

static void op_scatterv(const ctx_t *c, char *sb, char *rb, int root)
{
    MPI_Scatterv(sb, c->scounts, c->sdispls, MPI_BYTE, rb, c->count, MPI_BYTE, root, c->comm);
}

static void op_alltoall(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)root;
    MPI_Alltoall(sb, c->count, MPI_BYTE, rb, c->count, MPI_BYTE, c->comm);
}

static void op_alltoallv(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)root;
    MPI_Alltoallv(sb, c->scounts, c->sdispls, MPI_BYTE, rb, c->rcounts, c->rdispls, MPI_BYTE,
                  c->comm);
}

static void op_bcast(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)rb;
    MPI_Bcast(sb, c->count, MPI_BYTE, root, c->comm);
}

static void op_barrier(const ctx_t *c, char *sb, char *rb, int root)
{
    (void)sb;
    (void)rb;
    (void)root;
    MPI_Barrier(c->comm);
}

/* Indexed by the B_* enum, which is also the order the benchmarks run in. */
static const bench_t benches[NBENCH] = {
    {"PingPong", K_SINGLE, 0, 1, op_pingpong},
    {"PingPing", K_SINGLE, 0, 1, op_pingping},
    {"Sendrecv", K_MULTI, 0, 2, op_sendrecv},
    {"Exchange", K_MULTI, 0, 4, op_exchange},
    {"Allreduce", K_COLL, 1, 0, op_allreduce},
    {"Reduce", K_COLL, 1, 0, op_reduce},
    {"Reduce_scatter", K_COLL, 1, 0, op_reduce_scatter},
    {"Allgather", K_COLL, 0, 0, op_allgather},
    {"Allgatherv", K_COLL, 0, 0, op_allgatherv},
    {"Gather", K_COLL, 0, 0, op_gather},
    {"Gatherv", K_COLL, 0, 0, op_gatherv},
    {"Scatter", K_COLL, 0, 0, op_scatter},
    {"Scatterv", K_COLL, 0, 0, op_scatterv},
    {"Alltoall", K_COLL, 0, 0, op_alltoall},
    {"Alltoallv", K_COLL, 0, 0, op_alltoallv},
    {"Bcast", K_COLL, 0, 0, op_bcast},
    {"Barrier", K_BARRIER, 0, 0, op_barrier},
};

/* Bytes of send and receive buffer one iteration touches on each rank. */
static void slot_bytes(int id, unsigned long long s, int np, unsigned long long *sb,
                       unsigned long long *rb)
{
    unsigned long long n = (unsigned long long)np;
    switch (id) {
    case B_EXCHANGE: *sb = s; *rb = 2 * s; break;
    case B_BARRIER: *sb = 0; *rb = 0; break;
    case B_BCAST: *sb = s; *rb = 0; break;
    case B_ALLGATHER: case B_ALLGATHERV: case B_GATHER: case B_GATHERV:
        *sb = s; *rb = n * s; break;
    case B_SCATTER: case B_SCATTERV: *sb = n * s; *rb = s; break;
    case B_ALLTOALL: case B_ALLTOALLV: *sb = n * s; *rb = n * s; break;
    default: *sb = s; *rb = s; break; /* point-to-point, reductions */
    }
}

/* ------------------------------------------------------------------------- */
/* Small helpers                                                             */

static int lower(int ch) { return (ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch; }

static int name_eq(const char *a, const char *b)
{
    while (*a && *b && lower((unsigned char)*a) == lower((unsigned char)*b)) {
        a++;
        b++;
    }
    return *a == 0 && *b == 0;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    long v;
    if (s == NULL || *s == 0) return 0;
    v = strtol(s, &end, 10);
    if (*end != 0) return 0;
    *out = v;
    return 1;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    double v;
    if (s == NULL || *s == 0) return 0;
    v = strtod(s, &end);
    if (*end != 0 || !(v == v)) return 0;
    *out = v;
    return 1;
}

static unsigned long long round_up(unsigned long long v, unsigned long long a)
{
    return (v + a - 1) / a * a;
}

/* Pattern byte k of the block that rank a sends to destination b. */
static unsigned char pat8(int a, int b, size_t k)
{
    return (unsigned char)((unsigned)a * 37u + (unsigned)b * 11u + (unsigned)(k % 251u) * 7u + 1u);
}

static void fill8(unsigned char *p, size_t n, int a, int b)
{
    size_t k;
    for (k = 0; k < n; k++) p[k] = pat8(a, b, k);
}

static long bad8(const unsigned char *p, size_t n, int a, int b)
{
    size_t k;
    long bad = 0;
    for (k = 0; k < n; k++) bad += p[k] != pat8(a, b, k);
    return bad;
}

/* Reduction data: rank r contributes r + 1 + (k % 13) at global index k; all
   sums are small integers, hence exact in float whatever the order. */
static void fillf(float *p, int n, int r, int off)
{
    int j;
    for (j = 0; j < n; j++) p[j] = (float)(r + 1 + (off + j) % 13);
}

static long badf(const float *p, int n, int np, int off)
{
    int j;
    long bad = 0;
    for (j = 0; j < n; j++) {
        float want = (float)(np * (np + 1) / 2 + np * ((off + j) % 13));
        bad += p[j] != want;
    }
    return bad;
}

/* -check_inject: spoil one result value on the last rank (tests the checker). */
static void inject(const ctx_t *c, void *p, size_t len)
{
    if (opt.inject && c->rank == c->np - 1 && len > 0) ((unsigned char *)p)[0] ^= 0xFF;
}

/* Buffer pools, grown as needed and reused (never shrunk). */
static char *pool_s, *pool_r;
static size_t cap_s, cap_r;

static int ensure(char **pool, size_t *cap, size_t need)
{
    if (need < SLOT_ALIGN) need = SLOT_ALIGN;
    if (need <= *cap) return 1;
    free(*pool);
    /* Page-aligned in both builds: glibc's memcpy (rep movsb), which the MPI
     * library uses to move data, is ~10x slower when destination and source
     * are 16 bytes apart modulo the page (measured here: 4 MiB in 1.4 ms
     * instead of 0.13 ms; 0, 64, 256 or 2048 bytes apart are fast). glibc's malloc returns large blocks at the same page
     * offset, wasi-libc's packs them 16 bytes apart, so without this the
     * native/wasm comparison would measure the allocators. */
    void *p = NULL;
    *pool = posix_memalign(&p, 4096, need) == 0 ? (char *)p : NULL;
    if (*pool == NULL) {
        *cap = 0;
        return 0;
    }
    memset(*pool, 0, need); /* touch every page now, not inside a timed loop */
    *cap = need;
    return 1;
}

/* ------------------------------------------------------------------------- */
/* Output                                                                    */

static const char *RULE = "#----------------------------------------------------------------";

static void print_header(int id, int np)
{
    int idle = world_size - np;
    printf("\n%s\n# Benchmarking %s\n# #processes = %d\n", RULE, benches[id].name, np);
    if (idle > 0)
        printf("# ( %d additional process%s waiting in MPI_Barrier)\n", idle, idle == 1 ? "" : "es");
    printf("%s\n", RULE);
    switch (benches[id].kind) {
    case K_SINGLE:
        printf("%13s%13s%13s%13s\n", "#bytes", "#repetitions", "t[usec]", "Mbytes/sec");
        break;
    case K_MULTI:
        printf("%13s%13s%13s%13s%13s%13s\n", "#bytes", "#repetitions", "t_min[usec]",
               "t_max[usec]", "t_avg[usec]", "Mbytes/sec");
        break;
    case K_COLL:
        printf("%13s%13s%13s%13s%13s\n", "#bytes", "#repetitions", "t_min[usec]", "t_max[usec]",
               "t_avg[usec]");
        break;
    default:
        printf("%13s%13s%13s%13s\n", "#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]");
        break;
    }
    fflush(stdout);
}

static double mbytes_per_sec(double bytes, double usec)
{
    return usec > 0 ? bytes / MIB / (usec * 1e-6) : 0.0;
}

/* Times to the nanosecond (IMB prints two decimals): a collective on one
 * process takes 10-50 ns, where 0.01 us steps made wasm/native ratios of
 * 1, 2 or 3 whatever the times were. */
static void print_row(int id, size_t bytes, long reps, double tmin, double tmax, double tavg)
{
    const bench_t *b = &benches[id];
    unsigned long ub = (unsigned long)bytes;
    switch (b->kind) {
    case K_SINGLE:
        printf("%13lu%13ld%13.3f%13.2f\n", ub, reps, tmax,
               mbytes_per_sec((double)b->bw_mult * (double)bytes, tmax));
        break;
    case K_MULTI:
        printf("%13lu%13ld%13.3f%13.3f%13.3f%13.2f\n", ub, reps, tmin, tmax, tavg,
               mbytes_per_sec((double)b->bw_mult * (double)bytes, tmax));
        break;
    case K_COLL:
        printf("%13lu%13ld%13.3f%13.3f%13.3f\n", ub, reps, tmin, tmax, tavg);
        break;
    default:
        printf("%13ld%13.3f%13.3f%13.3f\n", reps, tmin, tmax, tavg);
        break;
    }
    fflush(stdout);
}

static void usage(FILE *f)
{
    int i;
    fprintf(f,
            "usage: imb [options] [benchmark ...]\n"
            "IMB-style MPI benchmarks (IMB-MPI1 methodology and table format).\n"
            "\n"
            "benchmarks (case-insensitive; default: all, in this order):\n ");
    for (i = 0; i < NBENCH; i++) fprintf(f, " %s", benches[i].name);
    fprintf(f,
            "\n\noptions:\n"
            "  -npmin N              multi-process benchmarks run on N, 2N, 4N, ... and all\n"
            "                        processes (default 2)\n"
            "  -msglog [MIN:]MAX     message sizes 0 and 2^MIN .. 2^MAX bytes (default 0:22)\n"
            "  -iter N[,VOL]         at most N repetitions (default 1000), and repetitions x size\n"
            "                        within VOL MiB (default 40)\n"
            "  -time S               time budget per sample in seconds (default 10)\n"
            "  -off_cache MiB[,LINE] cycle buffers to defeat a cache of MiB (-1: 32 MiB);\n"
            "                        slots aligned to LINE bytes (default 64)\n"
            "  -mem GiB              buffer memory limit per process (default 1); larger\n"
            "                        sizes are skipped\n"
            "  -root_shift 0|1       rotate the root of rooted collectives (default 1)\n"
            "  -check                verify the data of every sample once after timing;\n"
            "                        failures give a non-zero exit status\n"
            "  -check_inject         (testing) corrupt one result value so -check fails\n"
            "  -h, -help             this help\n");
}

/* ------------------------------------------------------------------------- */
/* Argument parsing: 0 ok, 1 help shown, 2 error (message printed by rank 0) */

#define ARG_ERROR(...)                                                                             \
    do {                                                                                           \
        if (world_rank == 0) {                                                                     \
            fprintf(stderr, "imb: " __VA_ARGS__);                                                  \
            fprintf(stderr, "\n(imb -h lists the options)\n");                                     \
        }                                                                                          \
        return 2;                                                                                  \
    } while (0)

static int parse_args(int argc, char **argv)
{
    int i, j, any = 0;
    memset(&opt, 0, sizeof opt);
    opt.npmin = 2;
    opt.msglog_min = 0;
    opt.msglog_max = 22;
    opt.iter = 1000;
    opt.overall_vol = 40.0 * MIB;
    opt.time_budget = 10.0;
    opt.off_cache = 0.0;
    opt.cache_line = SLOT_ALIGN;
    opt.mem_gib = 1.0;
    opt.root_shift = 1;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (a[0] == '-' && a[1] == '-' && a[2] != 0) a++; /* accept --option too */
        if (a[0] != '-') {
            for (j = 0; j < NBENCH; j++)
                if (name_eq(a, benches[j].name)) break;
            if (j == NBENCH) {
                if (world_rank == 0) {
                    int k;
                    fprintf(stderr, "imb: unknown benchmark '%s'\nknown benchmarks:", a);
                    for (k = 0; k < NBENCH; k++) fprintf(stderr, " %s", benches[k].name);
                    fprintf(stderr, "\n");
                }
                return 2;
            }
            opt.selected[j] = 1;
            any = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "-help")) {
            if (world_rank == 0) usage(stdout);
            return 1;
        } else if (!strcmp(a, "-check")) {
            opt.check = 1;
        } else if (!strcmp(a, "-check_inject")) {
            opt.check = 1;
            opt.inject = 1;
        } else if (val == NULL) {
            if (!strcmp(a, "-npmin") || !strcmp(a, "-msglog") || !strcmp(a, "-iter") ||
                !strcmp(a, "-time") || !strcmp(a, "-off_cache") || !strcmp(a, "-mem") ||
                !strcmp(a, "-root_shift"))
                ARG_ERROR("option %s needs a value", a);
            ARG_ERROR("unknown option '%s'", argv[i]);
        } else if (!strcmp(a, "-npmin")) {
            long v;
            if (!parse_long(val, &v) || v < 1 || v > INT_MAX)
                ARG_ERROR("-npmin needs a positive integer, not '%s'", val);
            opt.npmin = (int)v;
            i++;
        } else if (!strcmp(a, "-msglog")) {
            char tmp[64];
            char *colon;
            long lo = 0, hi;
            if (strlen(val) >= sizeof tmp) ARG_ERROR("bad -msglog '%s'", val);
            strcpy(tmp, val);
            colon = strchr(tmp, ':');
            if (colon) {
                *colon = 0;
                if (!parse_long(tmp, &lo) || !parse_long(colon + 1, &hi))
                    ARG_ERROR("bad -msglog '%s' (want [MIN:]MAX)", val);
            } else if (!parse_long(tmp, &hi)) {
                ARG_ERROR("bad -msglog '%s' (want [MIN:]MAX)", val);
            }
            if (lo < 0 || hi < lo || hi > MAX_MSGLOG)
                ARG_ERROR("-msglog needs 0 <= MIN <= MAX <= %d, not '%s'", MAX_MSGLOG, val);
            opt.msglog_min = (int)lo;
            opt.msglog_max = (int)hi;
            i++;
        } else if (!strcmp(a, "-iter")) {
            char tmp[64];
            char *comma;
            long n;
            double vol;
            if (strlen(val) >= sizeof tmp) ARG_ERROR("bad -iter '%s'", val);
            strcpy(tmp, val);
            comma = strchr(tmp, ',');
            if (comma) {
                *comma = 0;
                if (!parse_double(comma + 1, &vol) || vol <= 0)
                    ARG_ERROR("bad -iter volume '%s' (MiB > 0)", comma + 1);
                opt.overall_vol = vol * MIB;
            }
            if (!parse_long(tmp, &n) || n < 1) ARG_ERROR("-iter needs N >= 1, not '%s'", val);
            opt.iter = n;
            i++;
        } else if (!strcmp(a, "-time")) {
            double t;
            if (!parse_double(val, &t) || t < 0) ARG_ERROR("-time needs seconds >= 0, not '%s'", val);
            opt.time_budget = t;
            i++;
        } else if (!strcmp(a, "-off_cache")) {
            char tmp[64];
            char *comma;
            double mib;
            if (strlen(val) >= sizeof tmp) ARG_ERROR("bad -off_cache '%s'", val);
            strcpy(tmp, val);
            comma = strchr(tmp, ',');
            if (comma) {
                long line;
                *comma = 0;
                if (!parse_long(comma + 1, &line) || line < 1 || line > 4096 || (line & (line - 1)))
                    ARG_ERROR("bad -off_cache line size '%s' (power of two <= 4096)", comma + 1);
                opt.cache_line = (int)line;
            }
            if (!parse_double(tmp, &mib) || (mib < 0 && mib != -1))
                ARG_ERROR("-off_cache needs MiB >= 0 or -1, not '%s'", val);
            opt.off_cache = mib == -1 ? 32.0 : mib;
            i++;
        } else if (!strcmp(a, "-mem")) {
            double g;
            if (!parse_double(val, &g) || g <= 0) ARG_ERROR("-mem needs GiB > 0, not '%s'", val);
            opt.mem_gib = g;
            i++;
        } else if (!strcmp(a, "-root_shift")) {
            long v;
            if (!parse_long(val, &v) || (v != 0 && v != 1))
                ARG_ERROR("-root_shift needs 0 or 1, not '%s'", val);
            opt.root_shift = (int)v;
            i++;
        } else {
            ARG_ERROR("unknown option '%s'", argv[i]);
        }
    }
    if (!any)
        for (j = 0; j < NBENCH; j++) opt.selected[j] = 1;
    return 0;
}

static void print_banner(void)
{
    int v = 0, sv = 0, j;
    char date[64];
    time_t now = time(NULL);
    struct tm *tm = gmtime(&now);
    if (tm == NULL || strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", tm) == 0)
        strcpy(date, "unknown");
    MPI_Get_version(&v, &sv);
    printf("%s\n", RULE);
    printf("# IMB-style benchmark (this repository)\n");
    printf("# Method and output format of IMB-MPI1; independent implementation\n");
    printf("%s\n", RULE);
    printf("# Date                  : %s\n", date);
    printf("# MPI version           : %d.%d\n", v, sv);
    printf("# Processes             : %d\n", world_size);
    printf("# Message sizes         : 0, 2^%d .. 2^%d bytes (reductions: MPI_FLOAT, >= 4 bytes)\n",
           opt.msglog_min, opt.msglog_max);
    printf("# Repetitions           : min(%ld, %g MiB / size), within %g s per sample\n", opt.iter,
           opt.overall_vol / MIB, opt.time_budget);
    printf("# Options               : -npmin %d -msglog %d:%d -iter %ld,%g -time %g", opt.npmin,
           opt.msglog_min, opt.msglog_max, opt.iter, opt.overall_vol / MIB, opt.time_budget);
    if (opt.off_cache > 0)
        printf(" -off_cache %g,%d", opt.off_cache, opt.cache_line);
    printf(" -mem %g -root_shift %d%s%s\n", opt.mem_gib, opt.root_shift, opt.check ? " -check" : "",
           opt.inject ? " -check_inject" : "");
    printf("# Off-cache             : %s\n", opt.off_cache > 0 ? "yes" : "no");
    printf("# MB                    : 2^20 bytes; t in usec per iteration (PingPong: one way)\n");
    printf("#\n# List of Benchmarks to run:\n");
    for (j = 0; j < NBENCH; j++)
        if (opt.selected[j]) printf("# %s\n", benches[j].name);
    fflush(stdout);
}

/* ------------------------------------------------------------------------- */
/* Verification (-check): one operation on slot 0 with root np-1.            */

static long check_sample(int id, ctx_t *c)
{
    unsigned char *sb = (unsigned char *)c->sbuf, *rb = (unsigned char *)c->rbuf;
    float *sf = (float *)(void *)c->sbuf, *rf = (float *)(void *)c->rbuf;
    size_t s = c->bytes, q;
    int np = c->np, me = c->rank, R = np - 1, n = c->count;
    int left = (me + np - 1) % np, right = (me + 1) % np;
    long bad = 0;
    unsigned long long ssz, rsz;

    slot_bytes(id, s, np, &ssz, &rsz);
    if (rsz > 0) memset(rb, 0xA5, (size_t)rsz);

    switch (id) {
    case B_PINGPONG: /* rank 0's data goes to 1 and comes back */
        fill8(sb, s, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, s);
        bad += bad8(rb, s, 0, 0);
        break;
    case B_PINGPING:
        fill8(sb, s, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, s);
        bad += bad8(rb, s, 1 - me, 0);
        break;
    case B_SENDRECV:
        fill8(sb, s, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, s);
        bad += bad8(rb, s, left, 0);
        break;
    case B_EXCHANGE:
        fill8(sb, s, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, 2 * s);
        bad += bad8(rb, s, left, 0) + bad8(rb + s, s, right, 0);
        break;
    case B_ALLREDUCE:
        fillf(sf, n, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, s);
        bad += badf(rf, n, np, 0);
        break;
    case B_REDUCE:
        fillf(sf, n, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        if (me == R) {
            inject(c, rb, s);
            bad += badf(rf, n, np, 0);
        }
        break;
    case B_REDUCE_SCATTER: {
        int k, off = 0;
        for (k = 0; k < me; k++) off += c->rcounts[k];
        fillf(sf, n, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, (size_t)c->rcounts[me] * sizeof(float));
        bad += badf(rf, c->rcounts[me], np, off);
        break;
    }
    case B_ALLGATHER:
    case B_ALLGATHERV:
        fill8(sb, s, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, s);
        for (q = 0; q < (size_t)np; q++) bad += bad8(rb + q * s, s, (int)q, 0);
        break;
    case B_GATHER:
    case B_GATHERV:
        fill8(sb, s, me, 0);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        if (me == R) {
            inject(c, rb, s);
            for (q = 0; q < (size_t)np; q++) bad += bad8(rb + q * s, s, (int)q, 0);
        }
        break;
    case B_SCATTER:
    case B_SCATTERV:
        if (me == R)
            for (q = 0; q < (size_t)np; q++) fill8(sb + q * s, s, me, (int)q);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, s);
        bad += bad8(rb, s, R, me);
        break;
    case B_ALLTOALL:
    case B_ALLTOALLV:
        for (q = 0; q < (size_t)np; q++) fill8(sb + q * s, s, me, (int)q);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, rb, s);
        for (q = 0; q < (size_t)np; q++) bad += bad8(rb + q * s, s, (int)q, me);
        break;
    case B_BCAST:
        if (me == R)
            fill8(sb, s, me, 0);
        else
            memset(sb, 0x5A, s);
        benches[id].op(c, (char *)sb, (char *)rb, R);
        inject(c, sb, s);
        bad += bad8(sb, s, R, 0);
        break;
    default: /* Barrier: nothing to verify */
        break;
    }
    return bad;
}

/* ------------------------------------------------------------------------- */
/* Running one benchmark on one process count                               */

static long failures; /* samples whose check failed (identical on all active ranks) */

static double run_loop(const bench_t *b, const ctx_t *c, long first, long n)
{
    long i;
    double t0 = MPI_Wtime();
    for (i = first; i < first + n; i++) {
        long slot = c->nslots > 1 ? i % c->nslots : 0;
        int root = opt.root_shift ? (int)(i % c->np) : 0;
        b->op(c, c->sbuf + (size_t)slot * c->sstride, c->rbuf + (size_t)slot * c->rstride, root);
    }
    return MPI_Wtime() - t0;
}

/* Prepare ctx for message size s; returns 0 ok, or 1 (skip, reason in why). */
static int setup_size(int id, ctx_t *c, size_t s, char *why, size_t whylen)
{
    const bench_t *b = &benches[id];
    unsigned long long ssz, rsz, sst, rst, nslots = 1, need;
    double limit = opt.mem_gib * 1024.0 * MIB;
    int ok, all_ok, q;

    slot_bytes(id, s, c->np, &ssz, &rsz);
    if (ssz > INT_MAX || rsz > INT_MAX) {
        snprintf(why, whylen, "buffer exceeds INT_MAX bytes");
        return 1;
    }
    sst = round_up(ssz, (unsigned long long)opt.cache_line);
    rst = round_up(rsz, (unsigned long long)opt.cache_line);
    if (opt.off_cache > 0 && sst + rst > 0)
        nslots = (unsigned long long)ceil(opt.off_cache * MIB / (double)(sst + rst)) + 1;
    need = nslots * (sst + rst);
    if ((double)need > limit || sst * nslots > (size_t)-1 / 2 || rst * nslots > (size_t)-1 / 2) {
        snprintf(why, whylen, "needs %.1f MiB of buffers per process (-mem %g GiB)",
                 (double)need / MIB, opt.mem_gib);
        return 1;
    }
    ok = ensure(&pool_s, &cap_s, (size_t)(sst * nslots)) && ensure(&pool_r, &cap_r, (size_t)(rst * nslots));
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
    if (!all_ok) {
        snprintf(why, whylen, "out of memory for %.1f MiB of buffers", (double)need / MIB);
        return 1;
    }
    c->bytes = s;
    c->count = b->reduction ? (int)(s / sizeof(float)) : (int)s;
    c->sbuf = pool_s;
    c->rbuf = pool_r;
    c->sstride = (size_t)sst;
    c->rstride = (size_t)rst;
    c->nslots = (long)nslots;
    if (b->reduction) /* defined float data (no NaN/denormal leftovers) */
        memset(c->sbuf, 0, (size_t)(sst * nslots));
    for (q = 0; q < c->np; q++) {
        c->scounts[q] = c->rcounts[q] = c->count;
        c->sdispls[q] = c->rdispls[q] = q * c->count;
    }
    if (id == B_REDUCE_SCATTER)
        for (q = 0; q < c->np; q++)
            c->rcounts[q] = c->count / c->np + (q < c->count % c->np ? 1 : 0);
    return 0;
}

static void run_sample(int id, ctx_t *c, size_t s, double *times)
{
    const bench_t *b = &benches[id];
    long reps_max, reps, npre, first;
    double t_pre, t_est, t, tmin, tmax, tsum;
    int q;

    reps_max = opt.iter;
    if (s > 0 && opt.overall_vol / (double)s < (double)reps_max) {
        reps_max = (long)(opt.overall_vol / (double)s);
        if (reps_max < 1) reps_max = 1;
    }

    /* warm-up, then pre-timing to fit the sample into the time budget */
    run_loop(b, c, 0, 1);
    npre = reps_max / 10;
    if (npre < 1) npre = 1;
    if (npre > 10) npre = 10;
    MPI_Barrier(c->comm);
    t_pre = run_loop(b, c, 1, npre) / (double)npre;
    MPI_Allreduce(&t_pre, &t_est, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    reps = reps_max;
    if (t_est > 0 && opt.time_budget / t_est < (double)reps) {
        reps = (long)(opt.time_budget / t_est);
        if (reps < 1) reps = 1;
    }
    first = 1 + npre;

    MPI_Barrier(c->comm);
    t = run_loop(b, c, first, reps);
    t = t / (double)reps * 1e6;
    if (id == B_PINGPONG) t /= 2;

    MPI_Gather(&t, 1, MPI_DOUBLE, times, 1, MPI_DOUBLE, 0, c->comm);
    if (c->rank == 0) {
        tmin = tmax = times[0];
        tsum = 0;
        for (q = 0; q < c->np; q++) {
            if (times[q] < tmin) tmin = times[q];
            if (times[q] > tmax) tmax = times[q];
            tsum += times[q];
        }
        print_row(id, s, reps, tmin, tmax, tsum / c->np);
    }

    if (opt.check) {
        long bad = check_sample(id, c), allbad = 0;
        MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, c->comm);
        if (allbad != 0) {
            failures++;
            if (c->rank == 0) {
                printf("# CHECK FAILED: %s, %d processes, %lu bytes: %ld wrong values\n",
                       b->name, c->np, (unsigned long)s, allbad);
                fflush(stdout);
                fprintf(stderr, "imb: check failed: %s, %d processes, %lu bytes: %ld wrong values\n",
                        b->name, c->np, (unsigned long)s, allbad);
            }
        }
    }
}

static void run_group(int id, MPI_Comm comm)
{
    const bench_t *b = &benches[id];
    ctx_t c;
    double *times;
    char why[160];
    int k, np;

    memset(&c, 0, sizeof c);
    c.comm = comm;
    MPI_Comm_rank(comm, &c.rank);
    MPI_Comm_size(comm, &c.np);
    np = c.np;
    c.scounts = (int *)malloc(sizeof(int) * (size_t)np);
    c.sdispls = (int *)malloc(sizeof(int) * (size_t)np);
    c.rcounts = (int *)malloc(sizeof(int) * (size_t)np);
    c.rdispls = (int *)malloc(sizeof(int) * (size_t)np);
    times = (double *)malloc(sizeof(double) * (size_t)np);
    if (!c.scounts || !c.sdispls || !c.rcounts || !c.rdispls || !times) {
        fprintf(stderr, "imb: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (c.rank == 0) print_header(id, np);

    if (b->kind == K_BARRIER) {
        if (setup_size(id, &c, 0, why, sizeof why) == 0) run_sample(id, &c, 0, times);
    } else {
        for (k = opt.msglog_min - 1; k <= opt.msglog_max; k++) {
            size_t s = k < opt.msglog_min ? 0 : (size_t)1 << k;
            if (b->reduction && s > 0 && s < sizeof(float)) continue;
            if (setup_size(id, &c, s, why, sizeof why) != 0) {
                if (c.rank == 0) {
                    printf("# #bytes = %lu skipped: %s\n", (unsigned long)s, why);
                    fflush(stdout);
                }
                continue;
            }
            run_sample(id, &c, s, times);
        }
    }
    free(times);
    free(c.scounts);
    free(c.sdispls);
    free(c.rcounts);
    free(c.rdispls);
}

static void run_on(int id, int np)
{
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < np ? 0 : MPI_UNDEFINED, world_rank, &comm);
    if (comm != MPI_COMM_NULL) {
        run_group(id, comm);
        MPI_Comm_free(&comm);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* idle ranks wait here */
}

int main(int argc, char **argv)
{
    int id, rc;
    long all_failures = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    rc = parse_args(argc, argv);
    if (rc != 0) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    if (world_rank == 0) print_banner();

    for (id = 0; id < NBENCH; id++) {
        if (!opt.selected[id]) continue;
        if (benches[id].kind == K_SINGLE) {
            if (world_size < 2) {
                if (world_rank == 0) printf("\n# %s needs 2 processes; skipped\n", benches[id].name);
                continue;
            }
            run_on(id, 2);
        } else {
            int np = opt.npmin < world_size ? opt.npmin : world_size;
            for (; np < world_size; np *= 2) run_on(id, np);
            run_on(id, world_size);
        }
    }

    MPI_Allreduce(&failures, &all_failures, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank == 0) {
        if (opt.check)
            printf("\n# Check: %s\n", all_failures ? "FAILED" : "all results verified");
        printf("\n# All processes entering MPI_Finalize\n");
        fflush(stdout);
    }
    free(pool_s);
    free(pool_r);
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
