/* malloc (linked as --wrap=malloc): large blocks start on a page boundary.
 * wasi-libc's allocator can place two large buffers 16 bytes apart modulo
 * the page, and glibc's memcpy, which host MPI libraries use to move guest
 * buffers, runs about 10x slower for that relative offset (README,
 * "Compared with native"). Page-aligning blocks of 64 KiB and more costs
 * at most 4 KiB per such block. free() and realloc() take these blocks
 * as any other. Exported as "malloc": the embedder allocates through it. */
#include <stdlib.h>

#define LARGE (64u << 10)
#define PAGE 4096u

void *__real_malloc(size_t n);

__attribute__((export_name("malloc"))) void *__wrap_malloc(size_t n) {
    if (n >= LARGE)
        return aligned_alloc(PAGE, n);
    return __real_malloc(n);
}
