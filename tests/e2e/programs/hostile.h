/* Shared by the hostile_*.c programs: hostile arguments under
 * MPI_ERRORS_RETURN. Each case prints "<case> ok" only when the call
 * returned the expected error class AND the guest bytes around it are as
 * expected (a pattern written before the call is intact where MPI must
 * not write), so a host byte that leaked in is caught too. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PATTERN 0xA5

static int failures;
static uintptr_t tail_page; /* the last page of memory, ours (grown at start) */

/* Current end of the linear memory. */
static uintptr_t mem_end(void) { return (uintptr_t)__builtin_wasm_memory_size(0) * 65536; }

/* Grows the memory by one page that only these programs touch, so the
 * last bytes of memory can be filled with patterns without hitting the
 * allocator's data; MPI_ERRORS_RETURN on the predefined communicators. */
static void hostile_setup(void) {
    tail_page = (uintptr_t)__builtin_wasm_memory_grow(0, 1) * 65536;
    memset((void *)tail_page, PATTERN, 65536);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

/* The last n bytes of memory (n <= 64 KiB), filled with the pattern. */
static void *tail(size_t n) {
    if (mem_end() != tail_page + 65536) {
        printf("memory grew behind the test's back: the last page is not ours\n");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset((void *)(mem_end() - n), PATTERN, n);
    return (void *)(mem_end() - n);
}

/* True if [p, p + n) holds only the pattern. */
static int untouched(const void *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != PATTERN) return 0;
    return 1;
}

static int class_of(int rc) {
    int cls = rc;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = -1;
    return cls;
}

/* One case: the return code's class must be `want` and `data_ok` hold. */
static void expect(const char *name, int rc, int want, int data_ok) {
    int cls = class_of(rc);
    if (cls == want && data_ok) {
        printf("%s ok\n", name);
    } else {
        printf("%s FAILED: class %d (want %d), guest data %s\n", name, cls, want, data_ok ? "as expected" : "WRONG");
        failures++;
    }
    fflush(stdout);
}

/* A case where any error class but success is right (the MPIs differ in
 * the class they give, e.g. a type whose size overflows). */
static void expect_error(const char *name, int rc, int data_ok) {
    int cls = class_of(rc);
    if (rc != MPI_SUCCESS && data_ok) {
        printf("%s ok\n", name);
    } else {
        printf("%s FAILED: class %d (want an error), guest data %s\n", name, cls, data_ok ? "as expected" : "WRONG");
        failures++;
    }
    fflush(stdout);
}

static int hostile_finish(void) {
    printf("%s\n", failures ? "some cases FAILED" : "all cases ok");
    fflush(stdout);
    MPI_Finalize();
    return failures != 0;
}
