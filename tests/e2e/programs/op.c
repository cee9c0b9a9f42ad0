/* Reduction operations: user-defined ops (commutative and not) in every
 * reducing collective, user ops on derived datatypes, Op_commutative,
 * Op_free, Reduce_local, and every predefined op on its types, MINLOC /
 * MAXLOC ties included. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rank, size;

/* ---- complex multiply ------------------------------------------------------ */
typedef struct { double re, im; } cplx;

static MPI_Datatype expect_dt;  /* the datatype the callbacks must be handed */
static int bad_calls, calls;

static void cmul(void *in, void *inout, int *len, MPI_Datatype *dt) {
    const cplx *a = in;
    cplx *b = inout;
    calls++;
    if (*dt != expect_dt || *len < 1 || *len > 64) bad_calls++;
    for (int i = 0; i < *len; i++) {
        cplx r = {a[i].re * b[i].re - a[i].im * b[i].im, a[i].re * b[i].im + a[i].im * b[i].re};
        b[i] = r;
    }
}

/* small Gaussian integers: every product here is exact */
static cplx z(int r, int k) { cplx v = {1 + (r + k) % 3, (r + 2 * k) % 4 - 1}; return v; }
static cplx zmul(cplx a, cplx b) { cplx r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; return r; }
static cplx zprod(int from, int to, int k) { /* z(from,k) * ... * z(to-1,k) */
    cplx p = {1, 0};
    for (int r = from; r < to; r++) p = zmul(p, z(r, k));
    return p;
}
static int zeq(cplx a, cplx b) { return a.re == b.re && a.im == b.im; }

/* ---- 2x2 integer matrices: not commutative -------------------------------- */
typedef struct { int a, b, c, d; } mat;

static void mmul_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
    const mat *x = in;
    mat *y = inout;
    calls++;
    if (*dt != expect_dt || *len < 1 || *len > 64) bad_calls++;
    for (int i = 0; i < *len; i++) { /* inout = in x inout */
        mat r = {x[i].a * y[i].a + x[i].b * y[i].c, x[i].a * y[i].b + x[i].b * y[i].d,
                 x[i].c * y[i].a + x[i].d * y[i].c, x[i].c * y[i].b + x[i].d * y[i].d};
        y[i] = r;
    }
}

static mat mm(mat x, mat y) {
    mat r = {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
    return r;
}
static mat A(int r, int k) { /* k even: [[r+1,1],[1,0]]; k odd: [[1,r+1],[1,1]] */
    mat m = k % 2 ? (mat){1, r + 1, 1, 1} : (mat){r + 1 + k / 2, 1, 1, 0};
    return m;
}
static mat Aprod(int from, int to, int k) {
    mat p = {1, 0, 0, 1};
    for (int r = from; r < to; r++) p = mm(p, A(r, k));
    return p;
}
static int meq(mat x, mat y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

/* ---- {sum, max} pair of longs ---------------------------------------------- */
typedef struct { long sum, max; } pair;

static void pair_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
    const pair *x = in;
    pair *y = inout;
    calls++;
    if (*dt != expect_dt) bad_calls++;
    for (int i = 0; i < *len; i++) {
        y[i].sum += x[i].sum;
        if (x[i].max > y[i].max) y[i].max = x[i].max;
    }
}

#define NZ 3

static void complex_ops(void) {
    MPI_Op ops[2];
    MPI_Op_create(cmul, 1, &ops[0]);
    MPI_Op_create(cmul, 0, &ops[1]);
    expect_dt = MPI_C_DOUBLE_COMPLEX;
    const char *label[2] = {"commutative", "non-commutative"};
    char name[80];
    int n = size;
    for (int v = 0; v < 2; v++) {
        MPI_Op op = ops[v];
        int errors = 0;
        cplx in[NZ], out[NZ];
        for (int k = 0; k < NZ; k++) in[k] = z(rank, k), out[k] = (cplx){-1, -1};
        MPI_Allreduce(in, out, NZ, MPI_C_DOUBLE_COMPLEX, op, MPI_COMM_WORLD);
        for (int k = 0; k < NZ; k++) EXPECT(zeq(out[k], zprod(0, n, k)));
        /* in place */
        for (int k = 0; k < NZ; k++) out[k] = z(rank, k);
        MPI_Allreduce(MPI_IN_PLACE, out, NZ, MPI_C_DOUBLE_COMPLEX, op, MPI_COMM_WORLD);
        for (int k = 0; k < NZ; k++) EXPECT(zeq(out[k], zprod(0, n, k)));
        int root = size - 1;
        for (int k = 0; k < NZ; k++) out[k] = (cplx){-1, -1};
        MPI_Reduce(in, out, NZ, MPI_C_DOUBLE_COMPLEX, op, root, MPI_COMM_WORLD);
        if (rank == root) for (int k = 0; k < NZ; k++) EXPECT(zeq(out[k], zprod(0, n, k)));
        /* block i has i+1 elements */
        int *counts = malloc(n * sizeof(int)), tot = n * (n + 1) / 2;
        for (int i = 0; i < n; i++) counts[i] = i + 1;
        cplx *all = malloc(tot * sizeof(cplx)), got[16];
        for (int e = 0; e < tot; e++) all[e] = z(rank, e);
        for (int j = 0; j < 16; j++) got[j] = (cplx){-1, -1};
        MPI_Reduce_scatter(all, got, counts, MPI_C_DOUBLE_COMPLEX, op, MPI_COMM_WORLD);
        int first = rank * (rank + 1) / 2;
        for (int j = 0; j <= rank; j++) EXPECT(zeq(got[j], zprod(0, n, first + j)));
        EXPECT(got[rank + 1].re == -1);
        free(counts);
        free(all);
        cplx *blk = malloc(2 * n * sizeof(cplx));
        for (int e = 0; e < 2 * n; e++) blk[e] = z(rank, e);
        MPI_Reduce_scatter_block(blk, got, 2, MPI_C_DOUBLE_COMPLEX, op, MPI_COMM_WORLD);
        EXPECT(zeq(got[0], zprod(0, n, 2 * rank)) && zeq(got[1], zprod(0, n, 2 * rank + 1)));
        free(blk);
        MPI_Scan(in, out, NZ, MPI_C_DOUBLE_COMPLEX, op, MPI_COMM_WORLD);
        for (int k = 0; k < NZ; k++) EXPECT(zeq(out[k], zprod(0, rank + 1, k)));
        MPI_Request req;
        for (int k = 0; k < NZ; k++) out[k] = (cplx){-1, -1};
        MPI_Iallreduce(in, out, NZ, MPI_C_DOUBLE_COMPLEX, op, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        EXPECT(req == MPI_REQUEST_NULL);
        for (int k = 0; k < NZ; k++) EXPECT(zeq(out[k], zprod(0, n, k)));
        snprintf(name, sizeof name, "user op complex %s: all reductions", label[v]);
        check(name, errors);
    }
    int errors = 0;
    EXPECT(bad_calls == 0);
    /* with more than one rank, somebody combined two contributions */
    int total_calls = 0;
    MPI_Allreduce(&calls, &total_calls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(size == 1 || total_calls > 0);
    int c0 = -1, c1 = -1, cs = -1;
    MPI_Op_commutative(ops[0], &c0);
    MPI_Op_commutative(ops[1], &c1);
    MPI_Op_commutative(MPI_SUM, &cs);
    EXPECT(c0 == 1 && c1 == 0 && cs == 1);
    MPI_Op_free(&ops[0]);
    MPI_Op_free(&ops[1]);
    EXPECT(ops[0] == MPI_OP_NULL && ops[1] == MPI_OP_NULL);
    check("user op calls / Op_commutative / Op_free", errors);
}

static void derived_ops(void) {
    int errors = 0, n = size;
    bad_calls = 0;
    /* the complex op on a contiguous pair of doubles */
    MPI_Datatype ctype, mtype, ptype;
    MPI_Type_contiguous(2, MPI_DOUBLE, &ctype);
    MPI_Type_commit(&ctype);
    MPI_Op cop;
    MPI_Op_create(cmul, 1, &cop);
    expect_dt = ctype;
    cplx in[NZ], out[NZ];
    for (int k = 0; k < NZ; k++) in[k] = z(rank, k);
    MPI_Allreduce(in, out, NZ, ctype, cop, MPI_COMM_WORLD);
    for (int k = 0; k < NZ; k++) EXPECT(zeq(out[k], zprod(0, n, k)));
    MPI_Op_free(&cop);
    MPI_Type_free(&ctype);
    /* {sum, max} on a contiguous pair of longs */
    MPI_Type_contiguous(2, MPI_LONG, &ptype);
    MPI_Type_commit(&ptype);
    MPI_Op pop;
    MPI_Op_create(pair_op, 1, &pop);
    expect_dt = ptype;
    pair p[2] = {{(1L << 26) + rank, -(long)rank * 7}, {-(1L << 26) * rank, (rank * 5) % 7}}, q[2];
    MPI_Allreduce(p, q, 2, ptype, pop, MPI_COMM_WORLD);
    long mx = 0;
    for (int r = 0; r < n; r++) if ((r * 5) % 7 > mx) mx = (r * 5) % 7;
    EXPECT(q[0].sum == (1L << 26) * n + (long)n * (n - 1) / 2 && q[0].max == 0);
    EXPECT(q[1].sum == -(1L << 26) * ((long)n * (n - 1) / 2) && q[1].max == mx);
    MPI_Op_free(&pop);
    MPI_Type_free(&ptype);
    EXPECT(bad_calls == 0);
    check("user op on contiguous derived types", errors);

    /* non-commutative matrix product on contiguous(4, MPI_INT) */
    MPI_Type_contiguous(4, MPI_INT, &mtype);
    MPI_Type_commit(&mtype);
    MPI_Op mop;
    MPI_Op_create(mmul_op, 0, &mop);
    expect_dt = mtype;
    bad_calls = 0;
    errors = 0;
    mat m[2], r[2];
    for (int k = 0; k < 2; k++) m[k] = A(rank, k), r[k] = (mat){-1, -1, -1, -1};
    MPI_Allreduce(m, r, 2, mtype, mop, MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++) EXPECT(meq(r[k], Aprod(0, n, k)));
    int root = n / 2;
    for (int k = 0; k < 2; k++) r[k] = (mat){-1, -1, -1, -1};
    MPI_Reduce(m, r, 2, mtype, mop, root, MPI_COMM_WORLD);
    if (rank == root) for (int k = 0; k < 2; k++) EXPECT(meq(r[k], Aprod(0, n, k)));
    MPI_Request req;
    MPI_Iallreduce(m, r, 2, mtype, mop, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int k = 0; k < 2; k++) EXPECT(meq(r[k], Aprod(0, n, k)));
    check("non-commutative Allreduce / Reduce (rank order)", errors);

    errors = 0;
    MPI_Scan(m, r, 2, mtype, mop, MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++) EXPECT(meq(r[k], Aprod(0, rank + 1, k)));
    for (int k = 0; k < 2; k++) r[k] = A(rank, k);
    MPI_Exscan(MPI_IN_PLACE, r, 2, mtype, mop, MPI_COMM_WORLD);
    if (rank > 0) for (int k = 0; k < 2; k++) EXPECT(meq(r[k], Aprod(0, rank, k)));
    /* block j of rank s is A(s, j+k) for its k-th element */
    mat *blk = malloc(2 * n * sizeof(mat));
    for (int j = 0; j < n; j++) blk[2 * j] = A(rank, 2 * j), blk[2 * j + 1] = A(rank, 1);
    MPI_Reduce_scatter_block(blk, r, 2, mtype, mop, MPI_COMM_WORLD);
    EXPECT(meq(r[0], Aprod(0, n, 2 * rank)) && meq(r[1], Aprod(0, n, 1)));
    int *counts = malloc(n * sizeof(int));
    for (int j = 0; j < n; j++) counts[j] = 2;
    for (int k = 0; k < 2; k++) r[k] = (mat){-1, -1, -1, -1};
    MPI_Reduce_scatter(blk, r, counts, mtype, mop, MPI_COMM_WORLD);
    EXPECT(meq(r[0], Aprod(0, n, 2 * rank)) && meq(r[1], Aprod(0, n, 1)));
    free(blk);
    free(counts);
    EXPECT(bad_calls == 0);
    check("non-commutative Scan / Exscan / Reduce_scatter", errors);

    errors = 0;
    /* Reduce_local: inout = in (op) inout, in that order */
    mat x[2] = {A(3, 0), A(5, 1)}, y[2] = {A(4, 0), A(2, 1)};
    MPI_Reduce_local(x, y, 2, mtype, mop);
    EXPECT(meq(y[0], mm(A(3, 0), A(4, 0))) && meq(y[1], mm(A(5, 1), A(2, 1))));
    EXPECT(!meq(y[0], mm(A(4, 0), A(3, 0))));
    MPI_Op cop2;
    MPI_Op_create(cmul, 1, &cop2);
    expect_dt = MPI_C_DOUBLE_COMPLEX;
    cplx a[2] = {{1, 2}, {0, 1}}, b[2] = {{3, -1}, {0, 1}};
    MPI_Reduce_local(a, b, 2, MPI_C_DOUBLE_COMPLEX, cop2);
    EXPECT(b[0].re == 5 && b[0].im == 5 && b[1].re == -1 && b[1].im == 0);
    EXPECT(bad_calls == 0);
    MPI_Op_free(&cop2);
    MPI_Op_free(&mop);
    MPI_Type_free(&mtype);
    check("Reduce_local with user ops", errors);
}

/* ---- predefined ops ---------------------------------------------------------- */
/* The predefined ops run as nonblocking allreduces, a block at a time, so
 * that their latencies overlap (MPICH oversubscribed is slow per call). */
static MPI_Request reqs[16];
static int nreq;
#define ALLRED(x, y, n, T, OP) MPI_Iallreduce(x, y, n, T, OP, MPI_COMM_WORLD, &reqs[nreq++])
#define WAIT() (MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE), nreq = 0)

static void predefined(void) {
    int n = size, errors = 0;
    {   /* MAX / MIN on every arithmetic C type */
        int i[2] = {rank * 3 - 5, -rank}, imax[2], imin[2];
        unsigned u = 4000000000u - rank, uo;
        long l[2] = {-100000L * rank, 100000L * rank}, lo[2];
        short s = (short)(rank - 3), so;
        signed char c = (signed char)(rank * 10 - 40), co;
        double d = rank * 0.5 - 1, dmax, dmin;
        float f = 2.5f - rank, fo;
        int64_t i64 = ((int64_t)1 << 40) * (rank - 2), i64o;
        uint8_t u8 = (uint8_t)(200 + rank), u8o;
        long long ll = -(1LL << 50) + rank, llo;
        ALLRED(i, imax, 2, MPI_INT, MPI_MAX);
        ALLRED(i, imin, 2, MPI_INT, MPI_MIN);
        ALLRED(&u, &uo, 1, MPI_UNSIGNED, MPI_MIN);
        ALLRED(l, lo, 2, MPI_LONG, MPI_MIN);
        ALLRED(&s, &so, 1, MPI_SHORT, MPI_MAX);
        ALLRED(&c, &co, 1, MPI_SIGNED_CHAR, MPI_MIN);
        ALLRED(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX);
        ALLRED(&d, &dmin, 1, MPI_DOUBLE, MPI_MIN);
        ALLRED(&f, &fo, 1, MPI_FLOAT, MPI_MIN);
        ALLRED(&i64, &i64o, 1, MPI_INT64_T, MPI_MAX);
        ALLRED(&u8, &u8o, 1, MPI_UINT8_T, MPI_MAX);
        ALLRED(&ll, &llo, 1, MPI_LONG_LONG, MPI_MIN);
        WAIT();
        EXPECT(imax[0] == (n - 1) * 3 - 5 && imax[1] == 0);
        EXPECT(imin[0] == -5 && imin[1] == -(n - 1));
        EXPECT(uo == 4000000000u - (n - 1));
        EXPECT(lo[0] == -100000L * (n - 1) && lo[1] == 0);
        EXPECT(so == n - 4);
        EXPECT(co == -40);
        EXPECT(dmax == (n - 1) * 0.5 - 1 && dmin == -1);
        EXPECT(fo == 2.5f - (n - 1));
        EXPECT(i64o == ((int64_t)1 << 40) * (n - 3));
        EXPECT(u8o == 200 + n - 1);
        EXPECT(llo == -(1LL << 50));
        check("MPI_MAX / MPI_MIN", errors);
    }
    errors = 0;
    {   /* SUM / PROD */
        int i = rank + 1, isum, iprod;
        long l = 1000000L + rank, lo;
        double d = 0.25 * rank, dop;
        float f = 1.5f, fo;
        unsigned long long ull = (1ULL << 40) + rank, ullo;
        short s = (short)(rank % 2 ? -1 : 1), so;
        ALLRED(&i, &isum, 1, MPI_INT, MPI_SUM);
        ALLRED(&i, &iprod, 1, MPI_INT, MPI_PROD);
        ALLRED(&l, &lo, 1, MPI_LONG, MPI_SUM);
        ALLRED(&d, &dop, 1, MPI_DOUBLE, MPI_SUM);
        ALLRED(&f, &fo, 1, MPI_FLOAT, MPI_PROD);
        ALLRED(&ull, &ullo, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM);
        ALLRED(&s, &so, 1, MPI_SHORT, MPI_PROD);
        WAIT();
        EXPECT(isum == n * (n + 1) / 2);
        int fact = 1;
        for (int k = 2; k <= n; k++) fact *= k;
        EXPECT(iprod == fact);
        EXPECT(lo == 1000000L * n + (long)n * (n - 1) / 2);
        EXPECT(dop == 0.25 * n * (n - 1) / 2);
        float fe = 1;
        for (int k = 0; k < n; k++) fe *= 1.5f;
        EXPECT(fo == fe);
        EXPECT(ullo == (1ULL << 40) * n + (unsigned long long)n * (n - 1) / 2);
        EXPECT(so == ((n / 2) % 2 ? -1 : 1));
        check("MPI_SUM / MPI_PROD", errors);
    }
    errors = 0;
    {   /* logical: LAND / LOR / LXOR on int and C bool */
        int odd = rank % 2, all = rank >= 0, none = 0, seven = 7 * (rank + 1); /* any non-zero is true */
        int o[6];
        bool b = rank == n - 1, bo[3] = {false, true, false};
        ALLRED(&odd, &o[0], 1, MPI_INT, MPI_LAND);
        ALLRED(&all, &o[1], 1, MPI_INT, MPI_LAND);
        ALLRED(&odd, &o[2], 1, MPI_INT, MPI_LOR);
        ALLRED(&none, &o[3], 1, MPI_INT, MPI_LOR);
        ALLRED(&odd, &o[4], 1, MPI_INT, MPI_LXOR);
        ALLRED(&seven, &o[5], 1, MPI_INT, MPI_LXOR);
        ALLRED(&b, &bo[0], 1, MPI_C_BOOL, MPI_LOR);
        ALLRED(&b, &bo[1], 1, MPI_C_BOOL, MPI_LAND);
        ALLRED(&b, &bo[2], 1, MPI_C_BOOL, MPI_LXOR);
        WAIT();
        EXPECT(o[0] == 0); /* rank 0 is even */
        EXPECT(o[1] == 1);
        EXPECT(!!o[2] == (n > 1));
        EXPECT(o[3] == 0);
        EXPECT(!!o[4] == (n / 2) % 2);
        EXPECT(!!o[5] == n % 2);
        EXPECT(bo[0] == true && bo[1] == (n == 1) && bo[2] == true);
        check("MPI_LAND / MPI_LOR / MPI_LXOR", errors);
    }
    errors = 0;
    {   /* bitwise: BAND / BOR / BXOR on unsigned, uint8_t, long, MPI_BYTE */
        unsigned u = (1u << (rank % 5)) | 0x100u | (rank << 12), uo[3], ex = 0, ea = ~0u, eo = 0;
        uint8_t b8[2] = {(uint8_t)(0xF0 | rank), (uint8_t)(1 << (rank % 8))}, b8o[2];
        unsigned char by[2] = {(unsigned char)(0x0F | (rank << 4)), 0xFF}, byo[2];
        long lv = -1L ^ (1L << rank), lo[2];
        ALLRED(&u, &uo[0], 1, MPI_UNSIGNED, MPI_BXOR);
        ALLRED(&u, &uo[1], 1, MPI_UNSIGNED, MPI_BAND);
        ALLRED(&u, &uo[2], 1, MPI_UNSIGNED, MPI_BOR);
        ALLRED(b8, b8o, 2, MPI_UINT8_T, MPI_BXOR);
        ALLRED(by, byo, 2, MPI_BYTE, MPI_BAND);
        ALLRED(&lv, &lo[0], 1, MPI_LONG, MPI_BAND);
        ALLRED(&lv, &lo[1], 1, MPI_LONG, MPI_BXOR);
        WAIT();
        for (int r = 0; r < n; r++) {
            unsigned w = (1u << (r % 5)) | 0x100u | (r << 12);
            ex ^= w, ea &= w, eo |= w;
        }
        EXPECT(uo[0] == ex && uo[1] == ea && uo[2] == eo);
        uint8_t e0 = 0, e1 = 0;
        for (int r = 0; r < n; r++) e0 ^= (uint8_t)(0xF0 | r), e1 ^= (uint8_t)(1 << (r % 8));
        EXPECT(b8o[0] == e0 && b8o[1] == e1);
        unsigned char eb = 0xFF;
        for (int r = 0; r < n; r++) eb &= (unsigned char)(0x0F | (r << 4));
        EXPECT(byo[0] == eb && byo[1] == 0xFF);
        EXPECT(lo[0] == ~((1L << n) - 1));
        long lx = 0;
        for (int r = 0; r < n; r++) lx ^= -1L ^ (1L << r);
        EXPECT(lo[1] == lx);
        check("MPI_BAND / MPI_BOR / MPI_BXOR", errors);
    }
    errors = 0;
    {   /* MINLOC / MAXLOC: value (rank+1)%3, index 100-rank; ties -> lowest index */
        int v = (rank + 1) % 3, idx = 100 - rank;
        int vmin = 99, vmax = -1, imin = 1000, imax = 1000;
        for (int r = 0; r < n; r++) {
            int w = (r + 1) % 3;
            if (w < vmin || (w == vmin && 100 - r < imin)) vmin = w, imin = 100 - r;
            if (w > vmax || (w == vmax && 100 - r < imax)) vmax = w, imax = 100 - r;
        }
        struct { double v; int i; } din = {v * 1.5, idx}, dout[2];
        struct { int v; int i; } iin = {v, idx}, iout[2];
        struct { float v; int i; } fin = {v * 0.5f, idx}, fout;
        struct { long v; int i; } lin = {v * 100000L - 7, idx}, lout;
        struct { short v; int i; } sin_ = {(short)-v, idx}, sout;
        ALLRED(&din, &dout[0], 1, MPI_DOUBLE_INT, MPI_MINLOC);
        ALLRED(&din, &dout[1], 1, MPI_DOUBLE_INT, MPI_MAXLOC);
        ALLRED(&iin, &iout[0], 1, MPI_2INT, MPI_MINLOC);
        ALLRED(&iin, &iout[1], 1, MPI_2INT, MPI_MAXLOC);
        ALLRED(&fin, &fout, 1, MPI_FLOAT_INT, MPI_MAXLOC);
        ALLRED(&lin, &lout, 1, MPI_LONG_INT, MPI_MINLOC);
        ALLRED(&sin_, &sout, 1, MPI_SHORT_INT, MPI_MAXLOC); /* max of -v is min of v */
        WAIT();
        EXPECT(dout[0].v == vmin * 1.5 && dout[0].i == imin);
        EXPECT(dout[1].v == vmax * 1.5 && dout[1].i == imax);
        EXPECT(iout[0].v == vmin && iout[0].i == imin);
        EXPECT(iout[1].v == vmax && iout[1].i == imax);
        EXPECT(fout.v == vmax * 0.5f && fout.i == imax);
        EXPECT(lout.v == vmin * 100000L - 7 && lout.i == imin);
        EXPECT(sout.v == -vmin && sout.i == imin);
        /* arrays of pairs, and Reduce to a non-zero root */
        struct { int v; int i; } arr[3], aout[3];
        for (int k = 0; k < 3; k++) arr[k].v = (rank + k) % 2, arr[k].i = rank;
        MPI_Reduce(arr, aout, 3, MPI_2INT, MPI_MAXLOC, n - 1, MPI_COMM_WORLD);
        if (rank == n - 1)
            for (int k = 0; k < 3; k++) {
                int best = n == 1 ? 0 : (k % 2 ? 0 : 1); /* lowest rank with (r+k) odd */
                EXPECT(aout[k].v == (n == 1 ? k % 2 : 1) && aout[k].i == best);
            }
        check("MPI_MINLOC / MPI_MAXLOC (ties -> lowest index)", errors);
    }
    errors = 0;
    {   /* MPI_REPLACE and MPI_NO_OP exist for one-sided accumulates only
         * (reductions reject them on both host MPIs): check the handles */
        EXPECT(MPI_REPLACE != MPI_OP_NULL && MPI_NO_OP != MPI_OP_NULL && MPI_REPLACE != MPI_NO_OP);
        EXPECT(MPI_REPLACE != MPI_SUM && MPI_NO_OP != MPI_SUM);
        int c = -1;
        EXPECT(MPI_Op_commutative(MPI_REPLACE, &c) == MPI_SUCCESS && (c == 0 || c == 1));
        c = -1;
        EXPECT(MPI_Op_commutative(MPI_NO_OP, &c) == MPI_SUCCESS && (c == 0 || c == 1));
        MPI_Op all[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
                        MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
        for (unsigned k = 0; k < sizeof all / sizeof *all; k++) {
            c = -1;
            MPI_Op_commutative(all[k], &c);
            EXPECT(c == 1);
        }
        /* predefined ops in Reduce_local */
        int in[3] = {1, 5, -2}, io[3] = {4, 2, -3};
        MPI_Reduce_local(in, io, 3, MPI_INT, MPI_MAX);
        EXPECT(io[0] == 4 && io[1] == 5 && io[2] == -2);
        MPI_Reduce_local(in, io, 3, MPI_INT, MPI_PROD);
        EXPECT(io[0] == 4 && io[1] == 25 && io[2] == 4);
        check("MPI_REPLACE / MPI_NO_OP / Op_commutative", errors);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    complex_ops();
    derived_ops();
    predefined();
    MPI_Finalize();
    return failures ? 1 : 0;
}
