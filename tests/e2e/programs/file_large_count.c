/* file_large_count.c FILE: large-count reads (MPI_File_*_c) of more than
 * INT_MAX elements, into a buffer of 2 GiB, from a file of 100 bytes.
 * MPICH's ROMIO assert()ed `count <= INT_MAX` in every such call and the
 * process died of SIGABRT (natively too). Prints each read's count. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text[100];

static void report(const char *what, int rc, MPI_Status *st, const char *buf, int from) {
    MPI_Count got = -1;
    if (rc == MPI_SUCCESS) MPI_Get_count_c(st, MPI_CHAR, &got);
    int good = got == 100 - from && !memcmp(buf, text + from, (size_t)(100 - from));
    printf("%s: rc %d count %lld data %s\n", what, rc, (long long)got, good ? "ok" : "BAD");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const MPI_Count n = ((MPI_Count)1 << 31) + 8;
    /* wasi-libc's sbrk takes a signed 32-bit increment: grow in two steps */
    char *volatile first = malloc((size_t)1 << 30);
    if (first) first[0] = 1;
    free(first);
    char *buf = malloc((size_t)n);
    if (!buf) {
        printf("no memory for %lld bytes\n", (long long)n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 100; i++) text[i] = (char)('a' + i % 26);
    MPI_File fh;
    MPI_Status st;
    MPI_Request r;
    MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_File_write(fh, text, 100, MPI_CHAR, &st);

    memset(buf, 0, 128);
    report("read_at_c", MPI_File_read_at_c(fh, 0, buf, n, MPI_CHAR, &st), &st, buf, 0);
    memset(buf, 0, 128);
    int rc = MPI_File_iread_at_c(fh, 10, buf, n, MPI_CHAR, &r);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, &st);
    report("iread_at_c", rc, &st, buf, 10);
    memset(buf, 0, 128);
    MPI_File_seek(fh, 50, MPI_SEEK_SET);
    report("read_all_c", MPI_File_read_all_c(fh, buf, n, MPI_CHAR, &st), &st, buf, 50);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
