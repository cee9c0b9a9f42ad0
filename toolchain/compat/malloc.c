/* malloc and calloc (linked as --wrap=malloc, --wrap=calloc): large blocks
 * start on a page boundary.
 * wasi-libc's allocator can place two large buffers 16 bytes apart modulo
 * the page, and glibc's memcpy, which host MPI libraries use to move guest
 * buffers, runs about 10x slower for that relative offset (README,
 * "Compared with native"). Page-aligning blocks of 64 KiB and more costs
 * at most 4 KiB per such block. free() and realloc() take these blocks
 * as any other. Exported as "malloc": the embedder allocates through it.
 * calloc too, because compilers turn malloc + memset(0) into calloc. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LARGE (64u << 10)
#define PAGE 4096u

void *__real_malloc(size_t n);
void *__real_calloc(size_t count, size_t size);

__attribute__((export_name("malloc"))) void *__wrap_malloc(size_t n) {
    if (n >= LARGE)
        return aligned_alloc(PAGE, n);
    return __real_malloc(n);
}

/* A large calloc block is zeroed here: an aligned block may be reused
 * memory (the allocator's own calloc knows when fresh pages need no
 * clearing; these are touched once more than natively). */
void *__wrap_calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size)
        return __real_calloc(count, size);  /* its overflow error */
    size_t n = count * size;
    if (n < LARGE)
        return __real_calloc(count, size);
    void *p = aligned_alloc(PAGE, n);
    if (p)
        memset(p, 0, n);
    return p;
}
