#include "bulk_memory.h"

BULK void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    if (n >= BULK_MIN)
        __builtin_memcpy(dst, src, n); /* memory.copy */
    else
        copy_short(dst, src, n);
    return dst;
}
