/* Derived datatypes: every constructor sent through a ring, a mixed struct
 * whose layout differs between wasm32 and the host (checked against the C
 * struct of this build), subarray/darray halo and block exchanges on a 2-D
 * periodic Cartesian process grid, pack/unpack (native and external32),
 * extents (negative lower bounds too), envelope/contents round trips,
 * names, addresses and MPI_BOTTOM, Type_match_size, Get_elements. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rank, size, next, prev;
#define HOLE (-777)
#define VAL(r, k) ((r) * 1000 + (k) + 1)

static void ring(const void *sbuf, int sc, MPI_Datatype st, void *rbuf, int rc, MPI_Datatype rt) {
    MPI_Sendrecv(sbuf, sc, st, next, 1, rbuf, rc, rt, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int extent_is(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent) {
    MPI_Aint l = -1, e = -1;
    MPI_Type_get_extent(t, &l, &e);
    return l == lb && e == extent;
}

static int true_extent_is(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent) {
    MPI_Aint l = -1, e = -1;
    MPI_Type_get_true_extent(t, &l, &e);
    return l == lb && e == extent;
}

static int size_is(MPI_Datatype t, int expected) {
    int s = -1;
    MPI_Type_size(t, &s);
    return s == expected;
}

/* ---- the mixed struct ---------------------------------------------------- */
struct rec {
    char c;
    int i;
    double d;
    long l;
    char tag[3];
};

static MPI_Datatype rec_type(void) {
    int bl[5] = {1, 1, 1, 1, 3};
    MPI_Aint disp[5] = {offsetof(struct rec, c), offsetof(struct rec, i), offsetof(struct rec, d),
                        offsetof(struct rec, l), offsetof(struct rec, tag)};
    MPI_Datatype types[5] = {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_LONG, MPI_CHAR}, packed, t;
    MPI_Type_create_struct(5, bl, disp, types, &packed);
    MPI_Type_create_resized(packed, 0, sizeof(struct rec), &t);
    MPI_Type_free(&packed);
    MPI_Type_commit(&t);
    return t;
}

static void rec_fill(struct rec *r, int who, int k) {
    r->c = (char)('a' + who % 26);
    r->i = VAL(who, k);
    r->d = who + k / 4.0;
    r->l = -123456789L - who * 10 - k;
    r->tag[0] = 'x'; r->tag[1] = (char)('0' + k); r->tag[2] = (char)('A' + who % 26);
}

static int rec_equal(const struct rec *a, const struct rec *b) {
    return a->c == b->c && a->i == b->i && a->d == b->d && a->l == b->l && !memcmp(a->tag, b->tag, 3);
}

/* bytes of a struct rec that belong to no field are still `fill` */
static int rec_padding_is(const struct rec *r, unsigned char fill) {
    const unsigned char *p = (const unsigned char *)r;
    for (size_t b = 0; b < sizeof *r; b++) {
        int field = b == offsetof(struct rec, c) ||
                    (b >= offsetof(struct rec, i) && b < offsetof(struct rec, i) + sizeof(int)) ||
                    (b >= offsetof(struct rec, d) && b < offsetof(struct rec, d) + sizeof(double)) ||
                    (b >= offsetof(struct rec, l) && b < offsetof(struct rec, l) + sizeof(long)) ||
                    (b >= offsetof(struct rec, tag) && b < offsetof(struct rec, tag) + 3);
        if (!field && p[b] != fill) return 0;
    }
    return 1;
}

/* ---- constructors through a ring ---------------------------------------- */
#define ROWS 5
#define COLS 4

static void vectors(void) {
    int errors = 0;
    double m[ROWS][COLS], r[ROWS][COLS], col[ROWS];
    MPI_Datatype column;
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    EXPECT(size_is(column, ROWS * sizeof(double)));
    EXPECT(extent_is(column, 0, ((ROWS - 1) * COLS + 1) * sizeof(double)));
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) m[i][j] = VAL(rank, i * COLS + j), r[i][j] = HOLE;
    int c = rank % COLS, pc = prev % COLS;
    /* column -> contiguous, then contiguous -> column of another matrix */
    ring(&m[0][c], 1, column, col, ROWS, MPI_DOUBLE);
    for (int i = 0; i < ROWS; i++) EXPECT(col[i] == VAL(prev, i * COLS + pc));
    ring(col, ROWS, MPI_DOUBLE, &r[0][(c + 1) % COLS], 1, column);
    /* what arrives is prev's col (prev-of-prev's column pc2 of matrix) */
    int pp = (prev + size - 1) % size, pc2 = pp % COLS, mine = (c + 1) % COLS;
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            EXPECT(r[i][j] == (j == mine ? VAL(pp, i * COLS + pc2) : HOLE));
    /* two columns at once: count 2 of a column resized to one double */
    MPI_Datatype col1;
    MPI_Type_create_resized(column, 0, sizeof(double), &col1);
    MPI_Type_commit(&col1);
    double two[2 * ROWS];
    ring(&m[0][1], 2, col1, two, 2 * ROWS, MPI_DOUBLE);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < ROWS; i++) EXPECT(two[k * ROWS + i] == VAL(prev, i * COLS + 1 + k));
    MPI_Type_free(&col1);
    MPI_Type_free(&column);
    check("Type_vector matrix column", errors);

    errors = 0;
    int a[12], b[12];
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    EXPECT(size_is(three, 3 * sizeof(int)) && extent_is(three, 0, 3 * sizeof(int)));
    for (int k = 0; k < 12; k++) a[k] = VAL(rank, k), b[k] = HOLE;
    ring(a, 2, three, b, 6, MPI_INT);
    for (int k = 0; k < 12; k++) EXPECT(b[k] == (k < 6 ? VAL(prev, k) : HOLE));
    MPI_Type_free(&three);
    check("Type_contiguous", errors);

    errors = 0;
    /* hvector: 3 blocks of 2 ints, 5 ints apart (stride in bytes) */
    int hv[15], hr[15];
    MPI_Datatype hvec;
    MPI_Type_create_hvector(3, 2, 5 * sizeof(int), MPI_INT, &hvec);
    MPI_Type_commit(&hvec);
    EXPECT(size_is(hvec, 6 * sizeof(int)) && extent_is(hvec, 0, 12 * sizeof(int)));
    for (int k = 0; k < 15; k++) hv[k] = VAL(rank, k), hr[k] = HOLE;
    ring(hv, 1, hvec, hr, 1, hvec);
    for (int k = 0; k < 15; k++) EXPECT(hr[k] == (k % 5 < 2 && k < 12 ? VAL(prev, k) : HOLE));
    MPI_Type_free(&hvec);
    check("Type_create_hvector", errors);

    errors = 0;
    /* indexed: blocks {1,2,3} at {7,0,3}: out of order on purpose */
    int ibl[3] = {1, 2, 3}, idisp[3] = {7, 0, 3}, iv[10], ir[10], flat[6];
    MPI_Datatype ind;
    MPI_Type_indexed(3, ibl, idisp, MPI_INT, &ind);
    MPI_Type_commit(&ind);
    EXPECT(size_is(ind, 6 * sizeof(int)) && extent_is(ind, 0, 8 * sizeof(int)));
    for (int k = 0; k < 10; k++) iv[k] = VAL(rank, k), ir[k] = HOLE;
    ring(iv, 1, ind, flat, 6, MPI_INT);
    int order[6] = {7, 0, 1, 3, 4, 5};
    for (int k = 0; k < 6; k++) EXPECT(flat[k] == VAL(prev, order[k]));
    ring(iv, 1, ind, ir, 1, ind);
    for (int k = 0; k < 10; k++) EXPECT(ir[k] == (k == 2 || k == 6 || k > 7 ? HOLE : VAL(prev, k)));
    MPI_Type_free(&ind);
    check("Type_indexed", errors);

    errors = 0;
    /* hindexed: 2 doubles at byte 4*8, then 1 double at byte 0 */
    int hbl[2] = {2, 1};
    MPI_Aint hdisp[2] = {4 * sizeof(double), 0};
    double hd[6], hflat[3];
    MPI_Datatype hind;
    MPI_Type_create_hindexed(2, hbl, hdisp, MPI_DOUBLE, &hind);
    MPI_Type_commit(&hind);
    EXPECT(size_is(hind, 3 * sizeof(double)) && extent_is(hind, 0, 6 * sizeof(double)));
    for (int k = 0; k < 6; k++) hd[k] = VAL(rank, k) + 0.5;
    ring(hd, 1, hind, hflat, 3, MPI_DOUBLE);
    EXPECT(hflat[0] == VAL(prev, 4) + 0.5 && hflat[1] == VAL(prev, 5) + 0.5 && hflat[2] == VAL(prev, 0) + 0.5);
    MPI_Type_free(&hind);
    check("Type_create_hindexed", errors);

    errors = 0;
    /* indexed_block: blocks of 2 shorts at {5,1,3} (in shorts) */
    int ibd[3] = {5, 1, 3};
    short sv[8], sflat[6], sr[8];
    MPI_Datatype iblk;
    MPI_Type_create_indexed_block(3, 2, ibd, MPI_SHORT, &iblk);
    MPI_Type_commit(&iblk);
    EXPECT(size_is(iblk, 6 * sizeof(short)) && extent_is(iblk, sizeof(short), 6 * sizeof(short)));
    for (int k = 0; k < 8; k++) sv[k] = (short)(rank * 100 + k), sr[k] = -1;
    ring(sv, 1, iblk, sflat, 6, MPI_SHORT);
    short sord[6] = {5, 6, 1, 2, 3, 4};
    for (int k = 0; k < 6; k++) EXPECT(sflat[k] == prev * 100 + sord[k]);
    ring(sv, 1, iblk, sr, 1, iblk);
    for (int k = 0; k < 8; k++) EXPECT(sr[k] == (k == 0 || k == 7 ? -1 : prev * 100 + k));
    MPI_Type_free(&iblk);
    check("Type_create_indexed_block", errors);

    errors = 0;
    /* hindexed_block: the int and the double of two struct recs */
    struct rec recs[2], got[2];
    MPI_Aint hbd[4] = {offsetof(struct rec, i), sizeof(struct rec) + offsetof(struct rec, i), 0, 0};
    MPI_Datatype hblk, hblk_d;
    MPI_Type_create_hindexed_block(2, 1, hbd, MPI_INT, &hblk);
    MPI_Type_commit(&hblk);
    EXPECT(size_is(hblk, 2 * sizeof(int)));
    EXPECT(extent_is(hblk, offsetof(struct rec, i), sizeof(struct rec) + sizeof(int)));
    hbd[0] = offsetof(struct rec, d); hbd[1] = sizeof(struct rec) + offsetof(struct rec, d);
    MPI_Type_create_hindexed_block(2, 1, hbd, MPI_DOUBLE, &hblk_d);
    MPI_Type_commit(&hblk_d);
    rec_fill(&recs[0], rank, 0); rec_fill(&recs[1], rank, 1);
    memset(got, 0xAB, sizeof got);
    ring(recs, 1, hblk, got, 1, hblk);
    ring(recs, 1, hblk_d, got, 1, hblk_d);
    for (int k = 0; k < 2; k++) {
        struct rec e;
        rec_fill(&e, prev, k);
        EXPECT(got[k].i == e.i && got[k].d == e.d && (unsigned char)got[k].c == 0xAB);
    }
    MPI_Type_free(&hblk);
    MPI_Type_free(&hblk_d);
    check("Type_create_hindexed_block", errors);
}

static void structs(void) {
    int errors = 0;
    MPI_Datatype t = rec_type();
    /* sizes follow this build's C struct: they differ between wasm32 and the host */
    EXPECT(size_is(t, 1 + sizeof(int) + sizeof(double) + sizeof(long) + 3));
    EXPECT(extent_is(t, 0, sizeof(struct rec)));
    EXPECT(true_extent_is(t, 0, offsetof(struct rec, tag) + 3));
    struct rec mine[3], got[4];
    for (int k = 0; k < 3; k++) rec_fill(&mine[k], rank, k);
    memset(got, 0xAB, sizeof got);
    ring(mine, 3, t, got, 3, t);
    for (int k = 0; k < 3; k++) {
        struct rec e;
        rec_fill(&e, prev, k);
        EXPECT(rec_equal(&got[k], &e));
        EXPECT(rec_padding_is(&got[k], 0xAB));
    }
    const unsigned char *after = (const unsigned char *)&got[3];
    for (size_t b = 0; b < sizeof got[3]; b++) EXPECT(after[b] == 0xAB);
    MPI_Type_free(&t);
    EXPECT(t == MPI_DATATYPE_NULL);
    check("Type_create_struct + resized (ring)", errors);
}

/* ---- 2-D periodic Cartesian grid (MPI_Dims_create + MPI_Cart_create) ---- */
static int d0, d1, r0, r1;
static MPI_Comm grid;
#define NY 3
#define NX 4

static int wrap(int i, int n) { return ((i % n) + n) % n; }
static int grid_rank(int a, int b) { return wrap(a, d0) * d1 + wrap(b, d1); }

static void halo(void) {
    int errors = 0, L[NY + 2][NX + 2];
    int gy = NY * d0, gx = NX * d1;
    for (int i = 0; i < NY + 2; i++)
        for (int j = 0; j < NX + 2; j++)
            L[i][j] = (i >= 1 && i <= NY && j >= 1 && j <= NX) ? 1000 * (r0 * NY + i - 1) + (r1 * NX + j - 1) + 1 : HOLE;
    /* rows: C order; columns: the same array described in Fortran order */
    MPI_Datatype row[4], col[4];
    int rs[2] = {NY + 2, NX + 2}, rsub[2] = {1, NX};
    int rstart[4][2] = {{1, 1}, {NY, 1}, {0, 1}, {NY + 1, 1}}; /* top, bottom interior; top, bottom halo */
    int cs[2] = {NX + 2, NY + 2}, csub[2] = {1, NY};
    int cstart[4][2] = {{1, 1}, {NX, 1}, {0, 1}, {NX + 1, 1}}; /* left, right interior; left, right halo */
    for (int k = 0; k < 4; k++) {
        MPI_Type_create_subarray(2, rs, rsub, rstart[k], MPI_ORDER_C, MPI_INT, &row[k]);
        MPI_Type_commit(&row[k]);
        MPI_Type_create_subarray(2, cs, csub, cstart[k], MPI_ORDER_FORTRAN, MPI_INT, &col[k]);
        MPI_Type_commit(&col[k]);
    }
    EXPECT(size_is(row[0], NX * sizeof(int)) && size_is(col[0], NY * sizeof(int)));
    EXPECT(extent_is(row[1], 0, sizeof L) && extent_is(col[3], 0, sizeof L));
    EXPECT(true_extent_is(row[1], (NY * (NX + 2) + 1) * sizeof(int), NX * sizeof(int)));
    int up, down, left, right;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    EXPECT(up == grid_rank(r0 - 1, r1) && down == grid_rank(r0 + 1, r1));
    EXPECT(left == grid_rank(r0, r1 - 1) && right == grid_rank(r0, r1 + 1));
    MPI_Sendrecv(L, 1, row[0], up, 11, L, 1, row[3], down, 11, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(L, 1, row[1], down, 12, L, 1, row[2], up, 12, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(L, 1, col[0], left, 13, L, 1, col[3], right, 13, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(L, 1, col[1], right, 14, L, 1, col[2], left, 14, grid, MPI_STATUS_IGNORE);
    for (int i = 0; i < NY + 2; i++)
        for (int j = 0; j < NX + 2; j++) {
            int corner = (i == 0 || i == NY + 1) && (j == 0 || j == NX + 1);
            int expect = corner ? HOLE : 1000 * wrap(r0 * NY + i - 1, gy) + wrap(r1 * NX + j - 1, gx) + 1;
            EXPECT(L[i][j] == expect);
        }
    for (int k = 0; k < 4; k++) MPI_Type_free(&row[k]), MPI_Type_free(&col[k]);
    check("Type_create_subarray halo exchange", errors);
}

#define GY 7
#define GX 10

/* darray: rows BLOCK over d0, columns CYCLIC(2) over d1 */
static MPI_Datatype darray_of(int r) {
    int gs[2] = {GY, GX}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {d0, d1};
    MPI_Datatype t;
    MPI_Type_create_darray(size, r, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

static int owns_row(int a, int i) { int b = (GY + d0 - 1) / d0; return i / b == a; }
static int owns_col(int c, int j) { return (j / 2) % d1 == c; }

static void darray(void) {
    int errors = 0, G[GY][GX], H[GY][GX];
    MPI_Datatype mine = darray_of(rank);
    int bytes = 0, n = 0;
    MPI_Type_size(mine, &bytes);
    for (int i = 0; i < GY; i++)
        for (int j = 0; j < GX; j++) n += owns_row(r0, i) && owns_col(r1, j);
    EXPECT(bytes == n * (int)sizeof(int));
    EXPECT(extent_is(mine, 0, sizeof G));
    int *loc = malloc((n + 1) * sizeof(int));
    for (int k = 0; k <= n; k++) loc[k] = HOLE;
    MPI_Request reqs[65];
    int nr = 0;
    MPI_Datatype *all = malloc(size * sizeof(MPI_Datatype));
    MPI_Irecv(loc, n, MPI_INT, 0, 20, MPI_COMM_WORLD, &reqs[nr++]);
    if (rank == 0) {
        for (int i = 0; i < GY; i++)
            for (int j = 0; j < GX; j++) G[i][j] = 100 * i + j + 1, H[i][j] = HOLE;
        for (int r = 0; r < size; r++) {
            all[r] = darray_of(r);
            MPI_Isend(G, 1, all[r], r, 20, MPI_COMM_WORLD, &reqs[nr++]);
        }
    }
    MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE);
    int k = 0;
    for (int i = 0; i < GY; i++)
        for (int j = 0; j < GX; j++)
            if (owns_row(r0, i) && owns_col(r1, j)) EXPECT(loc[k++] == 100 * i + j + 1);
    EXPECT(loc[n] == HOLE);
    check("Type_create_darray scatter", errors);

    errors = 0;
    for (k = 0; k < n; k++) loc[k] = -loc[k];
    nr = 0;
    if (rank == 0)
        for (int r = 0; r < size; r++) MPI_Irecv(H, 1, all[r], r, 21, MPI_COMM_WORLD, &reqs[nr++]);
    MPI_Isend(loc, n, MPI_INT, 0, 21, MPI_COMM_WORLD, &reqs[nr++]);
    MPI_Waitall(nr, reqs, MPI_STATUSES_IGNORE);
    if (rank == 0) {
        for (int i = 0; i < GY; i++)
            for (int j = 0; j < GX; j++) EXPECT(H[i][j] == -G[i][j]);
        for (int r = 0; r < size; r++) MPI_Type_free(&all[r]);
    }
    MPI_Type_free(&mine);
    free(all);
    free(loc);
    check("Type_create_darray gather", errors);
}

/* ---- pack / unpack ------------------------------------------------------- */
static void packing(void) {
    int errors = 0, pos = 0, psz, total = 0;
    char buf[512];
    MPI_Datatype t = rec_type(), column;
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    int ints[3] = {VAL(rank, 0), VAL(rank, 1), -VAL(rank, 2)};
    double d = rank + 0.125, m[ROWS][COLS];
    char text[5] = {'h', 'e', 'l', 'l', (char)('0' + rank % 10)};
    struct rec recs[2];
    rec_fill(&recs[0], rank, 0); rec_fill(&recs[1], rank, 1);
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) m[i][j] = VAL(rank, i * COLS + j);
    int rsz = 0;
    MPI_Type_size(t, &rsz);

    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &psz); total += psz;
    EXPECT(psz >= 3 * (int)sizeof(int));
    MPI_Pack_size(1, MPI_DOUBLE, MPI_COMM_WORLD, &psz); total += psz;
    MPI_Pack_size(5, MPI_CHAR, MPI_COMM_WORLD, &psz); total += psz;
    MPI_Pack_size(2, t, MPI_COMM_WORLD, &psz); total += psz;
    EXPECT(psz >= 2 * rsz);
    MPI_Pack_size(1, column, MPI_COMM_WORLD, &psz); total += psz;
    EXPECT(psz >= ROWS * (int)sizeof(double));
    EXPECT(total + 8 <= (int)sizeof buf);

    pos = 8; /* start past a header of our own */
    MPI_Pack(ints, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    EXPECT(pos == 8 + 3 * (int)sizeof(int));
    int p1 = pos;
    MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    EXPECT(pos == p1 + (int)sizeof(double));
    MPI_Pack(text, 5, MPI_CHAR, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    int p2 = pos;
    MPI_Pack(recs, 2, t, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    EXPECT(pos == p2 + 2 * rsz);
    MPI_Pack(&m[0][2], 1, column, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    EXPECT(pos <= total + 8);
    memcpy(buf, &pos, sizeof pos); /* the header: the packed length */

    char in[512];
    MPI_Status st;
    int count = -1;
    MPI_Sendrecv(buf, pos, MPI_PACKED, next, 2, in, sizeof in, MPI_PACKED, prev, 2, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_PACKED, &count);
    int hdr = -1;
    memcpy(&hdr, in, sizeof hdr);
    EXPECT(count == hdr);
    int upos = 8, gi[3] = {0, 0, 0};
    double gd = 0, gcol[ROWS];
    char gt[5] = {0};
    struct rec grec[2];
    MPI_Unpack(in, count, &upos, gi, 3, MPI_INT, MPI_COMM_WORLD);
    EXPECT(upos == 8 + 3 * (int)sizeof(int));
    MPI_Unpack(in, count, &upos, &gd, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Unpack(in, count, &upos, gt, 5, MPI_CHAR, MPI_COMM_WORLD);
    memset(grec, 0xAB, sizeof grec);
    MPI_Unpack(in, count, &upos, grec, 2, t, MPI_COMM_WORLD);
    MPI_Unpack(in, count, &upos, gcol, ROWS, MPI_DOUBLE, MPI_COMM_WORLD); /* same signature as column */
    EXPECT(upos == count);
    EXPECT(gi[0] == VAL(prev, 0) && gi[1] == VAL(prev, 1) && gi[2] == -VAL(prev, 2));
    EXPECT(gd == prev + 0.125);
    EXPECT(!memcmp(gt, "hell", 4) && gt[4] == (char)('0' + prev % 10));
    for (int k = 0; k < 2; k++) {
        struct rec e;
        rec_fill(&e, prev, k);
        EXPECT(rec_equal(&grec[k], &e) && rec_padding_is(&grec[k], 0xAB));
    }
    for (int i = 0; i < ROWS; i++) EXPECT(gcol[i] == VAL(prev, i * COLS + 2));
    /* unpack contiguous data into a column of a matrix */
    double mm[ROWS][COLS];
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) mm[i][j] = HOLE;
    pos = 0;
    MPI_Pack(gcol, ROWS, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    upos = 0;
    MPI_Unpack(buf, pos, &upos, &mm[0][1], 1, column, MPI_COMM_WORLD);
    EXPECT(upos == pos);
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) EXPECT(mm[i][j] == (j == 1 ? VAL(prev, i * COLS + 2) : HOLE));
    MPI_Type_free(&t);
    MPI_Type_free(&column);
    check("Pack / Unpack / Pack_size", errors);

    /* external32: big-endian, fixed sizes */
    errors = 0;
    MPI_Aint esz = -1, epos = 0, upos2 = 0;
    unsigned char ext[128];
    memset(ext, 0xEE, sizeof ext);
    MPI_Pack_external_size("external32", 1, MPI_INT, &esz);
    EXPECT(esz == 4);
    MPI_Pack_external_size("external32", 3, MPI_SHORT, &esz);
    EXPECT(esz == 6);
    MPI_Pack_external_size("external32", 2, MPI_DOUBLE, &esz);
    EXPECT(esz == 16);
    MPI_Pack_external_size("external32", 1, MPI_INT64_T, &esz);
    EXPECT(esz == 8);
    int32_t i32 = 0x01020304 + rank;
    short s16[3] = {0x0A0B, -2, 0x7F00};
    double dd[2] = {-2.5, 1.0};
    int64_t i64 = 0x0102030405060708LL;
    MPI_Datatype every_other;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int eo[3] = {0x11223344, HOLE, 0x55667788};
    MPI_Pack_external_size("external32", 1, every_other, &esz);
    EXPECT(esz == 8);
    MPI_Pack_external("external32", &i32, 1, MPI_INT, ext, sizeof ext, &epos);
    EXPECT(epos == 4);
    MPI_Pack_external("external32", s16, 3, MPI_SHORT, ext, sizeof ext, &epos);
    MPI_Pack_external("external32", dd, 2, MPI_DOUBLE, ext, sizeof ext, &epos);
    MPI_Pack_external("external32", &i64, 1, MPI_INT64_T, ext, sizeof ext, &epos);
    MPI_Pack_external("external32", eo, 1, every_other, ext, sizeof ext, &epos);
    EXPECT(epos == 4 + 6 + 16 + 8 + 8);
    static const unsigned char want[] = {
        0x01, 0x02, 0x03, 0x04,
        0x0A, 0x0B, 0xFF, 0xFE, 0x7F, 0x00,
        0xC0, 0x04, 0, 0, 0, 0, 0, 0, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    unsigned char w[sizeof want];
    memcpy(w, want, sizeof want);
    w[3] = (unsigned char)(0x04 + rank);
    EXPECT(!memcmp(ext, w, sizeof w));
    EXPECT(ext[sizeof w] == 0xEE);
    int32_t ri = 0;
    short rs[3] = {0, 0, 0};
    double rd[2] = {0, 0};
    int64_t r64 = 0;
    int reo[3] = {HOLE, HOLE, HOLE};
    MPI_Unpack_external("external32", ext, epos, &upos2, &ri, 1, MPI_INT);
    MPI_Unpack_external("external32", ext, epos, &upos2, rs, 3, MPI_SHORT);
    MPI_Unpack_external("external32", ext, epos, &upos2, rd, 2, MPI_DOUBLE);
    MPI_Unpack_external("external32", ext, epos, &upos2, &r64, 1, MPI_INT64_T);
    MPI_Unpack_external("external32", ext, epos, &upos2, reo, 1, every_other);
    EXPECT(upos2 == epos);
    EXPECT(ri == i32 && rs[0] == s16[0] && rs[1] == -2 && rs[2] == 0x7F00 && rd[0] == -2.5 && rd[1] == 1.0 && r64 == i64);
    EXPECT(reo[0] == 0x11223344 && reo[1] == HOLE && reo[2] == 0x55667788);
    MPI_Type_free(&every_other);
    check("Pack_external external32 (big-endian)", errors);
}

/* ---- extents ------------------------------------------------------------- */
static void extents(void) {
    int errors = 0;
    /* hindexed with a negative displacement: 1 int at -2 ints, 2 ints at +1 */
    int bl[2] = {1, 2};
    MPI_Aint disp[2] = {-2 * (MPI_Aint)sizeof(int), sizeof(int)};
    MPI_Datatype neg, wide;
    MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &neg);
    EXPECT(extent_is(neg, -2 * (MPI_Aint)sizeof(int), 5 * sizeof(int)));
    EXPECT(true_extent_is(neg, -2 * (MPI_Aint)sizeof(int), 5 * sizeof(int)));
    /* resized further down: lb -3 ints, extent 7 ints */
    MPI_Type_create_resized(neg, -3 * (MPI_Aint)sizeof(int), 7 * sizeof(int), &wide);
    MPI_Type_commit(&wide);
    EXPECT(extent_is(wide, -3 * (MPI_Aint)sizeof(int), 7 * sizeof(int)));
    EXPECT(true_extent_is(wide, -2 * (MPI_Aint)sizeof(int), 5 * sizeof(int)));
    EXPECT(size_is(wide, 3 * sizeof(int)));
    MPI_Count xlb = -1, xext = -1, xsize = -1;
    MPI_Type_get_extent_x(wide, &xlb, &xext);
    EXPECT(xlb == -3 * (MPI_Count)sizeof(int) && xext == 7 * (MPI_Count)sizeof(int));
    MPI_Type_get_true_extent_x(wide, &xlb, &xext);
    EXPECT(xlb == -2 * (MPI_Count)sizeof(int) && xext == 5 * (MPI_Count)sizeof(int));
    MPI_Type_size_x(wide, &xsize);
    EXPECT(xsize == 3 * (MPI_Count)sizeof(int));
    /* used for real: two elements from &v[6]: ints 4,7,8 then 11,14,15 */
    int v[20], r[20];
    for (int k = 0; k < 20; k++) v[k] = VAL(rank, k), r[k] = HOLE;
    ring(&v[6], 2, wide, &r[6], 2, wide);
    for (int k = 0; k < 20; k++) {
        int in = k == 4 || k == 7 || k == 8 || k == 11 || k == 14 || k == 15;
        EXPECT(r[k] == (in ? VAL(prev, k) : HOLE));
    }
    MPI_Type_free(&neg);
    MPI_Type_free(&wide);
    /* past 2 GiB (ROMIO's big_extents): an extent the MPI_Aint cannot hold
     * and a size no int holds are MPI_UNDEFINED (MPI-3.0 on), the _x
     * queries have both */
    MPI_Datatype gig, big;
    MPI_Type_contiguous(1 << 30, MPI_BYTE, &gig);
    MPI_Type_create_resized(gig, 0, (MPI_Aint)1 << 29, &gig);
    MPI_Type_contiguous(6, gig, &big); /* size 6 GiB, extent 3 GiB */
    MPI_Type_commit(&big);
    MPI_Aint blb = -1, bext = -1;
    int bsize = -1;
    EXPECT(MPI_Type_get_extent(big, &blb, &bext) == MPI_SUCCESS && blb == 0);
    EXPECT(sizeof(MPI_Aint) == 4 ? bext == MPI_UNDEFINED : (MPI_Count)bext == (MPI_Count)3 << 30);
    EXPECT(MPI_Type_size(big, &bsize) == MPI_SUCCESS && bsize == MPI_UNDEFINED);
    MPI_Type_get_extent_x(big, &xlb, &xext);
    MPI_Type_size_x(big, &xsize);
    EXPECT(xlb == 0 && xext == (MPI_Count)3 << 30 && xsize == (MPI_Count)6 << 30);
    MPI_Type_free(&gig);
    MPI_Type_free(&big);
    /* predefined */
    EXPECT(extent_is(MPI_DOUBLE, 0, sizeof(double)) && size_is(MPI_LONG, sizeof(long)));
    EXPECT(extent_is(MPI_LONG, 0, sizeof(long)) && size_is(MPI_SHORT, sizeof(short)));
    struct { double v; int i; } di;
    EXPECT(extent_is(MPI_DOUBLE_INT, 0, sizeof di));
    struct { long v; int i; } li;
    EXPECT(extent_is(MPI_LONG_INT, 0, sizeof li) && size_is(MPI_LONG_INT, sizeof(long) + sizeof(int)));
    check("Type_get_extent / true_extent / _x (negative lb)", errors);
}

/* ---- envelope / contents ------------------------------------------------- */
static int is_named(MPI_Datatype t) {
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED;
}

/* Rebuilds t from its envelope and contents (NULL if the combiner is unknown). */
static MPI_Datatype rebuild(MPI_Datatype t) {
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    int *I = malloc((ni + 1) * sizeof(int));
    MPI_Aint *A = malloc((na + 1) * sizeof(MPI_Aint));
    MPI_Datatype *D = malloc((nd + 1) * sizeof(MPI_Datatype)), n = MPI_DATATYPE_NULL;
    MPI_Type_get_contents(t, ni, na, nd, I, A, D);
    switch (comb) {
    case MPI_COMBINER_DUP: MPI_Type_dup(D[0], &n); break;
    case MPI_COMBINER_CONTIGUOUS: MPI_Type_contiguous(I[0], D[0], &n); break;
    case MPI_COMBINER_VECTOR: MPI_Type_vector(I[0], I[1], I[2], D[0], &n); break;
    case MPI_COMBINER_HVECTOR: MPI_Type_create_hvector(I[0], I[1], A[0], D[0], &n); break;
    case MPI_COMBINER_INDEXED: MPI_Type_indexed(I[0], I + 1, I + 1 + I[0], D[0], &n); break;
    case MPI_COMBINER_HINDEXED: MPI_Type_create_hindexed(I[0], I + 1, A, D[0], &n); break;
    case MPI_COMBINER_INDEXED_BLOCK: MPI_Type_create_indexed_block(I[0], I[1], I + 2, D[0], &n); break;
    case MPI_COMBINER_HINDEXED_BLOCK: MPI_Type_create_hindexed_block(I[0], I[1], A, D[0], &n); break;
    case MPI_COMBINER_STRUCT: MPI_Type_create_struct(I[0], I + 1, A, D, &n); break;
    case MPI_COMBINER_SUBARRAY:
        MPI_Type_create_subarray(I[0], I + 1, I + 1 + I[0], I + 1 + 2 * I[0], I[1 + 3 * I[0]], D[0], &n);
        break;
    case MPI_COMBINER_DARRAY:
        MPI_Type_create_darray(I[0], I[1], I[2], I + 3, I + 3 + I[2], I + 3 + 2 * I[2], I + 3 + 3 * I[2],
                               I[3 + 4 * I[2]], D[0], &n);
        break;
    case MPI_COMBINER_RESIZED: MPI_Type_create_resized(D[0], A[0], A[1], &n); break;
    default: break;
    }
    for (int k = 0; k < nd; k++)
        if (!is_named(D[k])) MPI_Type_free(&D[k]);
    if (n != MPI_DATATYPE_NULL) MPI_Type_commit(&n);
    free(I); free(A); free(D);
    return n;
}

static unsigned char arena[4096];

/* same size, bounds and packed bytes (from the middle of a patterned arena) */
static int same_layout(MPI_Datatype a, MPI_Datatype b) {
    MPI_Aint la, ea, lb, eb, tla, tea, tlb, teb;
    int sa, sb;
    MPI_Type_get_extent(a, &la, &ea); MPI_Type_get_extent(b, &lb, &eb);
    MPI_Type_get_true_extent(a, &tla, &tea); MPI_Type_get_true_extent(b, &tlb, &teb);
    MPI_Type_size(a, &sa); MPI_Type_size(b, &sb);
    if (la != lb || ea != eb || tla != tlb || tea != teb || sa != sb) return 0;
    static char pa[8192], pb[8192];
    int qa = 0, qb = 0;
    MPI_Pack(arena + 2048, 2, a, pa, sizeof pa, &qa, MPI_COMM_WORLD);
    MPI_Pack(arena + 2048, 2, b, pb, sizeof pb, &qb, MPI_COMM_WORLD);
    return qa == qb && qa == 2 * sa && !memcmp(pa, pb, qa);
}

static void contents(void) {
    int errors = 0;
    for (size_t k = 0; k < sizeof arena; k++) arena[k] = (unsigned char)(k * 7 + 3);
    MPI_Datatype t[12];
    int nt = 0;
    t[nt++] = rec_type();
    MPI_Type_contiguous(3, MPI_SHORT, &t[nt++]);
    MPI_Type_vector(3, 2, 4, MPI_INT, &t[nt++]);
    MPI_Type_create_hvector(2, 3, -40, MPI_CHAR, &t[nt++]);
    int bl[3] = {2, 1, 3}, di[3] = {5, -2, 9};
    MPI_Type_indexed(3, bl, di, MPI_FLOAT, &t[nt++]);
    MPI_Aint da[3] = {16, -24, 100};
    MPI_Type_create_hindexed(3, bl, da, MPI_DOUBLE, &t[nt++]);
    MPI_Type_create_indexed_block(3, 2, di, MPI_UNSIGNED, &t[nt++]);
    MPI_Type_create_hindexed_block(3, 2, da, MPI_SHORT, &t[nt++]);
    int gs[2] = {5, 6}, ss[2] = {2, 3}, st[2] = {1, 2};
    MPI_Type_create_subarray(2, gs, ss, st, MPI_ORDER_FORTRAN, MPI_INT, &t[nt++]);
    int dgs[2] = {GY, GX}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
    int darg[2] = {1, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {d0, d1};
    MPI_Type_create_darray(size, rank, 2, dgs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t[nt++]);
    MPI_Type_create_resized(t[2], -8, 100, &t[nt++]);
    MPI_Type_dup(t[0], &t[nt++]);
    for (int k = 0; k < nt; k++) MPI_Type_commit(&t[k]);
    static const int combiners[12] = {
        MPI_COMBINER_RESIZED, MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_VECTOR, MPI_COMBINER_HVECTOR,
        MPI_COMBINER_INDEXED, MPI_COMBINER_HINDEXED, MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK,
        MPI_COMBINER_SUBARRAY, MPI_COMBINER_DARRAY, MPI_COMBINER_RESIZED, MPI_COMBINER_DUP};
    static const int counts[12][3] = {{0, 2, 1}, {1, 0, 1}, {3, 0, 1}, {2, 1, 1}, {7, 0, 1}, {4, 3, 1},
                                      {5, 0, 1}, {2, 3, 1}, {8, 0, 1}, {12, 0, 1}, {0, 2, 1}, {0, 0, 1}};
    for (int k = 0; k < nt; k++) {
        int ni, na, nd, comb;
        MPI_Type_get_envelope(t[k], &ni, &na, &nd, &comb);
        EXPECT(comb == combiners[k]);
        EXPECT(ni == counts[k][0] && na == counts[k][1] && nd == counts[k][2]);
    }
    int ni, na, nd, comb;
    MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
    EXPECT(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0);
    check("Type_get_envelope", errors);

    errors = 0;
    for (int k = 0; k < nt; k++) {
        MPI_Datatype n = rebuild(t[k]);
        EXPECT(n != MPI_DATATYPE_NULL);
        if (n != MPI_DATATYPE_NULL) {
            EXPECT(same_layout(t[k], n));
            MPI_Type_free(&n);
        }
    }
    check("Type_get_contents rebuilds each type", errors);

    errors = 0;
    /* the struct inside the resized rec type: exact arguments back */
    int I[8];
    MPI_Aint A[8];
    MPI_Datatype D[8], inner;
    MPI_Type_get_contents(t[0], 0, 2, 1, I, A, D);
    EXPECT(A[0] == 0 && A[1] == sizeof(struct rec));
    inner = D[0];
    MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
    EXPECT(comb == MPI_COMBINER_STRUCT && ni == 6 && na == 5 && nd == 5);
    MPI_Type_get_contents(inner, 6, 5, 5, I, A, D);
    EXPECT(I[0] == 5 && I[1] == 1 && I[2] == 1 && I[3] == 1 && I[4] == 1 && I[5] == 3);
    EXPECT(A[0] == offsetof(struct rec, c) && A[1] == offsetof(struct rec, i) && A[2] == offsetof(struct rec, d) &&
           A[3] == offsetof(struct rec, l) && A[4] == offsetof(struct rec, tag));
    /* predefined types come back as the same predefined handles */
    EXPECT(D[0] == MPI_CHAR && D[1] == MPI_INT && D[2] == MPI_DOUBLE && D[3] == MPI_LONG && D[4] == MPI_CHAR);
    MPI_Type_free(&inner);
    /* the dup's contents is the original (a new handle to an equivalent type) */
    MPI_Type_get_contents(t[11], 0, 0, 1, I, A, D);
    EXPECT(same_layout(D[0], t[0]));
    MPI_Type_free(&D[0]);
    /* the vector's arguments */
    MPI_Type_get_contents(t[2], 3, 0, 1, I, A, D);
    EXPECT(I[0] == 3 && I[1] == 2 && I[2] == 4 && D[0] == MPI_INT);
    MPI_Type_get_contents(t[5], 4, 3, 1, I, A, D);
    EXPECT(I[0] == 3 && I[1] == 2 && I[3] == 3 && A[0] == 16 && A[1] == -24 && A[2] == 100 && D[0] == MPI_DOUBLE);
    for (int k = 0; k < nt; k++) MPI_Type_free(&t[k]);
    check("Type_get_contents arguments", errors);
}

/* ---- dup, names, addresses, MPI_BOTTOM ----------------------------------- */
static void misc(void) {
    int errors = 0;
    MPI_Datatype t = rec_type(), d;
    MPI_Type_dup(t, &d);
    EXPECT(d != t && extent_is(d, 0, sizeof(struct rec)));
    struct rec mine[2], got[2];
    rec_fill(&mine[0], rank, 5); rec_fill(&mine[1], rank, 6);
    memset(got, 0xAB, sizeof got);
    ring(mine, 2, d, got, 2, t); /* dup and original have the same signature */
    for (int k = 0; k < 2; k++) {
        struct rec e;
        rec_fill(&e, prev, 5 + k);
        EXPECT(rec_equal(&got[k], &e) && rec_padding_is(&got[k], 0xAB));
    }
    MPI_Type_free(&t);
    /* the dup outlives the original */
    memset(got, 0xAB, sizeof got);
    ring(mine, 2, d, got, 2, d);
    struct rec e;
    rec_fill(&e, prev, 6);
    EXPECT(rec_equal(&got[1], &e));
    MPI_Type_free(&d);
    EXPECT(d == MPI_DATATYPE_NULL && t == MPI_DATATYPE_NULL);
    check("Type_dup", errors);

    errors = 0;
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_Datatype col;
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &col);
    MPI_Type_get_name(col, name, &len);
    EXPECT(len == 0 && name[0] == 0);
    MPI_Type_set_name(col, "matrix column");
    MPI_Type_get_name(col, name, &len);
    EXPECT(len == 13 && !strcmp(name, "matrix column"));
    MPI_Type_set_name(col, "renamed");
    MPI_Type_get_name(col, name, &len);
    EXPECT(len == 7 && !strcmp(name, "renamed"));
    MPI_Type_free(&col);
    MPI_Type_get_name(MPI_INT, name, &len);
    EXPECT(!strcmp(name, "MPI_INT") && len == 7);
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    EXPECT(!strcmp(name, "MPI_DOUBLE"));
    MPI_Type_get_name(MPI_LONG, name, &len);
    EXPECT(!strcmp(name, "MPI_LONG"));
    check("Type_set_name / get_name", errors);

    errors = 0;
    int arr[10];
    struct rec r;
    MPI_Aint a0, a5, ar, ad, sum;
    MPI_Get_address(&arr[0], &a0);
    MPI_Get_address(&arr[5], &a5);
    EXPECT(MPI_Aint_diff(a5, a0) == 5 * (MPI_Aint)sizeof(int));
    EXPECT(MPI_Aint_diff(a0, a5) == -5 * (MPI_Aint)sizeof(int));
    sum = MPI_Aint_add(a0, 5 * sizeof(int));
    EXPECT(sum == a5);
    EXPECT(MPI_Aint_add(a5, -5 * (MPI_Aint)sizeof(int)) == a0);
    MPI_Get_address(&r, &ar);
    MPI_Get_address(&r.d, &ad);
    EXPECT(MPI_Aint_diff(ad, ar) == offsetof(struct rec, d));
    EXPECT(a0 == (MPI_Aint)(uintptr_t)&arr[0]); /* addresses are the program's own pointers */
    check("Get_address / Aint_add / Aint_diff", errors);

    /* MPI_BOTTOM: separate variables described by absolute addresses */
    errors = 0;
    static int s_int;
    double s_dbl = rank + 0.75;
    char *s_str = malloc(6);
    static int r_int = HOLE;
    double r_dbl = HOLE;
    char *r_str = malloc(6);
    s_int = VAL(rank, 3);
    memcpy(s_str, "abcde", 6);
    s_str[0] = (char)('A' + rank % 26);
    memset(r_str, '.', 6);
    int bls[3] = {1, 1, 5};
    MPI_Aint as[3], arv[3];
    MPI_Datatype ts[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, sty, rty;
    MPI_Get_address(&s_int, &as[0]); MPI_Get_address(&s_dbl, &as[1]); MPI_Get_address(s_str, &as[2]);
    MPI_Get_address(&r_int, &arv[0]); MPI_Get_address(&r_dbl, &arv[1]); MPI_Get_address(r_str, &arv[2]);
    MPI_Type_create_struct(3, bls, as, ts, &sty);
    MPI_Type_create_struct(3, bls, arv, ts, &rty);
    MPI_Type_commit(&sty);
    MPI_Type_commit(&rty);
    ring(MPI_BOTTOM, 1, sty, MPI_BOTTOM, 1, rty);
    EXPECT(r_int == VAL(prev, 3) && r_dbl == prev + 0.75);
    EXPECT(r_str[0] == (char)('A' + prev % 26) && !memcmp(r_str + 1, "bcde", 4) && r_str[5] == '.');
    /* the same receive through Isend/Irecv */
    r_int = HOLE;
    MPI_Request rq[2];
    MPI_Irecv(MPI_BOTTOM, 1, rty, prev, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(MPI_BOTTOM, 1, sty, next, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    EXPECT(r_int == VAL(prev, 3));
    MPI_Type_free(&sty);
    MPI_Type_free(&rty);
    free(s_str); free(r_str);
    check("MPI_BOTTOM with absolute addresses", errors);

    errors = 0;
    struct { int cls, bytes; } want[5] = {{MPI_TYPECLASS_INTEGER, 4}, {MPI_TYPECLASS_INTEGER, 8},
                                          {MPI_TYPECLASS_REAL, 4}, {MPI_TYPECLASS_REAL, 8}, {MPI_TYPECLASS_COMPLEX, 16}};
    MPI_Datatype m[5];
    for (int k = 0; k < 5; k++) {
        m[k] = MPI_DATATYPE_NULL;
        EXPECT(MPI_Type_match_size(want[k].cls, want[k].bytes, &m[k]) == MPI_SUCCESS);
        EXPECT(size_is(m[k], want[k].bytes) && extent_is(m[k], 0, want[k].bytes));
    }
    /* the 8-byte integer type really carries 64-bit integers */
    int64_t big = ((int64_t)1 << 40) + rank, tot = 0;
    MPI_Allreduce(&big, &tot, 1, m[1], MPI_SUM, MPI_COMM_WORLD);
    EXPECT(tot == ((int64_t)size << 40) + (int64_t)size * (size - 1) / 2);
    int32_t small = -rank, mn = 0;
    MPI_Allreduce(&small, &mn, 1, m[0], MPI_MIN, MPI_COMM_WORLD);
    EXPECT(mn == -(size - 1));
    check("Type_match_size", errors);

    errors = 0;
    MPI_Datatype three, rt = rec_type();
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    int src[9], dst[12], cnt = -1, el = -1;
    MPI_Count elx = -1;
    for (int k = 0; k < 9; k++) src[k] = k;
    MPI_Status st;
    MPI_Sendrecv(src, 7, MPI_INT, next, 4, dst, 4, three, prev, 4, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, three, &cnt);
    EXPECT(cnt == MPI_UNDEFINED);
    MPI_Get_elements(&st, three, &el);
    EXPECT(el == 7);
    MPI_Get_elements_x(&st, three, &elx);
    EXPECT(elx == 7);
    MPI_Get_count(&st, MPI_INT, &cnt);
    EXPECT(cnt == 7);
    MPI_Sendrecv(src, 6, MPI_INT, next, 5, dst, 4, three, prev, 5, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, three, &cnt);
    MPI_Get_elements(&st, three, &el);
    EXPECT(cnt == 2 && el == 6);
    struct rec rs[3], rr[3];
    for (int k = 0; k < 3; k++) rec_fill(&rs[k], rank, k);
    MPI_Sendrecv(rs, 2, rt, next, 6, rr, 3, rt, prev, 6, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, rt, &cnt);
    MPI_Get_elements(&st, rt, &el);
    EXPECT(cnt == 2 && el == 2 * 7);
    MPI_Type_free(&three);
    MPI_Type_free(&rt);
    check("Get_elements / Get_count (derived)", errors);

    errors = 0;
    /* a type built from a freed type keeps working */
    MPI_Datatype base, outer;
    MPI_Type_vector(2, 1, 3, MPI_INT, &base);
    MPI_Type_contiguous(2, base, &outer);
    MPI_Type_free(&base);
    EXPECT(base == MPI_DATATYPE_NULL);
    MPI_Type_commit(&outer);
    EXPECT(size_is(outer, 4 * sizeof(int)) && extent_is(outer, 0, 8 * sizeof(int)));
    int ov[8], or4[4];
    for (int k = 0; k < 8; k++) ov[k] = VAL(rank, k);
    ring(ov, 1, outer, or4, 4, MPI_INT);
    EXPECT(or4[0] == VAL(prev, 0) && or4[1] == VAL(prev, 3) && or4[2] == VAL(prev, 4) && or4[3] == VAL(prev, 7));
    MPI_Type_free(&outer);
    EXPECT(outer == MPI_DATATYPE_NULL);
    check("Type_free", errors);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    /* the 2-D grid: balanced dimensions, row-major ranks (no reordering) */
    int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_coords(grid, rank, 2, coords);
    d0 = dims[0], d1 = dims[1], r0 = coords[0], r1 = coords[1];

    vectors();
    structs();
    halo();
    darray();
    packing();
    extents();
    contents();
    misc();
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return failures ? 1 : 0;
}
