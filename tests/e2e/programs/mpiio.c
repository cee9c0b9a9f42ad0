/* mpiio.c MODE PATH [ARGS]: MPI-IO, built with wasm-mpicc and with the host
 * mpicc. Rank 0 prints one line per result: values that must read the same
 * natively and in wasm (never a path), and "<check> ok" / "<check> FAILED".
 * A rank's failed EXPECT prints "mpiio.c:<line>: <cond>" on stderr. The exit
 * code is 0 when every check passed.
 *
 * Functional modes (native and wasm give the same output and files):
 *   block2d PATH      64x48 doubles written 2-D block-distributed through a
 *                     subarray view (write_all), read back as row slabs
 *                     (read_at_all) and as a cyclic darray (read_all); every
 *                     file query and control function, a counting file error
 *                     handler, and open/delete error classes
 *   shared PATH       shared file pointer: write_ordered, write_shared,
 *                     seek_shared, get_position_shared, read_ordered,
 *                     read_shared, iwrite_shared; MPI_MODE_DELETE_ON_CLOSE
 *                     on PATH.scratch
 *   nonblocking PATH  iwrite_at/iread_at, iwrite_all/iread_all,
 *                     iwrite_at_all/iread_at_all, iwrite/iread, split
 *                     collectives (write_all, read_at_all, write_ordered,
 *                     read_all begin/end)
 *   sparse PATH       rank 0 writes past 2^32 (5 GiB, 8 GiB + 7); 64-bit
 *                     offsets through views, seek, get_byte_offset, get_size
 * Sandbox modes (wasm assertions; natively they only show what a plain
 * process could do):
 *   escape PATH OPS   OPS a comma list of rdonly, rdwr, create, delete: each
 *                     on PATH, printing "<op> <error class>"; an open that
 *                     succeeds prints what it read ("<op> OPENED ...")
 *   readonly FILE NEW FILE exists in a read-only preopen, NEW does not:
 *                     RDONLY opens read FILE; writing, creating, deleting
 *                     and DELETE_ON_CLOSE print their error classes
 *   hint PATH HOST    opens PATH with ROMIO's shared_fp_fname hint naming
 *                     HOST (a host path) and uses the shared file pointer
 *                     (neither Open MPI 4.1 nor MPICH 4.0 honours the hint)
 *   leak PATH         error strings and MPI_File_get_info of a file: printed
 *                     so the test can look for host paths in them
 *   badbuf PATH       (wasm only) reads and writes whose buffer runs past
 *                     the guest memory: "<op> <error class>", memory intact;
 *                     collective ones on a file of MPI_COMM_SELF
 *   badbuf-collective PATH  (wasm only) write_at_all on a file of all ranks
 *                     with a bad buffer on the last rank: the job ends
 *   datarep PATH      MPI_Register_datarep with guest callbacks, then a view
 *                     with that data representation: error classes */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_class.h"

static int rank, size, errors, failures;

#define EXPECT(cond) \
    do { if (!(cond)) { errors++; fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* rank 0 prints the job-wide verdict on the errors counted since the last check */
static void check(const char *what) {
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %s\n", what, total || errors ? "FAILED" : "ok");
    if (total || errors) failures++;
    errors = 0;
}



/* the amode as flag names, in a fixed order */
static const char *amode_names(int amode) {
    static char out[160];
    static const struct { int flag; const char *name; } flags[] = {
        {MPI_MODE_RDONLY, "RDONLY"}, {MPI_MODE_RDWR, "RDWR"}, {MPI_MODE_WRONLY, "WRONLY"},
        {MPI_MODE_CREATE, "CREATE"}, {MPI_MODE_EXCL, "EXCL"}, {MPI_MODE_DELETE_ON_CLOSE, "DELETE_ON_CLOSE"},
        {MPI_MODE_UNIQUE_OPEN, "UNIQUE_OPEN"}, {MPI_MODE_SEQUENTIAL, "SEQUENTIAL"}, {MPI_MODE_APPEND, "APPEND"},
    };
    out[0] = 0;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (amode & flags[i].flag) {
            if (out[0]) strcat(out, "|");
            strcat(out, flags[i].name);
            amode &= ~flags[i].flag;
        }
    if (amode) sprintf(out + strlen(out), "|0x%x", amode);
    return out;
}

/* every rank's value, printed by rank 0 as "<what> v0 v1 ..." */
static void print_all_ranks(const char *what, double v) {
    double *all = malloc(sizeof(double) * size);
    MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s", what);
        for (int i = 0; i < size; i++) printf(" %.0f", all[i]);
        printf("\n");
    }
    free(all);
}

/* the same class on every rank, or -1 */
static int same_class(int rc) {
    int cls = error_class_of(rc), lo, hi;
    MPI_Allreduce(&cls, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi ? cls : -1;
}

static void print_class(const char *what, int rc) {
    int cls = same_class(rc);
    if (rank == 0) printf("%s %s\n", what, cls < 0 ? "(ranks disagree)" : error_class_name(cls));
}

/* ---------------------------------------------------------------- block2d */

#define NR 64
#define NC 48

static double value(int i, int j) { return i * 1000.0 + j; }

static int eh_calls, eh_last_class, eh_wrong_file;
static MPI_File eh_expected_file;

static void count_errors(MPI_File *fh, int *code, ...) {
    eh_calls++;
    eh_last_class = error_class_of(*code);
    if (*fh != eh_expected_file) eh_wrong_file++;
}

static int block2d(const char *path) {
    MPI_File fh;
    MPI_Status st;
    int count, dims[2] = {0, 0}, flag, cmp;
    MPI_Dims_create(size, 2, dims);
    int coords[2] = {rank / dims[1], rank % dims[1]};
    int gsizes[2] = {NR, NC}, lsizes[2] = {NR / dims[0], NC / dims[1]};
    int starts[2] = {coords[0] * lsizes[0], coords[1] * lsizes[1]};
    int n = lsizes[0] * lsizes[1];
    double *block = malloc(sizeof(double) * NR * NC), *back = malloc(sizeof(double) * NR * NC);

    /* the default file error handler is MPI_ERRORS_RETURN */
    MPI_Errhandler eh;
    EXPECT(MPI_File_get_errhandler(MPI_FILE_NULL, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    if (rank == 0) printf("delete missing %s\n", error_class_name(MPI_File_delete(path, MPI_INFO_NULL)));
    MPI_Barrier(MPI_COMM_WORLD);
    print_class("open missing rdonly", MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_once,read_mostly");
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    EXPECT(rc == MPI_SUCCESS);
    if (rc != MPI_SUCCESS) {
        if (rank == 0) printf("open %s\n", error_class_name(rc));
        return 1;
    }
    EXPECT(MPI_File_get_errhandler(fh, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    int amode = 0;
    MPI_File_get_amode(fh, &amode);
    if (rank == 0) printf("amode %s\n", amode_names(amode));
    MPI_Group fgroup, wgroup;
    MPI_File_get_group(fh, &fgroup);
    MPI_Comm_group(MPI_COMM_WORLD, &wgroup);
    MPI_Group_compare(fgroup, wgroup, &cmp);
    EXPECT(cmp == MPI_IDENT);
    MPI_Group_free(&fgroup);
    MPI_Group_free(&wgroup);
    EXPECT(fgroup == MPI_GROUP_NULL);
    flag = -1;
    MPI_File_get_atomicity(fh, &flag);
    EXPECT(flag == 0);
    EXPECT(MPI_File_set_atomicity(fh, 1) == MPI_SUCCESS);
    MPI_File_get_atomicity(fh, &flag);
    EXPECT(flag == 1);
    EXPECT(MPI_File_set_atomicity(fh, 0) == MPI_SUCCESS);
    MPI_File_get_atomicity(fh, &flag);
    EXPECT(flag == 0);
    check("open, errhandler, amode, group, atomicity");

    /* write: 2-D blocks through a subarray view */
    MPI_Datatype blocktype;
    MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &blocktype);
    MPI_Type_commit(&blocktype);
    EXPECT(MPI_File_set_view(fh, 0, MPI_DOUBLE, blocktype, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    for (int i = 0; i < lsizes[0]; i++)
        for (int j = 0; j < lsizes[1]; j++) block[i * lsizes[1] + j] = value(starts[0] + i, starts[1] + j);
    memset(&st, 0, sizeof st);
    EXPECT(MPI_File_write_all(fh, block, n, MPI_DOUBLE, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    EXPECT(count == n);
    MPI_Offset pos = -1, byte = -1, disp = -1;
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == n);
    MPI_File_get_byte_offset(fh, 0, &byte);
    EXPECT(byte == (MPI_Offset)(starts[0] * NC + starts[1]) * 8);
    MPI_File_get_byte_offset(fh, lsizes[1] + 1, &byte);
    EXPECT(byte == (MPI_Offset)((starts[0] + 1) * NC + starts[1] + 1) * 8);
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING];
    EXPECT(MPI_File_get_view(fh, &disp, &etype, &filetype, datarep) == MPI_SUCCESS);
    EXPECT(disp == 0 && etype == MPI_DOUBLE && strcmp(datarep, "native") == 0);
    /* a derived filetype (the standard leaves its combiner open), to be freed */
    int ni, na, nd, combiner, tsize = 0;
    MPI_Type_get_envelope(filetype, &ni, &na, &nd, &combiner);
    EXPECT(combiner != MPI_COMBINER_NAMED);
    MPI_Type_size(filetype, &tsize);
    EXPECT(tsize == n * 8);
    MPI_Aint lb = -1, ext = -1;
    MPI_Type_get_extent(filetype, &lb, &ext);
    EXPECT(lb == 0 && ext == NR * NC * 8);
    if (combiner != MPI_COMBINER_NAMED) MPI_Type_free(&filetype);
    EXPECT(filetype == MPI_DATATYPE_NULL);
    MPI_Type_get_envelope(etype, &ni, &na, &nd, &combiner);
    EXPECT(combiner == MPI_COMBINER_NAMED);
    MPI_Aint extent = 0;
    MPI_File_get_type_extent(fh, MPI_DOUBLE, &extent);
    EXPECT(extent == 8);
    MPI_File_get_type_extent(fh, blocktype, &extent);
    EXPECT(extent == NR * NC * 8);
    EXPECT(MPI_File_sync(fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT(MPI_File_sync(fh) == MPI_SUCCESS);
    MPI_Offset fsize = -1;
    MPI_File_get_size(fh, &fsize);
    if (rank == 0) printf("size after write_all %lld\n", (long long)fsize);
    check("write_all through a subarray view, get_view");

    /* seek and positions, relative to the view */
    MPI_File_seek(fh, 10, MPI_SEEK_SET);
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == 10);
    MPI_File_seek(fh, -3, MPI_SEEK_CUR);
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == 7);
    MPI_File_get_byte_offset(fh, pos, &byte);
    EXPECT(byte == (MPI_Offset)(starts[0] * NC + starts[1] + 7) * 8);
    MPI_File_seek(fh, 0, MPI_SEEK_END);
    MPI_File_get_position(fh, &pos);
    print_all_ranks("position at SEEK_END", (double)pos);
    MPI_File_seek(fh, 1, MPI_SEEK_SET);
    double one = -1;
    EXPECT(MPI_File_read(fh, &one, 1, MPI_DOUBLE, &st) == MPI_SUCCESS && one == block[1]);
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == 2);
    check("seek, get_position, get_byte_offset, read");

    /* read another decomposition: row slabs with read_at_all */
    EXPECT(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    EXPECT(MPI_File_get_view(fh, &disp, &etype, &filetype, datarep) == MPI_SUCCESS);
    EXPECT(etype == MPI_DOUBLE && filetype == MPI_DOUBLE);
    int rows = NR / size;
    memset(back, 0, sizeof(double) * NR * NC);
    EXPECT(MPI_File_read_at_all(fh, (MPI_Offset)rank * rows * NC, back, rows * NC, MPI_DOUBLE, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    EXPECT(count == rows * NC);
    double sum = 0;
    int bad = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < NC; j++) {
            double v = back[i * NC + j];
            bad += v != value(rank * rows + i, j);
            sum += v * (1 + (i + j) % 7);
        }
    EXPECT(bad == 0);
    print_all_ranks("row slab checksums", sum);
    check("read_at_all row slabs");

    /* and a third one: rows cyclic(2) over the ranks, with a darray view */
    MPI_Datatype cyclic;
    int distribs[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE}, dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG};
    int psizes[2] = {size, 1};
    MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &cyclic);
    MPI_Type_commit(&cyclic);
    EXPECT(MPI_File_set_view(fh, 0, MPI_DOUBLE, cyclic, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    int mine = 0;
    for (int i = 0; i < NR; i++) mine += (i / 2) % size == rank;
    memset(back, 0, sizeof(double) * NR * NC);
    EXPECT(MPI_File_read_all(fh, back, mine * NC, MPI_DOUBLE, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    EXPECT(count == mine * NC);
    sum = 0, bad = 0;
    for (int i = 0, k = 0; i < NR; i++) {
        if ((i / 2) % size != rank) continue;
        for (int j = 0; j < NC; j++, k++) {
            bad += back[k] != value(i, j);
            sum += back[k] * (1 + (i + j) % 5);
        }
    }
    EXPECT(bad == 0);
    print_all_ranks("cyclic row checksums", sum);
    EXPECT(MPI_File_get_view(fh, &disp, &etype, &filetype, datarep) == MPI_SUCCESS);
    MPI_Type_get_envelope(filetype, &ni, &na, &nd, &combiner);
    MPI_Type_size(filetype, &tsize);
    EXPECT(combiner != MPI_COMBINER_NAMED && tsize == mine * NC * 8);
    if (combiner != MPI_COMBINER_NAMED) MPI_Type_free(&filetype);
    MPI_Type_free(&cyclic);
    check("read_all through a darray view");

    /* hints */
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "read_mostly");
    EXPECT(MPI_File_set_info(fh, info) == MPI_SUCCESS);
    MPI_Info_free(&info);
    MPI_Info used = MPI_INFO_NULL;
    EXPECT(MPI_File_get_info(fh, &used) == MPI_SUCCESS && used != MPI_INFO_NULL);
    int nkeys = -1;
    MPI_Info_get_nkeys(used, &nkeys);
    EXPECT(nkeys >= 0);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        EXPECT(MPI_Info_get_nthkey(used, i, key) == MPI_SUCCESS);
    }
    MPI_Info_free(&used);
    check("set_info, get_info");

    /* a user file error handler, called by call_errhandler and by an error */
    MPI_Errhandler counter, got;
    EXPECT(MPI_File_create_errhandler(count_errors, &counter) == MPI_SUCCESS);
    EXPECT(MPI_File_set_errhandler(fh, counter) == MPI_SUCCESS);
    EXPECT(MPI_File_get_errhandler(fh, &got) == MPI_SUCCESS && got == counter);
    MPI_Errhandler_free(&got);
    eh_expected_file = fh;
    EXPECT(MPI_File_call_errhandler(fh, MPI_ERR_OTHER) == MPI_SUCCESS);
    int first = eh_last_class;
    rc = MPI_File_read_at(fh, 0, back, -1, MPI_DOUBLE, &st);
    int second = eh_last_class;
    EXPECT(rc != MPI_SUCCESS && error_class_of(rc) == second);
    rc = MPI_File_call_errhandler(fh, MPI_ERR_IO);
    EXPECT(eh_calls == 3 && eh_wrong_file == 0);
    if (rank == 0) printf("file errhandler calls %d: %s", eh_calls, error_class_name(first));
    if (rank == 0) printf(" %s", error_class_name(second));
    if (rank == 0) printf(" %s\n", error_class_name(eh_last_class));
    EXPECT(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    EXPECT(MPI_Errhandler_free(&counter) == MPI_SUCCESS && counter == MPI_ERRHANDLER_NULL);
    rc = MPI_File_read_at(fh, 0, back, -1, MPI_DOUBLE, &st);
    EXPECT(rc != MPI_SUCCESS && eh_calls == 3);
    check("File_create_errhandler, set/get_errhandler, call_errhandler");

    /* sizes, on a file of rank 0's own: Open MPI 4.1's OMPIO loses track
     * of the size when several ranks set_size or preallocate one file */
    if (rank == 0) {
        MPI_File side;
        char sidepath[4096];
        snprintf(sidepath, sizeof sidepath, "%s.sizes", path);
        EXPECT(MPI_File_open(MPI_COMM_SELF, sidepath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &side) == MPI_SUCCESS);
        EXPECT(MPI_File_write_at(side, 0, block, 4, MPI_DOUBLE, &st) == MPI_SUCCESS);
        EXPECT(MPI_File_set_size(side, 1000) == MPI_SUCCESS);
        MPI_File_get_size(side, &fsize);
        printf("size after set_size %lld\n", (long long)fsize);
        EXPECT(MPI_File_preallocate(side, 40000) == MPI_SUCCESS);
        MPI_File_get_size(side, &fsize);
        printf("size after preallocate %lld\n", (long long)fsize);
        EXPECT(MPI_File_preallocate(side, 100) == MPI_SUCCESS);
        MPI_File_get_size(side, &fsize);
        EXPECT(fsize == 40000);
        EXPECT(MPI_File_set_size(side, 24) == MPI_SUCCESS);
        MPI_File_get_size(side, &fsize);
        printf("size after set_size %lld\n", (long long)fsize);
        memset(back, 0, 4 * sizeof(double));
        EXPECT(MPI_File_read_at(side, 0, back, 4, MPI_DOUBLE, &st) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        EXPECT(count == 3 && memcmp(back, block, 24) == 0);
        EXPECT(MPI_File_close(&side) == MPI_SUCCESS);
    }
    check("set_size, preallocate, get_size");

    EXPECT(MPI_File_close(&fh) == MPI_SUCCESS && fh == MPI_FILE_NULL);
    MPI_Type_free(&blocktype);
    check("close");

    print_class("open existing excl", MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    print_class("open rdonly|rdwr", MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    print_class("open rdonly|create", MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    /* reopened read-only: the data is still there */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS);
    if (rc == MPI_SUCCESS) {
        MPI_File_get_amode(fh, &amode);
        if (rank == 0) printf("amode %s\n", amode_names(amode));
        EXPECT(MPI_File_read_at(fh, (MPI_Offset)(NR * NC - 1) * 8, &one, 1, MPI_DOUBLE, &st) == MPI_SUCCESS);
        EXPECT(one == value(NR - 1, NC - 1));
        print_class("write_at on a read-only handle", MPI_File_write_at(fh, 0, &one, 1, MPI_DOUBLE, &st));
        MPI_File_close(&fh);
    }
    check("reopen read-only");
    free(block);
    free(back);
    return 0;
}

/* ----------------------------------------------------------------- shared */

#define REC 16

static void record(char *out, char kind, int r, int k) {
    char tmp[REC + 1];
    memset(out, '.', REC);
    int len = snprintf(tmp, sizeof tmp, "%c%d-%d", kind, r, k);
    memcpy(out, tmp, len);
    out[REC - 1] = '\n';
}

static int cmp_rec(const void *a, const void *b) { return memcmp(a, b, REC); }

/* the shared file pointer once every rank is past the operations before:
 * get_position_shared is local, and may otherwise see another rank's update
 * of a collective call in flight */
static MPI_Offset shared_position(MPI_File fh) {
    MPI_Offset pos = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &pos);
    MPI_Barrier(MPI_COMM_WORLD);
    return pos;
}

/* After each rank wrote a record through the shared pointer (its status
 * in `st`): the count, then the position once every record is in the file. */
static MPI_Offset after_shared_record(MPI_File fh, MPI_Status *st) {
    int count = -1;
    MPI_Get_count(st, MPI_CHAR, &count);
    EXPECT(count == REC);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    return shared_position(fh);
}

static int shared(const char *path) {
    MPI_File fh;
    MPI_Status st;
    int count;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS);
    if (rc != MPI_SUCCESS) {
        if (rank == 0) printf("open %s\n", error_class_name(rc));
        return 1;
    }
    MPI_Offset pos = -1, total = (MPI_Offset)REC * size * (size + 1) / 2;
    pos = shared_position(fh);
    EXPECT(pos == 0);
    /* rank r writes r + 1 records, in rank order */
    char *mine = malloc(REC * (size + 1)), *back = malloc(REC * (size + 1)), *all = malloc(REC * size);
    for (int k = 0; k <= rank; k++) record(mine + k * REC, 'o', rank, k);
    EXPECT(MPI_File_write_ordered(fh, mine, REC * (rank + 1), MPI_CHAR, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_CHAR, &count);
    EXPECT(count == REC * (rank + 1));
    pos = shared_position(fh);
    EXPECT(pos == total);
    if (rank == 0) printf("shared position after write_ordered %lld\n", (long long)pos);
    check("write_ordered, get_position_shared");

    /* one record each through the shared pointer, in any order */
    char one[REC];
    record(one, 's', rank, 0);
    EXPECT(MPI_File_write_shared(fh, one, REC, MPI_CHAR, &st) == MPI_SUCCESS);
    pos = after_shared_record(fh, &st);
    EXPECT(pos == total + REC * size);
    if (rank == 0) printf("shared position after write_shared %lld\n", (long long)pos);
    MPI_Offset fsize = -1;
    MPI_File_get_size(fh, &fsize);
    if (rank == 0) printf("size %lld\n", (long long)fsize);
    check("write_shared");

    /* read everything back in rank order */
    EXPECT(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
    pos = shared_position(fh);
    EXPECT(pos == 0);
    memset(back, 0, REC * (size + 1));
    EXPECT(MPI_File_read_ordered(fh, back, REC * (rank + 1), MPI_CHAR, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_CHAR, &count);
    EXPECT(count == REC * (rank + 1));
    EXPECT(memcmp(back, mine, REC * (rank + 1)) == 0);
    pos = shared_position(fh);
    EXPECT(pos == total);
    EXPECT(MPI_File_read_ordered(fh, one, REC, MPI_CHAR, &st) == MPI_SUCCESS);
    MPI_Gather(one, REC, MPI_CHAR, all, REC, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(all, size, REC, cmp_rec);
        for (int r = 0; r < size; r++) {
            record(one, 's', r, 0);
            EXPECT(memcmp(all + r * REC, one, REC) == 0);
        }
        printf("shared records");
        for (int r = 0; r < size; r++) printf(" %.*s", 2, all + r * REC);
        printf("\n");
    }
    check("seek_shared, read_ordered");

    /* seek_shared relative to the end and the current position, read_shared */
    EXPECT(MPI_File_seek_shared(fh, 0, MPI_SEEK_END) == MPI_SUCCESS);
    pos = shared_position(fh);
    EXPECT(pos == total + REC * size);
    EXPECT(MPI_File_seek_shared(fh, -(MPI_Offset)REC * size, MPI_SEEK_CUR) == MPI_SUCCESS);
    pos = shared_position(fh);
    EXPECT(pos == total);
    memset(one, 0, REC);
    EXPECT(MPI_File_read_shared(fh, one, REC, MPI_CHAR, &st) == MPI_SUCCESS);
    EXPECT(one[0] == 's' && one[REC - 1] == '\n');
    MPI_Barrier(MPI_COMM_WORLD);
    pos = shared_position(fh);
    EXPECT(pos == total + REC * size);
    /* the individual pointer moved independently of the shared one */
    MPI_Offset ind = -1;
    MPI_File_get_position(fh, &ind);
    EXPECT(ind == 0);
    check("seek_shared END/CUR, read_shared");

    /* a second record each through iwrite_shared, complete at its wait */
    MPI_Request req;
    record(one, 'i', rank, 0);
    EXPECT(MPI_File_iwrite_shared(fh, one, REC, MPI_CHAR, &req) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&req, &st) == MPI_SUCCESS);
    pos = after_shared_record(fh, &st);
    EXPECT(pos == total + 2 * REC * size);
    check("iwrite_shared");
    EXPECT(MPI_File_close(&fh) == MPI_SUCCESS);

    /* MPI_MODE_DELETE_ON_CLOSE */
    char scratch[4096];
    snprintf(scratch, sizeof scratch, "%s.scratch", path);
    rc = MPI_File_open(MPI_COMM_WORLD, scratch, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS);
    if (rc == MPI_SUCCESS) {
        EXPECT(MPI_File_write_at_all(fh, rank * REC, mine, REC, MPI_CHAR, &st) == MPI_SUCCESS);
        EXPECT(MPI_File_close(&fh) == MPI_SUCCESS);
    }
    print_class("open scratch after close", MPI_File_open(MPI_COMM_WORLD, scratch, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    check("delete on close");
    free(mine);
    free(back);
    free(all);
    return 0;
}

/* ------------------------------------------------------------ nonblocking */

#define N 1024 /* ints per rank in region 1 */
#define M 512  /* ints per rank in region 2 */
#define K 256  /* ints per rank in region 3 */

static int val(int owner, int k) { return owner * 1000003 + k; }

static int nonblocking(const char *path) {
    MPI_File fh;
    MPI_Status st, sts[2];
    MPI_Request req, reqs[2];
    int count, flag;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS);
    if (rc != MPI_SUCCESS) {
        if (rank == 0) printf("open %s\n", error_class_name(rc));
        return 1;
    }
    int *data = malloc(sizeof(int) * N), *back = malloc(sizeof(int) * N);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* region 1: each rank's block, written in two halves */
    for (int k = 0; k < N; k++) data[k] = val(rank, k);
    MPI_Offset base = (MPI_Offset)rank * N * 4;
    EXPECT(MPI_File_iwrite_at(fh, base, data, N / 2, MPI_INT, &reqs[0]) == MPI_SUCCESS);
    EXPECT(MPI_File_iwrite_at(fh, base + N / 2 * 4, data + N / 2, N / 2, MPI_INT, &reqs[1]) == MPI_SUCCESS);
    EXPECT(MPI_Waitall(2, reqs, sts) == MPI_SUCCESS);
    EXPECT(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
    for (int i = 0; i < 2; i++) {
        MPI_Get_count(&sts[i], MPI_INT, &count);
        EXPECT(count == N / 2);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    memset(back, 0, sizeof(int) * N);
    EXPECT(MPI_File_iread_at(fh, (MPI_Offset)next * N * 4, back, N, MPI_INT, &req) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&req, &st) == MPI_SUCCESS && req == MPI_REQUEST_NULL);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == N);
    int bad = 0;
    for (int k = 0; k < N; k++) bad += back[k] != val(next, k);
    EXPECT(bad == 0);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone has read before blocks change */
    /* the individual file pointer: iwrite/iread */
    MPI_File_seek(fh, base + 8, MPI_SEEK_SET);
    int pair[2] = {-1, -1};
    EXPECT(MPI_File_iread(fh, pair, 2, MPI_INT, &req) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&req, &st) == MPI_SUCCESS);
    EXPECT(pair[0] == val(rank, 2) && pair[1] == val(rank, 3));
    MPI_Offset pos = -1;
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == base + 16);
    EXPECT(MPI_File_iwrite(fh, pair, 2, MPI_INT, &req) == MPI_SUCCESS); /* ints 4, 5 := 2, 3 */
    flag = 0;
    while (!flag) EXPECT(MPI_Test(&req, &flag, &st) == MPI_SUCCESS);
    EXPECT(req == MPI_REQUEST_NULL);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == 2);
    data[4] = val(rank, 2), data[5] = val(rank, 3);
    /* iread_at_all: everyone's own block */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    EXPECT(MPI_File_iread_at_all(fh, base, back, N, MPI_INT, &req) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&req, &st) == MPI_SUCCESS);
    EXPECT(memcmp(back, data, sizeof(int) * N) == 0);
    /* iwrite_at_all: the same bytes again, from the copy just read */
    EXPECT(MPI_File_iwrite_at_all(fh, base, back, N, MPI_INT, &req) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&req, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == N);
    check("iwrite_at, iread_at, iwrite, iread, i(read|write)_at_all");

    /* region 2: interleaved ints, written with iwrite_all through a view,
     * read back as contiguous blocks with iread_all */
    MPI_Offset d2 = (MPI_Offset)size * N * 4;
    MPI_Datatype strided;
    MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)size * 4, &strided);
    MPI_Type_commit(&strided);
    EXPECT(MPI_File_set_view(fh, d2 + rank * 4, MPI_INT, strided, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    for (int k = 0; k < M; k++) data[k] = val(rank, k) ^ 0x5a5a;
    EXPECT(MPI_File_iwrite_all(fh, data, M, MPI_INT, &req) == MPI_SUCCESS);
    flag = 0;
    while (!flag) EXPECT(MPI_Test(&req, &flag, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == M);
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == M);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    EXPECT(MPI_File_set_view(fh, d2 + (MPI_Offset)rank * M * 4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    memset(back, 0, sizeof(int) * N);
    EXPECT(MPI_File_iread_all(fh, back, M, MPI_INT, &req) == MPI_SUCCESS);
    EXPECT(MPI_Waitall(1, &req, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == M);
    bad = 0;
    double sum = 0;
    for (int t = 0; t < M; t++) {
        int g = rank * M + t;
        bad += back[t] != (val(g % size, g / size) ^ 0x5a5a);
        sum += (double)back[t] * (1 + t % 3);
    }
    EXPECT(bad == 0);
    print_all_ranks("interleaved checksums", sum);
    MPI_Type_free(&strided);
    check("iwrite_all through a strided view, iread_all");

    /* region 3: split collectives */
    MPI_Offset d3 = d2 + (MPI_Offset)size * M * 4;
    EXPECT(MPI_File_set_view(fh, d3 + (MPI_Offset)rank * K * 4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    for (int k = 0; k < K; k++) data[k] = val(rank, k) + 77;
    EXPECT(MPI_File_write_all_begin(fh, data, K, MPI_INT) == MPI_SUCCESS);
    memset(&st, 0, sizeof st);
    EXPECT(MPI_File_write_all_end(fh, data, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == K);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    EXPECT(MPI_File_set_view(fh, d3, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    memset(back, 0, sizeof(int) * N);
    EXPECT(MPI_File_read_at_all_begin(fh, (MPI_Offset)prev * K, back, K, MPI_INT) == MPI_SUCCESS);
    EXPECT(MPI_File_read_at_all_end(fh, back, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == K);
    bad = 0;
    for (int k = 0; k < K; k++) bad += back[k] != val(prev, k) + 77;
    EXPECT(bad == 0);
    MPI_File_seek(fh, (MPI_Offset)next * K, MPI_SEEK_SET);
    EXPECT(MPI_File_read_all_begin(fh, back, K, MPI_INT) == MPI_SUCCESS);
    EXPECT(MPI_File_read_all_end(fh, back, &st) == MPI_SUCCESS);
    bad = 0;
    for (int k = 0; k < K; k++) bad += back[k] != val(next, k) + 77;
    EXPECT(bad == 0);
    check("write_all, read_at_all, read_all begin/end");

    /* region 4: write_ordered_begin/end, rank r writes r + 1 ints */
    MPI_Offset d4 = d3 + (MPI_Offset)size * K * 4;
    EXPECT(MPI_File_set_view(fh, d4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    for (int k = 0; k <= rank; k++) data[k] = rank * 10 + k;
    EXPECT(MPI_File_write_ordered_begin(fh, data, rank + 1, MPI_INT) == MPI_SUCCESS);
    EXPECT(MPI_File_write_ordered_end(fh, data, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(count == rank + 1);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int total = size * (size + 1) / 2;
    EXPECT(MPI_File_read_at(fh, 0, back, total, MPI_INT, &st) == MPI_SUCCESS);
    for (int r = 0, i = 0; r < size; r++)
        for (int k = 0; k <= r; k++, i++) EXPECT(back[i] == r * 10 + k);
    if (rank == 0) {
        printf("ordered ints");
        for (int i = 0; i < total; i++) printf(" %d", back[i]);
        printf("\n");
    }
    check("write_ordered begin/end");

    MPI_Offset fsize = -1;
    MPI_File_get_size(fh, &fsize);
    if (rank == 0) printf("size %lld\n", (long long)fsize);
    EXPECT(MPI_File_close(&fh) == MPI_SUCCESS);
    free(data);
    free(back);
    return 0;
}

/* ----------------------------------------------------------------- sparse */

static int sparse(const char *path) {
    MPI_File fh;
    MPI_Status st;
    const MPI_Offset at1 = (MPI_Offset)5 << 30, at2 = ((MPI_Offset)1 << 33) + 7;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS);
    if (rc != MPI_SUCCESS) {
        if (rank == 0) printf("open %s\n", error_class_name(rc));
        return 1;
    }
    char buf[16] = {0};
    if (rank == 0) {
        EXPECT(MPI_File_write_at(fh, at1, "hello", 5, MPI_CHAR, &st) == MPI_SUCCESS);
        EXPECT(MPI_File_write_at(fh, at2, "world!!", 7, MPI_CHAR, &st) == MPI_SUCCESS);
        EXPECT(MPI_File_read_at(fh, at1, buf, 5, MPI_CHAR, &st) == MPI_SUCCESS && memcmp(buf, "hello", 5) == 0);
        EXPECT(MPI_File_read_at(fh, at1 - 2, buf, 3, MPI_CHAR, &st) == MPI_SUCCESS && memcmp(buf, "\0\0h", 3) == 0);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Offset fsize = -1;
    MPI_File_get_size(fh, &fsize);
    EXPECT(fsize == at2 + 7);
    if (rank == 0) printf("size %lld\n", (long long)fsize);
    check("write_at, read_at past 4 GiB");

    /* a view that starts past 2^32 */
    MPI_Offset disp = -1, byte = -1, pos = -1;
    EXPECT(MPI_File_set_view(fh, (MPI_Offset)1 << 33, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &etype, &filetype, datarep);
    EXPECT(disp == (MPI_Offset)1 << 33 && etype == MPI_BYTE && filetype == MPI_BYTE);
    MPI_File_get_byte_offset(fh, 7, &byte);
    EXPECT(byte == at2);
    memset(buf, 0, sizeof buf);
    EXPECT(MPI_File_read_at_all(fh, 7, buf, 7, MPI_CHAR, &st) == MPI_SUCCESS);
    EXPECT(memcmp(buf, "world!!", 7) == 0);
    if (rank == 0) printf("read through the view: %s\n", buf);
    EXPECT(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_File_seek(fh, ((MPI_Offset)1 << 32) + 5, MPI_SEEK_SET);
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == ((MPI_Offset)1 << 32) + 5);
    MPI_File_seek(fh, at1 - pos, MPI_SEEK_CUR);
    MPI_File_get_position(fh, &pos);
    EXPECT(pos == at1);
    memset(buf, 0, sizeof buf);
    EXPECT(MPI_File_read(fh, buf, 5, MPI_CHAR, &st) == MPI_SUCCESS && memcmp(buf, "hello", 5) == 0);
    /* (OMPIO 4.1 counts SEEK_END from elsewhere: printed, not checked) */
    MPI_File_seek(fh, -7, MPI_SEEK_END);
    MPI_File_get_position(fh, &pos);
    if (rank == 0) printf("position at SEEK_END - 7: %lld\n", (long long)pos);
    check("views, seek and byte offsets past 4 GiB");
    EXPECT(MPI_File_close(&fh) == MPI_SUCCESS);
    return 0;
}

/* ----------------------------------------------------------------- escape */

/* an open that should have failed: what could be read */
static void opened(const char *op, MPI_File fh) {
    char buf[65] = {0};
    MPI_Status st;
    MPI_File_read_at(fh, 0, buf, 64, MPI_CHAR, &st);
    for (int i = 0; i < 64 && buf[i]; i++)
        if (buf[i] == '\n') buf[i] = ' ';
    if (rank == 0) printf("%s OPENED: %s\n", op, buf);
    MPI_File_close(&fh);
}

static int escape(const char *path, const char *ops) {
    int leaked = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", ops);
    for (char *op = strtok(list, ","); op; op = strtok(NULL, ",")) {
        MPI_File fh = MPI_FILE_NULL;
        int rc;
        if (!strcmp(op, "delete")) {
            rc = rank == 0 ? MPI_File_delete(path, MPI_INFO_NULL) : MPI_SUCCESS;
            if (rank == 0) printf("delete %s\n", error_class_name(rc));
            leaked += rc == MPI_SUCCESS && rank == 0;
            MPI_Barrier(MPI_COMM_WORLD);
            continue;
        }
        int amode = !strcmp(op, "rdonly") ? MPI_MODE_RDONLY
                  : !strcmp(op, "rdwr")   ? MPI_MODE_RDWR
                  : !strcmp(op, "create") ? MPI_MODE_CREATE | MPI_MODE_WRONLY
                                          : -1;
        if (amode < 0) {
            if (rank == 0) printf("unknown op %s\n", op);
            return 2;
        }
        rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
        if (rc == MPI_SUCCESS) {
            if (amode & (MPI_MODE_RDWR | MPI_MODE_WRONLY)) {
                MPI_Status st;
                MPI_File_write_at(fh, 0, "GUEST WAS HERE", 14, MPI_CHAR, &st);
            }
            leaked++;
            opened(op, fh);
        } else {
            print_class(op, rc);
        }
    }
    return leaked ? 1 : 0;
}

/* --------------------------------------------------------------- readonly */

static int readonly(const char *path, const char *newpath) {
    MPI_File fh;
    MPI_Status st;
    char buf[64] = {0};
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    EXPECT(rc == MPI_SUCCESS);
    if (rc == MPI_SUCCESS) {
        int amode = 0;
        MPI_File_get_amode(fh, &amode);
        if (rank == 0) printf("amode %s\n", amode_names(amode));
        EXPECT(MPI_File_read_at_all(fh, 0, buf, sizeof buf - 1, MPI_CHAR, &st) == MPI_SUCCESS);
        if (rank == 0) printf("read: %s\n", buf);
        MPI_Offset fsize = -1;
        MPI_File_get_size(fh, &fsize);
        if (rank == 0) printf("size %lld\n", (long long)fsize);
        print_class("write_at on the read-only handle", MPI_File_write_at(fh, 0, "x", 1, MPI_CHAR, &st));
        EXPECT(MPI_File_close(&fh) == MPI_SUCCESS);
    } else if (rank == 0) {
        printf("open rdonly %s\n", error_class_name(rc));
    }
    check("rdonly open and read");

    static const struct { const char *name; int amode; int existing; } writes[] = {
        {"rdwr", MPI_MODE_RDWR, 1},
        {"wronly", MPI_MODE_WRONLY, 1},
        {"rdwr|create", MPI_MODE_RDWR | MPI_MODE_CREATE, 1},
        {"wronly|append", MPI_MODE_WRONLY | MPI_MODE_APPEND, 1},
        {"rdonly|delete_on_close", MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE, 1},
        {"create new", MPI_MODE_WRONLY | MPI_MODE_CREATE, 0},
        {"create|excl new", MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, 0},
    };
    int opened_any = 0;
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        rc = MPI_File_open(MPI_COMM_WORLD, writes[i].existing ? path : newpath, writes[i].amode, MPI_INFO_NULL, &fh);
        if (rc == MPI_SUCCESS) {
            opened_any++;
            if (writes[i].amode & (MPI_MODE_RDWR | MPI_MODE_WRONLY))
                MPI_File_write_at(fh, 0, "GUEST WAS HERE", 14, MPI_CHAR, &st);
            MPI_File_close(&fh);
            if (rank == 0) printf("open %s SUCCEEDED\n", writes[i].name);
        } else {
            char what[64];
            snprintf(what, sizeof what, "open %s", writes[i].name);
            print_class(what, rc);
        }
    }
    rc = rank == 0 ? MPI_File_delete(path, MPI_INFO_NULL) : MPI_ERR_OTHER;
    if (rank == 0) printf("delete %s\n", error_class_name(rc));
    opened_any += rank == 0 && rc == MPI_SUCCESS;
    rc = rank == 0 ? MPI_File_delete(newpath, MPI_INFO_NULL) : MPI_ERR_OTHER;
    if (rank == 0) printf("delete missing %s\n", error_class_name(rc));
    opened_any += rank == 0 && rc == MPI_SUCCESS;
    MPI_Barrier(MPI_COMM_WORLD);
    return failures || opened_any ? 1 : 0;
}

/* ------------------------------------------------------------------- hint */

static int hint(const char *path, const char *host) {
    MPI_File fh;
    MPI_Status st;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shared_fp_fname", host);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    print_class("open with shared_fp_fname", rc);
    if (rc != MPI_SUCCESS) return 0;
    char rec[REC];
    record(rec, 'h', rank, 0);
    print_class("write_shared", MPI_File_write_shared(fh, rec, REC, MPI_CHAR, &st));
    print_class("write_ordered", MPI_File_write_ordered(fh, rec, REC, MPI_CHAR, &st));
    MPI_Info used;
    if (MPI_File_get_info(fh, &used) == MPI_SUCCESS) {
        char value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get(used, "shared_fp_fname", MPI_MAX_INFO_VAL, value, &flag);
        if (rank == 0) printf("shared_fp_fname %s\n", flag ? value : "(not set)");
        MPI_Info_free(&used);
    }
    print_class("close", MPI_File_close(&fh));
    return 0;
}

/* ------------------------------------------------------------------- leak */

static void print_info(MPI_Info info) {
    int nkeys = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get_nthkey(info, i, key);
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
        if (rank == 0) printf("info %s=%s\n", key, flag ? value : "");
    }
}

static int leak(const char *path) {
    MPI_File fh;
    char missing[4096], msg[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    snprintf(missing, sizeof missing, "%s.missing/x", path);
    int rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_Error_string(rc, msg, &len);
    if (rank == 0) printf("open missing %s: %s\n", error_class_name(rc), msg);
    rc = MPI_File_delete(missing, MPI_INFO_NULL);
    MPI_Error_string(rc, msg, &len);
    if (rank == 0) printf("delete missing %s: %s\n", error_class_name(rc), msg);
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rank == 0) printf("open %s\n", error_class_name(rc));
    if (rc != MPI_SUCCESS) return 1;
    MPI_Info used;
    if (MPI_File_get_info(fh, &used) == MPI_SUCCESS) {
        print_info(used);
        MPI_Info_free(&used);
    }
    MPI_Status st;
    double x = 1;
    rc = MPI_File_read_at(fh, 0, &x, -5, MPI_DOUBLE, &st);
    MPI_Error_string(rc, msg, &len);
    if (rank == 0) printf("read_at count -5 %s: %s\n", error_class_name(rc), msg);
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Error_string(rc, msg, &len);
    if (rank == 0) printf("open excl %s: %s\n", error_class_name(rc), msg);
    MPI_File_close(&fh);
    return 0;
}

/* ----------------------------------------------------------------- badbuf */

#ifdef __wasm__
#define PATTERN 0xA5

static uintptr_t mem_end(void) { return (uintptr_t)__builtin_wasm_memory_size(0) * 65536; }

static int tail_intact(void) {
    const unsigned char *p = (const unsigned char *)(mem_end() - 16);
    for (int i = 0; i < 16; i++)
        if (p[i] != PATTERN) return 0;
    return 1;
}

#define BAD(name, call) \
    do { \
        int rc_ = (call); \
        print_class(name, rc_); \
        EXPECT(error_class_of(rc_) == MPI_ERR_BUFFER); \
        EXPECT(tail_intact()); \
    } while (0)

static int badbuf(const char *path) {
    MPI_File fh, own;
    MPI_Status st;
    MPI_Request req;
    /* a page of our own at the end of memory: its last 16 bytes hold the pattern */
    uintptr_t page = (uintptr_t)__builtin_wasm_memory_grow(0, 1) * 65536;
    memset((void *)page, PATTERN, 65536);
    char *p = (char *)(mem_end() - 16);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        if (rank == 0) printf("open %s\n", error_class_name(rc));
        return 1;
    }
    /* independent calls on a file all ranks opened */
    BAD("write_at", MPI_File_write_at(fh, 0, p, 1024, MPI_CHAR, &st));
    BAD("read_at", MPI_File_read_at(fh, 0, p, 1024, MPI_CHAR, &st));
    BAD("write", MPI_File_write(fh, p, 1024, MPI_CHAR, &st));
    BAD("read", MPI_File_read(fh, p, 1024, MPI_CHAR, &st));
    req = MPI_REQUEST_NULL;
    BAD("iwrite_at", MPI_File_iwrite_at(fh, 0, p, 1024, MPI_CHAR, &req));
    EXPECT(req == MPI_REQUEST_NULL);
    req = MPI_REQUEST_NULL;
    BAD("iread_at", MPI_File_iread_at(fh, 0, p, 1024, MPI_CHAR, &req));
    EXPECT(req == MPI_REQUEST_NULL);
    req = MPI_REQUEST_NULL;
    BAD("iread", MPI_File_iread(fh, p, 1024, MPI_CHAR, &req));
    EXPECT(req == MPI_REQUEST_NULL);
    BAD("write_shared", MPI_File_write_shared(fh, p, 1024, MPI_CHAR, &st));
    BAD("read_shared", MPI_File_read_shared(fh, p, 1024, MPI_CHAR, &st));
    /* a valid start whose datatype reaches past the memory */
    MPI_Datatype far;
    MPI_Type_vector(2, 1, 1 << 28, MPI_INT, &far);
    MPI_Type_commit(&far);
    static int small[4];
    BAD("write_at far datatype", MPI_File_write_at(fh, 0, small, 1, far, &st));
    BAD("read_at far datatype", MPI_File_read_at(fh, 0, small, 1, far, &st));
    /* collective calls on a file of one process: an error like the others
     * (on a file several processes share, the job ends: badbuf-collective) */
    rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR, MPI_INFO_NULL, &own);
    EXPECT(rc == MPI_SUCCESS);
    if (rc == MPI_SUCCESS) {
        BAD("self write_at_all", MPI_File_write_at_all(own, 0, p, 1024, MPI_CHAR, &st));
        BAD("self read_all", MPI_File_read_all(own, p, 1024, MPI_CHAR, &st));
        req = MPI_REQUEST_NULL;
        BAD("self iread_all", MPI_File_iread_all(own, p, 1024, MPI_CHAR, &req));
        EXPECT(req == MPI_REQUEST_NULL);
        BAD("self read_ordered", MPI_File_read_ordered(own, p, 1024, MPI_CHAR, &st));
        BAD("self write_all_begin", MPI_File_write_all_begin(own, p, 1024, MPI_CHAR));
        BAD("self read_at_all far datatype", MPI_File_read_at_all(own, 0, small, 1, far, &st));
        EXPECT(MPI_File_close(&own) == MPI_SUCCESS);
    }
    MPI_Type_free(&far);
    /* a valid buffer still works afterwards */
    char ok[8] = {0};
    EXPECT(MPI_File_read_at_all(fh, 0, ok, 4, MPI_CHAR, &st) == MPI_SUCCESS);
    if (rank == 0) printf("read after: %.4s\n", ok);
    EXPECT(MPI_File_close(&fh) == MPI_SUCCESS);
    check("buffers past the guest memory");
    return 0;
}

/* a collective on a file of all ranks, each writing its own KiB, with a bad
 * buffer on the last rank only: the others are already in the host's
 * collective, so the job ends */
static int badbuf_collective(const char *path) {
    MPI_File fh;
    MPI_Status st;
    static char good[1024];
    char *p = rank == size - 1 ? (char *)(mem_end() - 16) : good;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        if (rank == 0) printf("open %s\n", error_class_name(rc));
        return 1;
    }
    rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * 1024, p, 1024, MPI_CHAR, &st);
    printf("rank %d write_at_all %s\n", rank, error_class_name(rc));
    MPI_File_close(&fh);
    return 0;
}
#endif

/* ---------------------------------------------------------------- datarep */

static int conv_calls;
static int conversion(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position, void *extra) {
    (void)userbuf, (void)type, (void)count, (void)filebuf, (void)position, (void)extra;
    conv_calls++;
    return MPI_SUCCESS;
}
static int file_extent(MPI_Datatype type, MPI_Aint *extent, void *extra) {
    (void)extra;
    return MPI_Type_get_extent(type, &(MPI_Aint){0}, extent);
}

static int datarep(const char *path) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Register_datarep("mpiio-test-rep", conversion, conversion, file_extent, NULL);
    print_class("register_datarep", rc);
    int rc2 = MPI_Register_datarep("mpiio-test-rep2", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, file_extent, NULL);
    print_class("register_datarep null conversions", rc2);
    MPI_File fh;
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS) {
        int rc3 = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "mpiio-test-rep", MPI_INFO_NULL);
        if (rank == 0) printf("set_view with the registered datarep %s\n", error_class_name(rc3));
        if (rc3 == MPI_SUCCESS) {
            int x[4] = {1, 2, 3, 4};
            MPI_Status st;
            int rc4 = MPI_File_write_at_all(fh, 0, x, 4, MPI_INT, &st);
            if (rank == 0) printf("write through it %s\n", error_class_name(rc4));
        }
        MPI_File_close(&fh);
    } else if (rank == 0) {
        printf("open %s\n", error_class_name(rc));
    }
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0) fprintf(stderr, "usage: mpiio MODE PATH [ARGS]\n");
        MPI_Finalize();
        return 2;
    }
    const char *mode = argv[1], *path = argv[2];
    int rc = 2;
    if (!strcmp(mode, "block2d")) rc = block2d(path);
    else if (!strcmp(mode, "shared")) rc = shared(path);
    else if (!strcmp(mode, "nonblocking")) rc = nonblocking(path);
    else if (!strcmp(mode, "sparse")) rc = sparse(path);
    else if (!strcmp(mode, "escape") && argc > 3) rc = escape(path, argv[3]);
    else if (!strcmp(mode, "readonly") && argc > 3) rc = readonly(path, argv[3]);
    else if (!strcmp(mode, "hint") && argc > 3) rc = hint(path, argv[3]);
    else if (!strcmp(mode, "leak")) rc = leak(path);
    else if (!strcmp(mode, "datarep")) rc = datarep(path);
#ifdef __wasm__
    else if (!strcmp(mode, "badbuf")) rc = badbuf(path);
    else if (!strcmp(mode, "badbuf-collective")) rc = badbuf_collective(path);
#endif
    else if (rank == 0) fprintf(stderr, "unknown mode %s\n", mode);
    fflush(stdout);
    MPI_Finalize();
    return rc ? rc : failures ? 1 : 0;
}
