/*
 * Prints one host MPI's predefined constants by their standard names, as the
 * TSV rows of embedder/host-abi/<family>.tsv (see gen_host_abi.py, which
 * compiles this file with each MPI's own mpicc).
 *
 * Open MPI's handles are addresses of library globals and MPICH's are integer
 * literals, and their integer constants (MPI_ANY_SOURCE, MPI_ROOT, error
 * classes, ...) differ too. Compiling against the host mpi.h is the only
 * portable way to learn them; doing it once per MPI family, at generation
 * time, lets one embedder binary serve every family without any mpi.h.
 *
 * A value is an integer, "&symbol" (the address of the library's exported
 * symbol, found with dladdr) or "*symbol" (the pointer stored in it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* MPI-4.0 sessions. Open MPI 4.x has none, and one table serves Open MPI 4
 * and 5 (gen_host_abi.py reads 4.x, a test compares 5.x): so the class is
 * 5.x's, which 4.x never raises, and the null session is "?symbol", the
 * address of a symbol the library may lack (then it has no sessions). */
#if defined(OPEN_MPI) && !defined(MPI_ERR_SESSION)
#define MPI_ERR_SESSION 78
#endif
#define OMPI_SESSION_NULL_SYMBOL "ompi_mpi_instance_null"

/* The tool interface (MPI_T). Its enumerations are not macros, so what a
 * family's older release lacks cannot be tested for: one table serves MPICH
 * 4.0 and 5 (a test compares 5.x), so MPICH's later additions get 5.x's
 * values, which 4.0 never returns (MPI_T_ERR_NOT_ACCESSIBLE; the session
 * binding follows MPI_T_BIND_MPI_INFO). Open MPI 4 and 5 have neither, nor
 * events (so no callback safety levels or source orderings): not listed. */
#if defined(MPICH) && !defined(MPI_T_ERR_NOT_ACCESSIBLE)
#define MPI_T_ERR_NOT_ACCESSIBLE 79
#endif

#define N(x) {#x, (intptr_t)(x)}

struct named { const char *name; intptr_t value; };

static const struct named datatypes[] = {
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

static const struct named ops[] = {
    N(MPI_OP_NULL), N(MPI_SUM), N(MPI_MIN), N(MPI_MAX), N(MPI_PROD), N(MPI_BAND), N(MPI_BOR),
    N(MPI_BXOR), N(MPI_LAND), N(MPI_LOR), N(MPI_LXOR), N(MPI_MINLOC), N(MPI_MAXLOC),
    N(MPI_REPLACE), N(MPI_NO_OP),
};

/* Integer constants whose host values the bridge translates. */
static const struct named ints[] = {
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
    /* MPI-IO: access modes, seek positions, the view displacement sentinel */
    N(MPI_MODE_APPEND), N(MPI_MODE_CREATE), N(MPI_MODE_DELETE_ON_CLOSE), N(MPI_MODE_EXCL),
    N(MPI_MODE_RDONLY), N(MPI_MODE_RDWR), N(MPI_MODE_SEQUENTIAL), N(MPI_MODE_UNIQUE_OPEN),
    N(MPI_MODE_WRONLY), N(MPI_SEEK_CUR), N(MPI_SEEK_END), N(MPI_SEEK_SET),
    N(MPI_DISPLACEMENT_CURRENT),
    /* one-sided communication: lock types, assertions, window attributes */
    N(MPI_LOCK_EXCLUSIVE), N(MPI_LOCK_SHARED), N(MPI_MODE_NOCHECK), N(MPI_MODE_NOPRECEDE),
    N(MPI_MODE_NOPUT), N(MPI_MODE_NOSTORE), N(MPI_MODE_NOSUCCEED), N(MPI_WIN_BASE), N(MPI_WIN_SIZE),
    N(MPI_WIN_DISP_UNIT), N(MPI_WIN_CREATE_FLAVOR), N(MPI_WIN_MODEL), N(MPI_WIN_UNIFIED),
    N(MPI_WIN_SEPARATE), N(MPI_WIN_FLAVOR_CREATE), N(MPI_WIN_FLAVOR_ALLOCATE),
    N(MPI_WIN_FLAVOR_DYNAMIC), N(MPI_WIN_FLAVOR_SHARED),
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
    N(MPI_ERR_SESSION),
    /* the tool interface: error classes, and the values its queries return */
    N(MPI_T_ERR_MEMORY), N(MPI_T_ERR_NOT_INITIALIZED), N(MPI_T_ERR_CANNOT_INIT),
    N(MPI_T_ERR_INVALID_INDEX), N(MPI_T_ERR_INVALID_ITEM), N(MPI_T_ERR_INVALID_HANDLE),
    N(MPI_T_ERR_OUT_OF_HANDLES), N(MPI_T_ERR_OUT_OF_SESSIONS), N(MPI_T_ERR_INVALID_SESSION),
    N(MPI_T_ERR_CVAR_SET_NOT_NOW), N(MPI_T_ERR_CVAR_SET_NEVER), N(MPI_T_ERR_PVAR_NO_STARTSTOP),
    N(MPI_T_ERR_PVAR_NO_WRITE), N(MPI_T_ERR_PVAR_NO_ATOMIC), N(MPI_T_ERR_INVALID_NAME),
    N(MPI_T_ERR_INVALID),
#if defined(MPICH)
    N(MPI_T_ERR_NOT_SUPPORTED), N(MPI_T_ERR_NOT_ACCESSIBLE),
#endif
    N(MPI_T_VERBOSITY_USER_BASIC), N(MPI_T_VERBOSITY_USER_DETAIL), N(MPI_T_VERBOSITY_USER_ALL),
    N(MPI_T_VERBOSITY_TUNER_BASIC), N(MPI_T_VERBOSITY_TUNER_DETAIL), N(MPI_T_VERBOSITY_TUNER_ALL),
    N(MPI_T_VERBOSITY_MPIDEV_BASIC), N(MPI_T_VERBOSITY_MPIDEV_DETAIL), N(MPI_T_VERBOSITY_MPIDEV_ALL),
    N(MPI_T_BIND_NO_OBJECT), N(MPI_T_BIND_MPI_COMM), N(MPI_T_BIND_MPI_DATATYPE),
    N(MPI_T_BIND_MPI_ERRHANDLER), N(MPI_T_BIND_MPI_FILE), N(MPI_T_BIND_MPI_GROUP), N(MPI_T_BIND_MPI_OP),
    N(MPI_T_BIND_MPI_REQUEST), N(MPI_T_BIND_MPI_WIN), N(MPI_T_BIND_MPI_MESSAGE), N(MPI_T_BIND_MPI_INFO),
#if defined(MPICH)
    {"MPI_T_BIND_MPI_SESSION", MPI_T_BIND_MPI_INFO + 1},
#endif
    N(MPI_T_SCOPE_CONSTANT), N(MPI_T_SCOPE_READONLY), N(MPI_T_SCOPE_LOCAL), N(MPI_T_SCOPE_GROUP),
    N(MPI_T_SCOPE_GROUP_EQ), N(MPI_T_SCOPE_ALL), N(MPI_T_SCOPE_ALL_EQ),
    N(MPI_T_PVAR_CLASS_STATE), N(MPI_T_PVAR_CLASS_LEVEL), N(MPI_T_PVAR_CLASS_SIZE),
    N(MPI_T_PVAR_CLASS_PERCENTAGE), N(MPI_T_PVAR_CLASS_HIGHWATERMARK), N(MPI_T_PVAR_CLASS_LOWWATERMARK),
    N(MPI_T_PVAR_CLASS_COUNTER), N(MPI_T_PVAR_CLASS_AGGREGATE), N(MPI_T_PVAR_CLASS_TIMER),
    N(MPI_T_PVAR_CLASS_GENERIC),
#if defined(MPICH)
    N(MPI_T_CB_REQUIRE_NONE), N(MPI_T_CB_REQUIRE_MPI_RESTRICTED), N(MPI_T_CB_REQUIRE_THREAD_SAFE),
    N(MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE), N(MPI_T_SOURCE_ORDERED), N(MPI_T_SOURCE_UNORDERED),
#endif
};

static const struct named ptrs[] = {
    {"MPI_BOTTOM", (intptr_t)MPI_BOTTOM}, {"MPI_IN_PLACE", (intptr_t)MPI_IN_PLACE},
    {"MPI_STATUS_IGNORE", (intptr_t)MPI_STATUS_IGNORE},
    {"MPI_STATUSES_IGNORE", (intptr_t)MPI_STATUSES_IGNORE},
    {"MPI_ERRCODES_IGNORE", (intptr_t)MPI_ERRCODES_IGNORE},
};

/* A handle or pointer: an exported symbol's address if it is one, else the
 * integer (MPICH's handles, Open MPI's small sentinel pointers). */
static void print_value(const char *kind, const char *name, intptr_t v) {
    Dl_info info;
    if (v > 4096 && dladdr((void *)v, &info) && info.dli_sname && (intptr_t)info.dli_saddr == v)
        printf("%s\t%s\t&%s\n", kind, name, info.dli_sname);
    else
        printf("%s\t%s\t%ld\n", kind, name, (long)v);
}

#define PRINT(kind, table) \
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) print_value(kind, table[i].name, table[i].value)

int main(void) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    printf("# generated by embedder/gen/gen_host_abi.py from the mpi.h of: %s\n", strtok(version, "\n"));
    printf("kind\tname\tvalue\n");
    PRINT("datatype", datatypes);
    PRINT("op", ops);
    PRINT("int", ints);
    PRINT("ptr", ptrs);
    print_value("handle", "MPI_COMM_WORLD", (intptr_t)MPI_COMM_WORLD);
    print_value("handle", "MPI_COMM_SELF", (intptr_t)MPI_COMM_SELF);
    print_value("handle", "MPI_COMM_NULL", (intptr_t)MPI_COMM_NULL);
    print_value("handle", "MPI_GROUP_NULL", (intptr_t)MPI_GROUP_NULL);
    print_value("handle", "MPI_GROUP_EMPTY", (intptr_t)MPI_GROUP_EMPTY);
    print_value("handle", "MPI_REQUEST_NULL", (intptr_t)MPI_REQUEST_NULL);
    print_value("handle", "MPI_MESSAGE_NULL", (intptr_t)MPI_MESSAGE_NULL);
    print_value("handle", "MPI_MESSAGE_NO_PROC", (intptr_t)MPI_MESSAGE_NO_PROC);
    print_value("handle", "MPI_INFO_NULL", (intptr_t)MPI_INFO_NULL);
    print_value("handle", "MPI_INFO_ENV", (intptr_t)MPI_INFO_ENV);
    print_value("handle", "MPI_ERRHANDLER_NULL", (intptr_t)MPI_ERRHANDLER_NULL);
    print_value("handle", "MPI_ERRORS_RETURN", (intptr_t)MPI_ERRORS_RETURN);
    print_value("handle", "MPI_ERRORS_ARE_FATAL", (intptr_t)MPI_ERRORS_ARE_FATAL);
    print_value("handle", "MPI_WIN_NULL", (intptr_t)MPI_WIN_NULL);
    print_value("handle", "MPI_FILE_NULL", (intptr_t)MPI_FILE_NULL);
#if defined(OPEN_MPI)
#if defined(MPI_SESSION_NULL)
    {
        Dl_info info;
        if (!dladdr((void *)MPI_SESSION_NULL, &info) || !info.dli_sname || strcmp(info.dli_sname, OMPI_SESSION_NULL_SYMBOL)) {
            fprintf(stderr, "MPI_SESSION_NULL is not %s in this Open MPI\n", OMPI_SESSION_NULL_SYMBOL);
            return 1;
        }
    }
#endif
    printf("handle\tMPI_SESSION_NULL\t?%s\n", OMPI_SESSION_NULL_SYMBOL);
#else
    print_value("handle", "MPI_SESSION_NULL", (intptr_t)MPI_SESSION_NULL);
#endif
#if defined(MPICH)
    /* MPICH's weight sentinels are exported variables holding pointers. */
    printf("ptr\tMPI_UNWEIGHTED\t*MPI_UNWEIGHTED\nptr\tMPI_WEIGHTS_EMPTY\t*MPI_WEIGHTS_EMPTY\n");
#else
    print_value("ptr", "MPI_UNWEIGHTED", (intptr_t)MPI_UNWEIGHTED);
    print_value("ptr", "MPI_WEIGHTS_EMPTY", (intptr_t)MPI_WEIGHTS_EMPTY);
#endif
    printf("status\tsize\t%zu\n", sizeof(MPI_Status));
    printf("status\tMPI_SOURCE\t%zu\n", offsetof(MPI_Status, MPI_SOURCE));
    printf("status\tMPI_TAG\t%zu\n", offsetof(MPI_Status, MPI_TAG));
    printf("status\tMPI_ERROR\t%zu\n", offsetof(MPI_Status, MPI_ERROR));
    printf("width\thandle\t%zu\n", sizeof(MPI_Comm));
    return 0;
}
