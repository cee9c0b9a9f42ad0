/* Karmem node-shared regions (mpi-header/karmem.h), wasm only, over the
 * node communicator (MPI_Comm_split_type SHARED) of MPI_COMM_WORLD.
 * tests/e2e/test_karmem.py runs one mode per job and compares what the
 * ranks print with values it computes itself:
 *
 *   policies            PARTITIONED, OWNED and READ_ONLY round trips and
 *                       every header field; lines "RANK WHAT key=value ..."
 *   malloc              thousands of mallocs after a region is mapped, after
 *                       the heap grew, after close + reopen: never in a
 *                       region, and nothing written is lost;
 *                       lines "RANK malloc SCENARIO key=value ..."
 *   forbid CASE         one rank stores where its region's policy forbids
 *                       (readonly-reader, readonly-writer, partitioned,
 *                       owned, header); it prints "RANK store ADDRESS" first,
 *                       and nobody may print "not reached"
 *   args                bad arguments: one line "RANK CASE ERROR_CLASS"
 *                       each (every rank), then "RANK done"
 *   hold NAME           opens two regions named NAME-..., prints "mapped
 *                       RANK" and waits forever in MPI_Recv (for a kill)
 *
 * Integers only, sums modulo 2^64: no order of summation changes a digit. */
#include <mpi.h>
#include <karmem.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_class.h"

#define PAGE 4096u

static int me, nranks, wrank;
static MPI_Comm node;

#define CHECK(call) CHECK_OK(call)


static unsigned rnd_state;
static unsigned rnd(void) {
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

static void setup(int *argc, char ***argv) {
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &nranks);
}

/* The region's whole extent in this rank's memory: header page + data. */
static void extent(karmem_region r, uintptr_t *lo, uintptr_t *hi) {
    const struct karmem_region_header *h = karmem_header(r);
    void *data;
    size_t size;
    CHECK(karmem_data(r, &data, &size));
    *lo = (uintptr_t)h;
    size_t len = h->slice_stride ? size : (size + PAGE - 1) / PAGE * PAGE;
    *hi = (uintptr_t)data + len;
}

static int all_zero(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

static void header_line(const char *what, karmem_region r, const void *data) {
    const struct karmem_region_header *h = karmem_header(r);
    printf("%d %s name=%s policy=%u magic=%s version=%u data_offset=%u data_at_offset=%s size=%u stride=%u ranks=%u "
           "epoch=%" PRIu64 " owner=%d\n",
           me, what, h->name, h->policy, h->magic == KARMEM_REGION_MAGIC ? "ok" : "bad", h->version, h->data_offset,
           (const char *)h + h->data_offset == (const char *)data ? "yes" : "no", h->size, h->slice_stride, h->ranks,
           h->epoch, h->owner);
}

/* ------------------------------------------------------------ policies */

#define PART_BYTES 5000u /* not a page multiple: slices are page-strided */
#define PART_N (PART_BYTES / 4)

static void partitioned(void) {
    karmem_region r;
    CHECK(karmem_open(node, "parts", PART_BYTES, KARMEM_PARTITIONED, &r));
    void *data;
    size_t total;
    CHECK(karmem_data(r, &data, &total));
    int zero = all_zero(data, total);
    MPI_Barrier(node); /* everyone looked at the zero fill before anyone writes */
    uint32_t *mine;
    size_t sz;
    CHECK(karmem_slice(r, me, (void **)&mine, &sz));
    for (uint32_t i = 0; i < PART_N; i++) mine[i] = (uint32_t)me * 100003u + i * 7u;
    uint64_t epoch0 = karmem_header(r)->epoch;
    CHECK(karmem_publish(r));
    uint64_t sum = 0;
    int strided = 1;
    for (int k = 0; k < nranks; k++) {
        uint32_t *s;
        size_t n;
        CHECK(karmem_slice(r, k, (void **)&s, &n));
        if ((char *)s != (char *)data + (size_t)k * karmem_header(r)->slice_stride || n != PART_BYTES) strided = 0;
        for (uint32_t i = 0; i < PART_N; i++) sum += s[i];
    }
    printf("%d partitioned sum=%" PRIu64 " total=%zu slice=%zu zero=%s strided=%s epoch0=%" PRIu64 "\n", me, sum,
           total, sz, zero ? "yes" : "no", strided ? "yes" : "no", epoch0);
    header_line("partitioned-header", r, data);
    CHECK(karmem_close(&r));
    printf("%d partitioned closed=%s\n", me, r == KARMEM_REGION_NULL ? "yes" : "no");
}

static uint32_t relay_value(int k) { return (uint32_t)(k * k + 17 * k + 3); }

static void owned(void) {
    karmem_region r;
    CHECK(karmem_open(node, "relay", 4096, KARMEM_OWNED, &r));
    uint32_t *d;
    size_t sz;
    CHECK(karmem_data(r, (void **)&d, &sz));
    char owners[256] = "", seen[256] = "";
    int initial = karmem_header(r)->owner;
    for (int k = 0; k < nranks; k++) {
        /* the owner (rank k) appends one entry */
        if (me == k) {
            uint32_t count = d[0];
            d[1 + count] = relay_value(k) + count;
            d[0] = count + 1;
        }
        CHECK(karmem_pass(r, (k + 1) % nranks));
        snprintf(owners + strlen(owners), sizeof owners - strlen(owners), "%s%d", k ? "," : "",
                 karmem_header(r)->owner);
        snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s%u", k ? "," : "", d[0]);
        MPI_Barrier(node); /* all have read before the new owner appends */
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < d[0]; i++) sum += d[1 + i];
    uint64_t epoch0 = karmem_header(r)->epoch;
    CHECK(karmem_publish(r));
    printf("%d owned initial=%d owners=%s counts=%s count=%u sum=%" PRIu64 " epoch0=%" PRIu64 " size=%zu\n", me,
           initial, owners, seen, d[0], sum, epoch0, sz);
    header_line("owned-header", r, d);
    CHECK(karmem_close(&r));
}

#define FAN_BYTES 3000u
#define FAN_N (FAN_BYTES / 4)

static void read_only(void) {
    karmem_region r;
    CHECK(karmem_open(node, "fanout", FAN_BYTES, KARMEM_READ_ONLY, &r));
    uint32_t *d;
    size_t sz;
    CHECK(karmem_data(r, (void **)&d, &sz));
    if (me == 0)
        for (uint32_t i = 0; i < FAN_N; i++) d[i] = i * 3u + 1u;
    CHECK(karmem_publish(r));
    uint64_t sum1 = 0, sum2 = 0;
    for (uint32_t i = 0; i < FAN_N; i++) sum1 += d[i];
    uint64_t epoch1 = karmem_header(r)->epoch;
    CHECK(karmem_acquire(r));
    if (me == 0)
        for (uint32_t i = 0; i < FAN_N; i++) d[i] = d[i] * 2u + 5u;
    CHECK(karmem_publish(r));
    for (uint32_t i = 0; i < FAN_N; i++) sum2 += d[i];
    printf("%d readonly sum1=%" PRIu64 " epoch1=%" PRIu64 " sum2=%" PRIu64 " size=%zu\n", me, sum1, epoch1, sum2, sz);
    header_line("readonly-header", r, d);
    CHECK(karmem_close(&r));
}

/* -------------------------------------------------------------- malloc */

#define NALLOC 3000

struct range {
    uintptr_t lo, hi;
};

/* Thousands of mallocs of varied sizes (one in ten over 64 KiB), each
 * filled; a third freed again along the way. Counts the blocks that meet
 * any of `avoid`, and the live blocks whose fill changed. */
static void heavy_malloc(const char *scenario, const struct range *avoid, int navoid) {
    static unsigned char *blocks[NALLOC];
    static size_t sizes[NALLOC];
    int overlaps = 0, big = 0, made = 0, corrupt = 0;
    rnd_state = 12345u + (unsigned)me * 77u;
    for (int i = 0; i < NALLOC; i++) {
        size_t n = rnd() % 10 == 0 ? 65537 + rnd() % 300000 : 1 + rnd() % 4096;
        unsigned char *p = malloc(n);
        if (!p) {
            fprintf(stderr, "%d: malloc(%zu) failed\n", me, n);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        made++;
        big += n > 65536;
        for (int a = 0; a < navoid; a++)
            if ((uintptr_t)p < avoid[a].hi && (uintptr_t)p + n > avoid[a].lo) {
                overlaps++;
                fprintf(stderr, "%d: malloc(%zu) = %p inside [%#" PRIxPTR ", %#" PRIxPTR ")\n", me, n, (void *)p,
                        avoid[a].lo, avoid[a].hi);
            }
        memset(p, i & 0xff, n);
        blocks[i] = p;
        sizes[i] = n;
        if (i % 3 == 2) { /* free an earlier one */
            int j = (int)(rnd() % (unsigned)i);
            free(blocks[j]);
            blocks[j] = NULL;
        }
    }
    for (int i = 0; i < NALLOC; i++) {
        if (!blocks[i]) continue;
        if (blocks[i][0] != (i & 0xff) || blocks[i][sizes[i] - 1] != (i & 0xff)) corrupt++;
        free(blocks[i]);
        blocks[i] = NULL;
    }
    printf("%d malloc %s mallocs=%d big=%d overlaps=%d", me, scenario, made, big, overlaps);
    if (corrupt) printf(" corrupt-blocks=%d", corrupt);
}

static uint32_t pattern(int rank, uint32_t i) { return (uint32_t)rank * 2654435761u ^ (i * 40503u + 11u); }

/* every rank's slice of `r` holds its pattern */
static int slices_intact(karmem_region r, uint32_t n) {
    int ok = 1;
    for (int k = 0; k < nranks; k++) {
        uint32_t *s;
        size_t sz;
        CHECK(karmem_slice(r, k, (void **)&s, &sz));
        for (uint32_t i = 0; i < n; i++)
            if (s[i] != pattern(k, i)) ok = 0;
    }
    return ok;
}

#define MAP_BYTES 200000u /* > 64 KiB per slice */
#define MAP_N (MAP_BYTES / 4)

static void malloc_after_mapping(void) {
    karmem_region r;
    CHECK(karmem_open(node, "heap-a", MAP_BYTES, KARMEM_PARTITIONED, &r));
    uint32_t *mine;
    size_t sz;
    CHECK(karmem_slice(r, me, (void **)&mine, &sz));
    for (uint32_t i = 0; i < MAP_N; i++) mine[i] = pattern(me, i);
    struct range ext;
    extent(r, &ext.lo, &ext.hi);
    heavy_malloc("mapped", &ext, 1);
    CHECK(karmem_publish(r));
    printf(" intact=%s\n", slices_intact(r, MAP_N) ? "yes" : "no");
    CHECK(karmem_close(&r));
}

#define GROWN_BLOCKS 40
#define GROWN_BYTES (1u << 20)

static void malloc_after_growth(void) {
    /* the heap grows first (40 MiB, filled), then a region is mapped */
    static unsigned char *early[GROWN_BLOCKS];
    for (int i = 0; i < GROWN_BLOCKS; i++) {
        early[i] = malloc(GROWN_BYTES);
        if (!early[i]) MPI_Abort(MPI_COMM_WORLD, 4);
        memset(early[i], 0x5a ^ i, GROWN_BYTES);
    }
    karmem_region r;
    CHECK(karmem_open(node, "heap-b", 70000, KARMEM_READ_ONLY, &r));
    uint32_t *d;
    size_t sz;
    CHECK(karmem_data(r, (void **)&d, &sz));
    struct range ext;
    extent(r, &ext.lo, &ext.hi);
    /* the region is not in the heap already handed out, and the heap kept its bytes */
    int early_ok = 1, early_overlap = 0;
    for (int i = 0; i < GROWN_BLOCKS; i++) {
        if ((uintptr_t)early[i] < ext.hi && (uintptr_t)early[i] + GROWN_BYTES > ext.lo) early_overlap++;
        for (size_t j = 0; j < GROWN_BYTES; j += 512)
            if (early[i][j] != (0x5a ^ i)) early_ok = 0;
    }
    if (me == 0)
        for (uint32_t i = 0; i < 70000 / 4; i++) d[i] = pattern(7, i);
    heavy_malloc("grown", &ext, 1);
    CHECK(karmem_publish(r));
    int ok = 1;
    for (uint32_t i = 0; i < 70000 / 4; i++)
        if (d[i] != pattern(7, i)) ok = 0;
    for (int i = 0; i < GROWN_BLOCKS; i++) {
        if (early[i][GROWN_BYTES - 1] != (0x5a ^ i)) early_ok = 0;
        free(early[i]);
    }
    printf(" intact=%s early-overlaps=%d early-intact=%s\n", ok ? "yes" : "no", early_overlap,
           early_ok ? "yes" : "no");
    CHECK(karmem_close(&r));
}

static void malloc_after_reopen(void) {
    karmem_region r;
    CHECK(karmem_open(node, "heap-c1", MAP_BYTES, KARMEM_PARTITIONED, &r));
    struct range old;
    extent(r, &old.lo, &old.hi);
    uint32_t *mine;
    size_t sz;
    CHECK(karmem_slice(r, me, (void **)&mine, &sz));
    for (uint32_t i = 0; i < MAP_N; i++) mine[i] = 0xdeadbeefu;
    CHECK(karmem_close(&r));
    /* the same size again: the closed region's pages */
    CHECK(karmem_open(node, "heap-c2", MAP_BYTES, KARMEM_PARTITIONED, &r));
    struct range now;
    extent(r, &now.lo, &now.hi);
    void *data;
    size_t total;
    CHECK(karmem_data(r, &data, &total));
    int zero = all_zero(data, total);
    MPI_Barrier(node);
    CHECK(karmem_slice(r, me, (void **)&mine, &sz));
    for (uint32_t i = 0; i < MAP_N; i++) mine[i] = pattern(me, i);
    struct range avoid[2] = {old, now};
    heavy_malloc("reopened", avoid, 2);
    CHECK(karmem_publish(r));
    printf(" intact=%s reused=%s zero=%s name=%s\n", slices_intact(r, MAP_N) ? "yes" : "no",
           old.lo == now.lo && old.hi == now.hi ? "yes" : "no", zero ? "yes" : "no", karmem_header(r)->name);
    CHECK(karmem_close(&r));
}

/* -------------------------------------------------------------- forbid */

static void store_at(volatile uint32_t *p) {
    printf("%d store %#" PRIxPTR "\n", me, (uintptr_t)p);
    fflush(stdout);
    *p = 0xbad;
}

static void forbid(const char *what) {
    int victim = 1; /* the rank that stores where it may not */
    karmem_region r;
    void *data;
    size_t sz;
    if (!strcmp(what, "readonly-reader") || !strcmp(what, "readonly-writer")) {
        CHECK(karmem_open(node, "fan-forbid", 4096, KARMEM_READ_ONLY, &r));
        CHECK(karmem_data(r, &data, &sz));
        if (me == 0) ((uint32_t *)data)[0] = 42;
        CHECK(karmem_publish(r));
        if (!strcmp(what, "readonly-writer")) victim = 0; /* after publish, without acquire */
        if (me == victim) store_at((uint32_t *)data + 5);
    } else if (!strcmp(what, "readonly-bulk")) {
        /* the same store by memset: from 128 bytes on the engine's
         * memory.fill writes, in host code */
        CHECK(karmem_open(node, "bulk-forbid", 4096, KARMEM_READ_ONLY, &r));
        CHECK(karmem_data(r, &data, &sz));
        CHECK(karmem_publish(r));
        if (me == victim) {
            printf("%d store %#" PRIxPTR "\n", me, (uintptr_t)data);
            fflush(stdout);
            memset(data, 7, 1024);
        }
    } else if (!strcmp(what, "partitioned")) {
        CHECK(karmem_open(node, "part-forbid", 4096, KARMEM_PARTITIONED, &r));
        void *mine, *next;
        CHECK(karmem_slice(r, me, &mine, &sz));
        ((uint32_t *)mine)[0] = 1; /* its own: fine */
        CHECK(karmem_slice(r, (me + 1) % nranks, &next, &sz));
        if (me == victim) store_at((uint32_t *)next + 3);
    } else if (!strcmp(what, "owned")) {
        CHECK(karmem_open(node, "owned-forbid", 4096, KARMEM_OWNED, &r));
        CHECK(karmem_data(r, &data, &sz));
        if (me == 0) ((uint32_t *)data)[0] = 1; /* the owner: fine */
        CHECK(karmem_pass(r, 0));
        if (me == victim) store_at((uint32_t *)data + 9);
    } else if (!strcmp(what, "header")) {
        CHECK(karmem_open(node, "header-forbid", 4096, KARMEM_PARTITIONED, &r));
        const struct karmem_region_header *h = karmem_header(r);
        if (me == victim) store_at((volatile uint32_t *)&h->owner);
    } else {
        fprintf(stderr, "unknown case %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    /* the others wait for the victim, which never comes */
    MPI_Barrier(node);
    printf("%d not reached\n", me);
    fflush(stdout);
    karmem_close(&r);
}

/* ---------------------------------------------------------------- args */

static void expect(const char *what, int rc) { printf("%d %s %s\n", me, what, error_class_name(rc)); }

static void args(void) {
    void *p = NULL;
    size_t sz = 0;
    karmem_region bad = 0x4711;
    int rc;

    expect("data on an invalid region", karmem_data(bad, &p, &sz));
    expect("data on KARMEM_REGION_NULL", karmem_data(KARMEM_REGION_NULL, &p, &sz));
    expect("slice on an invalid region", karmem_slice(bad, 0, &p, &sz));
    printf("%d header on an invalid region %s\n", me, karmem_header(bad) == NULL ? "NULL" : "not NULL");
    expect("publish on an invalid region", karmem_publish(bad));
    expect("acquire on an invalid region", karmem_acquire(bad));
    expect("pass on an invalid region", karmem_pass(bad, 0));
    karmem_region b2 = bad;
    expect("close on an invalid region", karmem_close(&b2));

    karmem_region r = 0x77;
    expect("open with policy 0", karmem_open(node, "p0", 4096, 0, &r));
    expect("open with policy 7", karmem_open(node, "p7", 4096, 7, &r));
    printf("%d region after the refused opens %s\n", me, r == 0x77 ? "unchanged" : "changed");

    char name[80];
    memset(name, 'n', sizeof name);
    name[KARMEM_MAX_NAME + 1] = 0; /* 64 bytes */
    expect("open with a 64-byte name", karmem_open(node, name, 4096, KARMEM_OWNED, &r));
    name[KARMEM_MAX_NAME] = 0; /* 63 bytes: the longest allowed */
    rc = karmem_open(node, name, 4096, KARMEM_OWNED, &r);
    expect("open with a 63-byte name", rc);
    if (rc == MPI_SUCCESS) {
        printf("%d 63-byte name kept %s\n", me, strcmp(karmem_header(r)->name, name) ? "no" : "yes");
        expect("slice on an owned region", karmem_slice(r, 0, &p, &sz));
        expect("pass to rank -1", karmem_pass(r, -1));
        expect("pass to rank size", karmem_pass(r, nranks));
        expect("pass to the last rank", karmem_pass(r, nranks - 1));
        printf("%d owner after the bad passes %d\n", me, karmem_header(r)->owner);
        expect("close the owned region", karmem_close(&r));
        printf("%d handle after close %s\n", me, r == KARMEM_REGION_NULL ? "KARMEM_REGION_NULL" : "not null");
        expect("data after close", karmem_data(r, &p, &sz));
    }

    expect("open on MPI_COMM_NULL", karmem_open(MPI_COMM_NULL, "nullcomm", 4096, KARMEM_OWNED, &r));
    expect("open with a name past the memory", karmem_open(node, (const char *)0xfffffff0u, 4096, KARMEM_OWNED, &r));
    expect("open with the region past the memory",
           karmem_open(node, "far", 4096, KARMEM_OWNED, (karmem_region *)0xfffffffeu));
    expect("open larger than the guest memory", karmem_open(node, "huge", 0xfffff000u, KARMEM_READ_ONLY, &r));
    /* the ranks must agree on what they open: else one rank's slice would
     * be where another thinks its own is */
    expect("open with sizes that differ between ranks",
           karmem_open(node, "mismatch", me ? 4096 : 3 * 4096, KARMEM_PARTITIONED, &r));
    expect("open with policies that differ between ranks",
           karmem_open(node, "mismatch", 4096, me ? KARMEM_READ_ONLY : KARMEM_PARTITIONED, &r));
    expect("open with names that differ between ranks", karmem_open(node, me ? "a" : "b", 4096, KARMEM_OWNED, &r));

    rc = karmem_open(node, "ro-args", 4096, KARMEM_READ_ONLY, &r);
    expect("open read-only", rc);
    if (rc == MPI_SUCCESS) {
        expect("slice on a read-only region", karmem_slice(r, 0, &p, &sz));
        expect("pass on a read-only region", karmem_pass(r, 0));
        expect("data with the size past the memory", karmem_data(r, &p, (size_t *)0xfffffffeu));
        CHECK(karmem_close(&r));
    }

    rc = karmem_open(node, "part-args", 4096, KARMEM_PARTITIONED, &r);
    expect("open partitioned", rc);
    if (rc == MPI_SUCCESS) {
        expect("slice of rank -1", karmem_slice(r, -1, &p, &sz));
        expect("slice of rank size", karmem_slice(r, nranks, &p, &sz));
        expect("slice with the base past the memory", karmem_slice(r, 0, (void **)0xfffffffeu, &sz));
        /* the region still works after all that */
        uint32_t *mine;
        CHECK(karmem_slice(r, me, (void **)&mine, &sz));
        mine[0] = (uint32_t)me + 1;
        CHECK(karmem_publish(r));
        uint32_t sum = 0;
        for (int k = 0; k < nranks; k++) {
            uint32_t *s;
            CHECK(karmem_slice(r, k, (void **)&s, &sz));
            sum += s[0];
        }
        printf("%d valid region after the errors sum %u\n", me, sum);
        CHECK(karmem_close(&r));
    }
    printf("%d done\n", me);
}

/* ---------------------------------------------------------------- hold */

static void hold(const char *tag) {
    char n1[64], n2[64];
    snprintf(n1, sizeof n1, "%s-parts", tag);
    snprintf(n2, sizeof n2, "%s-fan", tag);
    karmem_region a, b;
    CHECK(karmem_open(node, n1, 100000, KARMEM_PARTITIONED, &a));
    CHECK(karmem_open(node, n2, 100000, KARMEM_READ_ONLY, &b));
    uint32_t *mine;
    size_t sz;
    CHECK(karmem_slice(a, me, (void **)&mine, &sz));
    mine[0] = 1;
    printf("mapped %d\n", wrank);
    fflush(stdout);
    int x;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never sent */
    printf("%d not reached\n", wrank);
}

int main(int argc, char **argv) {
    setup(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "policies";
    if (!strcmp(mode, "policies")) {
        partitioned();
        owned();
        read_only();
    } else if (!strcmp(mode, "malloc")) {
        malloc_after_mapping();
        malloc_after_growth();
        malloc_after_reopen();
    } else if (!strcmp(mode, "forbid") && argc > 2) {
        forbid(argv[2]);
    } else if (!strcmp(mode, "args")) {
        args(); /* every rank: the collective cases need them all */
    } else if (!strcmp(mode, "hold") && argc > 2) {
        hold(argv[2]);
    } else {
        fprintf(stderr, "usage: %s [policies|malloc|forbid CASE|args|hold NAME]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
