/* The porting layer's addition to wasi-libc's <sched.h>: CPU sets and
 * sched_getaffinity (glibc's GNU extension), which wasi-libc leaves out.
 * toolchain/compat/cpus.c answers them with the CPUs the host lets this
 * process use. Not used with -wasm-strict. */
#include_next <sched.h>

#if defined(_GNU_SOURCE) && !defined(CPU_SETSIZE)
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#ifdef __cplusplus
extern "C" {
#endif

#define CPU_SETSIZE 1024
typedef struct cpu_set_t {
    unsigned long __bits[CPU_SETSIZE / (8 * sizeof(unsigned long))];
} cpu_set_t;

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set);
int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set);
int sched_getcpu(void);
int __sched_cpucount(size_t size, const cpu_set_t *set);

#define __CPU_WORD(i) ((i) / (8 * sizeof(unsigned long)))
#define __CPU_BIT(i) (1UL << ((i) % (8 * sizeof(unsigned long))))
#define __CPU_IN(i, size) ((size_t)(i) < 8 * (size_t)(size))
#define CPU_SET_S(i, size, set) (__CPU_IN(i, size) ? ((set)->__bits[__CPU_WORD(i)] |= __CPU_BIT(i)) : 0)
#define CPU_CLR_S(i, size, set) (__CPU_IN(i, size) ? ((set)->__bits[__CPU_WORD(i)] &= ~__CPU_BIT(i)) : 0)
#define CPU_ISSET_S(i, size, set) (__CPU_IN(i, size) ? !!((set)->__bits[__CPU_WORD(i)] & __CPU_BIT(i)) : 0)
#define CPU_ZERO_S(size, set) memset((set), 0, (size))
#define CPU_COUNT_S(size, set) __sched_cpucount((size), (set))
#define CPU_SET(i, set) CPU_SET_S(i, sizeof(cpu_set_t), set)
#define CPU_CLR(i, set) CPU_CLR_S(i, sizeof(cpu_set_t), set)
#define CPU_ISSET(i, set) CPU_ISSET_S(i, sizeof(cpu_set_t), set)
#define CPU_ZERO(set) CPU_ZERO_S(sizeof(cpu_set_t), set)
#define CPU_COUNT(set) CPU_COUNT_S(sizeof(cpu_set_t), set)
#define CPU_ALLOC_SIZE(n) (((n) + 8 * sizeof(unsigned long) - 1) / (8 * sizeof(unsigned long)) * sizeof(unsigned long))

#ifdef __cplusplus
}
#endif
#endif
