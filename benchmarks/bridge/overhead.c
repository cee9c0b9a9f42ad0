/* The cost the bridge adds per MPI call: a tight loop of MPI_Comm_rank, a
 * 1-double MPI_Allreduce loop, a loop polling one pending receive with
 * MPI_Testany (what HPCC's MPIRandomAccess does once per table update), and
 * a nonblocking exchange with this rank itself (MPI_Irecv, MPI_Isend,
 * MPI_Waitall on both: the request life cycle of a halo exchange).
 * Prints ns per call, or per exchange (minimum over repeats). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n_rank = argc > 1 ? atol(argv[1]) : 10000000L, n_red = argc > 2 ? atol(argv[2]) : 200000L;
    long n_poll = argc > 3 ? atol(argv[3]) : 2000000L, n_xchg = argc > 4 ? atol(argv[4]) : 1000000L;
    int rank, r = 0, repeats = 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double best_rank = 1e30, best_red = 1e30, best_poll = 1e30, best_xchg = 1e30, x = 1.0, y = 0, never;
    MPI_Request pending, pair[2];
    int index, flag = 0;
    MPI_Irecv(&never, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &pending);
    for (int k = 0; k < repeats; k++) {
        double t = MPI_Wtime();
        for (long i = 0; i < n_rank; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
        t = MPI_Wtime() - t;
        if (t < best_rank) best_rank = t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (long i = 0; i < n_red; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t = MPI_Wtime() - t;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (t < best_red) best_red = t;
        t = MPI_Wtime();
        for (long i = 0; i < n_poll; i++) MPI_Testany(1, &pending, &index, &flag, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t;
        if (t < best_poll) best_poll = t;
        t = MPI_Wtime();
        for (long i = 0; i < n_xchg; i++) {
            MPI_Irecv(&y, 1, MPI_DOUBLE, rank, 7, MPI_COMM_WORLD, &pair[0]);
            MPI_Isend(&x, 1, MPI_DOUBLE, rank, 7, MPI_COMM_WORLD, &pair[1]);
            MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
        }
        t = MPI_Wtime() - t;
        if (t < best_xchg) best_xchg = t;
    }
    MPI_Cancel(&pending);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    if (rank == 0) {
        printf("comm_rank_ns %.2f\n", 1e9 * best_rank / n_rank);
        printf("allreduce_1double_ns %.1f\n", 1e9 * best_red / n_red);
        printf("testany_pending_ns %.1f\n", 1e9 * best_poll / n_poll);
        if (n_xchg > 0) printf("exchange_self_ns %.1f\n", 1e9 * best_xchg / n_xchg);
    }
    MPI_Finalize();
    return r < 0 || flag;
}
