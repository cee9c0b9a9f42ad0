/* hostile_datatype.c MODE: derived datatypes whose span overflows 32 or
 * 64 bits or leaves the memory at either end, datatype arrays, and
 * MPI_Pack/MPI_Unpack positions and sizes (see hostile.h). One rank.
 * MODE "spans" (the default), "wrapped-size" (types of 2^64 bytes, whose
 * size wraps to 0 in size_t), "unpack-at-end" (MPI_Unpack of more than the
 * input holds, the input at the end of memory) and "negative-extent" (a
 * resized type with a negative extent: element i lies at buf + i * extent,
 * below buf). */
#include <string.h>

#include "hostile.h"

static int me;
static int sent_bytes, sent_first; /* what the last successful send_self carried */

/* Sends `count` of `dt` from `buf` to ourselves and returns the code
 * (nonblocking: a blocking send to oneself may wait for the receive). */
static int send_self(const void *buf, int count, MPI_Datatype dt, int tag) {
    MPI_Request req;
    int rc = MPI_Isend(buf, count, dt, me, tag, MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS) { /* drain, so no later case sees it */
        static char sink[1 << 16];
        MPI_Status st;
        MPI_Recv(sink, sizeof sink, MPI_BYTE, me, tag, MPI_COMM_WORLD, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Get_count(&st, MPI_BYTE, &sent_bytes);
        memcpy(&sent_first, sink, sizeof sent_first);
    }
    return rc;
}

static int negative_extent(void) {
    MPI_Datatype back;
    MPI_Type_create_resized(MPI_INT, 0, -4096, &back);
    MPI_Type_commit(&back);
    /* 4 elements from address 8192: 8192, 4096, 0, -4096 -> below the memory */
    int rc = send_self((void *)8192, 4, back, 1);
    expect("send negative extent reaching below address 0", rc, MPI_ERR_BUFFER, 1);
    char *t = tail(8);
    /* receive 3 elements at end-8, end-8-4096, end-8-8192: inside; the
     * resized type is fine there, so the call must succeed */
    int x[3] = {1, 2, 3};
    MPI_Request r;
    MPI_Irecv(t, 3, back, me, 2, MPI_COMM_WORLD, &r);
    MPI_Send(x, 3, MPI_INT, me, 2, MPI_COMM_WORLD);
    rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    expect("recv negative extent inside memory", rc, MPI_SUCCESS, *(int *)t == 1 && *(int *)(t - 4096) == 2 && *(int *)(t - 8192) == 3);
    rc = MPI_Recv((void *)4096, 3, back, me, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("recv negative extent reaching below address 0", rc, MPI_ERR_BUFFER, 1);
    MPI_Type_free(&back);
    return hostile_finish();
}

/* MPI_Unpack of more than the packed input holds, the input ending at the
 * end of memory: MPI must stop at insize (MPICH 4.0.2 reads on). */
static int unpack_at_end(void) {
    static int out[1 << 16];
    char *in = tail(16);
    int pos = 12;
    int rc = MPI_Unpack(in, 16, &pos, out, 1 << 16, MPI_INT, MPI_COMM_WORLD);
    int stray = 0;
    for (int i = 1; i < 1 << 16; i++) stray += out[i] != 0;
    expect_error("unpack at the end of memory of more than insize", rc, stray == 0 && pos == 12);
    return hostile_finish();
}

/* Types of 2^64 bytes: the size wraps to 0 in the host's size_t. */
static int wrapped_size(void) {
    int rc, buf[64];
    for (int i = 0; i < 64; i++) buf[i] = 100 + i;
    MPI_Datatype g32, g62, g64, g64s;
    MPI_Type_contiguous(1 << 30, MPI_INT, &g32);          /* 2^32 */
    MPI_Type_contiguous(1 << 30, g32, &g62);              /* 2^62 */
    /* Open MPI refuses it; MPICH's size for it is 0: a send carries nothing */
    sent_bytes = -1;
    rc = MPI_Type_contiguous(4, g62, &g64);               /* 2^64 */
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&g64);
    if (rc == MPI_SUCCESS) rc = send_self(buf, 1, g64, 4);
    expect("type of 2^64 bytes", rc, rc == MPI_SUCCESS ? MPI_SUCCESS : class_of(rc), rc != MPI_SUCCESS || sent_bytes == 0);
    /* the same inside a struct: the 2^64-byte block's size wraps to 0, so
     * the struct is the int at byte 16 alone; refusing it is right too,
     * but a send must carry nothing but that int */
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 16};
    MPI_Datatype parts[2] = {g64, MPI_INT};
    sent_bytes = -1;
    rc = MPI_Type_create_struct(2, bl, disp, parts, &g64s);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&g64s);
    if (rc == MPI_SUCCESS) rc = send_self(buf, 1, g64s, 5);
    expect("struct holding a type of 2^64 bytes", rc, rc == MPI_SUCCESS ? MPI_SUCCESS : class_of(rc),
           rc != MPI_SUCCESS || (sent_bytes == 4 && sent_first == buf[4]));
    return hostile_finish();
}

/* external32 of a type mixing basic types: MPICH's own dies of SIGILL
 * (4.0.2 and 5.0.2), so there it is refused; elsewhere it packs: an int
 * and two doubles are 4 + 16 big-endian bytes */
static int external32_mixed(void) {
    int bl[2] = {1, 2}, rc;
    MPI_Aint disp[2] = {0, 8}, size = -1, pos = 0;
    MPI_Datatype parts[2] = {MPI_INT, MPI_DOUBLE}, mixed;
    struct { int i; double d[2]; } in = {0x01020304, {1.0, -2.0}};
    unsigned char out[64];
    MPI_Type_create_struct(2, bl, disp, parts, &mixed);
    MPI_Type_commit(&mixed);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    int mpich = strstr(version, "MPICH") != NULL;
    rc = MPI_Pack_external_size("external32", 1, mixed, &size);
    expect("external32 size of int+double", rc, mpich ? MPI_ERR_TYPE : MPI_SUCCESS, mpich ? size == -1 : size == 20);
    rc = MPI_Pack_external("external32", &in, 1, mixed, out, sizeof out, &pos);
    expect("external32 pack of int+double", rc, mpich ? MPI_ERR_TYPE : MPI_SUCCESS,
           mpich ? pos == 0 : pos == 20 && out[0] == 1 && out[3] == 4 && out[4] == 0x3F && out[12] == 0xC0);
    MPI_Type_free(&mixed);
    return hostile_finish();
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    hostile_setup();
    if (argc > 1 && !strcmp(argv[1], "external32-mixed")) return external32_mixed();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc > 1 && !strcmp(argv[1], "negative-extent")) return negative_extent();
    if (argc > 1 && !strcmp(argv[1], "wrapped-size")) return wrapped_size();
    if (argc > 1 && !strcmp(argv[1], "unpack-at-end")) return unpack_at_end();
    int rc, buf[64];
    char *t;
    for (int i = 0; i < 64; i++) buf[i] = 100 + i;

    /* 4 GiB + 4 bytes: the span overflows 32 bits */
    MPI_Datatype g4, g62;
    MPI_Type_contiguous(0x40000001, MPI_INT, &g4);
    MPI_Type_commit(&g4);
    rc = send_self(buf, 1, g4, 1);
    expect("type of 4 GiB + 4 bytes", rc, MPI_ERR_BUFFER, 1);
    rc = send_self(buf, 0x7fffffff, MPI_DOUBLE, 2);
    expect("count x extent just under 16 GiB", rc, MPI_ERR_BUFFER, 1);

    /* 2^62 bytes: the span fits 64 bits but not the memory */
    MPI_Datatype g32;
    MPI_Type_contiguous(1 << 30, MPI_INT, &g32);          /* 2^32 */
    rc = MPI_Type_contiguous(1 << 30, g32, &g62);         /* 2^62 */
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&g62);
    if (rc == MPI_SUCCESS) rc = send_self(buf, 1, g62, 3);
    expect_error("type of 2^62 bytes", rc, 1);
    rc = send_self(buf, 0x7fffffff, g62, 6);
    expect_error("count 2^31-1 of a type of 2^62 bytes", rc, 1);

    /* lower bounds: negative, below address 0, past the end */
    MPI_Datatype neg, far, tiny, parts[2] = {g62, MPI_INT};
    int bl[2] = {1, 1};
    MPI_Aint disp[2];
    MPI_Type_create_resized(MPI_INT, -64, 68, &neg); /* true lb 0: fine at 0 */
    MPI_Type_commit(&neg);
    rc = send_self((void *)0, 1, neg, 7);
    expect("resized lb -64 of an int at address 0", rc, MPI_SUCCESS, 1);
    disp[0] = -64; disp[1] = 0;
    MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &far);
    MPI_Type_commit(&far);
    rc = send_self((void *)32, 1, far, 8);
    expect("true lb -64 from address 32", rc, MPI_ERR_BUFFER, 1);
    rc = MPI_Recv((void *)32, 1, far, me, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("recv true lb -64 from address 32", rc, MPI_ERR_BUFFER, 1);
    MPI_Type_free(&far);
    disp[0] = (MPI_Aint)mem_end(); disp[1] = 0;
    MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &far);
    MPI_Type_commit(&far);
    rc = send_self(buf, 1, far, 10);
    expect("block at the end address (lb past memory)", rc, MPI_ERR_BUFFER, 1);
    MPI_Type_free(&far);
    disp[0] = 0x7ffffffc; disp[1] = -0x7ffffffc; /* hull of almost 4 GiB */
    MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &far);
    MPI_Type_commit(&far);
    rc = send_self((void *)0x40000000, 1, far, 11);
    expect("blocks 2^31 bytes either side of the pointer", rc, MPI_ERR_BUFFER, 1);
    MPI_Type_free(&far);
    /* a small type whose only block is beyond the end: the pointer is fine */
    disp[0] = 4096;
    MPI_Type_create_hindexed(1, bl, disp, MPI_INT, &tiny);
    MPI_Type_commit(&tiny);
    t = tail(16);
    rc = MPI_Recv(t, 1, tiny, me, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("recv block 4 KiB past a pointer near the end", rc, MPI_ERR_BUFFER, untouched(t, 16));
    MPI_Type_free(&tiny);

    /* datatype arrays */
    MPI_Datatype out = MPI_DATATYPE_NULL;
    rc = MPI_Type_create_struct(2, bl, disp, (MPI_Datatype *)tail(4), &out);
    expect("struct types array past the end", rc, MPI_ERR_BUFFER, out == MPI_DATATYPE_NULL);
    rc = MPI_Type_create_struct(2, bl, (MPI_Aint *)tail(6), parts, &out);
    expect("struct displacements past the end", rc, MPI_ERR_BUFFER, out == MPI_DATATYPE_NULL);
    rc = MPI_Type_create_struct(2, (int *)tail(6), disp, parts, &out);
    expect("struct blocklengths past the end", rc, MPI_ERR_BUFFER, out == MPI_DATATYPE_NULL);
    MPI_Datatype junk[2] = {(MPI_Datatype)0x7ff00001, MPI_INT};
    rc = MPI_Type_create_struct(2, bl, disp, junk, &out);
    expect("struct invalid type handle", rc, MPI_ERR_TYPE, out == MPI_DATATYPE_NULL);
    rc = MPI_Type_create_struct(0x7fffffff, bl, disp, parts, &out);
    expect("struct count 2^31-1 with short arrays", rc, MPI_ERR_BUFFER, out == MPI_DATATYPE_NULL);
    rc = MPI_Type_indexed(-1, bl, (int *)disp, MPI_INT, &out);
    expect("indexed negative count", rc, MPI_ERR_COUNT, out == MPI_DATATYPE_NULL);
    t = tail(2);
    rc = MPI_Type_contiguous(2, MPI_INT, (MPI_Datatype *)t);
    expect("new type handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Datatype sub;
    int sizes[2] = {4, 4}, subs[2] = {2, 2}, starts[2] = {0, 0};
    rc = MPI_Type_create_subarray(2, sizes, subs, (int *)tail(6), MPI_ORDER_C, MPI_INT, &sub);
    expect("subarray starts past the end", rc, MPI_ERR_BUFFER, 1);
    (void)starts;
    int ni, na, nd, comb;
    MPI_Type_get_envelope(g4, &ni, &na, &nd, &comb);
    int ints[4];
    MPI_Aint aints[4];
    MPI_Datatype dts[4];
    t = tail(2);
    rc = MPI_Type_get_contents(g4, 4, 4, 4, (int *)t, aints, dts);
    expect("get_contents integers past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    rc = MPI_Type_get_contents(g4, 4, 4, 4, ints, aints, (MPI_Datatype *)t);
    expect("get_contents datatypes past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Aint lb, ext;
    t = tail(2);
    rc = MPI_Type_get_extent(MPI_INT, &lb, (MPI_Aint *)t);
    expect("get_extent result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    (void)ext;

    /* Pack / Unpack */
    int pos = 0;
    char packed[64];
    memset(packed, PATTERN, sizeof packed);
    rc = MPI_Pack(buf, 4, MPI_INT, packed, 8, &pos, MPI_COMM_WORLD);
    /* Open MPI refuses; MPICH 4.0 packs what fits and succeeds: either way
     * nothing past outsize */
    expect("pack more than outsize", rc, rc == MPI_SUCCESS ? MPI_SUCCESS : class_of(rc), untouched(packed + 8, 56) && pos <= 8);
    memset(packed, PATTERN, sizeof packed);
    pos = 60;
    rc = MPI_Pack(buf, 1, MPI_INT, packed, 16, &pos, MPI_COMM_WORLD);
    expect("pack position past outsize", rc, MPI_ERR_ARG, untouched(packed, 64) && pos == 60);
    pos = -8;
    rc = MPI_Pack(buf, 1, MPI_INT, packed, 16, &pos, MPI_COMM_WORLD);
    expect("pack negative position", rc, MPI_ERR_ARG, untouched(packed, 64));
    pos = 0;
    t = tail(8);
    rc = MPI_Pack(buf, 1, MPI_INT, t, 64, &pos, MPI_COMM_WORLD);
    expect("pack outsize past the end", rc, MPI_ERR_BUFFER, untouched(t, 8));
    memset(packed, PATTERN, sizeof packed);
    rc = MPI_Pack(buf, 1, MPI_INT, packed, 0x7fffffff, &pos, MPI_COMM_WORLD);
    expect("pack outsize 2^31-1", rc, MPI_ERR_BUFFER, untouched(packed, 64));
    t = tail(2);
    rc = MPI_Pack(buf, 1, MPI_INT, packed, 16, (int *)t, MPI_COMM_WORLD);
    expect("pack position pointer past the end", rc, MPI_ERR_BUFFER, untouched(packed, 64) && untouched(t, 2));
    /* a type whose size passes MPI_Count: MPICH asserted (aborting the
     * job) in every later size query of it, natively too */
    {
        MPI_Datatype huge = MPI_DATATYPE_NULL;
        rc = MPI_Type_create_hvector_c(1, INT64_MAX, 8, MPI_INT64_T, &huge);
        expect("hvector_c of 2^63 - 1 8-byte elements", rc, MPI_ERR_COUNT, huge == MPI_DATATYPE_NULL);
    }
    /* the packed bytes the call moves on its own data: MPICH asserted in
     * its copy (overlapping memcpy) and aborted the job, natively too */
    {
        int same[16];
        for (int i = 0; i < 16; i++) same[i] = i;
        pos = 4;
        rc = MPI_Pack(same, 4, MPI_INT, same, 64, &pos, MPI_COMM_WORLD);
        expect("pack into its own data", rc, MPI_ERR_BUFFER, same[1] == 1 && same[4] == 4 && pos == 4);
        pos = 0;
        rc = MPI_Unpack(same, 64, &pos, same + 3, 4, MPI_INT, MPI_COMM_WORLD);
        expect("unpack onto the packed bytes it reads", rc, MPI_ERR_BUFFER, same[3] == 3 && pos == 0);
        pos = 0;
        rc = MPI_Unpack(same, 64, &pos, same + 4, 4, MPI_INT, MPI_COMM_WORLD);
        expect("unpack right after the packed bytes it reads", rc, MPI_SUCCESS, same[4] == 0 && same[7] == 3 && pos == 16);
        pos = 0;
        rc = MPI_Pack_external("external32", same, 2, MPI_INT, same + 1, 8, &pos);
        expect("pack_external into its own data", rc, MPI_ERR_BUFFER, same[1] == 1 && pos == 0);
    }
    pos = 0;
    rc = MPI_Unpack(tail(8), 64, &pos, buf, 1, MPI_INT, MPI_COMM_WORLD);
    expect("unpack insize past the end", rc, MPI_ERR_BUFFER, 1);
    pos = 0x7ffffff0;
    rc = MPI_Unpack(packed, 16, &pos, buf, 1, MPI_INT, MPI_COMM_WORLD);
    expect("unpack position past insize", rc, MPI_ERR_ARG, 1);
    pos = 0;
    t = tail(2);
    rc = MPI_Unpack(packed, 16, &pos, t, 1, MPI_INT, MPI_COMM_WORLD);
    expect("unpack outbuf past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    pos = 12;
    memset(buf, 0, 4 * sizeof buf[0]);
    rc = MPI_Unpack(packed, 16, &pos, buf, 4, MPI_INT, MPI_COMM_WORLD);
    expect_error("unpack more than insize - position", rc, buf[1] == 0 && buf[2] == 0 && buf[3] == 0);
    t = tail(2);
    rc = MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, (int *)t);
    expect("pack_size result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Aint apos = 0;
    rc = MPI_Pack_external("external32", buf, 1, MPI_INT, tail(2), 16, &apos);
    expect("pack_external outsize past the end", rc, MPI_ERR_BUFFER, 1);
    t = tail(4);
    memcpy(t, "exte", 4); /* a datarep string with no terminator before the end */
    rc = MPI_Pack_external(t, buf, 1, MPI_INT, packed, 16, &apos);
    expect("pack_external datarep unterminated at the end", rc, MPI_ERR_BUFFER, 1);
    /* a negative count: Open MPI computed the size of 2^64 - 4 elements of
     * a derived type for hours (found by the MPI-call fuzzer) */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Aint asize = -1;
    rc = MPI_Pack_external_size("external32", -4, vec, &asize);
    expect("pack_external_size of a negative count", rc, MPI_ERR_COUNT, asize == -1);
    int isize = -1;
    rc = MPI_Pack_size(-4, vec, MPI_COMM_WORLD, &isize);
    expect("pack_size of a negative count", rc, MPI_ERR_COUNT, isize == -1);
    /* MPI_Get_elements with a status claiming 1.27e12 bytes and a derived
     * type of 6.7e15 bytes: Open MPI walks the bytes element by element
     * (hours; found by the MPI-call fuzzer). A real count still works. */
    MPI_Datatype wide, huge;
    MPI_Type_create_resized(vec, 23, 29593685, &wide);
    MPI_Type_create_hvector(0x7fffffff, 65536, 257, wide, &huge);
    MPI_Type_commit(&huge);
    MPI_Status st;
    MPI_Status_set_elements_x(&st, MPI_BYTE, (MPI_Count)0x12800000130LL);
    int elements = -1;
    rc = MPI_Get_elements(&st, huge, &elements);
    expect("get_elements of a status counting 10^12 bytes", rc, MPI_ERR_ARG, elements == -1);
    MPI_Count xelements = -1;
    rc = MPI_Get_elements_x(&st, huge, &xelements);
    expect("get_elements_x of a status counting 10^12 bytes", rc, MPI_ERR_ARG, xelements == -1);
    MPI_Status_set_elements(&st, MPI_BYTE, 28);
    rc = MPI_Get_elements(&st, huge, &elements);
    expect("get_elements of a real count", rc, MPI_SUCCESS, elements == 7);
    MPI_Type_free(&huge);
    MPI_Type_free(&wide);
    MPI_Type_free(&vec);
    return hostile_finish();
}
