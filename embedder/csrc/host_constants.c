/*
 * The host MPI's predefined constants, by their standard names.
 *
 * OpenMPI's handles are addresses of library globals and MPICH's are integer
 * literals, and their integer constants (MPI_ANY_SOURCE, MPI_ROOT, error
 * classes, ...) differ too. Compiling this one file against the host mpi.h is
 * the only portable way to learn them. The embedder matches these names with
 * the guest's standard-ABI values (mpi-header/abi-constants.tsv) once at start
 * up and builds direct-index translation tables from them.
 */
#include <mpi.h>
#include <stddef.h>

#define N(x) {#x, x}

struct emb_named_int { const char *name; int value; };
struct emb_named_datatype { const char *name; MPI_Datatype value; };
struct emb_named_op { const char *name; MPI_Op value; };
struct emb_named_ptr { const char *name; void *value; };

static const struct emb_named_datatype datatypes[] = {
    N(MPI_DATATYPE_NULL), N(MPI_AINT), N(MPI_COUNT), N(MPI_OFFSET), N(MPI_PACKED),
    N(MPI_SHORT), N(MPI_INT), N(MPI_LONG), N(MPI_LONG_LONG), N(MPI_LONG_LONG_INT),
    N(MPI_UNSIGNED_SHORT), N(MPI_UNSIGNED), N(MPI_UNSIGNED_LONG), N(MPI_UNSIGNED_LONG_LONG),
    N(MPI_FLOAT), N(MPI_C_FLOAT_COMPLEX), N(MPI_C_COMPLEX), N(MPI_CXX_FLOAT_COMPLEX),
    N(MPI_DOUBLE), N(MPI_C_DOUBLE_COMPLEX), N(MPI_CXX_DOUBLE_COMPLEX),
    N(MPI_LOGICAL), N(MPI_INTEGER), N(MPI_REAL), N(MPI_COMPLEX), N(MPI_DOUBLE_PRECISION),
    N(MPI_DOUBLE_COMPLEX), N(MPI_CHARACTER),
    N(MPI_LONG_DOUBLE), N(MPI_C_LONG_DOUBLE_COMPLEX), N(MPI_CXX_LONG_DOUBLE_COMPLEX),
    N(MPI_FLOAT_INT), N(MPI_DOUBLE_INT), N(MPI_LONG_INT), N(MPI_2INT), N(MPI_SHORT_INT),
    N(MPI_LONG_DOUBLE_INT), N(MPI_2REAL), N(MPI_2DOUBLE_PRECISION), N(MPI_2INTEGER),
    N(MPI_C_BOOL), N(MPI_CXX_BOOL), N(MPI_WCHAR),
    N(MPI_INT8_T), N(MPI_UINT8_T), N(MPI_CHAR), N(MPI_SIGNED_CHAR), N(MPI_UNSIGNED_CHAR),
    N(MPI_BYTE), N(MPI_INT16_T), N(MPI_UINT16_T), N(MPI_INT32_T), N(MPI_UINT32_T),
    N(MPI_INT64_T), N(MPI_UINT64_T),
};

static const struct emb_named_op ops[] = {
    N(MPI_OP_NULL), N(MPI_SUM), N(MPI_MIN), N(MPI_MAX), N(MPI_PROD), N(MPI_BAND), N(MPI_BOR),
    N(MPI_BXOR), N(MPI_LAND), N(MPI_LOR), N(MPI_LXOR), N(MPI_MINLOC), N(MPI_MAXLOC),
    N(MPI_REPLACE), N(MPI_NO_OP),
};

/* Integer constants whose host values the bridge translates. */
static const struct emb_named_int ints[] = {
    N(MPI_SUCCESS), N(MPI_ANY_SOURCE), N(MPI_ANY_TAG), N(MPI_PROC_NULL), N(MPI_ROOT),
    N(MPI_UNDEFINED), N(MPI_THREAD_SINGLE), N(MPI_THREAD_FUNNELED), N(MPI_THREAD_SERIALIZED),
    N(MPI_THREAD_MULTIPLE), N(MPI_MAX_PROCESSOR_NAME), N(MPI_MAX_ERROR_STRING),
    N(MPI_MAX_LIBRARY_VERSION_STRING), N(MPI_MAX_OBJECT_NAME), N(MPI_TAG_UB),
    N(MPI_MAX_INFO_KEY), N(MPI_MAX_INFO_VAL),
    N(MPI_IDENT), N(MPI_CONGRUENT), N(MPI_SIMILAR), N(MPI_UNEQUAL),
    N(MPI_COMM_TYPE_SHARED), N(MPI_CART), N(MPI_GRAPH), N(MPI_DIST_GRAPH),
    /* derived datatypes */
    N(MPI_ORDER_C), N(MPI_ORDER_FORTRAN), N(MPI_DISTRIBUTE_BLOCK), N(MPI_DISTRIBUTE_CYCLIC),
    N(MPI_DISTRIBUTE_NONE), N(MPI_DISTRIBUTE_DFLT_DARG),
    /* predefined attribute keys */
    N(MPI_HOST), N(MPI_IO), N(MPI_WTIME_IS_GLOBAL), N(MPI_UNIVERSE_SIZE), N(MPI_APPNUM),
    N(MPI_LASTUSEDCODE),
    /* error classes */
    N(MPI_ERR_BUFFER), N(MPI_ERR_COUNT), N(MPI_ERR_TYPE), N(MPI_ERR_TAG), N(MPI_ERR_COMM),
    N(MPI_ERR_RANK), N(MPI_ERR_REQUEST), N(MPI_ERR_ROOT), N(MPI_ERR_GROUP), N(MPI_ERR_OP),
    N(MPI_ERR_TOPOLOGY), N(MPI_ERR_DIMS), N(MPI_ERR_ARG), N(MPI_ERR_UNKNOWN),
    N(MPI_ERR_TRUNCATE), N(MPI_ERR_OTHER), N(MPI_ERR_INTERN), N(MPI_ERR_PENDING),
    N(MPI_ERR_IN_STATUS), N(MPI_ERR_ACCESS), N(MPI_ERR_AMODE), N(MPI_ERR_ASSERT),
    N(MPI_ERR_BAD_FILE), N(MPI_ERR_BASE), N(MPI_ERR_CONVERSION), N(MPI_ERR_DISP),
    N(MPI_ERR_DUP_DATAREP), N(MPI_ERR_FILE_EXISTS), N(MPI_ERR_FILE_IN_USE), N(MPI_ERR_FILE),
    N(MPI_ERR_INFO_KEY), N(MPI_ERR_INFO_NOKEY), N(MPI_ERR_INFO_VALUE), N(MPI_ERR_INFO),
    N(MPI_ERR_IO), N(MPI_ERR_KEYVAL), N(MPI_ERR_LOCKTYPE), N(MPI_ERR_NAME), N(MPI_ERR_NO_MEM),
    N(MPI_ERR_NOT_SAME), N(MPI_ERR_NO_SPACE), N(MPI_ERR_NO_SUCH_FILE), N(MPI_ERR_PORT),
    N(MPI_ERR_QUOTA), N(MPI_ERR_READ_ONLY), N(MPI_ERR_RMA_CONFLICT), N(MPI_ERR_RMA_SYNC),
    N(MPI_ERR_SERVICE), N(MPI_ERR_SIZE), N(MPI_ERR_SPAWN), N(MPI_ERR_UNSUPPORTED_DATAREP),
    N(MPI_ERR_UNSUPPORTED_OPERATION), N(MPI_ERR_WIN), N(MPI_ERR_RMA_RANGE),
    N(MPI_ERR_RMA_ATTACH), N(MPI_ERR_RMA_SHARED), N(MPI_ERR_RMA_FLAVOR), N(MPI_ERR_LASTCODE),
};

static const struct emb_named_ptr ptrs[] = {
    {"MPI_BOTTOM", (void *)MPI_BOTTOM}, {"MPI_IN_PLACE", (void *)MPI_IN_PLACE},
    {"MPI_STATUS_IGNORE", (void *)MPI_STATUS_IGNORE},
    {"MPI_STATUSES_IGNORE", (void *)MPI_STATUSES_IGNORE},
    {"MPI_ERRCODES_IGNORE", (void *)MPI_ERRCODES_IGNORE},
};

#define EXPORT_TABLE(fn, type, table)                                      \
    const type *fn(size_t *len) {                                          \
        *len = sizeof(table) / sizeof(table[0]);                           \
        return table;                                                      \
    }

EXPORT_TABLE(emb_host_datatypes, struct emb_named_datatype, datatypes)
EXPORT_TABLE(emb_host_ops, struct emb_named_op, ops)
EXPORT_TABLE(emb_host_ints, struct emb_named_int, ints)
EXPORT_TABLE(emb_host_ptrs, struct emb_named_ptr, ptrs)

/* The size and field offsets of the host MPI_Status (public fields only). */
void emb_host_status_layout(size_t *size, size_t *source, size_t *tag, size_t *error) {
    *size = sizeof(MPI_Status);
    *source = offsetof(MPI_Status, MPI_SOURCE);
    *tag = offsetof(MPI_Status, MPI_TAG);
    *error = offsetof(MPI_Status, MPI_ERROR);
}

/* Which MPI this file was compiled against, to catch a build that mixes the
 * headers of one MPI with the library of another. */
const char *emb_host_flavor(void) {
#if defined(OPEN_MPI)
    return "Open MPI";
#elif defined(MPICH)
    return "MPICH";
#else
    return "";
#endif
}

/* Handle constants rsmpi does not export. */
MPI_Info emb_host_info_env(void) { return MPI_INFO_ENV; }

/* The dist-graph weight sentinels (MPICH's are variables, not constants). */
void emb_host_weight_sentinels(int **unweighted, int **empty) {
    *unweighted = MPI_UNWEIGHTED;
    *empty = MPI_WEIGHTS_EMPTY;
}
