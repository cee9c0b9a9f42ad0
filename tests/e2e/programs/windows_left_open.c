/* windows_left_open.c MODE: windows the program never frees before
 * MPI_Finalize (legal: MPI_Finalize frees no object, MPI-4.1 11.2.2).
 * Debian's MPICH 4.0.2 over UCX aborts in MPI_Finalize then, natively too
 * (an assertion in UCX's registration cache).
 *
 *   self      a window over MPI_COMM_SELF
 *   flavors   windows of every flavour over MPI_COMM_WORLD, one over a
 *             half of it (even and odd ranks) made between them, data moved
 *             through each with fences
 *   locked    like self and flavors, but rank 0 ends holding a lock on the
 *             last window (erroneous: an epoch left open)
 *
 * Prints "made N windows" (or "no windows: ..." where the host cannot make
 * them), "data ok" when every put arrived, then "finalized". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* Puts rank+1 into the right neighbour's first int, between fences. */
static int put_through(MPI_Win win, int *at, MPI_Comm comm) {
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int value = me + 1;
    MPI_Win_fence(0, win);
    MPI_Put(&value, 1, MPI_INT, (me + 1) % n, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    return *at == (me + n - 1) % n + 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    const char *mode = argc > 1 ? argv[1] : "self";
    static int self_memory[64], world_memory[64], half_memory[64];
    MPI_Win self, world, half, allocated, shared, dynamic;
    int made = 0, good = 1;
    int rc = MPI_Win_create(self_memory, sizeof self_memory, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &self);
    if (rc != MPI_SUCCESS) {
        char why[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, why, &len);
        printf("no windows: %s\n", why);
        MPI_Finalize();
        printf("finalized\n");
        return 0;
    }
    made++;
    good &= put_through(self, self_memory, MPI_COMM_SELF);
    if (strcmp(mode, "self")) {
        MPI_Comm halves;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves);
        MPI_Win_create(world_memory, sizeof world_memory, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &world);
        MPI_Win_create(half_memory, sizeof half_memory, sizeof(int), MPI_INFO_NULL, halves, &half);
        MPI_Comm_free(&halves); /* the window keeps what it needs */
        int *a, *s;
        MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &allocated);
        MPI_Win_allocate_shared(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &s, &shared);
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dynamic);
        made += 5;
        MPI_Comm half_comm; /* the half's ranks again, for put_through's neighbours */
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half_comm);
        good &= put_through(world, world_memory, MPI_COMM_WORLD);
        good &= put_through(half, half_memory, half_comm);
        good &= put_through(allocated, a, MPI_COMM_WORLD);
        good &= put_through(shared, s, MPI_COMM_SELF);
        MPI_Comm_free(&half_comm);
        if (!strcmp(mode, "locked") && rank == 0) MPI_Win_lock(MPI_LOCK_SHARED, size - 1, 0, world);
    }
    printf("made %d windows\n", made);
    printf("data %s\n", good ? "ok" : "WRONG");
    fflush(stdout);
    MPI_Finalize();
    printf("finalized\n");
    return 0;
}
