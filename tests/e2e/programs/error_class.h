/* Error classes by name, for the test programs that print which class a
 * call returned (compared with native runs or with the tests' tables), and
 * CHECK_OK: a call that must succeed, else the job ends naming it. */
#ifndef TEST_ERROR_CLASS_H
#define TEST_ERROR_CLASS_H
#include <mpi.h>
#include <stdio.h>

/* The class of error code `rc` (a class is its own class). */
static inline int error_class_of(int rc) {
    int cls = rc;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = -1;
    return cls;
}

/* The name of the class of error code `rc`. */
static inline const char *error_class_name(int rc) {
    int cls = error_class_of(rc);
    switch (cls) {
#define C(x) case x: return #x;
        C(MPI_SUCCESS) C(MPI_ERR_BUFFER) C(MPI_ERR_COUNT) C(MPI_ERR_TYPE) C(MPI_ERR_TAG) C(MPI_ERR_COMM)
        C(MPI_ERR_RANK) C(MPI_ERR_REQUEST) C(MPI_ERR_ROOT) C(MPI_ERR_GROUP) C(MPI_ERR_OP) C(MPI_ERR_TOPOLOGY)
        C(MPI_ERR_DIMS) C(MPI_ERR_ARG) C(MPI_ERR_UNKNOWN) C(MPI_ERR_TRUNCATE) C(MPI_ERR_OTHER) C(MPI_ERR_INTERN)
        C(MPI_ERR_IN_STATUS) C(MPI_ERR_PENDING) C(MPI_ERR_ACCESS) C(MPI_ERR_AMODE) C(MPI_ERR_BAD_FILE)
        C(MPI_ERR_CONVERSION) C(MPI_ERR_DUP_DATAREP) C(MPI_ERR_FILE_EXISTS) C(MPI_ERR_FILE_IN_USE)
        C(MPI_ERR_FILE) C(MPI_ERR_INFO) C(MPI_ERR_INFO_KEY) C(MPI_ERR_INFO_VALUE) C(MPI_ERR_INFO_NOKEY)
        C(MPI_ERR_IO) C(MPI_ERR_NAME) C(MPI_ERR_NO_MEM) C(MPI_ERR_NOT_SAME) C(MPI_ERR_NO_SPACE)
        C(MPI_ERR_NO_SUCH_FILE) C(MPI_ERR_PORT) C(MPI_ERR_QUOTA) C(MPI_ERR_READ_ONLY) C(MPI_ERR_SERVICE)
        C(MPI_ERR_SPAWN) C(MPI_ERR_UNSUPPORTED_DATAREP) C(MPI_ERR_UNSUPPORTED_OPERATION) C(MPI_ERR_WIN)
        C(MPI_ERR_ASSERT) C(MPI_ERR_BASE) C(MPI_ERR_DISP) C(MPI_ERR_LOCKTYPE) C(MPI_ERR_SIZE)
        C(MPI_ERR_RMA_ATTACH) C(MPI_ERR_RMA_CONFLICT) C(MPI_ERR_RMA_RANGE) C(MPI_ERR_RMA_SHARED)
        C(MPI_ERR_RMA_SYNC) C(MPI_ERR_RMA_FLAVOR)
#undef C
    case -1: return "(MPI_Error_class failed)";
    }
    static char other[32];
    snprintf(other, sizeof other, "class %d", cls);
    return other;
}

#define CHECK_OK(call)                                                                            \
    do {                                                                                          \
        int rc_ = (call);                                                                         \
        if (rc_ != MPI_SUCCESS) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, error_class_name(rc_)); \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                         \
        }                                                                                         \
    } while (0)
#endif
