/* memcpy, memmove and memset (the toolchain's compat/memcpy.c, memmove.c,
 * memset.c as wasm, the host libc natively) against byte-by-byte
 * references: every length up to 300 at every pair of alignments mod 8,
 * then lengths around the word and bulk thresholds up to 100000; memmove
 * at every overlap shift in -20..20 and farther; bytes around each block
 * must not change.
 *   memory_ops              one line per function: cases checked, failures
 *   memory_ops oob-copy N   (wasm) memcpy of N bytes from N/2 before the end
 *                           of memory (N up to SIZE_MAX: `at` wraps)
 *   memory_ops oob-fill N   (wasm) memset of the same
 *   memory_ops oob-move N   (wasm) memmove of N bytes from the end of memory */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 16
#define BIG (100000 + 2 * GUARD + 64)

/* through pointers the compiler cannot see through: the library's
 * functions run, not inlined expansions */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
static void *(*volatile move_fn)(void *, const void *, size_t) = memmove;
static void *(*volatile set_fn)(void *, int, size_t) = memset;

static unsigned char src[BIG], dst[BIG], snap[BIG], expect[BIG];
static unsigned seed = 12345;

/* volatile byte accesses: no reference loop becomes a call of the code
 * under test */
static void fill_random(unsigned char *p, size_t n) {
    volatile unsigned char *v = p;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = (unsigned char)(seed >> 16);
    }
}

static void byte_copy(unsigned char *d, const unsigned char *s, size_t n) {
    volatile unsigned char *vd = d;
    const volatile unsigned char *vs = s;
    for (size_t i = 0; i < n; i++) vd[i] = vs[i];
}

static int same(const unsigned char *a, const unsigned char *b, size_t n) {
    const volatile unsigned char *va = a, *vb = b;
    for (size_t i = 0; i < n; i++)
        if (va[i] != vb[i]) return 0;
    return 1;
}

static const size_t LONG_SIZES[] = {319, 320, 383, 384, 511, 512, 513, 1023, 1024, 4095, 4096, 4099, 65536 + 5, 100000};
#define NLONG (sizeof LONG_SIZES / sizeof LONG_SIZES[0])

static long checked[3], failed[3];

static void check_copy(size_t n, size_t sa, size_t da) {
    fill_random(src, n + 2 * GUARD + 8);
    fill_random(dst, n + 2 * GUARD + 8);
    byte_copy(expect, dst, n + 2 * GUARD + 8);
    byte_copy(expect + GUARD + da, src + GUARD + sa, n);
    void *r = copy_fn(dst + GUARD + da, src + GUARD + sa, n);
    checked[0]++;
    if (r != dst + GUARD + da || !same(dst, expect, n + 2 * GUARD + 8)) {
        if (failed[0]++ < 5) printf("memcpy failed: n %zu src+%zu dst+%zu\n", n, sa, da);
    }
}

static void check_move(size_t n, size_t at, long shift) {
    size_t span = n + 2 * GUARD + 2 * 300;
    fill_random(dst, span);
    byte_copy(snap, dst, span);
    byte_copy(expect, dst, span);
    size_t from = at + 300 + GUARD, to = from + shift;
    byte_copy(expect + to, snap + from, n);
    void *r = move_fn(dst + to, dst + from, n);
    checked[1]++;
    if (r != dst + to || !same(dst, expect, span)) {
        if (failed[1]++ < 5) printf("memmove failed: n %zu shift %ld\n", n, shift);
    }
}

static void check_set(size_t n, size_t da, int c) {
    fill_random(dst, n + 2 * GUARD + 8);
    byte_copy(expect, dst, n + 2 * GUARD + 8);
    volatile unsigned char *e = expect + GUARD + da;
    for (size_t i = 0; i < n; i++) e[i] = (unsigned char)c;
    void *r = set_fn(dst + GUARD + da, c, n);
    checked[2]++;
    if (r != dst + GUARD + da || !same(dst, expect, n + 2 * GUARD + 8)) {
        if (failed[2]++ < 5) printf("memset failed: n %zu dst+%zu c %d\n", n, da, c);
    }
}

static int out_of_bounds(const char *what, size_t n) {
#ifdef __wasm__
    /* in address arithmetic: a huge n wraps `at` around the 32-bit space */
    uintptr_t end = __builtin_wasm_memory_size(0) * 65536;
    unsigned char *at = (unsigned char *)(end - n / 2);
    printf("%s of %zu bytes from %zu before the end of memory\n", what, n, n / 2);
    fflush(stdout);
    if (!strcmp(what, "oob-copy"))
        copy_fn(at, src, n);
    else if (!strcmp(what, "oob-fill"))
        set_fn(at, 0x5a, n);
    else
        move_fn(src, at, n);
    printf("survived\n");
    return 0;
#else
    (void)what, (void)n;
    fprintf(stderr, "the out-of-bounds modes are for the wasm build\n");
    return 2;
#endif
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc > 2) {
        int rc = out_of_bounds(argv[1], (size_t)strtoull(argv[2], NULL, 10));
        MPI_Finalize();
        return rc;
    }
    static const int VALUES[] = {0, 0x5a, 0xff, 0x1a5, -1};
    for (size_t n = 0; n <= 300; n++)
        for (size_t a = 0; a < 8; a++)
            for (size_t b = 0; b < 8; b++) check_copy(n, a, b);
    for (size_t i = 0; i < NLONG; i++)
        for (size_t a = 0; a < 8; a += 3)
            for (size_t b = 0; b < 8; b += 5) check_copy(LONG_SIZES[i], a, b);
    for (size_t n = 0; n <= 300; n++)
        for (long s = -20; s <= 20; s++) check_move(n, n % 8, s);
    for (size_t i = 0; i < NLONG; i++) {
        static const long SHIFTS[] = {-300, -129, -8, -1, 0, 1, 7, 128, 300};
        for (size_t s = 0; s < sizeof SHIFTS / sizeof SHIFTS[0]; s++)
            if (LONG_SIZES[i] < 5000) check_move(LONG_SIZES[i], 3, SHIFTS[s]);
    }
    for (size_t n = 0; n <= 300; n++)
        for (size_t a = 0; a < 8; a++)
            for (size_t v = 0; v < 5; v++) check_set(n, a, VALUES[v]);
    for (size_t i = 0; i < NLONG; i++)
        for (size_t v = 0; v < 5; v++) check_set(LONG_SIZES[i], 5, VALUES[v]);
    printf("memcpy checked %ld failed %ld\n", checked[0], failed[0]);
    printf("memmove checked %ld failed %ld\n", checked[1], failed[1]);
    printf("memset checked %ld failed %ld\n", checked[2], failed[2]);
    MPI_Finalize();
    return failed[0] || failed[1] || failed[2];
}
