/* Names of 24 to 63 bytes on MPI_COMM_WORLD and MPI_COMM_SELF, read back
 * on every rank, then a name on a duplicate (the host's own). Open MPI 5
 * copies such names into heap blocks sized to the default names: natively
 * the job corrupts its heap (it dies at a later free or at exit). */
#include <string.h>

#include "check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int errors = 0, len = -1;
    char name[MPI_MAX_OBJECT_NAME];
    const char *long_name = "a name of fifty-seven bytes for a predefined communicator";
    MPI_Comm predefined[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int i = 0; i < 2; i++) {
        MPI_Comm_get_name(predefined[i], name, &len);
        EXPECT(strcmp(name, i ? "MPI_COMM_SELF" : "MPI_COMM_WORLD") == 0);
        for (int round = 0; round < 3; round++) {
            MPI_Comm_set_name(predefined[i], round == 1 ? "short" : long_name);
            MPI_Comm_get_name(predefined[i], name, &len);
            EXPECT(strcmp(name, round == 1 ? "short" : long_name) == 0 && len == (int)strlen(name));
        }
    }
    check("long names on the predefined communicators", errors);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_name(dup, name, &len);
    EXPECT(strcmp(name, long_name) != 0);
    MPI_Comm_set_name(dup, long_name);
    MPI_Comm_get_name(dup, name, &len);
    EXPECT(strcmp(name, long_name) == 0 && len == (int)strlen(long_name));
    MPI_Comm_free(&dup);
    check("a long name on a duplicate", errors);
    MPI_Finalize();
    return failures != 0;
}
