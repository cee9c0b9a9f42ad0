/* Group arguments the host MPI does not check, found by the MPI-call fuzzer
 * (docs/security.md): each must give an MPI error class or be
 * harmless, never a host crash. Prints one line per case, then "done". */
#include <mpi.h>
#include <stdio.h>

static int ranges[4][3];

static void expect(const char* what, int rc, int class_wanted) {
    int class = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &class);
    printf("%s: %s\n", what, class == class_wanted ? "ok" : "WRONG");
    if (class != class_wanted) printf("  got class %d, wanted %d\n", class, class_wanted);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group self, g;
    MPI_Comm_group(MPI_COMM_SELF, &self);

    /* ranks outside the group: Open MPI reads past its process array */
    int in[3] = {0, 1, 0}, out[3];
    expect("translate rank 1 of a 1-rank group", MPI_Group_translate_ranks(self, 2, in, self, out), MPI_ERR_RANK);
    in[1] = 1000000;
    expect("translate rank 1000000", MPI_Group_translate_ranks(self, 2, in, self, out), MPI_ERR_RANK);
    in[1] = MPI_ROOT;
    expect("translate MPI_ROOT", MPI_Group_translate_ranks(self, 2, in, self, out), MPI_ERR_RANK);
    in[1] = MPI_PROC_NULL;
    expect("translate MPI_PROC_NULL", MPI_Group_translate_ranks(self, 2, in, self, out), MPI_SUCCESS);
    printf("translated: %d %s\n", out[0], out[1] == MPI_PROC_NULL ? "MPI_PROC_NULL" : "WRONG");

    /* n * 3 ints overflows 32 bits: the whole array must be checked */
    expect("range_incl n = 0x55555556", MPI_Group_range_incl(self, 0x55555556, ranges, &g), MPI_ERR_BUFFER);
    expect("range_excl n = 0x55555556", MPI_Group_range_excl(self, 0x55555556, ranges, &g), MPI_ERR_BUFFER);

    /* freeing the predefined empty group, again and again: Open MPI
     * releases its static object (free(): invalid pointer) */
    for (int i = 0; i < 3; i++) {
        g = MPI_GROUP_EMPTY;
        expect("free MPI_GROUP_EMPTY", MPI_Group_free(&g), MPI_SUCCESS);
    }
    int size = -1;
    expect("MPI_GROUP_EMPTY still usable", MPI_Group_size(MPI_GROUP_EMPTY, &size), MPI_SUCCESS);
    printf("empty size %d\n", size);
    MPI_Group_free(&self);
    MPI_Finalize();
    printf("done\n");
    return 0;
}
