/* I/O throughput, one program for both builds (native mpicc and
 * wasm-mpicc, -O2); benchmarks/io/run.py runs them side by side.
 *
 *   io posix DIR VOLUME MAX_CALLS SIZE...
 *       one rank: for each SIZE (bytes), write() DIR/posix-<rank>.dat in
 *       SIZE-byte calls, then read() it back in SIZE-byte calls, timing the
 *       loops. calls = min(VOLUME / SIZE, MAX_CALLS), at least 1. In wasm,
 *       write()/read() are wasi-libc's, i.e. the WASI calls fd_write/fd_read
 *       that the embedder implements; natively they are glibc's syscalls.
 *
 *   io mpiio DIR VOLUME_PER_RANK MAX_CALLS BLOCK...
 *       all ranks, one shared file DIR/mpiio.dat: for each BLOCK size and
 *       for "indep" (MPI_File_write_at / MPI_File_read_at) and "coll"
 *       (MPI_File_write_at_all / MPI_File_read_at_all): calls =
 *       min(VOLUME_PER_RANK / BLOCK, MAX_CALLS) calls per rank, call i of
 *       rank r at offset (i * nranks + r) * BLOCK (each rank its own blocks,
 *       interleaved), write then read back. Time = from a barrier before the
 *       loop to the slowest rank's end (max over ranks).
 *
 * write()/read() are looped until all SIZE bytes are done (POSIX allows
 * short transfers):
 * `calls` counts SIZE-byte requests, `os_calls` the write()/read() calls
 * made. Every read is checked against the pattern written. Output, one
 * line per measurement (rank 0), parsed by run.py:
 *   RESULT part=posix op=write mode=posix ranks=1 size=4096 calls=N os_calls=M bytes=B seconds=S
 * bytes is the total over all ranks. Exit status 0, or 1 on any I/O or
 * verification error (with a message on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nranks;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "io: rank %d: %s: %s\n", rank, what, detail);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static long long parse_size(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    else if (*end == 'G' || *end == 'g')
        v <<= 30, end++;
    if (*end || v <= 0) {
        fprintf(stderr, "io: bad size '%s'\n", s);
        exit(2);
    }
    return v;
}

/* Page-aligned buffers in both builds: glibc's malloc puts large blocks
 * 16 bytes past a page boundary, wasi-libc's elsewhere, and the kernel's
 * copy between the page cache and a buffer is about twice as slow at some
 * offsets; the comparison is of the I/O path, not of allocators. */
static unsigned char *page_alloc(long long size)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, (size_t)size) != 0)
        die("posix_memalign", strerror(errno));
    return p;
}

static long long ncalls(long long volume, long long size, long long max_calls)
{
    long long n = volume / size;
    if (n > max_calls)
        n = max_calls;
    return n < 1 ? 1 : n;
}

/* byte j of call i: a pattern that differs between calls and ranks */
static void fill(unsigned char *buf, size_t size, long long i, int r)
{
    uint32_t x = (uint32_t)(i * 2654435761u) ^ (uint32_t)(r * 40503u + 1u);
    size_t j;
    for (j = 0; j < size; j++) {
        buf[j] = (unsigned char)(x >> 24);
        x = x * 1664525u + 1013904223u;
    }
}

static void check(const unsigned char *buf, unsigned char *ref, size_t size, long long i, int r, const char *what)
{
    fill(ref, size, i, r);
    if (memcmp(buf, ref, size) != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "call %lld of %zu bytes read back wrong data", i, size);
        die(what, msg);
    }
}

static void result(const char *part, const char *op, const char *mode, long long size, long long calls,
                   long long os_calls, long long bytes, double seconds)
{
    if (rank == 0)
        printf("RESULT part=%s op=%s mode=%s ranks=%d size=%lld calls=%lld os_calls=%lld bytes=%lld "
               "seconds=%.9f\n", part, op, mode, nranks, size, calls, os_calls, bytes, seconds);
    fflush(stdout);
}

/* write()/read() all `size` bytes, as a careful program does: POSIX lets
   both return fewer bytes than asked. Returns the number of calls made. */
static long long write_full(int fd, const unsigned char *buf, size_t size)
{
    long long n_calls = 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, buf + done, size - done);
        n_calls++;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("write", n < 0 ? strerror(errno) : "wrote 0 bytes");
        done += n;
    }
    return n_calls;
}

static long long read_full(int fd, unsigned char *buf, size_t size, long long call)
{
    long long n_calls = 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = read(fd, buf + done, size - done);
        n_calls++;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("read", strerror(errno));
        if (n == 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "end of file at byte %lld, in a file written in full and closed before",
                     (long long)(call * size + done));
            die("read", msg);
        }
        done += n;
    }
    return n_calls;
}

static void posix_part(const char *dir, long long volume, long long max_calls, int nsizes, char **sizes)
{
    char path[4096];
    int k;
    snprintf(path, sizeof path, "%s/posix-%d.dat", dir, rank);
    for (k = 0; k < nsizes; k++) {
        long long size = parse_size(sizes[k]), calls = ncalls(volume, size, max_calls), i;
        unsigned char *buf = page_alloc(size), *ref = page_alloc(size);
        /* the data of a few calls, cycled: filling every buffer anew would
           time the pattern generator, not the I/O */
        const long long distinct = 4;
        unsigned char *pat[4];
        double t0, t1;
        long long os_calls;
        int fd;
        for (i = 0; i < distinct; i++) {
            pat[i] = page_alloc(size);
            fill(pat[i], size, i, rank);
        }
        fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0)
            die(path, strerror(errno));
        os_calls = 0;
        t0 = MPI_Wtime();
        for (i = 0; i < calls; i++)
            os_calls += write_full(fd, pat[i % distinct], size);
        t1 = MPI_Wtime();
        if (close(fd) != 0)
            die("close", strerror(errno));
        result("posix", "write", "posix", size, calls, os_calls, size * calls, t1 - t0);

        fd = open(path, O_RDONLY);
        if (fd < 0)
            die(path, strerror(errno));
        os_calls = 0;
        t0 = MPI_Wtime();
        for (i = 0; i < calls; i++) {
            os_calls += read_full(fd, buf, size, i);
            /* the first and last byte of every call (cheap); the whole
               buffer of the first calls is checked below, untimed */
            if (buf[0] != pat[i % distinct][0] || buf[size - 1] != pat[i % distinct][size - 1])
                die("read", "wrong data");
        }
        t1 = MPI_Wtime();
        close(fd);
        result("posix", "read", "posix", size, calls, os_calls, size * calls, t1 - t0);

        /* full check of the first calls, untimed */
        fd = open(path, O_RDONLY);
        for (i = 0; i < calls && i < distinct; i++) {
            read_full(fd, buf, size, i);
            check(buf, ref, size, i % distinct, rank, "posix");
        }
        close(fd);
        unlink(path);
        for (i = 0; i < distinct; i++)
            free(pat[i]);
        free(buf);
        free(ref);
    }
}

static void mpi_check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        die(what, msg);
    }
}

static double max_time(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static void mpiio_part(const char *dir, long long volume, long long max_calls, int nblocks, char **blocks)
{
    char path[4096];
    int k, coll;
    snprintf(path, sizeof path, "%s/mpiio.dat", dir);
    for (k = 0; k < nblocks; k++) {
        long long block = parse_size(blocks[k]), calls = ncalls(volume, block, max_calls), i;
        const long long distinct = 4;
        unsigned char *buf = page_alloc(block), *ref = page_alloc(block), *pat[4];
        for (i = 0; i < distinct; i++) {
            pat[i] = page_alloc(block);
            fill(pat[i], block, i, rank);
        }
        for (coll = 0; coll <= 1; coll++) {
            const char *mode = coll ? "coll" : "indep";
            MPI_File fh;
            MPI_Status st;
            double t0, t;
            int count;
            mpi_check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                      "MPI_File_open");
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (i = 0; i < calls; i++) {
                MPI_Offset off = (MPI_Offset)(i * nranks + rank) * block;
                if (coll)
                    mpi_check(MPI_File_write_at_all(fh, off, pat[i % distinct], (int)block, MPI_BYTE, &st),
                              "MPI_File_write_at_all");
                else
                    mpi_check(MPI_File_write_at(fh, off, pat[i % distinct], (int)block, MPI_BYTE, &st),
                              "MPI_File_write_at");
            }
            t = max_time(MPI_Wtime() - t0);
            MPI_Get_count(&st, MPI_BYTE, &count);
            if (count != block)
                die(mode, "write status count differs from the block size");
            result("mpiio", "write", mode, block, calls, calls, block * calls * nranks, t);

            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (i = 0; i < calls; i++) {
                MPI_Offset off = (MPI_Offset)(i * nranks + rank) * block;
                if (coll)
                    mpi_check(MPI_File_read_at_all(fh, off, buf, (int)block, MPI_BYTE, &st), "MPI_File_read_at_all");
                else
                    mpi_check(MPI_File_read_at(fh, off, buf, (int)block, MPI_BYTE, &st), "MPI_File_read_at");
                if (buf[0] != pat[i % distinct][0] || buf[block - 1] != pat[i % distinct][block - 1])
                    die(mode, "read back wrong data");
            }
            t = max_time(MPI_Wtime() - t0);
            MPI_Get_count(&st, MPI_BYTE, &count);
            if (count != block)
                die(mode, "read status count differs from the block size");
            result("mpiio", "read", mode, block, calls, calls, block * calls * nranks, t);

            /* full check of this rank's first blocks, untimed */
            for (i = 0; i < calls && i < distinct; i++) {
                MPI_Offset off = (MPI_Offset)(i * nranks + rank) * block;
                mpi_check(MPI_File_read_at(fh, off, buf, (int)block, MPI_BYTE, &st), "MPI_File_read_at");
                check(buf, ref, block, i % distinct, rank, mode);
            }
            mpi_check(MPI_File_close(&fh), "MPI_File_close");
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0)
                mpi_check(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete");
            MPI_Barrier(MPI_COMM_WORLD);
        }
        for (i = 0; i < distinct; i++)
            free(pat[i]);
        free(buf);
        free(ref);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 6 || (strcmp(argv[1], "posix") && strcmp(argv[1], "mpiio"))) {
        if (rank == 0)
            fprintf(stderr, "usage: io posix DIR VOLUME MAX_CALLS SIZE...\n"
                            "       io mpiio DIR VOLUME_PER_RANK MAX_CALLS BLOCK...\n");
        MPI_Finalize();
        return 2;
    }
    if (!strcmp(argv[1], "posix"))
        posix_part(argv[2], parse_size(argv[3]), parse_size(argv[4]), argc - 5, argv + 5);
    else
        mpiio_part(argv[2], parse_size(argv[3]), parse_size(argv[4]), argc - 5, argv + 5);
    MPI_Finalize();
    return 0;
}
