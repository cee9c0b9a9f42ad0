/* The MPI-1 names removed in MPI-3.0, as old codes still use them:
 * MPI_Address, MPI_Type_hvector/hindexed/struct, MPI_Type_extent/lb/ub and
 * MPI_Errhandler_create/set/get.
 *
 * The host libraries still export them, but their headers hide them:
 * Open MPI 4.x declares them only if asked (OMPI_OMIT_MPI1_COMPAT_DECLS 0),
 * MPICH 4.x does not declare them at all, so this program does.  The guest
 * mpi.h provides them unless MPI_NO_REMOVED_NAMES is defined. */
#if !defined(__wasm__)
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0
#endif
#include <stddef.h>
#include <string.h>
#include "check.h"

#if defined(MPICH) && !defined(__wasm__)
int MPI_Address(void *location, MPI_Aint *address);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype);
int MPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[],
                    MPI_Datatype *newtype);
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
#endif

static int rank, size, next, prev;
#define HOLE (-777)
#define VAL(r, k) ((r) * 1000 + (k) + 1)

static void ring(const void *sbuf, int sc, MPI_Datatype st, void *rbuf, int rc, MPI_Datatype rt) {
    MPI_Sendrecv(sbuf, sc, st, next, 1, rbuf, rc, rt, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

struct rec {
    char c;
    double d;
    long l;
    short s;
};

static int bounds_are(MPI_Datatype t, MPI_Aint lb, MPI_Aint ub, MPI_Aint extent) {
    MPI_Aint l = -1, u = -1, e = -1;
    MPI_Type_lb(t, &l);
    MPI_Type_ub(t, &u);
    MPI_Type_extent(t, &e);
    return l == lb && u == ub && e == extent;
}

static void datatypes(void) {
    int errors = 0;
    int arr[8];
    MPI_Aint a0 = -1, a3 = -1, g3 = -1;
    MPI_Address(&arr[0], &a0);
    MPI_Address(&arr[3], &a3);
    MPI_Get_address(&arr[3], &g3);
    EXPECT(a3 == g3 && a3 - a0 == 3 * (MPI_Aint)sizeof(int));
    check("MPI_Address", errors);

    errors = 0;
    /* hvector: 3 blocks of 2 ints, 5 ints apart */
    int hv[15], hr[15];
    MPI_Datatype hvec;
    MPI_Type_hvector(3, 2, 5 * sizeof(int), MPI_INT, &hvec);
    MPI_Type_commit(&hvec);
    EXPECT(bounds_are(hvec, 0, 12 * sizeof(int), 12 * sizeof(int)));
    for (int k = 0; k < 15; k++) hv[k] = VAL(rank, k), hr[k] = HOLE;
    ring(hv, 1, hvec, hr, 1, hvec);
    for (int k = 0; k < 15; k++) EXPECT(hr[k] == (k % 5 < 2 && k < 12 ? VAL(prev, k) : HOLE));
    MPI_Type_free(&hvec);
    /* hindexed with a negative displacement: 1 int at -2 ints, 2 ints at +1 */
    int bl[2] = {1, 2};
    MPI_Aint disp[2] = {-2 * (MPI_Aint)sizeof(int), sizeof(int)};
    MPI_Datatype neg;
    MPI_Type_hindexed(2, bl, disp, MPI_INT, &neg);
    MPI_Type_commit(&neg);
    EXPECT(bounds_are(neg, -2 * (MPI_Aint)sizeof(int), 3 * sizeof(int), 5 * sizeof(int)));
    int v[12], r[12];
    for (int k = 0; k < 12; k++) v[k] = VAL(rank, k), r[k] = HOLE;
    ring(&v[4], 2, neg, &r[4], 2, neg); /* ints 2,5,6 then 7,10,11 */
    for (int k = 0; k < 12; k++) {
        int in = k == 2 || k == 5 || k == 6 || k == 7 || k == 10 || k == 11;
        EXPECT(r[k] == (in ? VAL(prev, k) : HOLE));
    }
    MPI_Type_free(&neg);
    check("MPI_Type_hvector / MPI_Type_hindexed", errors);

    errors = 0;
    int sbl[4] = {1, 1, 1, 1};
    MPI_Aint sd[4];
    struct rec probe;
    MPI_Aint base;
    MPI_Address(&probe, &base);
    MPI_Address(&probe.c, &sd[0]);
    MPI_Address(&probe.d, &sd[1]);
    MPI_Address(&probe.l, &sd[2]);
    MPI_Address(&probe.s, &sd[3]);
    for (int k = 0; k < 4; k++) sd[k] -= base;
    EXPECT(sd[1] == offsetof(struct rec, d) && sd[3] == offsetof(struct rec, s));
    MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_LONG, MPI_SHORT}, st, rt;
    MPI_Type_struct(4, sbl, sd, types, &st);
    /* without MPI_UB the extent is the fields' span, rounded up to the
     * alignment of the widest member: sizeof(struct rec) in both ABIs */
    EXPECT(bounds_are(st, 0, sizeof(struct rec), sizeof(struct rec)));
    MPI_Type_create_resized(st, -(MPI_Aint)sizeof(struct rec), 3 * sizeof(struct rec), &rt);
    MPI_Type_commit(&rt);
    EXPECT(bounds_are(rt, -(MPI_Aint)sizeof(struct rec), 2 * sizeof(struct rec), 3 * sizeof(struct rec)));
    MPI_Type_commit(&st);
    struct rec mine[3], got[3];
    for (int k = 0; k < 3; k++) {
        mine[k].c = (char)('a' + k + rank % 20);
        mine[k].d = rank + k * 0.5;
        mine[k].l = -1000000L * rank - k;
        mine[k].s = (short)(rank * 10 + k);
    }
    memset(got, 0, sizeof got);
    ring(mine, 3, st, got, 3, st);
    for (int k = 0; k < 3; k++)
        EXPECT(got[k].c == (char)('a' + k + prev % 20) && got[k].d == prev + k * 0.5 &&
               got[k].l == -1000000L * prev - k && got[k].s == (short)(prev * 10 + k));
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    EXPECT(bounds_are(MPI_INT, 0, sizeof(int), sizeof(int)));
    EXPECT(bounds_are(MPI_LONG, 0, sizeof(long), sizeof(long)));
    struct { double v; int i; } di;
    EXPECT(bounds_are(MPI_DOUBLE_INT, 0, sizeof di, sizeof di));
    check("MPI_Type_struct / extent / lb / ub", errors);
}

static int calls, last_class;
static MPI_Comm last_comm;

static void on_error(MPI_Comm *comm, int *code, ...) {
    calls++;
    last_comm = *comm;
    MPI_Error_class(*code, &last_class);
}

static void errhandlers(void) {
    int errors = 0, x = 0;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Errhandler_create(on_error, &eh);
    EXPECT(eh != MPI_ERRHANDLER_NULL);
    MPI_Errhandler_set(c, eh);
    MPI_Errhandler_get(c, &got);
    EXPECT(got == eh);
    MPI_Errhandler_free(&got);
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_RANK && calls == 1 && last_comm == c && last_class == MPI_ERR_RANK);
    MPI_Errhandler_set(c, MPI_ERRORS_RETURN);
    MPI_Errhandler_get(c, &got);
    EXPECT(got == MPI_ERRORS_RETURN);
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);
    EXPECT(rc != MPI_SUCCESS && calls == 1);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&c);
    check("MPI_Errhandler_create / set / get", errors);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    datatypes();
    errhandlers();
    MPI_Finalize();
    return failures ? 1 : 0;
}
