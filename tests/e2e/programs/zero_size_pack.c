/* zero_size_pack.c [TYPE [OP]]: MPI_Pack and MPI_Unpack, native and
 * external32, of derived datatypes that hold no data (a zero-count vector,
 * contiguous, indexed, struct...). Legal calls: nothing is packed, the
 * position stays where it was, the sizes are 0. MPICH dies on them
 * natively (4.0.2 and 5.0.2: SIGILL in every external32 call; 4.0.2:
 * SIGFPE in MPI_Unpack).
 * Prints one line per type and call; without arguments every type and call,
 * plus a type that does hold data (vector1) as a check of the normal path. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char *types[] = {"vector0", "contig0", "indexed00", "struct0", "struct00mixed",
                              "resized-contig0", "contig-of-contig0", "hindexed-block0", "vector1"};
static const char *ops[] = {"pack_size", "pack", "unpack", "external_size", "pack_external", "unpack_external"};

static MPI_Datatype make(const char *which) {
    MPI_Datatype t = MPI_DATATYPE_NULL, t0;
    int zeros[2] = {0, 0}, displs[2] = {0, 8};
    MPI_Aint adispls[2] = {0, 8};
    MPI_Datatype mixed[2] = {MPI_INT, MPI_DOUBLE}, ints[2] = {MPI_INT, MPI_INT};
    if (!strcmp(which, "vector0")) MPI_Type_vector(0, 3, 1, MPI_INT, &t);
    else if (!strcmp(which, "contig0")) MPI_Type_contiguous(0, MPI_INT, &t);
    else if (!strcmp(which, "indexed00")) MPI_Type_indexed(2, zeros, displs, MPI_INT, &t);
    else if (!strcmp(which, "struct0")) MPI_Type_create_struct(0, zeros, adispls, ints, &t);
    else if (!strcmp(which, "struct00mixed")) MPI_Type_create_struct(2, zeros, adispls, mixed, &t);
    else if (!strcmp(which, "resized-contig0")) {
        MPI_Type_contiguous(0, MPI_INT, &t0);
        MPI_Type_create_resized(t0, 0, 8, &t);
        MPI_Type_free(&t0);
    } else if (!strcmp(which, "contig-of-contig0")) {
        MPI_Type_contiguous(0, MPI_INT, &t0);
        MPI_Type_contiguous(4, t0, &t);
        MPI_Type_free(&t0);
    } else if (!strcmp(which, "hindexed-block0")) MPI_Type_create_hindexed_block(2, 0, adispls, MPI_INT, &t);
    else if (!strcmp(which, "vector1")) MPI_Type_vector(1, 3, 1, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* One call with 5 elements: the packed side at position 3 of a 256-byte
 * buffer, the typed side a 256-byte buffer; both filled beforehand. */
static void one(const char *type, const char *op) {
    MPI_Datatype t = make(type);
    static char packed[256], data[256];
    memset(packed, 0x5a, sizeof packed);
    for (unsigned i = 0; i < sizeof data; i++) data[i] = (char)i;
    int rc, isize = -1, ipos = 3;
    MPI_Aint asize = -1, apos = 3;
    if (!strcmp(op, "pack_size")) rc = MPI_Pack_size(5, t, MPI_COMM_WORLD, &isize);
    else if (!strcmp(op, "pack")) rc = MPI_Pack(data, 5, t, packed, sizeof packed, &ipos, MPI_COMM_WORLD);
    else if (!strcmp(op, "unpack")) rc = MPI_Unpack(packed, sizeof packed, &ipos, data, 5, t, MPI_COMM_WORLD);
    else if (!strcmp(op, "external_size")) rc = MPI_Pack_external_size("external32", 5, t, &asize);
    else if (!strcmp(op, "pack_external")) rc = MPI_Pack_external("external32", data, 5, t, packed, sizeof packed, &apos);
    else rc = MPI_Unpack_external("external32", packed, sizeof packed, &apos, data, 5, t);
    /* what moved: the bytes of both buffers that changed */
    int changed = 0;
    for (unsigned i = 0; i < sizeof packed; i++) changed += packed[i] != 0x5a;
    for (unsigned i = 0; i < sizeof data; i++) changed += data[i] != (char)i;
    long size = strstr(op, "external") ? (long)asize : isize, pos = strstr(op, "external") ? (long)apos : ipos;
    printf("%s %s: rc %d size %ld position %ld bytes changed %d\n", type, op, rc, size, pos, changed);
    MPI_Type_free(&t);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    for (unsigned i = 0; i < sizeof types / sizeof *types; i++)
        for (unsigned j = 0; j < sizeof ops / sizeof *ops; j++)
            if ((argc < 2 || !strcmp(argv[1], types[i])) && (argc < 3 || !strcmp(argv[2], ops[j]))) one(types[i], ops[j]);
    MPI_Finalize();
    return 0;
}
