/* What the toolchain's porting layer answers (toolchain/README.md, "The
 * porting layer"), printed per rank so that the test can compare the wasm
 * run line by line with the native one. Lines starting "wasm-only" are
 * facts of the sandbox that differ natively by design. */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static void on_usr1(int sig) { handled = sig; }

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char host[256], tiny[2], proc[MPI_MAX_PROCESSOR_NAME];
    int len;
    struct utsname u;
    MPI_Get_processor_name(proc, &len);
    int gh = gethostname(host, sizeof host);
    int too_short = gethostname(tiny, sizeof tiny) == -1 && errno == ENAMETOOLONG;
    uname(&u);
    printf("rank %d: gethostname %d %s, = processor name %d, uname nodename %s, short buffer refused %d\n",
           rank, gh, host, strcmp(host, proc) == 0, u.nodename, too_short);

    cpu_set_t set;
    CPU_ZERO(&set);
    int aff = sched_getaffinity(0, sizeof set, &set);
    printf("rank %d: cpus online %ld, configured %ld, affinity %d count %d\n", rank,
           sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF), aff, CPU_COUNT(&set));

    struct rlimit core, stack, as;
    int r1 = getrlimit(RLIMIT_CORE, &core), r2 = getrlimit(RLIMIT_STACK, &stack), r3 = getrlimit(RLIMIT_AS, &as);
    struct rlimit lower = {0, 0};
    int set_core = setrlimit(RLIMIT_CORE, &lower);
    struct rlimit raise_as = {RLIM_INFINITY, RLIM_INFINITY};
    errno = 0;
    int raised = setrlimit(RLIMIT_AS, &raise_as);
    printf("wasm-only rank %d: getrlimit %d %d %d core %llu stack %llu as %llu, lower core %d, raise as %d errno %s\n",
           rank, r1, r2, r3, (unsigned long long)core.rlim_cur, (unsigned long long)stack.rlim_cur,
           (unsigned long long)as.rlim_cur, set_core, raised, errno == EPERM ? "EPERM" : "other");

    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    clock_t c = clock();
    struct rusage ru;
    int ru_ok = getrusage(RUSAGE_SELF, &ru);
    printf("rank %d: raise ran handler %d, clock ok %d, getrusage %d, getpid positive %d\n", rank,
           handled == SIGUSR1, c != (clock_t)-1, ru_ok, getpid() > 0);

    size_t n = 1 << 20;
    char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int zero = m != MAP_FAILED;
    for (size_t i = 0; zero && i < n; i += 4096)
        zero = m[i] == 0;
    if (m != MAP_FAILED) {
        memset(m, 1, n);
        munmap(m, n);
    }
    printf("rank %d: anonymous mmap zeroed %d\n", rank, zero);

    /* large blocks page-aligned: two of them never sit 16 bytes apart
     * modulo the page, and MPI moves them at full speed */
    char *a = malloc(4 << 20), *b = malloc(4 << 20), *s = malloc(100);
    int aligned = ((uintptr_t)a % 4096 == 0) && ((uintptr_t)b % 4096 == 0);
    for (size_t i = 0; i < (4u << 20); i++)
        a[i] = (char)(i * 7 + rank);
    MPI_Sendrecv(a, 4 << 20, MPI_CHAR, (rank + 1) % size, 0, b, 4 << 20, MPI_CHAR, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int from = (rank + size - 1) % size, ok = 1;
    for (size_t i = 0; i < (4u << 20); i++)
        ok &= b[i] == (char)(i * 7 + from);
    /* malloc + memset(0) becomes calloc: aligned too, and zeroed even
     * where it reuses the blocks just freed */
    free(s);
    s = malloc(100);
    char *reuse = malloc(1 << 20);
    memset(reuse, 0x5a, 1 << 20);
    free(reuse);
    unsigned char *z = calloc(1 << 18, 4);
    int zeroed = z != NULL;
    for (size_t i = 0; zeroed && i < (1u << 20); i++)
        zeroed = z[i] == 0;
    aligned &= (uintptr_t)z % 4096 == 0;
    free(z);
    printf("wasm-only rank %d: 4 MiB blocks page-aligned %d\n", rank, aligned);
    printf("rank %d: large calloc zeroed %d\n", rank, zeroed);
    printf("rank %d: 4 MiB exchanged intact %d\n", rank, ok);
    free(a);
    free(b);
    free(s);
    a = realloc(malloc(1 << 16), 1 << 18);
    printf("rank %d: realloc of an aligned block %d\n", rank, a != NULL);
    free(a);
    MPI_Finalize();
    return 0;
}
