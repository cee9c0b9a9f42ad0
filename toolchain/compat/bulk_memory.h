/* memcpy, memmove and memset on WebAssembly's bulk-memory instructions
 * (memcpy.c, memmove.c, memset.c: one function a file, so that a program
 * with its own memcpy still links ours for the others).
 * Debian's wasi-libc (2022) is built without bulk memory, so its memcpy and
 * memset are C loops of 4-byte accesses: 1.7-3x slower than the host's libc
 * from 512 bytes up (4 KiB: 175 ns against 44). `memory.copy` and
 * `memory.fill` reach the host's memmove and memset through one call into
 * the engine (2-3 ns more than a short loop; bounds checked there, and out
 * of bounds traps before anything is written, as the instructions are
 * specified), so from BULK_MIN bytes on they are used; shorter blocks are
 * copied here in 8-byte words, where the call would cost more than the
 * copy (64-127 bytes: up to 2x the host's 32-byte AVX moves). No SIMD: the
 * library must suit modules built with -mno-simd128 (Singlepass) too.
 * no_builtin keeps clang from turning these loops back into calls of
 * themselves. */
#ifndef WASM_MPI_BULK_MEMORY_H
#define WASM_MPI_BULK_MEMORY_H
#include <stddef.h>
#include <stdint.h>

#define BULK_MIN 128
#define BULK __attribute__((target("bulk-memory"), no_builtin))
/* always inlined into the BULK functions: on their own, the word loops
 * could become calls of memcpy and memset again */
#define WORDS static inline __attribute__((always_inline, no_builtin))

typedef uint64_t __attribute__((__may_alias__, __aligned__(1))) word64;
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) word32;

WORDS uint64_t load64(const unsigned char *p) { return *(const word64 *)p; }
WORDS void store64(unsigned char *p, uint64_t v) { *(word64 *)p = v; }

WORDS void copy32(unsigned char *d, const unsigned char *s) {
    uint64_t a = load64(s), b = load64(s + 8), c = load64(s + 16), e = load64(s + 24);
    store64(d, a), store64(d + 8, b), store64(d + 16, c), store64(d + 24, e);
}

/* n < BULK_MIN bytes, the blocks not overlapping: 32 bytes a step (half
 * the time of 8 for 64-byte blocks), then the last 32, 8 or 4 bytes again
 * from their end, overlapping what was copied already. */
WORDS void copy_short(unsigned char *d, const unsigned char *s, size_t n) {
    if (n >= 32) {
        for (size_t i = 0; i < n - 32; i += 32)
            copy32(d + i, s + i);
        copy32(d + n - 32, s + n - 32);
    } else if (n >= 8) {
        for (size_t i = 0; i < n - 8; i += 8)
            store64(d + i, load64(s + i));
        store64(d + n - 8, load64(s + n - 8));
    } else if (n >= 4) {
        uint32_t first = *(const word32 *)s, last = *(const word32 *)(s + n - 4);
        *(word32 *)d = first;
        *(word32 *)(d + n - 4) = last;
    } else if (n) {
        unsigned char first = s[0], mid = s[n / 2], last = s[n - 1];
        d[0] = first;
        d[n / 2] = mid;
        d[n - 1] = last;
    }
}
#endif
