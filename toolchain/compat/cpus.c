/* CPU counts and affinity: what a native process on the same host, bound
 * the same way by the launcher, would see. sysconf is linked as
 * --wrap=sysconf: wasi-libc answers every other name. */
#define _GNU_SOURCE /* cpu_set_t */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "wasm_mpi_host.h"

long __real_sysconf(int name);

long __wrap_sysconf(int name) {
    if (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) {
        int n = wasm_mpi_host_cpu_count(name == _SC_NPROCESSORS_ONLN ? WASM_MPI_CPUS_ONLINE : WASM_MPI_CPUS_CONF);
        if (n < 0)
            errno = EINVAL;
        return n;
    }
    return __real_sysconf(name);
}

/* CPUs 0 .. n-1, n the number in the host process's affinity mask: the
 * host's CPU numbers mean nothing inside the sandbox, their count does. */
int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set) {
    if (pid != 0 && pid != getpid()) {
        errno = ESRCH;
        return -1;
    }
    int n = wasm_mpi_host_cpu_count(WASM_MPI_CPUS_AFFINITY);
    if (n < 0 || (size_t)n > size * 8) {
        errno = EINVAL;
        return -1;
    }
    CPU_ZERO_S(size, set);
    for (int i = 0; i < n; i++)
        CPU_SET_S(i, size, set);
    return 0;
}

/* The guest cannot move its own threads: the embedder owns placement. */
int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set) {
    (void)pid, (void)size, (void)set;
    errno = ENOSYS;
    return -1;
}

int sched_getcpu(void) {
    errno = ENOSYS;
    return -1;
}

/* what CPU_COUNT and CPU_COUNT_S expand to */
int __sched_cpucount(size_t size, const cpu_set_t *set) {
    int count = 0;
    const unsigned char *p = (const unsigned char *)set;
    for (size_t i = 0; i < size; i++)
        count += __builtin_popcount(p[i]);
    return count;
}
