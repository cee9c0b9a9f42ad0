/* Prints MPI_INFO_ENV, one key=value per line (rank 0), after MPI_Init or,
 * with "session", after MPI_Session_init only. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void print(MPI_Info info) {
    int n = -1;
    MPI_Info_get_nkeys(info, &n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY], value[1024];
        int flag = 0;
        MPI_Info_get_nthkey(info, i, key);
        MPI_Info_get(info, key, sizeof value - 1, value, &flag);
        printf("%s=%s\n", key, flag ? value : "(missing)");
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "session")) {
        MPI_Session s;
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
        print(MPI_INFO_ENV);
        MPI_Session_finalize(&s);
        return 0;
    }
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) print(MPI_INFO_ENV);
    MPI_Finalize();
    return 0;
}
