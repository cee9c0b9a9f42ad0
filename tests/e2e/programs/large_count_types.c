/* MPI-4.0 large-count (_c) datatype constructors, decoding and pack/unpack.
 * One mode per argument:
 *   layout    every constructor (nested ones too), its sizes and extents,
 *             its arguments decoded back in call order, and real data moved
 *             with it: Pack/Unpack, the external32 forms, a ring Sendrecv.
 *             Built with the _c forms where the MPI has them (the wasm build
 *             always), else with the int forms: the output is the same
 *             either way, so a native int-form run checks a wasm _c run.
 *   envelope  the _c forms' decoding: num_large_counts and the large-count
 *             contents, what the MPI-3 decoding functions say about such a
 *             type, a _c query of an int-built type, duplicates and nested
 *             types (needs the _c forms; compared with a native MPI that has
 *             them)
 *   big       values past INT_MAX: need the host's own _c function (else
 *             MPI_ERR_COUNT), or fit the host's 64-bit MPI_Aint (any host)
 *   big-fatal one of them under MPI_ERRORS_ARE_FATAL
 *   errors    bad arguments give error classes (wasm only: arrays past the
 *             end of memory)
 * Every mode checks what it can compute itself (EXPECT, "... ok" lines). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* the guest mpi.h (MPI_ABI_VERSION) has every function; a native mpi.h those
 * of its MPI version. INT_FORMS forces the MPI-3 forms. */
#if (defined(MPI_ABI_VERSION) || MPI_VERSION >= 4) && !defined(INT_FORMS)
#define LARGE 1
typedef MPI_Count CNT; /* counts */
typedef MPI_Count DSP; /* byte displacements */
#define C(f) f##_c
#else
typedef int CNT;
typedef MPI_Aint DSP;
#define C(f) f
#endif
#ifdef LARGE
#define LARGE_BUILT 1
#else
#define LARGE_BUILT 0
#endif

static int rank, size;

/* rank 0 prints */
#define say(...) \
    do { \
        if (rank == 0) printf(__VA_ARGS__); \
    } while (0)

static __attribute__((unused)) void errors_return(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

static unsigned long long hash(const void *p, size_t n) {
    const unsigned char *b = p;
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static const char *class_name(int rc) {
    int c;
    if (rc == MPI_SUCCESS) return "MPI_SUCCESS";
    MPI_Error_class(rc, &c);
    switch (c) {
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    default: return "another class";
    }
}

/* ---- decoding ---------------------------------------------------------- */

static const char *combiner_name(int c) {
    switch (c) {
    case MPI_COMBINER_NAMED: return "named";
    case MPI_COMBINER_DUP: return "dup";
    case MPI_COMBINER_CONTIGUOUS: return "contiguous";
    case MPI_COMBINER_VECTOR: return "vector";
    case MPI_COMBINER_HVECTOR: return "hvector";
    case MPI_COMBINER_INDEXED: return "indexed";
    case MPI_COMBINER_HINDEXED: return "hindexed";
    case MPI_COMBINER_INDEXED_BLOCK: return "indexed_block";
    case MPI_COMBINER_HINDEXED_BLOCK: return "hindexed_block";
    case MPI_COMBINER_STRUCT: return "struct";
    case MPI_COMBINER_SUBARRAY: return "subarray";
    case MPI_COMBINER_DARRAY: return "darray";
    case MPI_COMBINER_RESIZED: return "resized";
    default: return "?";
    }
}

/* The envelope the standard's decoding table (MPI-4.1 Table 5.1) gives a
 * type of this combiner built with the int forms or the _c forms: n is the
 * block count or ndims. {integers, addresses, large counts, datatypes} */
static void expected_envelope(int combiner, long long n, int large, long long e[4]) {
    long long t[4] = {0, 0, 0, 1};
    switch (combiner) {
    case MPI_COMBINER_DUP: break;
    case MPI_COMBINER_CONTIGUOUS: large ? (t[2] = 1) : (t[0] = 1); break;
    case MPI_COMBINER_VECTOR: large ? (t[2] = 3) : (t[0] = 3); break;
    case MPI_COMBINER_HVECTOR: large ? (t[2] = 3) : (t[0] = 2, t[1] = 1); break;
    case MPI_COMBINER_INDEXED: large ? (t[2] = 2 * n + 1) : (t[0] = 2 * n + 1); break;
    case MPI_COMBINER_HINDEXED: large ? (t[2] = 2 * n + 1) : (t[0] = n + 1, t[1] = n); break;
    case MPI_COMBINER_INDEXED_BLOCK: large ? (t[2] = n + 2) : (t[0] = n + 2); break;
    case MPI_COMBINER_HINDEXED_BLOCK: large ? (t[2] = n + 2) : (t[0] = 2, t[1] = n); break;
    case MPI_COMBINER_STRUCT: large ? (t[2] = 2 * n + 1) : (t[0] = n + 1, t[1] = n); t[3] = n; break;
    case MPI_COMBINER_SUBARRAY: large ? (t[0] = 2, t[2] = 3 * n) : (t[0] = 3 * n + 2); break;
    case MPI_COMBINER_DARRAY: large ? (t[0] = 3 * n + 4, t[2] = n) : (t[0] = 4 * n + 4); break;
    case MPI_COMBINER_RESIZED: large ? (t[2] = 2) : (t[1] = 2); break;
    }
    memcpy(e, t, sizeof t);
}

static int decode_errors;

static void print_named(MPI_Datatype t) {
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(t, name, &len);
    printf("%s", name);
}

/* Prints t's constructor and arguments in call order, whichever form built
 * it (constants by name: their values differ between MPIs), recursing into
 * derived input types (and freeing them). Checks the envelope against the
 * standard's table for the form this program built types with. */
static void decode(MPI_Datatype t) {
    long long ni, na, nc = 0, nd;
    int combiner;
#ifdef LARGE
    MPI_Count cni, cna, cnc, cnd;
    MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnd, &combiner);
    ni = cni, na = cna, nc = cnc, nd = cnd;
#else
    int ini, ina, ind;
    MPI_Type_get_envelope(t, &ini, &ina, &ind, &combiner);
    ni = ini, na = ina, nd = ind;
#endif
    if (combiner == MPI_COMBINER_NAMED) {
        print_named(t);
        return;
    }
    int *ints = malloc((ni + 1) * sizeof *ints);
    MPI_Aint *aints = malloc((na + 1) * sizeof *aints);
    MPI_Count *counts = malloc((nc + 1) * sizeof *counts);
    MPI_Datatype *types = malloc((nd + 1) * sizeof *types);
#ifdef LARGE
    MPI_Type_get_contents_c(t, ni, na, nc, nd, ints, aints, counts, types);
#else
    MPI_Type_get_contents(t, ni, na, nd, ints, aints, types);
#endif
    /* the arguments in call order */
    long long args[64];
    int n = 0, is_large = nc > 0;
    if (combiner == MPI_COMBINER_SUBARRAY && is_large) {
        args[n++] = ints[0];
        for (long long i = 0; i < nc; i++) args[n++] = counts[i];
        args[n++] = ints[1];
    } else if (combiner == MPI_COMBINER_DARRAY && is_large) {
        for (int i = 0; i < 3; i++) args[n++] = ints[i];
        for (long long i = 0; i < nc; i++) args[n++] = counts[i];
        for (long long i = 3; i < ni; i++) args[n++] = ints[i];
    } else {
        for (long long i = 0; i < ni; i++) args[n++] = ints[i];
        for (long long i = 0; i < na; i++) args[n++] = aints[i];
        for (long long i = 0; i < nc; i++) args[n++] = counts[i];
    }
    long long blocks = n == 0 ? 0 : combiner == MPI_COMBINER_DARRAY ? args[2] : args[0], e[4];
    expected_envelope(combiner, blocks, LARGE_BUILT, e);
    if (e[0] != ni || e[1] != na || e[2] != nc || e[3] != nd) {
        decode_errors++;
        fprintf(stderr, "%s: envelope %lld %lld %lld %lld, the standard says %lld %lld %lld %lld\n", combiner_name(combiner), ni, na, nc,
                nd, e[0], e[1], e[2], e[3]);
    }
    printf("%s(", combiner_name(combiner));
    for (int i = 0; i < n; i++) {
        int last = i == n - 1, dims = (int)args[2];
        if (combiner == MPI_COMBINER_SUBARRAY && last)
            printf("%s, ", args[i] == MPI_ORDER_C ? "C" : args[i] == MPI_ORDER_FORTRAN ? "FORTRAN" : "?");
        else if (combiner == MPI_COMBINER_DARRAY && last)
            printf("%s, ", args[i] == MPI_ORDER_C ? "C" : args[i] == MPI_ORDER_FORTRAN ? "FORTRAN" : "?");
        else if (combiner == MPI_COMBINER_DARRAY && i >= 3 + dims && i < 3 + 2 * dims)
            printf("%s, ", args[i] == MPI_DISTRIBUTE_BLOCK ? "BLOCK" : args[i] == MPI_DISTRIBUTE_CYCLIC ? "CYCLIC" : "NONE");
        else if (combiner == MPI_COMBINER_DARRAY && i >= 3 + 2 * dims && i < 3 + 3 * dims && args[i] == MPI_DISTRIBUTE_DFLT_DARG)
            printf("DFLT, ");
        else
            printf("%lld, ", args[i]);
    }
    for (long long i = 0; i < nd; i++) {
        decode(types[i]);
        int tc;
#ifdef LARGE
        MPI_Count a, b, c, d;
        MPI_Type_get_envelope_c(types[i], &a, &b, &c, &d, &tc);
#else
        int a, b, d;
        MPI_Type_get_envelope(types[i], &a, &b, &d, &tc);
#endif
        if (tc != MPI_COMBINER_NAMED) MPI_Type_free(&types[i]);
        printf(i + 1 < nd ? ", " : "");
    }
    printf(")");
    free(ints), free(aints), free(counts), free(types);
}

/* ---- layout ------------------------------------------------------------ */

#define BUF 4096
#define BASE 1024 /* room below the pointer for negative displacements */

static void fill(unsigned char *b, int seed) {
    for (int i = 0; i < BUF; i++) b[i] = (unsigned char)(i * 7 + seed * 31 + 1);
}

/* Sizes, extents, decoded arguments, and data moved with two elements.
 * No external32 for struct types: MPICH 4.0.2 crashes sizing some (a
 * host bug, natively too). */
static void show(const char *what, MPI_Datatype t, int external32) {
    MPI_Count sz, lb, ext, tlb, text;
    MPI_Type_size_x(t, &sz);
    MPI_Type_get_extent_x(t, &lb, &ext);
    MPI_Type_get_true_extent_x(t, &tlb, &text);
    if (rank == 0) {
        printf("%s: size %lld lb %lld extent %lld true %lld+%lld\n  ", what, (long long)sz, (long long)lb, (long long)ext, (long long)tlb,
               (long long)text);
        decode(t);
        printf("\n");
    }
    unsigned char *src = malloc(BUF), *dst = malloc(BUF), *packed = malloc(BUF), *ext32 = malloc(2 * BUF);
    fill(src, rank);
    memset(dst, 0, BUF);
    /* native pack and unpack */
    CNT psize = 0;
    C(MPI_Pack_size)(2, t, MPI_COMM_WORLD, &psize);
    CNT pos = 3; /* after a 3-byte header */
    int rc1 = C(MPI_Pack)(src + BASE, 2, t, packed, BUF, &pos, MPI_COMM_WORLD);
    CNT end = pos;
    unsigned long long hp = hash(packed + 3, (size_t)(end - 3));
    pos = 3;
    int rc2 = C(MPI_Unpack)(packed, BUF, &pos, dst + BASE, 2, t, MPI_COMM_WORLD);
    unsigned long long hu = hash(dst, BUF);
    /* external32 */
    DSP esize = 0, epos = 0, eend = 0;
    int rc3 = MPI_SUCCESS, rc4 = MPI_SUCCESS;
    unsigned long long he = 0, hue = 0;
    if (external32) {
        C(MPI_Pack_external_size)("external32", 2, t, &esize);
        rc3 = C(MPI_Pack_external)("external32", src + BASE, 2, t, ext32, 2 * BUF, &epos);
        he = hash(ext32, (size_t)epos);
        eend = epos;
        memset(dst, 0, BUF);
        epos = 0;
        rc4 = C(MPI_Unpack_external)("external32", ext32, eend, &epos, dst + BASE, 2, t);
        hue = hash(dst, BUF);
    }
    /* the type in communication: from the left neighbour */
    memset(dst, 0, BUF);
    MPI_Sendrecv(src + BASE, 2, t, (rank + 1) % size, 7, dst + BASE, 2, t, (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    unsigned long long hr = hash(dst, BUF);
    if (rank == 0) {
        printf("  pack: %s size %lld end %lld %016llx unpack %s %016llx\n", class_name(rc1), (long long)psize, (long long)end, hp,
               class_name(rc2), hu);
        printf("  external32: %s size %lld end %lld %016llx unpack %s %lld %016llx\n", class_name(rc3), (long long)esize, (long long)eend,
               he, class_name(rc4), (long long)epos, hue);
        printf("  sendrecv %016llx\n", hr);
    }
    free(src), free(dst), free(packed), free(ext32);
}

static void layout(void) {
    MPI_Datatype t[16];
    int k = 0;
    const char *names[16];
#define MAKE(name, call) \
    do { \
        names[k] = name; \
        call; \
        MPI_Type_commit(&t[k]); \
        k++; \
    } while (0)
    MAKE("contiguous", C(MPI_Type_contiguous)(5, MPI_INT, &t[k]));
    MAKE("vector", C(MPI_Type_vector)(3, 2, 5, MPI_INT, &t[k]));
    MAKE("vector down", C(MPI_Type_vector)(3, 1, -3, MPI_SHORT, &t[k]));
    MAKE("hvector", C(MPI_Type_create_hvector)(3, 2, -20, MPI_INT, &t[k]));
    CNT bl[3] = {1, 2, 3}, idisp[3] = {0, 3, 7}, bl2[3] = {2, 1, 2};
    MAKE("indexed", C(MPI_Type_indexed)(3, bl, idisp, MPI_INT, &t[k]));
    DSP hdisp[3] = {4, 24, -8};
    MAKE("hindexed", C(MPI_Type_create_hindexed)(3, bl2, hdisp, MPI_INT, &t[k]));
    CNT bdisp[3] = {1, 5, 9};
    MAKE("indexed_block", C(MPI_Type_create_indexed_block)(3, 2, bdisp, MPI_INT, &t[k]));
    DSP hbdisp[2] = {0, 40};
    MAKE("hindexed_block", C(MPI_Type_create_hindexed_block)(2, 3, hbdisp, MPI_DOUBLE, &t[k]));
    CNT sbl[3] = {1, 2, 3};
    DSP sdisp[3] = {0, 8, 24};
    MPI_Datatype stypes[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MAKE("struct", C(MPI_Type_create_struct)(3, sbl, sdisp, stypes, &t[k]));
    CNT sizes[2] = {6, 5}, subsizes[2] = {3, 2}, starts[2] = {1, 2};
    MAKE("subarray", C(MPI_Type_create_subarray)(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t[k]));
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    CNT gsizes[2] = {8, 6};
    int distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    /* every rank shows rank 0's piece */
    MAKE("darray", C(MPI_Type_create_darray)(size, 0, 2, gsizes, distribs, dargs, dims, MPI_ORDER_FORTRAN, MPI_INT, &t[k]));
    MAKE("resized vector", C(MPI_Type_create_resized)(t[1], -8, 72, &t[k]));
    /* derived inputs: decoded through the contents' own types */
    CNT nbl[2] = {1, 2};
    DSP ndisp[2] = {-16, 96};
    MPI_Datatype ntypes[2] = {t[8], t[3]};
    MAKE("struct of struct and hvector", C(MPI_Type_create_struct)(2, nbl, ndisp, ntypes, &t[k]));
    MAKE("hvector of resized", C(MPI_Type_create_hvector)(2, 1, 200, t[11], &t[k]));
    MAKE("dup of indexed", MPI_Type_dup(t[4], &t[k]));
    for (int i = 0; i < k; i++) show(names[i], t[i], strncmp(names[i], "struct", 6) != 0);
    for (int i = 0; i < k; i++) MPI_Type_free(&t[i]);
    check("envelopes as the standard's table", decode_errors);
}

/* ---- envelope (the _c forms' decoding) ---------------------------------- */

#ifdef LARGE
static void raw(const char *what, MPI_Datatype t) {
    MPI_Count ni = -1, na = -1, nc = -1, nd = -1;
    int combiner = -1;
    int rc = MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner);
    say("%s: envelope_c %s %s ni %lld na %lld nc %lld nd %lld\n", what, class_name(rc), combiner_name(combiner), (long long)ni,
           (long long)na, (long long)nc, (long long)nd);
    if (combiner == MPI_COMBINER_NAMED) return;
    int ints[64];
    MPI_Aint aints[64];
    MPI_Count counts[64];
    MPI_Datatype types[8];
    rc = MPI_Type_get_contents_c(t, 64, 64, 64, 8, ints, aints, counts, types);
    say("  contents_c %s ints", class_name(rc));
    for (MPI_Count i = 0; i < ni; i++) say(" %d", ints[i]);
    say(" aints");
    for (MPI_Count i = 0; i < na; i++) say(" %lld", (long long)aints[i]);
    say(" counts");
    for (MPI_Count i = 0; i < nc; i++) say(" %lld", (long long)counts[i]);
    say("\n");
    for (MPI_Count i = 0; i < nd; i++) {
        int tc;
        MPI_Count a, b, c, d;
        MPI_Type_get_envelope_c(types[i], &a, &b, &c, &d, &tc);
        if (tc != MPI_COMBINER_NAMED) MPI_Type_free(&types[i]);
    }
    /* the MPI-3 decoding functions: refused when there are large counts
     * (the class is MPI_ERR_TYPE by MPI-4.0's errata; MPICH 4.0.2 says
     * MPI_ERR_OTHER, so only success or failure is printed) */
    int i3, a3, d3, c3;
    rc = MPI_Type_get_envelope(t, &i3, &a3, &d3, &c3);
    int rc2 = MPI_Type_get_contents(t, 64, 64, 8, ints, aints, types);
    say("  MPI-3 envelope %s contents %s", rc == MPI_SUCCESS ? "ok" : "refused", rc2 == MPI_SUCCESS ? "ok" : "refused");
    if (rc == MPI_SUCCESS) say(" ni %d na %d nd %d %s", i3, a3, d3, combiner_name(c3));
    say("\n");
    if (rc2 == MPI_SUCCESS)
        for (int i = 0; i < d3; i++) {
            int tc, a, b, d;
            MPI_Type_get_envelope(types[i], &a, &b, &d, &tc);
            if (tc != MPI_COMBINER_NAMED) MPI_Type_free(&types[i]);
        }
}
#endif

static void envelope(void) {
#ifdef LARGE
    int errors = 0;
    errors_return();
    MPI_Datatype t;
    MPI_Type_contiguous_c(5, MPI_INT, &t);
    raw("contiguous_c", t);
    MPI_Datatype d;
    MPI_Type_dup(t, &d);
    raw("dup of contiguous_c", d);
    MPI_Type_free(&d);
    MPI_Datatype r;
    MPI_Type_create_resized_c(t, -4, 40, &r);
    raw("resized_c of contiguous_c", r);
    MPI_Type_free(&r);
    MPI_Type_free(&t);
    MPI_Type_vector_c(3, 2, -4, MPI_INT, &t);
    raw("vector_c", t);
    MPI_Type_free(&t);
    MPI_Type_create_hvector_c(3, 2, 40, MPI_INT, &t);
    raw("hvector_c", t);
    MPI_Type_free(&t);
    MPI_Count bl[3] = {1, 2, 3}, dp[3] = {0, 10, -20};
    MPI_Type_indexed_c(3, bl, dp, MPI_INT, &t);
    raw("indexed_c", t);
    MPI_Type_free(&t);
    MPI_Type_create_hindexed_c(3, bl, dp, MPI_INT, &t);
    raw("hindexed_c", t);
    MPI_Type_free(&t);
    MPI_Type_create_indexed_block_c(3, 2, dp, MPI_INT, &t);
    raw("indexed_block_c", t);
    MPI_Type_free(&t);
    MPI_Type_create_hindexed_block_c(3, 2, dp, MPI_INT, &t);
    raw("hindexed_block_c", t);
    MPI_Type_free(&t);
    MPI_Datatype inner;
    MPI_Type_vector(2, 1, 3, MPI_INT, &inner);
    MPI_Datatype ty[3] = {MPI_INT, inner, MPI_CHAR};
    MPI_Type_create_struct_c(3, bl, dp, ty, &t);
    MPI_Type_free(&inner);
    raw("struct_c with an int-built vector", t);
    MPI_Type_free(&t);
    MPI_Count sz[3] = {4, 5, 6}, sub[3] = {2, 3, 1}, st[3] = {1, 1, 5};
    MPI_Type_create_subarray_c(3, sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Count ni, na, nc, nd;
    int comb, ints[16];
    MPI_Aint aints[1];
    MPI_Count counts[16];
    MPI_Datatype types[1];
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    MPI_Type_get_contents_c(t, ni, na, nc, nd, ints, aints, counts, types);
    EXPECT(ni == 2 && nc == 9 && ints[0] == 3 && ints[1] == MPI_ORDER_FORTRAN && counts[0] == 4 && counts[8] == 5);
    say("subarray_c: ni %lld nc %lld order %s\n", (long long)ni, (long long)nc, ints[1] == MPI_ORDER_FORTRAN ? "FORTRAN" : "?");
    MPI_Type_free(&t);
    MPI_Count gs[2] = {8, 6};
    int di[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE}, da[2] = {3, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {1, 1};
    MPI_Type_create_darray_c(1, 0, 2, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    MPI_Type_get_contents_c(t, ni, na, nc, nd, ints, aints, counts, types);
    EXPECT(ni == 10 && nc == 2 && counts[0] == 8 && counts[1] == 6 && ints[2] == 2 && ints[3] == MPI_DISTRIBUTE_CYCLIC &&
           ints[4] == MPI_DISTRIBUTE_NONE && ints[5] == 3 && ints[6] == MPI_DISTRIBUTE_DFLT_DARG && ints[9] == MPI_ORDER_C);
    say("darray_c: ni %lld nc %lld\n", (long long)ni, (long long)nc);
    MPI_Type_free(&t);
    /* int-built types through the _c queries: no large counts */
    MPI_Type_create_hvector(3, 2, 40, MPI_INT, &t);
    raw("hvector (int form)", t);
    MPI_Type_free(&t);
    int ibl[2] = {2, 1}, idp[2] = {0, 6};
    MPI_Type_indexed(2, ibl, idp, MPI_INT, &t);
    raw("indexed (int form)", t);
    MPI_Type_free(&t);
    raw("MPI_INT", MPI_INT);
    /* contents_c whose large-count array is too small */
    MPI_Type_vector_c(3, 2, 4, MPI_INT, &t);
    int rc = MPI_Type_get_contents_c(t, 0, 0, 2, 1, ints, aints, counts, types);
    say("contents_c with room for 2 of 3 large counts: %s\n", rc == MPI_SUCCESS ? "ok" : "refused");
    MPI_Type_free(&t);
    check("envelope_c, contents_c", errors);
#else
    say("no large-count functions\n");
#endif
}

/* ---- big: values past INT_MAX ------------------------------------------ */

#define TWO31 ((MPI_Count)1 << 31)
#define TWO32 ((MPI_Count)1 << 32)

#ifdef LARGE
static int big_errors;

/* Prints the type's size and extents (and checks them against the
 * program's own arithmetic), or the error class. */
static void big(const char *what, int rc, MPI_Datatype t, MPI_Count size_, MPI_Count lb_, MPI_Count extent_) {
    if (rc != MPI_SUCCESS) {
        say("%s: error %s\n", what, class_name(rc));
        return;
    }
    MPI_Count sz, lb, ext;
    MPI_Type_size_c(t, &sz);
    MPI_Type_get_extent_c(t, &lb, &ext);
    say("%s: size %lld lb %lld extent %lld\n", what, (long long)sz, (long long)lb, (long long)ext);
    if (sz != size_ || lb != lb_ || ext != extent_) {
        big_errors++;
        fprintf(stderr, "%s: size %lld lb %lld extent %lld, expected %lld %lld %lld\n", what, (long long)sz, (long long)lb,
                (long long)ext, (long long)size_, (long long)lb_, (long long)extent_);
    }
    /* the decoding has the values as given */
    MPI_Count ni, na, nc, nd;
    int comb;
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    MPI_Count counts[8] = {0};
    int ints[16];
    MPI_Aint aints[1];
    MPI_Datatype types[1];
    MPI_Type_get_contents_c(t, ni, na, nc, nd, ints, aints, counts, types);
    say("  %s counts", combiner_name(comb));
    for (MPI_Count i = 0; i < nc && i < 8; i++) say(" %lld", (long long)counts[i]);
    say("\n");
    MPI_Type_free(&t);
}
#endif

/* the call first: its output t is an argument of big() */
#define BIG(what, call, size_, lb_, extent_) \
    do { \
        int rc_ = (call); \
        big(what, rc_, t, size_, lb_, extent_); \
    } while (0)

static void big_values(void) {
#ifdef LARGE
    errors_return();
    MPI_Datatype t = MPI_DATATYPE_NULL;
    /* the host's int form takes these on every host: displacements and
     * bounds are the host's 64-bit MPI_Aint */
    MPI_Count bl[2] = {1, 1}, far[2] = {0, 3 * TWO32};
    BIG("hindexed_c, displacement 3*2^32", MPI_Type_create_hindexed_c(2, bl, far, MPI_BYTE, &t), 2, 0, 3 * TWO32 + 1);
    BIG("resized_c, lb -2^33 extent 2^34", MPI_Type_create_resized_c(MPI_INT, -2 * TWO32, 4 * TWO32, &t), 4, -2 * TWO32, 4 * TWO32);
    BIG("hvector_c, stride 2^32", MPI_Type_create_hvector_c(2, 1, TWO32, MPI_BYTE, &t), 2, 0, TWO32 + 1);
    /* these need the host's own _c function */
    BIG("contiguous_c, 2^31+7 bytes", MPI_Type_contiguous_c(TWO31 + 7, MPI_BYTE, &t), TWO31 + 7, 0, TWO31 + 7);
    BIG("vector_c, stride 2^32", MPI_Type_vector_c(2, 1, TWO32, MPI_BYTE, &t), 2, 0, TWO32 + 1);
    MPI_Count idisp[2] = {0, 3 * TWO31};
    BIG("indexed_c, displacement 3*2^31", MPI_Type_indexed_c(2, bl, idisp, MPI_BYTE, &t), 2, 0, 3 * TWO31 + 1);
    MPI_Count sizes[1] = {TWO32}, subsizes[1] = {4}, starts[1] = {TWO31};
    BIG("subarray_c, 2^32 elements", MPI_Type_create_subarray_c(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_BYTE, &t), 4, 0, TWO32);
    MPI_Count blk[1] = {TWO31 + 1};
    MPI_Count zero[1] = {0};
    MPI_Datatype ty[1] = {MPI_BYTE};
    BIG("struct_c, block of 2^31+1", MPI_Type_create_struct_c(1, blk, zero, ty, &t), TWO31 + 1, 0, TWO31 + 1);
    MPI_Count size = -1;
    int rc = MPI_Pack_size_c(TWO31, MPI_INT, MPI_COMM_WORLD, &size);
    say("Pack_size_c 2^31 ints: %s %lld\n", class_name(rc), rc == MPI_SUCCESS ? (long long)size : -1LL);
    if (rc == MPI_SUCCESS && size < 4 * TWO31) big_errors++;
    rc = MPI_Pack_external_size_c("external32", TWO31 + 1, MPI_SHORT, &size);
    say("Pack_external_size_c 2^31+1 shorts: %s %lld\n", class_name(rc), rc == MPI_SUCCESS ? (long long)size : -1LL);
    if (rc == MPI_SUCCESS && size != 2 * (TWO31 + 1)) big_errors++;
    /* small values through the same functions: the int forms, any host */
    rc = MPI_Pack_size_c(1000, MPI_INT, MPI_COMM_WORLD, &size);
    say("Pack_size_c 1000 ints: %s %lld\n", class_name(rc), (long long)size);
    if (size < 4000) big_errors++;
    check("values past INT_MAX", big_errors);
#else
    say("no large-count functions\n");
#endif
}

static void big_fatal(void) {
#ifdef LARGE
    MPI_Datatype t;
    MPI_Type_contiguous_c(TWO31 + 7, MPI_BYTE, &t);
    MPI_Type_free(&t);
    printf("made\n");
#endif
}

/* ---- errors (wasm only) ------------------------------------------------ */

#if defined(LARGE) && defined(__wasm__)
static void errors_(void) {
    int errors = 0;
    errors_return();
    MPI_Datatype t = MPI_DATATYPE_NULL;
    /* the last bytes of the memory: an array there runs past the end */
    uintptr_t end = (uintptr_t)__builtin_wasm_memory_size(0) * 65536;
    MPI_Count *tail = (MPI_Count *)(end - 16); /* room for 2 */
    MPI_Count ok3[3] = {1, 1, 1}, d3[3] = {0, 4, 8};
    MPI_Datatype types3[3] = {MPI_INT, MPI_INT, MPI_INT};
    int rc;
#define ERR(what, call, cls) \
    do { \
        rc = (call); \
        if (rc == MPI_SUCCESS) { \
            errors++; \
            fprintf(stderr, "%s: succeeded\n", what); \
            MPI_Type_free(&t); \
        } else if (strcmp(class_name(rc), cls)) { \
            errors++; \
            fprintf(stderr, "%s: %s, not %s\n", what, class_name(rc), cls); \
        } \
    } while (0)
    ERR("contiguous_c -1", MPI_Type_contiguous_c(-1, MPI_INT, &t), "MPI_ERR_COUNT");
    ERR("vector_c count -3", MPI_Type_vector_c(-3, 1, 1, MPI_INT, &t), "MPI_ERR_COUNT");
    ERR("hvector_c count -1", MPI_Type_create_hvector_c(-1, 1, 1, MPI_INT, &t), "MPI_ERR_COUNT");
    ERR("indexed_c count -1", MPI_Type_indexed_c(-1, ok3, d3, MPI_INT, &t), "MPI_ERR_COUNT");
    ERR("struct_c count -2^40", MPI_Type_create_struct_c(-((MPI_Count)1 << 40), ok3, d3, types3, &t), "MPI_ERR_COUNT");
    ERR("indexed_c count 2^40", MPI_Type_indexed_c((MPI_Count)1 << 40, ok3, d3, MPI_INT, &t), "MPI_ERR_BUFFER");
    ERR("hindexed_block_c count 2^62", MPI_Type_create_hindexed_block_c((MPI_Count)1 << 62, 1, d3, MPI_INT, &t), "MPI_ERR_BUFFER");
    ERR("indexed_c blocklengths past memory", MPI_Type_indexed_c(3, tail, d3, MPI_INT, &t), "MPI_ERR_BUFFER");
    ERR("hindexed_c displacements past memory", MPI_Type_create_hindexed_c(3, ok3, tail, MPI_INT, &t), "MPI_ERR_BUFFER");
    ERR("indexed_block_c displacements past memory", MPI_Type_create_indexed_block_c(3, 1, tail, MPI_INT, &t), "MPI_ERR_BUFFER");
    ERR("hindexed_block_c displacements past memory", MPI_Type_create_hindexed_block_c(3, 1, tail, MPI_INT, &t), "MPI_ERR_BUFFER");
    ERR("struct_c displacements past memory", MPI_Type_create_struct_c(3, ok3, tail, types3, &t), "MPI_ERR_BUFFER");
    ERR("subarray_c starts past memory", MPI_Type_create_subarray_c(3, ok3, ok3, tail, MPI_ORDER_C, MPI_INT, &t), "MPI_ERR_BUFFER");
    MPI_Count sz[2] = {4, 4}, sub[2] = {2, 2}, st[2] = {0, 0};
    ERR("subarray_c bad order", MPI_Type_create_subarray_c(2, sz, sub, st, 12345, MPI_INT, &t), "MPI_ERR_ARG");
    ERR("subarray_c bad oldtype", MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_DATATYPE_NULL, &t), "MPI_ERR_TYPE");
    int di[2] = {777, MPI_DISTRIBUTE_BLOCK}, da[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {1, 1};
    ERR("darray_c bad distribution", MPI_Type_create_darray_c(1, 0, 2, sz, di, da, ps, MPI_ORDER_C, MPI_INT, &t), "MPI_ERR_ARG");
    ERR("darray_c gsizes past memory", MPI_Type_create_darray_c(1, 0, 3, tail, di, da, ps, MPI_ORDER_C, MPI_INT, &t), "MPI_ERR_BUFFER");
    ERR("resized_c newtype past memory", MPI_Type_create_resized_c(MPI_INT, 0, 8, (MPI_Datatype *)(end - 2)), "MPI_ERR_BUFFER");
    check("constructors refuse bad arguments", errors);

    errors = 0;
    MPI_Datatype v;
    MPI_Type_vector_c(3, 2, 4, MPI_INT, &v); /* not committed */
    int ni3, na3, nd3, c3, ints[8];
    MPI_Aint aints[8];
    MPI_Count counts[8], n1, n2, n3, n4;
    MPI_Datatype types[8];
    ERR("MPI-3 envelope of vector_c", MPI_Type_get_envelope(v, &ni3, &na3, &nd3, &c3), "MPI_ERR_TYPE");
    ERR("MPI-3 contents of vector_c", MPI_Type_get_contents(v, 8, 8, 8, ints, aints, types), "MPI_ERR_TYPE");
    ERR("contents_c with room for 2 large counts", MPI_Type_get_contents_c(v, 8, 8, 2, 8, ints, aints, counts, types), "MPI_ERR_ARG");
    ERR("contents_c large counts past memory", MPI_Type_get_contents_c(v, 8, 8, 3, 8, ints, aints, tail, types), "MPI_ERR_BUFFER");
    ERR("contents_c of MPI_INT", MPI_Type_get_contents_c(MPI_INT, 8, 8, 8, 8, ints, aints, counts, types), "MPI_ERR_TYPE");
    ERR("envelope_c output past memory", MPI_Type_get_envelope_c(v, &n1, &n2, (MPI_Count *)(end - 4), &n4, &c3), "MPI_ERR_BUFFER");
    ERR("envelope_c of a bad handle", MPI_Type_get_envelope_c((MPI_Datatype)0x7ffff, &n1, &n2, &n3, &n4, &c3), "MPI_ERR_TYPE");
    /* an int-built type still decodes with the MPI-3 functions */
    MPI_Datatype w;
    MPI_Type_vector(3, 2, 4, MPI_INT, &w);
    EXPECT(MPI_Type_get_envelope(w, &ni3, &na3, &nd3, &c3) == MPI_SUCCESS && ni3 == 3 && c3 == MPI_COMBINER_VECTOR);
    EXPECT(MPI_Type_get_envelope_c(w, &n1, &n2, &n3, &n4, &c3) == MPI_SUCCESS && n1 == 3 && n3 == 0);
    MPI_Type_free(&w);
    check("decoding refuses what it cannot return", errors);

    errors = 0;
    char buf[256], packed[256];
    memset(buf, 1, sizeof buf);
    MPI_Count pos = 0;
    ERR("Pack_c count -1", MPI_Pack_c(buf, -1, MPI_INT, packed, 256, &pos, MPI_COMM_WORLD), "MPI_ERR_COUNT");
    pos = -1;
    ERR("Pack_c position -1", MPI_Pack_c(buf, 1, MPI_INT, packed, 256, &pos, MPI_COMM_WORLD), "MPI_ERR_ARG");
    pos = 257;
    ERR("Pack_c position past outsize", MPI_Pack_c(buf, 1, MPI_INT, packed, 256, &pos, MPI_COMM_WORLD), "MPI_ERR_ARG");
    pos = 250;
    ERR("Pack_c no room", MPI_Pack_c(buf, 2, MPI_INT, packed, 256, &pos, MPI_COMM_WORLD), "MPI_ERR_TRUNCATE");
    pos = 0;
    ERR("Pack_c outsize 2^40", MPI_Pack_c(buf, 1, MPI_INT, packed, (MPI_Count)1 << 40, &pos, MPI_COMM_WORLD), "MPI_ERR_BUFFER");
    ERR("Pack_c input past memory", MPI_Pack_c((void *)(end - 8), 4, MPI_INT, packed, 256, &pos, MPI_COMM_WORLD), "MPI_ERR_BUFFER");
    ERR("Pack_c position past memory", MPI_Pack_c(buf, 1, MPI_INT, packed, 256, (MPI_Count *)(end - 4), MPI_COMM_WORLD),
        "MPI_ERR_BUFFER");
    ERR("Pack_c of an uncommitted type", MPI_Pack_c(buf, 1, v, packed, 256, &pos, MPI_COMM_WORLD), "MPI_ERR_TYPE");
    ERR("Unpack_c insize 2^33", MPI_Unpack_c(packed, (MPI_Count)1 << 33, &pos, buf, 1, MPI_INT, MPI_COMM_WORLD), "MPI_ERR_BUFFER");
    ERR("Unpack_c count -2", MPI_Unpack_c(packed, 256, &pos, buf, -2, MPI_INT, MPI_COMM_WORLD), "MPI_ERR_COUNT");
    pos = 0;
    ERR("Unpack_c output past memory", MPI_Unpack_c(packed, 256, &pos, (void *)(end - 4), 2, MPI_INT, MPI_COMM_WORLD), "MPI_ERR_BUFFER");
    pos = 252;
    ERR("Unpack_c short input", MPI_Unpack_c(packed, 256, &pos, buf, 2, MPI_INT, MPI_COMM_WORLD), "MPI_ERR_TRUNCATE");
    MPI_Count size;
    ERR("Pack_size_c count -1", MPI_Pack_size_c(-1, MPI_INT, MPI_COMM_WORLD, &size), "MPI_ERR_COUNT");
    ERR("Pack_size_c uncommitted", MPI_Pack_size_c(1, v, MPI_COMM_WORLD, &size), "MPI_ERR_TYPE");
    ERR("Pack_size_c size past memory", MPI_Pack_size_c(1, MPI_INT, MPI_COMM_WORLD, (MPI_Count *)(end - 4)), "MPI_ERR_BUFFER");
    ERR("Pack_external_size_c count -1", MPI_Pack_external_size_c("external32", -1, MPI_INT, &size), "MPI_ERR_COUNT");
    pos = 0;
    ERR("Pack_external_c no room", MPI_Pack_external_c("external32", buf, 8, MPI_INT, packed, 16, &pos), "MPI_ERR_TRUNCATE");
    pos = -3;
    ERR("Unpack_external_c position -3", MPI_Unpack_external_c("external32", packed, 16, &pos, buf, 1, MPI_INT), "MPI_ERR_ARG");
    pos = 0;
    ERR("Unpack_external_c insize 2^33", MPI_Unpack_external_c("external32", packed, (MPI_Count)1 << 33, &pos, buf, 1, MPI_INT),
        "MPI_ERR_BUFFER");
    MPI_Type_free(&v);
    check("pack and unpack refuse bad arguments", errors);
}
#endif

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "layout";
    if (!strcmp(mode, "layout")) layout();
    else if (!strcmp(mode, "envelope")) {
        envelope();
    } else if (!strcmp(mode, "big")) {
        big_values();
    } else if (!strcmp(mode, "big-fatal")) {
        big_fatal();
    }
#if defined(LARGE) && defined(__wasm__)
    else if (!strcmp(mode, "errors")) errors_();
#endif
    else say("mode %s is not built here\n", mode);
    MPI_Finalize();
    return failures ? 1 : 0;
}
