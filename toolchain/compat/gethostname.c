/* gethostname: wasi-libc declares it but has no definition. The answer is
 * the host's node name, as the native program gets it. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "wasm_mpi_host.h"

int gethostname(char *name, size_t len) {
    int n = wasm_mpi_host_name(name, len);
    if (n < 0) {
        errno = EFAULT;
        return -1;
    }
    if ((size_t)n >= len) { /* glibc: truncated names are an error */
        errno = ENAMETOOLONG;
        return -1;
    }
    name[n] = '\0';
    return 0;
}
