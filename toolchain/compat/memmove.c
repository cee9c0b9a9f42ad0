#include "bulk_memory.h"

BULK void *memmove(void *dst, const void *src, size_t n) {
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    /* memory.copy is memmove: overlapping short blocks go there too */
    if (n >= BULK_MIN || d - s < n || s - d < n)
        __builtin_memmove(dst, src, n);
    else
        copy_short(dst, src, n);
    return dst;
}
