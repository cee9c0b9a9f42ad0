/* Touches 64 MiB of heap, says so, and waits for a line on stdin, so that
 * the test can read the embedder's memory map while the memory is in use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    size_t n = (size_t)64 << 20, i;
    char *p = malloc(n), line[8];
    long sum = 0;
    if (!p) return 2;
    memset(p, 1, n);
    printf("touched\n");
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) return 3;
    for (i = 0; i < n; i += 4096) sum += p[i];
    printf("sum %ld\n", sum);
    return 0;
}
