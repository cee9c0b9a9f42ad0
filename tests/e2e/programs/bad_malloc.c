/* A guest whose own malloc (the one the module exports, which the embedder
 * calls for memory it hands to MPI or to guest callbacks) turns hostile on
 * demand: it returns an address near 4 GiB, past the end of memory, or a
 * block that straddles the end.
 *
 *   bad_malloc KIND alloc_mem   MPI_Alloc_mem must fail with MPI_ERR_NO_MEM
 *   bad_malloc KIND user_op     a user reduction whose operands the host
 *                               MPI holds (Allreduce at 2+ ranks) needs
 *                               scratch guest memory: the job must end
 *                               with a message, nothing written outside
 *   bad_malloc good user_op     the same with an honest malloc works
 * KIND: near4g, past_end, straddle, good. Wasm only. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* a bump allocator over a static arena: enough for libc and MPI's shims */
static unsigned char arena[1 << 20] __attribute__((aligned(16)));
static size_t used;
static enum { GOOD, NEAR_4G, PAST_END, STRADDLE } mode;

static size_t memory_bytes(void) { return __builtin_wasm_memory_size(0) * 65536; }

void *malloc(size_t n) {
    switch (mode) {
    case NEAR_4G: return (void *)(size_t)0xfffffff0u;
    case PAST_END: return (void *)memory_bytes();
    case STRADDLE: return (void *)(memory_bytes() - 8);
    case GOOD: break;
    }
    size_t at = (used + 15) & ~(size_t)15;
    if (at + n > sizeof arena) return NULL;
    used = at + n;
    return arena + at;
}

void free(void *p) { (void)p; }

void *calloc(size_t n, size_t k) {
    void *p = malloc(n * k);
    if (p && mode == GOOD) memset(p, 0, n * k);
    return p;
}

void *realloc(void *p, size_t n) {
    void *q = malloc(n);
    if (p && q && mode == GOOD) {
        /* copies n bytes or up to the arena's end (the old block is shorter) */
        size_t left = (size_t)(arena + sizeof arena - (unsigned char *)p);
        memcpy(q, p, n < left ? n : left);
    }
    return q;
}

void *aligned_alloc(size_t a, size_t n) { (void)a; return malloc(n); }

int posix_memalign(void **out, size_t a, size_t n) {
    (void)a;
    *out = malloc(n);
    return *out ? 0 : 12;
}

static void sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *kind = argc > 2 ? argv[1] : "good", *what = argc > 2 ? argv[2] : "user_op";
    int bad = !strcmp(kind, "near4g") ? NEAR_4G : !strcmp(kind, "past_end") ? PAST_END : !strcmp(kind, "straddle") ? STRADDLE : GOOD;
    printf("rank %d: %s %s\n", rank, kind, what); /* stdio's buffers exist before malloc turns */
    fflush(stdout);
    int failed = 0;
    if (!strcmp(what, "alloc_mem")) {
        void *p = NULL;
        mode = bad;
        int rc = MPI_Alloc_mem(64, MPI_INFO_NULL, &p);
        mode = GOOD;
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        int expected = bad == GOOD ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        failed = cls != expected;
        printf("rank %d: MPI_Alloc_mem %s (class %d, address %p)\n", rank, failed ? "FAILED" : "ok", cls, p);
    } else {
        MPI_Op op;
        MPI_Op_create(sum, 1, &op);
        int in[256], out[256];
        for (int i = 0; i < 256; i++) in[i] = i + rank;
        mode = bad;
        int rc = MPI_Allreduce(in, out, 256, MPI_INT, op, MPI_COMM_WORLD);
        mode = GOOD;
        for (int i = 0; i < 256; i++) failed |= out[i] != size * i + size * (size - 1) / 2;
        printf("rank %d: Allreduce with a user op %s (rc %d)\n", rank, failed || rc ? "FAILED" : "ok", rc);
        failed |= rc != MPI_SUCCESS;
        MPI_Op_free(&op);
    }
    MPI_Finalize();
    return failed;
}
