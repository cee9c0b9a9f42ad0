/* file_type_freed.c DIR [FORM]: a nonblocking MPI-IO read or write whose
 * datatype the program frees while the operation is pending, then makes
 * another type (MPI_INT resized to a lower bound of 2^30) before the wait.
 * Legal: a freed datatype stays valid for the operations using it
 * (MPI-4.1 5.1.10). MPICH's ROMIO (4.0.2 and 5.0.2) looks the type up again while
 * its nonblocking collectives progress and finds the new one, natively too.
 *
 * Each rank moves 2^15 ints of its own at offset rank * 2^17 bytes, as one
 * element of a contiguous type. Prints "FORM: bytes N data ok" per form
 * (all forms without FORM), "data WRONG" where the data or count differ. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N (1 << 15)

static const char *forms[] = {"iwrite_all", "iwrite_at_all", "iwrite", "iwrite_at", "iread_all", "iread_at_all", "iread", "iread_at"};

static int one(MPI_File fh, const char *form, int rank) {
    static int data[N], back[N];
    const MPI_Offset at = (MPI_Offset)rank * N * sizeof(int);
    int reading = !strncmp(form, "iread", 5);
    for (int i = 0; i < N; i++) data[i] = rank * N + i + (reading ? 7 : 0), back[i] = -1;
    MPI_File_seek(fh, at, MPI_SEEK_SET);
    if (reading) MPI_File_write_at_all(fh, at, data, N, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Datatype t, other;
    MPI_Type_contiguous(N, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Request r;
    int *buf = reading ? back : data;
    if (!strcmp(form, "iwrite_all")) MPI_File_iwrite_all(fh, buf, 1, t, &r);
    else if (!strcmp(form, "iwrite_at_all")) MPI_File_iwrite_at_all(fh, at, buf, 1, t, &r);
    else if (!strcmp(form, "iwrite")) MPI_File_iwrite(fh, buf, 1, t, &r);
    else if (!strcmp(form, "iwrite_at")) MPI_File_iwrite_at(fh, at, buf, 1, t, &r);
    else if (!strcmp(form, "iread_all")) MPI_File_iread_all(fh, buf, 1, t, &r);
    else if (!strcmp(form, "iread_at_all")) MPI_File_iread_at_all(fh, at, buf, 1, t, &r);
    else if (!strcmp(form, "iread")) MPI_File_iread(fh, buf, 1, t, &r);
    else MPI_File_iread_at(fh, at, buf, 1, t, &r);
    MPI_Type_free(&t);
    MPI_Type_create_resized(MPI_INT, (MPI_Aint)1 << 30, 4, &other);
    MPI_Type_commit(&other);
    MPI_Status st;
    int rc = MPI_Wait(&r, &st);
    MPI_Count bytes = -1;
    MPI_Get_elements_x(&st, MPI_BYTE, &bytes);
    if (!reading) MPI_File_read_at(fh, at, back, N, MPI_INT, MPI_STATUS_IGNORE);
    int good = rc == MPI_SUCCESS && bytes == (MPI_Count)N * (MPI_Count)sizeof(int) && !memcmp(back, data, sizeof data);
    printf("%s: bytes %lld data %s\n", form, (long long)bytes, good ? "ok" : "WRONG");
    MPI_Type_free(&other);
    MPI_Barrier(MPI_COMM_WORLD);
    return good;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[256];
    snprintf(path, sizeof path, "%s/type_freed.dat", argv[1]);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    for (unsigned i = 0; i < sizeof forms / sizeof *forms; i++)
        if (argc < 3 || !strcmp(argv[2], forms[i])) one(fh, forms[i], rank);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
