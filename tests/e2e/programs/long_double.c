/* long double transfers, sizes and reductions. Each rank's values differ in
 * bits only binary128 (wasm32's long double) keeps; every expected result is
 * computed locally in the program's own long double, exactly, so the native
 * build (80-bit extended on x86-64) and the wasm build check the same
 * things, and the wasm build also checks the extra precision arrived. */
#include <float.h>
#include <string.h>

#include "check.h"

typedef struct {
    long double value;
    int index;
} ld_int;

static int same(long double a, long double b) { return memcmp(&a, &b, sizeof a) == 0 || a == b; }

static void ld_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    for (int i = 0; i < *len; i++) ((long double *)inout)[i] += ((long double *)in)[i];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, errors;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long double tiny = 0x1p-100L; /* below 80-bit precision next to 1 */
    long double mine = 1.0L + (rank + 1) * tiny;

    errors = 0;
    int tsize = 0, pair = 0, cplx = 0;
    MPI_Aint lb, extent;
    MPI_Type_size(MPI_LONG_DOUBLE, &tsize);
    MPI_Type_get_extent(MPI_LONG_DOUBLE, &lb, &extent);
    EXPECT(tsize == (int)sizeof(long double) && extent == (MPI_Aint)sizeof(long double) && lb == 0);
    MPI_Type_get_extent(MPI_LONG_DOUBLE_INT, &lb, &extent);
    EXPECT(extent == (MPI_Aint)sizeof(ld_int));
    MPI_Type_size(MPI_C_LONG_DOUBLE_COMPLEX, &cplx);
    EXPECT(cplx == (int)sizeof(long double _Complex));
    MPI_Type_size(MPI_LONG_DOUBLE_INT, &pair);
    EXPECT(pair == (int)(sizeof(long double) + sizeof(int)));
    MPI_Datatype matched = MPI_DATATYPE_NULL;
    MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(long double), &matched);
    int msize = 0;
    if (matched != MPI_DATATYPE_NULL) MPI_Type_size(matched, &msize);
    EXPECT(msize == (int)sizeof(long double)); /* natively often Fortran's REAL*16 */
    check("long double sizes and extents", errors);

    errors = 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long double out[3] = {mine, -mine, mine * 4}, in[3] = {0, 0, 0};
    MPI_Status st;
    MPI_Sendrecv(out, 3, MPI_LONG_DOUBLE, right, 1, in, 3, MPI_LONG_DOUBLE, left, 1, MPI_COMM_WORLD, &st);
    long double theirs = 1.0L + (left + 1) * tiny;
    EXPECT(same(in[0], theirs) && same(in[1], -theirs) && same(in[2], theirs * 4));
    int count = -1;
    MPI_Get_count(&st, MPI_LONG_DOUBLE, &count);
    EXPECT(count == 3);
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_LONG_DOUBLE, &two);
    MPI_Type_commit(&two);
    long double b[2] = {rank == 0 ? mine : 0, rank == 0 ? 2 * mine : 0};
    MPI_Bcast(b, 1, two, 0, MPI_COMM_WORLD);
    EXPECT(same(b[0], 1.0L + tiny) && same(b[1], 2 * (1.0L + tiny)));
    MPI_Type_free(&two);
    check("long double transfers", errors);

    errors = 0;
    long double sum = 0, expect_sum = 0, lo = 0, hi = 0, prod = 0, expect_prod = 1;
    for (int r = 0; r < size; r++) expect_sum += 1.0L + (r + 1) * tiny;
    for (int r = 0; r < size; r++) expect_prod *= (r % 2 ? 2.0L : 0.5L) + 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(same(sum, expect_sum));
    MPI_Allreduce(&mine, &lo, 1, MPI_LONG_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_LONG_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(same(lo, 1.0L + tiny) && same(hi, 1.0L + size * tiny));
    long double factor = rank % 2 ? 2.0L : 0.5L;
    MPI_Reduce(&factor, &prod, 1, MPI_LONG_DOUBLE, MPI_PROD, 0, MPI_COMM_WORLD);
    if (rank == 0) EXPECT(same(prod, expect_prod));
    long double scanned = 0, expect_scan = 0;
    for (int r = 0; r <= rank; r++) expect_scan += 1.0L + (r + 1) * tiny;
    MPI_Scan(&mine, &scanned, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(same(scanned, expect_scan));
    MPI_Request req;
    long double isum = 0;
    MPI_Iallreduce(&mine, &isum, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(same(isum, expect_sum));
    check("long double SUM, PROD, MIN, MAX", errors);

    errors = 0;
    long double _Complex z = (1.0L + (rank + 1) * tiny) + rank * 1.0iL, zsum = 0, zprod = 0;
    long double _Complex expect_z = 0, expect_zprod = 1;
    for (int r = 0; r < size; r++) expect_z += (1.0L + (r + 1) * tiny) + r * 1.0iL;
    for (int r = 0; r < size; r++) expect_zprod *= 1.0iL;
    MPI_Allreduce(&z, &zsum, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(same(__real__ zsum, __real__ expect_z) && same(__imag__ zsum, __imag__ expect_z));
    long double _Complex unit = 1.0iL;
    MPI_Allreduce(&unit, &zprod, 1, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    EXPECT(same(__real__ zprod, __real__ expect_zprod) && same(__imag__ zprod, __imag__ expect_zprod));
    check("long double complex SUM, PROD", errors);

    errors = 0;
    /* ties on purpose: ranks 0 and 3 hold the same smallest value */
    ld_int p = {2.0L + (rank % 3) * tiny, rank}, minloc, maxloc;
    MPI_Allreduce(&p, &minloc, 1, MPI_LONG_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    MPI_Allreduce(&p, &maxloc, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    EXPECT(same(minloc.value, 2.0L) && minloc.index == 0);
    int top = size > 2 ? 2 : size - 1;
    EXPECT(same(maxloc.value, 2.0L + top * tiny));
    if (LDBL_MANT_DIG >= 113) EXPECT(maxloc.index == top);
    check("long double MINLOC, MAXLOC", errors);

    errors = 0;
    MPI_Op op;
    MPI_Op_create(ld_sum, 1, &op);
    long double usum = 0;
    MPI_Allreduce(&mine, &usum, 1, MPI_LONG_DOUBLE, op, MPI_COMM_WORLD);
    EXPECT(same(usum, expect_sum));
    MPI_Op_free(&op);
    check("long double user operation", errors);

#if LDBL_MANT_DIG >= 113
    errors = 0;
    EXPECT(sum != (long double)size && (size == 1 || lo != hi));
    check("binary128 precision reached every rank", errors);
#endif

    MPI_Finalize();
    return failures != 0;
}
