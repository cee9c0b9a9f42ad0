/* Reads that reach past the end of a file, by every nonblocking and split
 * collective read: each rank reads a part that lies inside the file, one
 * that crosses its end and one wholly past it. Prints, per rank, read and
 * case, the count the status gives and whether the bytes read are the
 * file's; the counts the standard expects are checked by the test
 * (tests/e2e/test_mpiio_eof.py). Open MPI's own nonblocking reads never
 * complete past the end of the file.
 *
 *   file_eof PATH */
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#define FILE_SIZE 100 /* bytes: byte i holds i */
#define LEN 40        /* bytes each rank asks for */

static int rank;
static MPI_File fh;

/* where each case starts this rank's read */
static MPI_Offset start_of(const char* c) {
    if (!strcmp(c, "inside")) return 10 * rank;
    if (!strcmp(c, "crossing")) return 70 + 10 * rank;
    return 200 + 10 * rank; /* past */
}

static void report(const char* how, const char* c, MPI_Offset at, const unsigned char* buf, MPI_Status* st) {
    int n = -1, good = 1;
    MPI_Get_count(st, MPI_BYTE, &n);
    for (int i = 0; i < n && i < LEN; i++) good &= buf[i] == (unsigned char)(at + i);
    printf("r%d %s %s: count %d data %s\n", rank, how, c, n, good ? "ok" : "BAD");
}

enum { IREAD_AT, IREAD, IREAD_AT_ALL, IREAD_ALL, READ_AT_ALL_BEGIN, READ_ALL_BEGIN, IREAD_SHARED, READ_ORDERED_BEGIN, NREADS };
static const char* names[NREADS] = {"iread_at", "iread", "iread_at_all", "iread_all", "read_at_all_begin", "read_all_begin",
                                    "iread_shared", "read_ordered_begin"};

/* Read `which` of LEN bytes at `at` (the individual pointer is put there),
 * or at the shared pointer put at `shared_at`: rank 0 alone reads with
 * iread_shared, the ranks in order with read_ordered (rank r after r * LEN
 * bytes). */
static void read_one(int which, const char* c, MPI_Offset at, MPI_Offset shared_at) {
    unsigned char buf[LEN];
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Offset from = at;
    memset(buf, 0xff, LEN);
    MPI_File_seek(fh, at, MPI_SEEK_SET);
    MPI_File_seek_shared(fh, shared_at, MPI_SEEK_SET);
    switch (which) {
    case IREAD_AT: MPI_File_iread_at(fh, at, buf, LEN, MPI_BYTE, &r); break;
    case IREAD: MPI_File_iread(fh, buf, LEN, MPI_BYTE, &r); break;
    case IREAD_AT_ALL: MPI_File_iread_at_all(fh, at, buf, LEN, MPI_BYTE, &r); break;
    case IREAD_ALL: MPI_File_iread_all(fh, buf, LEN, MPI_BYTE, &r); break;
    case READ_AT_ALL_BEGIN:
        MPI_File_read_at_all_begin(fh, at, buf, LEN, MPI_BYTE);
        MPI_File_read_at_all_end(fh, buf, &st);
        break;
    case READ_ALL_BEGIN:
        MPI_File_read_all_begin(fh, buf, LEN, MPI_BYTE);
        MPI_File_read_all_end(fh, buf, &st);
        break;
    case IREAD_SHARED:
        from = shared_at;
        MPI_File_iread_shared(fh, buf, rank == 0 ? LEN : 0, MPI_BYTE, &r);
        break;
    default:
        from = shared_at + (MPI_Offset)rank * LEN;
        MPI_File_read_ordered_begin(fh, buf, LEN, MPI_BYTE);
        MPI_File_read_ordered_end(fh, buf, &st);
    }
    if (r != MPI_REQUEST_NULL) MPI_Wait(&r, &st);
    report(names[which], c, from, buf, &st);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        printf("FAILED: open\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_errhandler(fh, MPI_ERRORS_ARE_FATAL);
    unsigned char content[FILE_SIZE], buf[LEN];
    for (int i = 0; i < FILE_SIZE; i++) content[i] = (unsigned char)i;
    if (rank == 0) MPI_File_write_at(fh, 0, content, FILE_SIZE, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    const char* cases[] = {"inside", "crossing", "past"};
    for (int k = 0; k < 3; k++)
        for (int which = 0; which < NREADS; which++) read_one(which, cases[k], start_of(cases[k]), start_of(cases[k]) - 10 * rank);

    /* a view of ints 4 bytes in: 24 whole ints in the file; 30 asked for
     * from int 0, the count is in ints */
    MPI_File_set_view(fh, 4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    int ints[30];
    MPI_Request r;
    MPI_Status st;
    int n = -1;
    MPI_File_iread_at(fh, 0, ints, 30, MPI_INT, &r);
    MPI_Wait(&r, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    printf("r%d iread_at int view: count %d data %s\n", rank, n, n > 0 && !memcmp(ints, content + 4, 4 * (size_t)n) ? "ok" : "BAD");
    MPI_File_iread_at(fh, 20, ints, 2, MPI_INT, &r);
    MPI_Wait(&r, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    printf("r%d iread_at int view inside: count %d data %s\n", rank, n, n == 2 && !memcmp(ints, content + 84, 8) ? "ok" : "BAD");

    /* a second split collective while one is in progress: refused at once */
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (size == 1) {
        MPI_File_read_at_all_begin(fh, 0, buf, LEN, MPI_BYTE);
        int rc = MPI_File_read_at_all_begin(fh, 0, buf, LEN, MPI_BYTE);
        MPI_File_read_at_all_end(fh, buf, &st);
        report("second begin refused", rc != MPI_SUCCESS ? "yes" : "no", 0, buf, &st);
        /* negative explicit offsets: Open MPI takes them and then writes
         * where it should not (natively: SIGSEGV in the wait) */
        int c1 = -1, c2 = -1;
        MPI_Request nr;
        MPI_Error_class(MPI_File_iread_at(fh, -1, buf, LEN, MPI_BYTE, &nr), &c1);
        MPI_Error_class(MPI_File_read_at(fh, (MPI_Offset)1 << 63, buf, LEN, MPI_BYTE, &st), &c2);
        printf("negative offsets refused: %s\n", c1 == MPI_ERR_ARG && c2 == MPI_ERR_ARG ? "yes" : "no");
        /* an access ending past the largest file offset: ROMIO's lock of
         * the range fails and it aborts the job (MPICH, natively too); one
         * ending at it reads nothing */
        MPI_Datatype gaps;
        MPI_Type_vector(2, 1, 2, MPI_BYTE, &gaps);
        MPI_Type_commit(&gaps);
        int c3 = -1, c4 = -1;
        MPI_Error_class(MPI_File_write_at(fh, INT64_MAX, buf, 1, gaps, &st), &c1);
        MPI_Error_class(MPI_File_iread_at(fh, INT64_MAX - 1, buf, 2, MPI_BYTE, &nr), &c2);
        MPI_Error_class(MPI_File_read_at_all(fh, INT64_MAX - 4, buf, 2, MPI_INT, &st), &c3);
        MPI_Error_class(MPI_File_read_at(fh, INT64_MAX - 4, buf, 4, MPI_BYTE, &st), &c4);
        MPI_Get_count(&st, MPI_BYTE, &n);
        printf("accesses past the largest file offset refused: %s\n",
               c1 == MPI_ERR_ARG && c2 == MPI_ERR_ARG && c3 == MPI_ERR_ARG && c4 == MPI_SUCCESS && n == 0 ? "yes" : "no");
        MPI_Type_free(&gaps);
    }
    MPI_File_close(&fh);
    if (rank == 0) printf("done\n");
    MPI_Finalize();
    return 0;
}
