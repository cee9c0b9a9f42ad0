/* Datatypes the host MPI trusts the caller with: an uncommitted type in a
 * call that moves or sizes data, and type constructors with more blocks than
 * the embedder lets the host allocate. Each case prints "<case> ok" when the
 * call returned the expected error class (found by the MPI-call fuzzer: the
 * host crashed). Built natively too, where only the committed control runs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cls(int rc) {
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static void expect(const char *what, int rc, int want) {
    printf("%s %s\n", what, cls(rc) == want ? "ok" : "FAILED");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t); /* not committed */
    int buf[8] = {0}, pos = 0;
    MPI_Aint size = 0;
    char packed[64];
    MPI_Message msg = MPI_MESSAGE_NO_PROC;
    expect("send uncommitted", MPI_Send(buf, 1, t, 0, 0, MPI_COMM_SELF), MPI_ERR_TYPE);
    expect("mrecv uncommitted", MPI_Mrecv(buf, 1, t, &msg, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    expect("pack_external_size uncommitted", MPI_Pack_external_size("external32", 1, t, &size), MPI_ERR_TYPE);
    expect("pack uncommitted", MPI_Pack(buf, 1, t, packed, sizeof packed, &pos, MPI_COMM_SELF), MPI_ERR_TYPE);
    expect("bcast uncommitted", MPI_Bcast(buf, 1, t, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Type_commit(&t);
    msg = MPI_MESSAGE_NO_PROC;
    expect("mrecv committed", MPI_Mrecv(buf, 1, t, &msg, MPI_STATUS_IGNORE), MPI_SUCCESS);
    expect("pack_external_size committed", MPI_Pack_external_size("external32", 1, t, &size), MPI_SUCCESS);
    MPI_Type_free(&t);
    /* 2^24 + 1 blocks: refused before any host allocation */
    int n = (1 << 24) + 1;
    MPI_Aint *displs = calloc((size_t)n, sizeof *displs);
    MPI_Datatype big = MPI_DATATYPE_NULL;
    expect("hindexed_block too many blocks", MPI_Type_create_hindexed_block(n, 1, displs, MPI_INT, &big), MPI_ERR_COUNT);
    free(displs);
    MPI_Finalize();
    return 0;
}
