/* getrlimit/setrlimit: wasi-libc declares them but has no definitions.
 * The answers describe the sandbox: the stack is the module's own (linked
 * size), data and address space are what 32-bit linear memory can hold,
 * no core files are ever written; WASI sets no other limit. */
#include <errno.h>
#include <sys/resource.h>

extern char __data_end[];  /* the stack lies between the data and the heap */
extern char __heap_base[];

static int limits(int resource, struct rlimit *rl) {
    rlim_t v;
    switch (resource) {
    case RLIMIT_STACK:
        v = (rlim_t)(__heap_base - __data_end);
        break;
    case RLIMIT_DATA:
    case RLIMIT_AS:
        v = 1ULL << 32;
        break;
    case RLIMIT_CORE:
        v = 0;
        break;
    case RLIMIT_CPU: case RLIMIT_FSIZE: case RLIMIT_RSS: case RLIMIT_NPROC: case RLIMIT_NOFILE:
    case RLIMIT_MEMLOCK: case RLIMIT_LOCKS: case RLIMIT_SIGPENDING: case RLIMIT_MSGQUEUE:
    case RLIMIT_NICE: case RLIMIT_RTPRIO: case RLIMIT_RTTIME:
        v = RLIM_INFINITY;
        break;
    default:
        errno = EINVAL;
        return -1;
    }
    rl->rlim_cur = rl->rlim_max = v;
    return 0;
}

int getrlimit(int resource, struct rlimit *rl) {
    return limits(resource, rl);
}

/* Lowering is accepted (the sandbox does not enforce it); raising past
 * the limits above is refused, as for an unprivileged process. */
int setrlimit(int resource, const struct rlimit *rl) {
    struct rlimit now;
    if (limits(resource, &now) != 0)
        return -1;
    if (rl->rlim_cur > rl->rlim_max) {
        errno = EINVAL;
        return -1;
    }
    if (rl->rlim_max > now.rlim_max) {
        errno = EPERM;
        return -1;
    }
    return 0;
}
