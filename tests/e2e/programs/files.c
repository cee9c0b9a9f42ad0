/* files.c read PATH | write PATH TEXT: file access through WASI preopens. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    FILE *f = fopen(argv[2], strcmp(argv[1], "write") == 0 ? "w" : "r");
    if (!f) {
        printf("cannot open %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    if (strcmp(argv[1], "write") == 0) {
        fputs(argc > 3 ? argv[3] : "", f);
    } else {
        char buf[256];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        printf("read %zu bytes: %s\n", n, buf);
    }
    fclose(f);
    return 0;
}
