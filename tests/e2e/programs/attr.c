/* Attributes: communicator keyvals with the program's own copy/delete
 * callbacks (what they are handed, what their flag/output does, when they
 * fire), the predefined copy/delete callbacks, freed keyvals, datatype and
 * window keyvals, the predefined attributes of MPI_COMM_WORLD, the MPI-1
 * Keyval/Attr names, and MPI_COMM_SELF attributes deleted by MPI_Finalize. */
/* the MPI-1 Keyval/Attr names are deprecated: that is what is being tested */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rank, size;

/* every callback call, in order */
enum { COPY, DELETE, TCOPY, TDELETE };
struct event {
    int kind, keyval;
    MPI_Comm comm;
    MPI_Datatype type;
    void *extra, *val;
};
static struct event ev[64];
static int nev;

static void record(int kind, MPI_Comm c, MPI_Datatype t, int keyval, void *extra, void *val) {
    if (nev < 64) ev[nev++] = (struct event){kind, keyval, c, t, extra, val};
}

/* the number of events matching, anywhere since `from` */
static int seen(int from, int kind, MPI_Comm c, MPI_Datatype t, int keyval, void *extra, void *val) {
    int n = 0;
    for (int k = from; k < nev; k++)
        if (ev[k].kind == kind && ev[k].comm == c && ev[k].type == t && ev[k].keyval == keyval &&
            ev[k].extra == extra && ev[k].val == val)
            n++;
    return n;
}

static int vals[8] = {100, 101, 102, 103, 104, 105, 106, 107};
static int extra_a = 1, extra_b = 2, extra_t = 3, extra_w = 4;

/* copies: the value becomes a pointer to the next int */
static int copy_next(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag) {
    record(COPY, old, MPI_DATATYPE_NULL, keyval, extra, in);
    *(int **)out = (int *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

/* runs, but the new communicator gets no attribute */
static int copy_none(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag) {
    record(COPY, old, MPI_DATATYPE_NULL, keyval, extra, in);
    *(int **)out = &vals[7]; /* must be ignored: flag is 0 */
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *val, void *extra) {
    record(DELETE, comm, MPI_DATATYPE_NULL, keyval, extra, val);
    return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag) {
    record(TCOPY, MPI_COMM_NULL, old, keyval, extra, in);
    *(int **)out = (int *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int keyval, void *val, void *extra) {
    record(TDELETE, MPI_COMM_NULL, t, keyval, extra, val);
    return MPI_SUCCESS;
}

static int win_copy(MPI_Win old, int keyval, void *extra, void *in, void *out, int *flag) {
    (void)old; (void)keyval; (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int win_delete(MPI_Win w, int keyval, void *val, void *extra) {
    (void)w; (void)keyval; (void)val; (void)extra;
    return MPI_SUCCESS;
}

static int *get(MPI_Comm c, int keyval, int *flag) {
    int *v = NULL;
    *flag = -1;
    MPI_Comm_get_attr(c, keyval, &v, flag);
    return v;
}

static void comm_keyvals(void) {
    int errors = 0, flag, k1, k2;
    MPI_Comm base, d;
    MPI_Comm_create_keyval(copy_next, delete_cb, &k1, &extra_a);
    MPI_Comm_create_keyval(copy_none, delete_cb, &k2, &extra_b);
    EXPECT(k1 != MPI_KEYVAL_INVALID && k2 != MPI_KEYVAL_INVALID && k1 != k2);
    MPI_Comm_dup(MPI_COMM_WORLD, &base);
    int *v = get(base, k1, &flag);
    EXPECT(flag == 0);
    MPI_Comm_set_attr(base, k1, &vals[0]);
    MPI_Comm_set_attr(base, k2, &vals[5]);
    v = get(base, k1, &flag);
    EXPECT(flag == 1 && v == &vals[0] && *v == 100);
    v = get(base, k2, &flag);
    EXPECT(flag == 1 && v == &vals[5]);
    EXPECT(nev == 0);
    int mark = nev;
    MPI_Comm_dup(base, &d);
    EXPECT(nev == mark + 2);
    EXPECT(seen(mark, COPY, base, MPI_DATATYPE_NULL, k1, &extra_a, &vals[0]) == 1);
    EXPECT(seen(mark, COPY, base, MPI_DATATYPE_NULL, k2, &extra_b, &vals[5]) == 1);
    v = get(d, k1, &flag);
    EXPECT(flag == 1 && v == &vals[1] && *v == 101); /* the callback's output */
    v = get(d, k2, &flag);
    EXPECT(flag == 0);                               /* flag 0: not copied */
    v = get(base, k1, &flag);
    EXPECT(flag == 1 && v == &vals[0]);              /* the original is untouched */
    check("Comm_dup fires copy callbacks", errors);

    errors = 0;
    MPI_Comm saved = d;
    mark = nev;
    MPI_Comm_free(&d);
    EXPECT(d == MPI_COMM_NULL);
    EXPECT(nev == mark + 1 && seen(mark, DELETE, saved, MPI_DATATYPE_NULL, k1, &extra_a, &vals[1]) == 1);
    mark = nev;
    MPI_Comm_delete_attr(base, k2);
    EXPECT(nev == mark + 1 && seen(mark, DELETE, base, MPI_DATATYPE_NULL, k2, &extra_b, &vals[5]) == 1);
    v = get(base, k2, &flag);
    EXPECT(flag == 0);
    mark = nev;
    MPI_Comm_set_attr(base, k1, &vals[2]); /* replaces: the old value is deleted */
    EXPECT(nev == mark + 1 && seen(mark, DELETE, base, MPI_DATATYPE_NULL, k1, &extra_a, &vals[0]) == 1);
    v = get(base, k1, &flag);
    EXPECT(flag == 1 && v == &vals[2]);
    check("delete callbacks (free, delete_attr, re-set)", errors);

    errors = 0;
    /* predefined callbacks; integer-valued attributes */
    int k3, k4;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k3, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k4, NULL);
    void *big = (void *)(intptr_t)0x7eadbeef;
    MPI_Comm_set_attr(base, k3, &vals[6]);
    MPI_Comm_set_attr(base, k4, big);
    mark = nev;
    MPI_Comm_dup(base, &d);
    EXPECT(nev == mark + 1); /* only k1's own callback */
    get(d, k3, &flag);
    EXPECT(flag == 0);
    void *got = NULL;
    MPI_Comm_get_attr(d, k4, &got, &flag);
    EXPECT(flag == 1 && got == big);
    v = get(d, k1, &flag);
    EXPECT(flag == 1 && v == &vals[3]);
    MPI_Comm_delete_attr(base, k3);
    get(base, k3, &flag);
    EXPECT(flag == 0);
    MPI_Comm_free(&d);
    MPI_Comm_free_keyval(&k3);
    MPI_Comm_free_keyval(&k4);
    EXPECT(k3 == MPI_KEYVAL_INVALID && k4 == MPI_KEYVAL_INVALID);
    check("COMM_NULL_COPY_FN / COMM_DUP_FN / NULL_DELETE_FN", errors);

    errors = 0;
    /* a freed keyval lives on in the communicators that carry it */
    int k1_saved = k1;
    MPI_Comm_free_keyval(&k1);
    EXPECT(k1 == MPI_KEYVAL_INVALID);
    v = get(base, k1_saved, &flag);
    EXPECT(flag == 1 && v == &vals[2]);
    saved = base;
    mark = nev;
    MPI_Comm_free(&base);
    EXPECT(nev == mark + 1 && seen(mark, DELETE, saved, MPI_DATATYPE_NULL, k1_saved, &extra_a, &vals[2]) == 1);
    MPI_Comm_free_keyval(&k2);
    EXPECT(k2 == MPI_KEYVAL_INVALID);
    /* attributes on MPI_COMM_WORLD itself */
    int kw;
    MPI_Comm_create_keyval(copy_next, delete_cb, &kw, &extra_b);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kw, &vals[4]);
    mark = nev;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    EXPECT(seen(mark, COPY, MPI_COMM_WORLD, MPI_DATATYPE_NULL, kw, &extra_b, &vals[4]) == 1);
    v = get(d, kw, &flag);
    EXPECT(flag == 1 && v == &vals[5]);
    MPI_Comm_free(&d);
    mark = nev;
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kw);
    EXPECT(seen(mark, DELETE, MPI_COMM_WORLD, MPI_DATATYPE_NULL, kw, &extra_b, &vals[4]) == 1);
    MPI_Comm_free_keyval(&kw);
    check("Comm_free_keyval / attributes on WORLD", errors);
}

static void type_keyvals(void) {
    int errors = 0, tk, tk2, flag;
    MPI_Datatype t, t2, t3;
    MPI_Type_create_keyval(type_copy, type_delete, &tk, &extra_t);
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &tk2, NULL);
    EXPECT(tk != MPI_KEYVAL_INVALID && tk2 != MPI_KEYVAL_INVALID && tk != tk2);
    MPI_Type_contiguous(2, MPI_INT, &t);
    int *v = NULL;
    MPI_Type_get_attr(t, tk, &v, &flag);
    EXPECT(flag == 0);
    MPI_Type_set_attr(t, tk, &vals[3]);
    MPI_Type_set_attr(t, tk2, (void *)(intptr_t)-5);
    MPI_Type_get_attr(t, tk, &v, &flag);
    EXPECT(flag == 1 && v == &vals[3] && *v == 103);
    int mark = nev;
    MPI_Type_dup(t, &t2);
    EXPECT(nev == mark + 1 && seen(mark, TCOPY, MPI_COMM_NULL, t, tk, &extra_t, &vals[3]) == 1);
    MPI_Type_get_attr(t2, tk, &v, &flag);
    EXPECT(flag == 1 && v == &vals[4]);
    void *w = NULL;
    MPI_Type_get_attr(t2, tk2, &w, &flag);
    EXPECT(flag == 1 && w == (void *)(intptr_t)-5);
    mark = nev;
    MPI_Type_delete_attr(t, tk);
    EXPECT(nev == mark + 1 && seen(mark, TDELETE, MPI_COMM_NULL, t, tk, &extra_t, &vals[3]) == 1);
    MPI_Type_get_attr(t, tk, &v, &flag);
    EXPECT(flag == 0);
    MPI_Type_dup(t, &t3); /* nothing left to copy */
    MPI_Type_get_attr(t3, tk, &v, &flag);
    EXPECT(flag == 0);
    mark = nev;
    MPI_Type_set_attr(t2, tk, &vals[6]); /* replaces &vals[4] */
    EXPECT(nev == mark + 1 && seen(mark, TDELETE, MPI_COMM_NULL, t2, tk, &extra_t, &vals[4]) == 1);
    MPI_Datatype saved = t2;
    mark = nev;
    MPI_Type_free(&t2);
    EXPECT(t2 == MPI_DATATYPE_NULL);
    EXPECT(nev == mark + 1 && seen(mark, TDELETE, MPI_COMM_NULL, saved, tk, &extra_t, &vals[6]) == 1);
    MPI_Type_free(&t3);
    MPI_Type_free(&t);
    MPI_Type_free_keyval(&tk);
    MPI_Type_free_keyval(&tk2);
    EXPECT(tk == MPI_KEYVAL_INVALID && tk2 == MPI_KEYVAL_INVALID);
    check("Type keyvals (Type_dup copy, delete)", errors);

    errors = 0;
    int wk[3];
    MPI_Win_create_keyval(win_copy, win_delete, &wk[0], &extra_w);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wk[1], NULL);
    MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &wk[2], NULL);
    EXPECT(wk[0] != MPI_KEYVAL_INVALID && wk[1] != MPI_KEYVAL_INVALID && wk[2] != MPI_KEYVAL_INVALID);
    EXPECT(wk[0] != wk[1] && wk[1] != wk[2] && wk[0] != wk[2]);
    for (int k = 0; k < 3; k++) {
        MPI_Win_free_keyval(&wk[k]);
        EXPECT(wk[k] == MPI_KEYVAL_INVALID);
    }
    check("Win_create_keyval / Win_free_keyval", errors);
}

static void predefined(void) {
    int errors = 0, flag, *v;
    v = get(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
    EXPECT(flag == 1 && v && *v >= 32767);
    v = get(MPI_COMM_WORLD, MPI_HOST, &flag);
    EXPECT(flag == 1 && v && (*v == MPI_PROC_NULL || (*v >= 0 && *v < size)));
    v = get(MPI_COMM_WORLD, MPI_IO, &flag);
    EXPECT(flag == 1 && v && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < size)));
    v = get(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &flag);
    EXPECT(flag == 0 || (flag == 1 && v && (*v == 0 || *v == 1)));
    v = get(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flag);
    EXPECT(flag == 0 || (flag == 1 && v && *v >= 1));
    v = get(MPI_COMM_WORLD, MPI_APPNUM, &flag);
    EXPECT(flag == 0 || (flag == 1 && v && *v == 0));
    /* a dup carries the same values */
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int *u = get(d, MPI_TAG_UB, &flag);
    v = get(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
    EXPECT(flag == 1 && u && v && *u == *v);
    MPI_Comm_free(&d);
    /* the largest tag is usable */
    int tag_ub = *get(MPI_COMM_WORLD, MPI_TAG_UB, &flag), x = rank, y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, tag_ub, &y, 1, MPI_INT, (rank + size - 1) % size, tag_ub,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(y == (rank + size - 1) % size);
    check("predefined attributes", errors);

    errors = 0;
    v = get(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &flag);
    EXPECT(flag == 1 && v);
    int before = v ? *v : 0, cls, code;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    v = get(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &flag);
    EXPECT(flag == 1 && v && *v != before && *v >= cls);
    check("MPI_LASTUSEDCODE", errors);
}

/* ---- MPI-1 names (deprecated, still in MPI-3/4) -------------------------- */
static int old_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag) {
    record(COPY, old, MPI_DATATYPE_NULL, keyval, extra, in);
    *(int **)out = (int *)in + 2;
    *flag = 1;
    return MPI_SUCCESS;
}

static void deprecated(void) {
    int errors = 0, ok, ok2, ok3, flag;
    MPI_Comm base, d;
    MPI_Comm_dup(MPI_COMM_WORLD, &base);
    MPI_Keyval_create(old_copy, delete_cb, &ok, &extra_a);
    MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &ok2, NULL);
    MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &ok3, NULL);
    EXPECT(ok != MPI_KEYVAL_INVALID && ok2 != MPI_KEYVAL_INVALID && ok3 != MPI_KEYVAL_INVALID);
    int *v = NULL;
    MPI_Attr_get(base, ok, &v, &flag);
    EXPECT(flag == 0);
    MPI_Attr_put(base, ok, &vals[1]);
    MPI_Attr_put(base, ok2, &vals[2]);
    MPI_Attr_put(base, ok3, &vals[3]);
    MPI_Attr_get(base, ok, &v, &flag);
    EXPECT(flag == 1 && v == &vals[1]);
    int mark = nev;
    MPI_Comm_dup(base, &d);
    EXPECT(nev == mark + 1 && seen(mark, COPY, base, MPI_DATATYPE_NULL, ok, &extra_a, &vals[1]) == 1);
    MPI_Attr_get(d, ok, &v, &flag);
    EXPECT(flag == 1 && v == &vals[3]);
    MPI_Attr_get(d, ok2, &v, &flag);
    EXPECT(flag == 0);
    MPI_Attr_get(d, ok3, &v, &flag);
    EXPECT(flag == 1 && v == &vals[3]);
    mark = nev;
    MPI_Attr_delete(d, ok);
    EXPECT(nev == mark + 1 && seen(mark, DELETE, d, MPI_DATATYPE_NULL, ok, &extra_a, &vals[3]) == 1);
    MPI_Attr_get(d, ok, &v, &flag);
    EXPECT(flag == 0);
    MPI_Comm_free(&d);
    MPI_Attr_delete(base, ok2);
    MPI_Attr_delete(base, ok3);
    MPI_Keyval_free(&ok2);
    MPI_Keyval_free(&ok3);
    EXPECT(ok2 == MPI_KEYVAL_INVALID && ok3 == MPI_KEYVAL_INVALID);
    MPI_Comm saved = base;
    mark = nev;
    MPI_Comm_free(&base);
    EXPECT(nev == mark + 1 && seen(mark, DELETE, saved, MPI_DATATYPE_NULL, ok, &extra_a, &vals[1]) == 1);
    MPI_Keyval_free(&ok);
    EXPECT(ok == MPI_KEYVAL_INVALID);
    check("MPI_Keyval_create / Attr_put / get / delete", errors);
}

/* ---- MPI_COMM_SELF attributes are deleted first thing in MPI_Finalize ---- */
static int at_finalize;
static int finalize_delete(MPI_Comm comm, int keyval, void *val, void *extra) {
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (comm == MPI_COMM_SELF && val == &vals[7] && extra == &extra_w && !finalized) at_finalize++;
    (void)keyval;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comm_keyvals();
    type_keyvals();
    predefined();
    deprecated();
    int kself;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &kself, &extra_w);
    MPI_Comm_set_attr(MPI_COMM_SELF, kself, &vals[7]);
    MPI_Comm_free_keyval(&kself);
    int failed = failures;
    MPI_Finalize();
    if (rank == 0) printf("%-40s %s\n", "Finalize deletes COMM_SELF attributes", at_finalize == 1 ? "ok" : "FAILED");
    return failed || at_finalize != 1 ? 1 : 0;
}
