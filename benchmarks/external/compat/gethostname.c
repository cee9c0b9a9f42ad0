/* gethostname() for wasm32-wasi, linked into the wasm builds of the external
 * benchmarks only. WASI has no host name: wasi-libc declares gethostname()
 * in <unistd.h> but does not define it, so NetPIPE's MPI module (which
 * prints each rank's host name after MPI_Init) would not link. This returns
 * MPI_Get_processor_name(), the portable way to learn the host's name, once
 * MPI is initialised, and "localhost" before. The benchmark sources stay
 * unmodified. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

int gethostname(char *name, size_t len)
{
    char buf[MPI_MAX_PROCESSOR_NAME] = "localhost";
    int initialized = 0, finalized = 0, n = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Get_processor_name(buf, &n);
    if (strlen(buf) + 1 > len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(name, buf);
    return 0;
}
