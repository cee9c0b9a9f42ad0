/* faults.c FAULT: rank 1 (or rank 0 alone) commits FAULT while the other
 * ranks wait for a message that never comes, so only a job-wide abort ends
 * the run. Faults that rely on wasm32's memory layout are wasm-only. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int depth(int n) { volatile int pad[64]; pad[n % 64] = n; return n + depth(n + 1) + pad[0]; }

static size_t memory_end(void) {
#ifdef __wasm__
    return __builtin_wasm_memory_size(0) * 65536;
#else
    return 0;
#endif
}

int main(int argc, char **argv) {
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *fault = argc > 1 ? argv[1] : "none";
    int culprit = size > 1 ? 1 : 0;
    if (rank != culprit) {
        /* never satisfied: only an abort of the whole job ends this */
        MPI_Recv(&x, 1, MPI_INT, culprit, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank %d: unexpected message\n", rank);
        return 1;
    }
    fflush(stdout);
    if (!strcmp(fault, "trap")) {
        __builtin_trap();
    } else if (!strcmp(fault, "oob-load")) {
        volatile char *p = (volatile char *)(memory_end() + 4096);
        x = *p;
    } else if (!strcmp(fault, "recursion")) {
        x = depth(0);
    } else if (!strcmp(fault, "send-oob")) {
        /* 8 ints starting 16 bytes before the end of memory: the first
         * element is inside, the buffer is not */
        MPI_Send((void *)(memory_end() - 16), 8, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "recv-oob")) {
        MPI_Recv((void *)(memory_end() - 4), 2, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(fault, "send-wrap")) {
        MPI_Send((void *)0xfffffff0u, 64, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "send-at-end")) {
        /* exactly up to the last byte: valid; sent to ourselves via PROC_NULL */
        MPI_Send((void *)(memory_end() - 16), 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
        printf("send-at-end ok\n");
    } else if (!strcmp(fault, "bad-rank")) {
        MPI_Send(&x, 1, MPI_INT, -2, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "bad-comm")) {
        MPI_Send(&x, 1, MPI_INT, 0, 1, (MPI_Comm)0x1234);
    } else if (!strcmp(fault, "bad-type")) {
        MPI_Send(&x, 1, MPI_LONG_DOUBLE, 0, 1, MPI_COMM_WORLD);
    } else if (!strcmp(fault, "unsupported")) {
        MPI_Win_fence(0, MPI_WIN_NULL); /* one-sided communication: not bridged yet */
    } else if (!strcmp(fault, "abort")) {
        MPI_Abort(MPI_COMM_WORLD, 7);
    }
    if (size > 1) MPI_Send(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
