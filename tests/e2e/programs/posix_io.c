/* posix_io.c DIR: POSIX file semantics a guest relies on, printed by rank 0
 * so the wasm run can be compared line by line with the native one.
 * Several descriptors on one file (each keeps its own mode and position),
 * opens that truncate under another descriptor, fstat after changes made
 * elsewhere, O_APPEND (with O_TRUNC too), one large write() and pread/pwrite;
 * then every rank appends lines to one log with O_APPEND at once, and no
 * line may be lost or torn. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[512];

static const char *at(const char *name) {
    static char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static long long fsize(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 ? (long long)st.st_size : -1;
}

static void single(void) {
    char buf[64];
    int w = open(at("trunc.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    printf("write 10: %zd\n", write(w, "0123456789", 10));
    close(w);
    w = open(at("trunc.dat"), O_RDWR | O_TRUNC);
    printf("reopened with O_TRUNC: fstat %lld, SEEK_END %lld\n", fsize(w), (long long)lseek(w, 0, SEEK_END));
    close(w);

    w = open(at("two.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    write(w, "hello world", 11);
    close(w);
    int r = open(at("two.dat"), O_RDONLY);
    int r2 = open(at("two.dat"), O_RDONLY);
    int a = open(at("two.dat"), O_WRONLY | O_APPEND);
    printf("read on the first of three descriptors: %zd\n", read(r, buf, 5));
    printf("append through the third: %zd\n", write(a, "!!", 2));
    ssize_t n = read(r, buf, sizeof buf);
    printf("first reads on: %zd bytes '%.*s'\n", n, (int)(n > 0 ? n : 0), buf);
    n = read(r2, buf, 5);
    printf("second starts at 0: '%.*s'\n", (int)(n > 0 ? n : 0), buf);
    printf("write on a read-only descriptor fails: %d\n", write(r, "x", 1) < 0);
    printf("fstat of the first sees the append: %lld\n", fsize(r));
    printf("access modes read-only, write-only: %d %d\n", (fcntl(r, F_GETFL) & O_ACCMODE) == O_RDONLY,
           (fcntl(a, F_GETFL) & O_ACCMODE) == O_WRONLY);
    int c = open(at("created.dat"), O_CREAT | O_RDONLY, 0644);
    printf("O_CREAT|O_RDONLY creates: %d, reads %zd\n", c >= 0, read(c, buf, 1));
    close(c);
    close(r), close(r2), close(a);

    memset(buf, 'A', sizeof buf);
    int ap = open(at("append.dat"), O_CREAT | O_RDWR | O_APPEND | O_TRUNC, 0644);
    write(ap, buf, 32);
    int t = open(at("append.dat"), O_RDWR | O_TRUNC);
    close(t);
    write(ap, buf, 32);
    printf("append after another descriptor truncated: fstat %lld\n", fsize(ap));
    close(ap);
    ap = open(at("append.dat"), O_WRONLY | O_APPEND | O_TRUNC);
    printf("O_APPEND|O_TRUNC empties: fstat %lld\n", fsize(ap));
    lseek(ap, 0, SEEK_SET);
    write(ap, "xyz", 3);
    printf("appends whatever the position: fstat %lld\n", fsize(ap));
    close(ap);

    size_t big = 16 << 20;
    char *p = malloc(big);
    for (size_t i = 0; i < big; i++) p[i] = (char)(i * 7);
    w = open(at("big.dat"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    printf("one write() of 16 MiB: %zd\n", write(w, p, big));
    char *q = calloc(1, big);
    printf("pread of 16 MiB: %zd\n", pread(w, q, big, 0));
    printf("same bytes: %d\n", memcmp(p, q, big) == 0);
    ssize_t pw = pwrite(w, "end", 3, big + 100);
    printf("pwrite past the end: %zd, fstat %lld\n", pw, fsize(w));
    printf("position unchanged by pread/pwrite: %lld\n", (long long)lseek(w, 0, SEEK_CUR));
    close(w);
    free(p), free(q);
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(dir, sizeof dir, "%s", argv[1]);
    if (rank == 0) {
        single();
        fflush(stdout);
        close(open(at("log.txt"), O_CREAT | O_WRONLY | O_TRUNC, 0644));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    enum { LINES = 200 };
    int log = open(at("log.txt"), O_WRONLY | O_APPEND);
    for (int i = 0; i < LINES; i++) {
        char line[80];
        int len = snprintf(line, sizeof line, "rank %03d line %04d %s\n", rank, i, "................................");
        if (write(log, line, len) != len) printf("rank %d: short append\n", rank);
    }
    close(log);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(at("log.txt"), "r");
        char line[128];
        int count = 0, torn = 0, seen[64] = {0};
        while (f && fgets(line, sizeof line, f)) {
            int who, i;
            if (sscanf(line, "rank %d line %d", &who, &i) == 2 && strlen(line) == 52 && who < 64) {
                seen[who]++;
                count++;
            } else {
                torn++;
            }
        }
        int all = 1;
        for (int k = 0; k < size; k++) all &= seen[k] == LINES;
        printf("log: %d whole lines from %d ranks, %d torn, every line of every rank: %d\n", count, size, torn, all);
        if (f) fclose(f);
    }
    /* every rank opens the same new file with O_CREAT at once (no O_EXCL:
     * each must get it, whoever created it) */
    int fails = 0, total = 0;
    for (int k = 0; k < 50; k++) {
        char name[32];
        snprintf(name, sizeof name, "shared.%d", k);
        MPI_Barrier(MPI_COMM_WORLD);
        int fd = open(at(name), O_CREAT | O_RDWR, 0644);
        if (fd < 0 || pwrite(fd, &rank, sizeof rank, rank * sizeof rank) != sizeof rank) fails++;
        if (fd >= 0) close(fd);
    }
    MPI_Reduce(&fails, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("opens with O_CREAT of one new file by all ranks at once that failed: %d\n", total);
    MPI_Finalize();
    return 0;
}
