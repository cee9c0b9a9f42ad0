/* A program with its own memcpy (as some codes have): it links, its memcpy
 * is the one called, and memset and memmove still work. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int own_calls;

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    volatile unsigned char *d = dst;
    const unsigned char *s = src;
    own_calls++;
    for (size_t i = 0; i < n; i++) d[i] = s[i];
    return dst;
}

static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
static void *(*volatile set_fn)(void *, int, size_t) = memset;
static void *(*volatile move_fn)(void *, const void *, size_t) = memmove;

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    char a[512], b[512];
    set_fn(a, 'x', sizeof a);
    copy_fn(b, a, sizeof b);
    move_fn(b + 1, b, 300);
    b[0] = 'y';
    int fine = b[0] == 'y' && b[1] == 'x' && b[511] == 'x' && a[200] == 'x';
    printf("own memcpy called %d, results right %d\n", own_calls > 0, fine);
    MPI_Finalize();
    return !fine;
}
