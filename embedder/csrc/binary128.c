/* Reductions on the guest's long double, which is IEEE binary128 on wasm32
 * while an x86-64 host's is 80-bit extended: the host MPI moves these bytes
 * unchanged, but its own arithmetic would misread them, so the bridge
 * reduces them here with the C compiler's _Float128.
 *
 * Operands come from the host MPI's buffers, which need not be 16-byte
 * aligned: every element is loaded and stored with memcpy. */
#include <stddef.h>
#include <string.h>

typedef _Float128 f128;

/* kinds: MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX, MPI_LONG_DOUBLE_INT */
enum { REAL = 0, COMPLEX = 1, PAIR = 2 };
/* operations */
enum { SUM = 0, PROD = 1, MIN = 2, MAX = 3, MINLOC = 4, MAXLOC = 5 };

/* wasm32 layouts: a complex is two binary128s (32 bytes); the pair type is
 * { long double; int } with the int at 16 and 12 bytes of padding (32). */
#define STRIDE(kind) ((kind) == REAL ? 16 : 32)

static f128 load(const unsigned char *p) {
    f128 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void store(unsigned char *p, f128 v) { memcpy(p, &v, sizeof v); }

/* Returns 0, or -1 for a kind and operation MPI does not define together. */
int embedder_binary128_reduce(int op, int kind, const void *in_, void *inout_, int len) {
    const unsigned char *in = in_;
    unsigned char *inout = inout_;
    size_t stride = STRIDE(kind);
    int real = kind == REAL, complex = kind == COMPLEX, pair = kind == PAIR;
    if (!((real && op <= MAX) || (complex && op <= PROD) || (pair && (op == MINLOC || op == MAXLOC)))) return -1;
    for (int i = 0; i < len; i++, in += stride, inout += stride) {
        f128 a = load(in), b = load(inout);
        switch (op) {
        case SUM:
            store(inout, a + b);
            if (complex) store(inout + 16, load(in + 16) + load(inout + 16));
            break;
        case PROD:
            if (complex) {
                f128 ai = load(in + 16), bi = load(inout + 16);
                store(inout, a * b - ai * bi);
                store(inout + 16, a * bi + ai * b);
            } else {
                store(inout, a * b);
            }
            break;
        case MIN:
            if (a < b) store(inout, a);
            break;
        case MAX:
            if (a > b) store(inout, a);
            break;
        case MINLOC:
        case MAXLOC: {
            int ia, ib;
            memcpy(&ia, in + 16, sizeof ia);
            memcpy(&ib, inout + 16, sizeof ib);
            int better = op == MINLOC ? a < b : a > b;
            if (better || (a == b && ia < ib)) {
                store(inout, a);
                memcpy(inout + 16, &ia, sizeof ia);
            }
            break;
        }
        }
    }
    return 0;
}
