#include "bulk_memory.h"

BULK void *memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    if (n >= BULK_MIN) {
        __builtin_memset(dst, c, n); /* memory.fill */
        return dst;
    }
    uint64_t v = (uint8_t)c * 0x0101010101010101ull;
    if (n >= 32) {
        for (size_t i = 0; i < n - 32; i += 32)
            store64(d + i, v), store64(d + i + 8, v), store64(d + i + 16, v), store64(d + i + 24, v);
        store64(d + n - 32, v), store64(d + n - 24, v), store64(d + n - 16, v), store64(d + n - 8, v);
    } else if (n >= 8) {
        for (size_t i = 0; i < n - 8; i += 8)
            store64(d + i, v);
        store64(d + n - 8, v);
    } else if (n >= 4) {
        *(word32 *)d = (uint32_t)v;
        *(word32 *)(d + n - 4) = (uint32_t)v;
    } else if (n) {
        d[0] = d[n / 2] = d[n - 1] = (unsigned char)c;
    }
    return dst;
}
