/* A fault injector over the host MPI, preloaded into the embedder by
 * tests/e2e/test_fault_injection.py: the function named in
 * EMBEDDER_TEST_BREAK stops moving data (it returns MPI_SUCCESS), every other
 * call goes through to the real MPI. The family programs must notice.
 * "MPI_Barrier:fault" makes MPI_Barrier crash instead, as a host library's
 * bug would: a store through a null pointer's field; "MPI_Barrier:divide" an
 * integer division by zero (SIGFPE), "MPI_Barrier:illegal" an instruction
 * that always faults (SIGILL, as one the CPU lacks would). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int broken(const char *name) {
    const char *which = getenv("EMBEDDER_TEST_BREAK");
    return which && strcmp(which, name) == 0;
}

#define REAL(fn) ((__typeof__(&fn))dlsym(RTLD_NEXT, #fn))

/* no-op: every rank's result buffer keeps what it held */
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    if (broken("MPI_Allreduce")) return MPI_SUCCESS;
    return REAL(MPI_Allreduce)(sendbuf, recvbuf, count, type, op, comm);
}

/* no-op: the non-root ranks never see the root's data */
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    if (broken("MPI_Bcast")) return MPI_SUCCESS;
    return REAL(MPI_Bcast)(buf, count, type, root, comm);
}

/* the transfer happens, then the first received byte is flipped */
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
    int rc = REAL(MPI_Sendrecv)(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                                recvtag, comm, status);
    if (broken("MPI_Sendrecv") && rc == MPI_SUCCESS && recvbuf && recvcount > 0 && source != MPI_PROC_NULL) {
        MPI_Aint lb, extent;
        MPI_Type_get_true_extent(recvtype, &lb, &extent);
        ((unsigned char *)recvbuf)[lb] ^= 0xff;
    }
    return rc;
}

/* a SIGSEGV in host code, at an address no guest memory holds */
int MPI_Barrier(MPI_Comm comm) {
    if (broken("MPI_Barrier:fault")) *(volatile int *)(uintptr_t)16 = 1;
    static volatile int numerator = 7, zero;
    if (broken("MPI_Barrier:divide")) zero = numerator / zero;
    if (broken("MPI_Barrier:illegal")) __builtin_trap();
    return REAL(MPI_Barrier)(comm);
}
