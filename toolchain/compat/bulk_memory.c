/* memcpy, memmove and memset on WebAssembly's bulk-memory instructions.
 * Debian's wasi-libc (2022) is built without bulk memory, so its memcpy and
 * memset are C loops of 4-byte accesses: 1.7-3x slower than the host's libc
 * from 512 bytes up (4 KiB: 175 ns against 44). `memory.copy` and
 * `memory.fill` reach the host's memmove and memset through one call into
 * the engine (about 4 ns, bounds checked there; out of bounds traps before
 * anything is written, as the instructions are specified), so from BULK_MIN
 * bytes on they are used; shorter blocks are copied here in 8-byte words,
 * where the call would cost more than the copy. No SIMD: the library must
 * suit modules built with -mno-simd128 (Singlepass) too. no_builtin keeps
 * clang from turning these loops back into calls of themselves. */
#include <stddef.h>
#include <stdint.h>

#define BULK_MIN 128
#define BULK __attribute__((target("bulk-memory"), no_builtin))

typedef uint64_t __attribute__((__may_alias__, __aligned__(1))) word64;
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) word32;

/* n < BULK_MIN bytes, the blocks not overlapping: every load of a block's
 * last word comes before any store, the rest goes word by word. */
static inline void copy_short(unsigned char *d, const unsigned char *s, size_t n) {
    if (n >= 8) {
        uint64_t last = *(const word64 *)(s + n - 8);
        for (size_t i = 0; i < n - 8; i += 8)
            *(word64 *)(d + i) = *(const word64 *)(s + i);
        *(word64 *)(d + n - 8) = last;
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

BULK void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    if (n >= BULK_MIN)
        __builtin_memcpy(dst, src, n); /* memory.copy */
    else
        copy_short(dst, src, n);
    return dst;
}

BULK void *memmove(void *dst, const void *src, size_t n) {
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    /* memory.copy is memmove: overlapping short blocks go there too */
    if (n >= BULK_MIN || d - s < n || s - d < n)
        __builtin_memmove(dst, src, n);
    else
        copy_short(dst, src, n);
    return dst;
}

BULK void *memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    if (n >= BULK_MIN) {
        __builtin_memset(dst, c, n); /* memory.fill */
        return dst;
    }
    uint64_t v = (uint8_t)c * 0x0101010101010101ull;
    if (n >= 8) {
        for (size_t i = 0; i < n - 8; i += 8)
            *(word64 *)(d + i) = v;
        *(word64 *)(d + n - 8) = v;
    } else if (n >= 4) {
        *(word32 *)d = (uint32_t)v;
        *(word32 *)(d + n - 4) = (uint32_t)v;
    } else if (n) {
        d[0] = d[n / 2] = d[n - 1] = (unsigned char)c;
    }
    return dst;
}
