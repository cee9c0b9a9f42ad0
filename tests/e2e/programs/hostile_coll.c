/* hostile_coll.c MODE: v- and w-collective count, displacement and
 * datatype arrays, at the root and elsewhere (see hostile.h).
 * MODE "arrays": every rank passes a hostile value in an argument that is
 * significant at that rank, so all of them fail locally and none waits
 * for the others. MODE "counts-changed": a user reduction function
 * rewrites the recvcounts array of the MPI_Reduce_scatter that runs it;
 * the host must keep using the counts it checked. MODE
 * "counts-changed-after-call": nonblocking v-collectives whose arrays the
 * guest rewrites before MPI_Wait. */
#include "hostile.h"

#include <stdlib.h>

static int me, np;

/* Counts the reduction below rewrites while its collective runs. */
static int live_counts[64];
static void rewriting_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < np; i++) live_counts[i] = 1 << 20;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

/* 4 MiB + a little, zero: host bytes would show up here */
static int landing[(1 << 20) + 64];

static int counts_changed(void) {
    MPI_Op op;
    MPI_Op_create(rewriting_sum, 0, &op); /* not commutative */
    int send[64];
    for (int i = 0; i < np; i++) { live_counts[i] = 1; send[i] = i + 1; }
    int rc = MPI_Reduce_scatter(send, landing, live_counts, MPI_INT, op, MPI_COMM_WORLD);
    int stray = 0;
    for (int i = 1; i < (1 << 20) + 64; i++) stray += landing[i] != 0;
    /* the result is defined by the counts at the call: one int, rank+1 times np */
    int ok = rc == MPI_SUCCESS && landing[0] == (me + 1) * np && stray == 0;
    printf("reduce_scatter counts rewritten by the user function %s", ok ? "ok\n" : "FAILED: ");
    if (!ok) printf("rc %d, result %d, %d non-zero ints past the result\n", rc, landing[0], stray);
    fflush(stdout);
    failures += !ok;
    MPI_Op_free(&op);
    return hostile_finish();
}

/* Nonblocking v-collectives whose count and displacement arrays the guest
 * rewrites between the call and MPI_Wait: the host must use the values
 * of the call (the standard forbids the change; a hostile guest does it). */
static int nonblocking_counts_changed(void) {
    static int counts[64], displs[64], rcounts[64], rdispls[64], send[64];
    for (int i = 0; i < np; i++) { counts[i] = rcounts[i] = 1; displs[i] = rdispls[i] = i; send[i] = 1000 + me; }
    MPI_Request r;
    int rc = MPI_Ialltoallv(send, counts, displs, MPI_INT, landing, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD, &r);
    for (int i = 0; i < np; i++) { counts[i] = rcounts[i] = 1 << 20; displs[i] = rdispls[i] = 0; }
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    int stray = 0, right = 1;
    for (int i = 0; i < np; i++) right &= landing[i] == 1000 + i;
    for (int i = np; i < (1 << 20) + 64; i++) stray += landing[i] != 0;
    expect("ialltoallv arrays rewritten before the wait", rc, MPI_SUCCESS, right && !stray);
    memset(landing, 0, sizeof landing);
    for (int i = 0; i < np; i++) rcounts[i] = 1;
    rc = MPI_Ireduce_scatter(send, landing, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    for (int i = 0; i < np; i++) rcounts[i] = 1 << 20;
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    stray = 0;
    for (int i = 1; i < (1 << 20) + 64; i++) stray += landing[i] != 0;
    expect("ireduce_scatter recvcounts rewritten before the wait", rc, MPI_SUCCESS, landing[0] == 1000 * np + np * (np - 1) / 2 && !stray);
    memset(landing, 0, sizeof landing);
    for (int i = 0; i < np; i++) { rcounts[i] = 1; rdispls[i] = i; }
    rc = MPI_Igatherv(send, 1, MPI_INT, landing, rcounts, rdispls, MPI_INT, 0, MPI_COMM_WORLD, &r);
    for (int i = 0; i < np; i++) { rcounts[i] = 1 << 20; rdispls[i] = 0; }
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    stray = 0, right = 1;
    for (int i = 0; i < np; i++) right &= landing[i] == (me == 0 ? 1000 + i : 0);
    for (int i = np; i < (1 << 20) + 64; i++) stray += landing[i] != 0;
    expect("igatherv recvcounts and displs rewritten before the wait", rc, MPI_SUCCESS, right && !stray);
    return hostile_finish();
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    hostile_setup();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    if (argc > 1 && !strcmp(argv[1], "counts-changed")) return counts_changed();
    if (argc > 1 && !strcmp(argv[1], "counts-changed-after-call")) return nonblocking_counts_changed();
    int rc, root = 0, is_root = me == root;
    int counts[64], displs[64], big[64], data[256];
    MPI_Datatype types[64];
    for (int i = 0; i < np; i++) { counts[i] = 1; displs[i] = i; types[i] = MPI_INT; }
    for (int i = 0; i < 256; i++) data[i] = i;
    char *t;

    /* Gatherv: root's recvcounts run past the end; the others' sendbuf does */
    t = tail(4 * np - 2);
    rc = is_root ? MPI_Gatherv(data, 1, MPI_INT, data + 64, (int *)t, displs, MPI_INT, root, MPI_COMM_WORLD)
                 : MPI_Gatherv(tail(2), 1, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD);
    expect(is_root ? "gatherv recvcounts past the end (root)" : "gatherv sendbuf past the end (non-root)", rc, MPI_ERR_BUFFER, 1);

    /* Gatherv: root's displacement puts a block past the end; others send a negative count */
    for (int i = 0; i < np; i++) big[i] = i;
    big[np - 1] = 0x7ffffff0; /* x 4 bytes: far past memory, and over 32 bits */
    rc = is_root ? MPI_Gatherv(data, 1, MPI_INT, data + 64, counts, big, MPI_INT, root, MPI_COMM_WORLD)
                 : MPI_Gatherv(data, -1, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD);
    expect(is_root ? "gatherv displacement past the end (root)" : "gatherv negative count (non-root)", rc,
           is_root ? MPI_ERR_BUFFER : MPI_ERR_COUNT, 1);

    /* Scatterv: root's negative displacement reaches below address 0; others receive past the end */
    for (int i = 0; i < np; i++) big[i] = -0x10000000;
    t = tail(2);
    rc = is_root ? MPI_Scatterv((void *)64, counts, big, MPI_INT, data, 1, MPI_INT, root, MPI_COMM_WORLD)
                 : MPI_Scatterv(NULL, NULL, NULL, MPI_INT, t, 1, MPI_INT, root, MPI_COMM_WORLD);
    expect(is_root ? "scatterv displacement below address 0 (root)" : "scatterv recvbuf past the end (non-root)", rc,
           MPI_ERR_BUFFER, is_root || untouched(t, 2));

    /* Scatterv: root's sendcounts make a block run past the end; others' recvcount x size wraps 32 bits */
    for (int i = 0; i < np; i++) big[i] = 0x20000000;
    rc = is_root ? MPI_Scatterv(data, big, displs, MPI_DOUBLE, data, 1, MPI_INT, root, MPI_COMM_WORLD)
                 : MPI_Scatterv(NULL, NULL, NULL, MPI_INT, data, 0x40000001, MPI_INT, root, MPI_COMM_WORLD);
    expect(is_root ? "scatterv count x extent over 32 bits (root)" : "scatterv recvcount x size over 32 bits (non-root)",
           rc, MPI_ERR_BUFFER, 1);

    /* Allgatherv / Alltoallv: the arrays every rank reads */
    rc = MPI_Allgatherv(data, 1, MPI_INT, data + 64, (int *)tail(2), displs, MPI_INT, MPI_COMM_WORLD);
    expect("allgatherv recvcounts past the end", rc, MPI_ERR_BUFFER, 1);
    rc = MPI_Allgatherv(data, 1, MPI_INT, data + 64, counts, (int *)0xfffffffcu, MPI_INT, MPI_COMM_WORLD);
    expect("allgatherv displs wrapping at 4 GiB", rc, MPI_ERR_BUFFER, 1);
    for (int i = 0; i < np; i++) big[i] = -1;
    rc = MPI_Alltoallv(data, counts, displs, MPI_INT, data + 64, big, displs, MPI_INT, MPI_COMM_WORLD);
    expect("alltoallv negative recvcounts", rc, MPI_ERR_COUNT, 1);
    for (int i = 0; i < np; i++) big[i] = (int)(mem_end() / 4);
    rc = MPI_Alltoallv(data, counts, big, MPI_INT, data + 64, counts, displs, MPI_INT, MPI_COMM_WORLD);
    expect("alltoallv sdispls past the end", rc, MPI_ERR_BUFFER, 1);
    rc = MPI_Reduce_scatter(data, data + 64, (int *)tail(2), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("reduce_scatter recvcounts past the end", rc, MPI_ERR_BUFFER, 1);
    for (int i = 0; i < np; i++) big[i] = 0x7fffffff;
    rc = MPI_Reduce_scatter(data, data + 64, big, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("reduce_scatter recvcounts summing over 32 bits", rc, MPI_ERR_BUFFER, 1);

    /* MPI_IN_PLACE: the input, the whole vector, is in recvbuf, which ends
     * after this rank's own block (np > 1; Open MPI read past the memory
     * in the fuzzer). */
    MPI_Request req;
    t = tail(4);
    rc = MPI_Reduce_scatter(MPI_IN_PLACE, t, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("reduce_scatter in place with only this rank's block in memory", rc, MPI_ERR_BUFFER, untouched(t, 4));
    rc = MPI_Ireduce_scatter(MPI_IN_PLACE, t, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    expect("ireduce_scatter in place with only this rank's block in memory", rc, MPI_ERR_BUFFER, untouched(t, 4));
    rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, t, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("reduce_scatter_block in place with only this rank's block in memory", rc, MPI_ERR_BUFFER, untouched(t, 4));
    rc = MPI_Ireduce_scatter_block(MPI_IN_PLACE, t, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    expect("ireduce_scatter_block in place with only this rank's block in memory", rc, MPI_ERR_BUFFER, untouched(t, 4));

    /* Alltoallw: datatype arrays and byte displacements */
    rc = MPI_Alltoallw(data, counts, displs, types, data + 64, counts, displs, (MPI_Datatype *)tail(2), MPI_COMM_WORLD);
    expect("alltoallw recvtypes past the end", rc, MPI_ERR_BUFFER, 1);
    MPI_Datatype bogus[64];
    for (int i = 0; i < np; i++) bogus[i] = (MPI_Datatype)0x7ff00001;
    rc = MPI_Alltoallw(data, counts, displs, bogus, data + 64, counts, displs, types, MPI_COMM_WORLD);
    expect("alltoallw invalid sendtypes", rc, MPI_ERR_TYPE, 1);
    for (int i = 0; i < np; i++) big[i] = (int)(mem_end() - 2 - (uintptr_t)(data + 64));
    rc = MPI_Alltoallw(data, counts, displs, types, data + 64, counts, big, types, MPI_COMM_WORLD);
    expect("alltoallw rdispls (bytes) crossing the end", rc, MPI_ERR_BUFFER, 1);
    for (int i = 0; i < np; i++) big[i] = -(int)(uintptr_t)data - 64;
    rc = MPI_Alltoallw(data, counts, big, types, data + 64, counts, displs, types, MPI_COMM_WORLD);
    expect("alltoallw sdispls below address 0", rc, MPI_ERR_BUFFER, 1);
    rc = MPI_Alltoallw(data, (int *)tail(2), displs, types, data + 64, counts, displs, types, MPI_COMM_WORLD);
    expect("alltoallw sendcounts past the end", rc, MPI_ERR_BUFFER, 1);

    /* communicators from a group with processes outside the communicator
     * (Open MPI crashed on both, natively too) */
    MPI_Group world_group;
    MPI_Comm made = MPI_COMM_WORLD;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    rc = MPI_Comm_create_group(MPI_COMM_SELF, world_group, 5, &made);
    expect("comm_create_group with a group larger than the communicator", rc, MPI_ERR_GROUP, made == MPI_COMM_WORLD);
    rc = MPI_Comm_create(MPI_COMM_SELF, world_group, &made);
    expect("comm_create with a group larger than the communicator", rc, MPI_ERR_GROUP, made == MPI_COMM_WORLD);
    MPI_Group_free(&world_group);
    /* an intracommunicator where an intercommunicator belongs: MPICH asserts and aborts */
    rc = MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &made);
    expect("intercomm_merge of an intracommunicator", rc, MPI_ERR_COMM, made == MPI_COMM_WORLD);
    MPI_Group remote = MPI_GROUP_EMPTY;
    rc = MPI_Comm_remote_group(MPI_COMM_WORLD, &remote);
    expect("comm_remote_group of an intracommunicator", rc, MPI_ERR_COMM, remote == MPI_GROUP_EMPTY);

    /* all-to-alls on one process whose block to itself is empty on one
     * side only: MPICH posted the other side and waited forever (natively
     * too), Open MPI says MPI_ERR_TRUNCATE */
    int none = 0, single = 1, two = 2;
    double self_send[2] = {7.0, 8.0}, self_recv[2] = {0};
    MPI_Datatype self_type = MPI_DOUBLE;
    rc = MPI_Alltoallv(self_send, &none, &none, MPI_DOUBLE, self_recv, &single, &none, MPI_DOUBLE, MPI_COMM_SELF);
    expect("alltoallv on one process sending 0 bytes to itself, receiving 8", rc, MPI_ERR_TRUNCATE, self_recv[0] == 0);
    rc = MPI_Ialltoallv(self_send, &single, &none, MPI_DOUBLE, self_recv, &none, &none, MPI_DOUBLE, MPI_COMM_SELF, &req);
    expect("ialltoallv on one process sending 8 bytes to itself, receiving 0", rc, MPI_ERR_TRUNCATE, self_recv[0] == 0);
    rc = MPI_Alltoallw(self_send, &none, &none, &self_type, self_recv, &single, &none, &self_type, MPI_COMM_SELF);
    expect("alltoallw on one process sending 0 bytes to itself, receiving 8", rc, MPI_ERR_TRUNCATE, self_recv[0] == 0);
    rc = MPI_Allgather(self_send, 2, MPI_DOUBLE, self_recv, 1, MPI_DOUBLE, MPI_COMM_SELF);
    expect("allgather on one process sending 16 bytes to itself, receiving 8", rc, MPI_ERR_TRUNCATE, self_recv[0] == 0);
    rc = MPI_Iscatterv(self_send, &two, &none, MPI_INT, self_recv, 1, MPI_INT, 0, MPI_COMM_SELF, &req);
    expect("iscatterv on one process sending 8 bytes to itself, receiving 4", rc, MPI_ERR_TRUNCATE, self_recv[0] == 0);
    /* every rank's block to itself, on all ranks: Open MPI reported
     * MPI_ERR_TRUNCATE, but the nonblocking collective's schedule lived on
     * and a later MPI_Comm_dup freed an invalid pointer (SIGABRT) */
    int halves[64], ones[64], zeros[64] = {0};
    for (int i = 0; i < np; i++) { halves[i] = 2; ones[i] = 1; zeros[i] = 4 * i; }
    int wide[256] = {0}, narrow[256] = {0};
    rc = MPI_Iallgather(wide, 2, MPI_INT, narrow, 1, MPI_INT, MPI_COMM_WORLD, &req);
    expect("iallgather sending this rank 2 ints, receiving 1", rc, MPI_ERR_TRUNCATE, 1);
    rc = MPI_Allgather(wide, 2, MPI_INT, narrow, 1, MPI_INT, MPI_COMM_WORLD);
    expect("allgather sending this rank 2 ints, receiving 1", rc, MPI_ERR_TRUNCATE, 1);
    rc = MPI_Ialltoallv(wide, halves, zeros, MPI_INT, narrow, ones, zeros, MPI_INT, MPI_COMM_WORLD, &req);
    expect("ialltoallv sending this rank 2 ints, receiving 1", rc, MPI_ERR_TRUNCATE, 1);
    MPI_Comm dup = MPI_COMM_NULL;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    expect("comm_dup after them", rc, MPI_SUCCESS, dup != MPI_COMM_NULL);
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);

    /* equal bytes in other types still go through, and MPI_IN_PLACE */
    rc = MPI_Gatherv(MPI_IN_PLACE, 5, MPI_INT, self_send, &single, &none, MPI_DOUBLE, 0, MPI_COMM_SELF);
    expect("gatherv on one process in place", rc, MPI_SUCCESS, self_send[0] == 7.0);
    rc = MPI_Alltoallv(self_send, &single, &none, MPI_DOUBLE, self_recv, &two, &none, MPI_INT, MPI_COMM_SELF);
    expect("alltoallv on one process, one double received as two ints", rc, MPI_SUCCESS, self_recv[0] == 7.0);

    /* a reduction whose send and receive buffers overlap (without
     * MPI_IN_PLACE): MPICH 5 asserted in its copy of the input and aborted
     * the job. Every rank's call is local: each fails before it communicates */
    int ovl[64] = {0};
    for (int i = 0; i < 64; i++) ovl[i] = i;
    rc = MPI_Allreduce(ovl, ovl + 1, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("allreduce with the receive buffer one int into the send buffer", rc, MPI_ERR_BUFFER, ovl[1] == 1 && ovl[4] == 4);
    rc = MPI_Iallreduce(ovl, ovl, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    expect("iallreduce with the same send and receive buffer", rc, MPI_ERR_BUFFER, ovl[0] == 0);
    for (int i = 0; i < 64; i++) ovl[i] = i;
    rc = MPI_Reduce_scatter_block(ovl + 3, ovl + 2 * np + 1, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("reduce_scatter_block receiving into the end of its send buffer", rc, MPI_ERR_BUFFER, ovl[2 * np + 1] == 2 * np + 1);
    rc = MPI_Scan(ovl + 8, ovl, 9, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("scan with the send buffer's first int the receive buffer's last", rc, MPI_ERR_BUFFER, ovl[0] == 0 && ovl[8] == 8);
    rc = MPI_Reduce(ovl, ovl + 2, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF);
    expect("reduce at its root with overlapping buffers", rc, MPI_ERR_BUFFER, ovl[2] == 2);
    /* adjacent buffers do not overlap */
    rc = MPI_Reduce(ovl, ovl + 4, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF);
    expect("reduce with the receive buffer right after the send buffer", rc, MPI_SUCCESS, ovl[4] == 0 && ovl[7] == 3);

    /* the other calls with a send and a receive buffer: MPICH asserted in
     * its local copy (overlapping memcpy) and aborted the job, natively
     * too; Open MPI copied what it had overwritten. Local on every rank */
    for (int i = 0; i < 64; i++) ovl[i] = i;
    rc = MPI_Sendrecv(ovl, 3, MPI_INT, 0, 5, ovl + 1, 3, MPI_INT, 0, 5, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    expect("sendrecv to itself with the receive buffer one int into the send buffer", rc, MPI_ERR_BUFFER, ovl[1] == 1 && ovl[3] == 3);
    rc = MPI_Allgather(ovl, 2, MPI_INT, ovl + 1, 2, MPI_INT, MPI_COMM_WORLD);
    expect("allgather with overlapping buffers", rc, MPI_ERR_BUFFER, ovl[1] == 1 && ovl[2] == 2);
    /* what a fuzzed call did: both buffers MPI_BOTTOM (guest address 0) */
    rc = MPI_Alltoall(MPI_BOTTOM, 3, MPI_CHAR, MPI_BOTTOM, 3, MPI_PACKED, MPI_COMM_WORLD);
    expect("alltoall with both buffers MPI_BOTTOM", rc, MPI_ERR_BUFFER, 1);
    /* the idiom before MPI_IN_PLACE: the root's send buffer is its block */
    rc = MPI_Gather(ovl + 2, 2, MPI_INT, ovl + 2, 2, MPI_INT, 0, MPI_COMM_SELF);
    expect("gather at its root from its own block of the receive buffer", rc, MPI_ERR_BUFFER, ovl[2] == 2);
    int vcounts[64], vdispls[64];
    for (int i = 0; i < np; i++) { vcounts[i] = 1; vdispls[i] = 4 * i; }
    int one_int = 1, at_three = 3;
    rc = MPI_Scatterv(ovl, &one_int, &at_three, MPI_INT, ovl + 3, 1, MPI_INT, 0, MPI_COMM_SELF);
    expect("scatterv at its root into its own send block", rc, MPI_ERR_BUFFER, ovl[3] == 3);
    rc = MPI_Ialltoallv(ovl + 1, vcounts, vdispls, MPI_INT, ovl, vcounts, vdispls, MPI_INT, MPI_COMM_WORLD, &req);
    expect("ialltoallv with the send blocks inside the receive hull", rc, MPI_ERR_BUFFER, ovl[0] == 0);
    {
        int wcounts[64], wdispls[64];
        MPI_Datatype wtypes[64];
        for (int i = 0; i < np; i++) { wcounts[i] = 2; wdispls[i] = 8 * i; wtypes[i] = MPI_INT; }
        rc = MPI_Alltoallw(ovl, wcounts, wdispls, wtypes, (char *)ovl + 4, wcounts, wdispls, wtypes, MPI_COMM_WORLD);
        expect("alltoallw with the receive blocks one int into the send blocks", rc, MPI_ERR_BUFFER, ovl[1] == 1);
    }
    /* apart, and interleaved through non-contiguous types: legal, the host gets them */
    rc = MPI_Alltoall(ovl, 1, MPI_INT, ovl + np, 1, MPI_INT, MPI_COMM_SELF);
    expect("alltoall with the receive buffer right after the send buffer", rc, MPI_SUCCESS, ovl[np] == 0);
    {
        MPI_Datatype even;
        MPI_Type_vector(3, 1, 2, MPI_INT, &even);
        MPI_Type_commit(&even);
        for (int i = 0; i < 64; i++) ovl[i] = i;
        rc = MPI_Sendrecv(ovl, 1, even, 0, 6, ovl + 1, 1, even, 0, 6, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        expect("sendrecv to itself from the even ints into the odd ones", rc, MPI_SUCCESS, ovl[1] == 0 && ovl[3] == 2 && ovl[5] == 4 && ovl[4] == 4);
        MPI_Type_free(&even);
    }

    /* neighbourhood collectives where a process is its own neighbour (a
     * periodic dimension of one process, a graph's self-loop): both sides
     * of those blocks must hold as many bytes; MPICH 5 asserted and
     * aborted the job, MPICH 4 truncated without an error */
    MPI_Comm ring = MPI_COMM_NULL, line = MPI_COMM_NULL, loop = MPI_COMM_NULL, graph = MPI_COMM_NULL, grid = MPI_COMM_NULL;
    int one_dim[1] = {1}, periodic[1] = {1}, open_ends[1] = {0}, self_rank = 0, graph_index[1] = {1};
    MPI_Cart_create(MPI_COMM_SELF, 1, one_dim, periodic, 0, &ring);
    MPI_Cart_create(MPI_COMM_SELF, 1, one_dim, open_ends, 0, &line);
    MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 1, &self_rank, MPI_UNWEIGHTED, 1, &self_rank, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &loop);
    MPI_Graph_create(MPI_COMM_SELF, 1, graph_index, &self_rank, 0, &graph);
    int grid_dims[2] = {np, 1}, grid_periods[2] = {1, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, grid_dims, grid_periods, 0, &grid);
    double nsend[4] = {7.0, 8.0, 9.0, 10.0}, nrecv[4] = {0};
    int nzero[2] = {0, 0}, nsingle[2] = {1, 1}, nfirst[2] = {1, 0}, ndispl[2] = {0, 1};
    MPI_Count ncount_zero[1] = {0}, ncount_one[1] = {1};
    MPI_Aint nbytes_at[2] = {0, 8}, naint_zero[1] = {0};
    MPI_Datatype ntypes[2] = {MPI_DOUBLE, MPI_DOUBLE};
    rc = MPI_Neighbor_allgather(nsend, 2, MPI_DOUBLE, nrecv, 1, MPI_DOUBLE, ring);
    expect("neighbor_allgather on a periodic ring of one sending 16 bytes to itself, receiving 8", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Neighbor_allgather(nsend, 3, MPI_CHAR, nrecv, 1, MPI_DOUBLE, ring); /* MPICH 5: element size assertion */
    expect("neighbor_allgather on a periodic ring of one sending 3 chars to itself, receiving a double", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Ineighbor_alltoall(nsend, 2, MPI_DOUBLE, nrecv, 1, MPI_DOUBLE, ring, &req);
    expect("ineighbor_alltoall on a periodic ring of one sending 16 bytes to itself, receiving 8", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Neighbor_alltoall_init(nsend, 1, MPI_DOUBLE, nrecv, 1, MPI_INT, ring, MPI_INFO_NULL, &req);
    expect("neighbor_alltoall_init on a periodic ring of one sending 8 bytes to itself, receiving 4", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Neighbor_alltoallv(nsend, nfirst, ndispl, MPI_DOUBLE, nrecv, nfirst, ndispl, MPI_INT, ring);
    expect("neighbor_alltoallv on a periodic ring of one sending 8 and 0 bytes to itself, receiving 4 and 0", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Neighbor_alltoallv(nsend, nzero, ndispl, MPI_DOUBLE, nrecv, nsingle, ndispl, MPI_DOUBLE, loop);
    expect("neighbor_alltoallv on a self-loop sending 0 bytes to itself, receiving 8", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Ineighbor_allgatherv(nsend, 2, MPI_DOUBLE, nrecv, nsingle, ndispl, MPI_DOUBLE, loop, &req);
    expect("ineighbor_allgatherv on a self-loop sending 16 bytes to itself, receiving 8", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Neighbor_alltoallw(nsend, nsingle, nbytes_at, ntypes, nrecv, nzero, nbytes_at, ntypes, loop);
    expect("neighbor_alltoallw on a self-loop sending 8 bytes to itself, receiving 0", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Neighbor_alltoallv_c(nsend, ncount_one, naint_zero, MPI_DOUBLE, nrecv, ncount_zero, naint_zero, MPI_DOUBLE, loop);
    expect("neighbor_alltoallv_c on a self-loop sending 8 bytes to itself, receiving 0", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    /* itself twice as a source, once as a destination: an inconsistent
     * graph, on which MPICH waited for ever (natively too) */
    MPI_Comm lopsided = MPI_COMM_NULL;
    int twice[2] = {0, 0};
    MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 2, twice, MPI_UNWEIGHTED, 1, twice, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &lopsided);
    rc = MPI_Neighbor_allgather(nsend, 1, MPI_DOUBLE, nrecv, 1, MPI_DOUBLE, lopsided);
    expect("neighbor_allgather on a graph listing itself twice as a source, once as a destination", rc, MPI_ERR_TOPOLOGY, nrecv[0] == 0);
    rc = MPI_Neighbor_alltoallw(nsend, nsingle, nbytes_at, ntypes, nrecv, nsingle, nbytes_at, ntypes, lopsided);
    expect("neighbor_alltoallw on that graph", rc, MPI_ERR_TOPOLOGY, nrecv[0] == 0);
    MPI_Comm_free(&lopsided);
    rc = MPI_Neighbor_allgather(nsend, 1, MPI_DOUBLE, nrecv, 1, MPI_FLOAT, graph);
    expect("neighbor_allgather on a graph of one with a self-loop sending 8 bytes to itself, receiving 4", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    rc = MPI_Neighbor_alltoall(nsend, 2, MPI_DOUBLE, nrecv, 1, MPI_DOUBLE, grid);
    expect("neighbor_alltoall on a grid with a periodic dimension of one process, 16 bytes sent, 8 received", rc, MPI_ERR_TRUNCATE, nrecv[0] == 0);
    /* no neighbour at either end of a line of one: nothing to compare */
    rc = MPI_Neighbor_allgather(nsend, 2, MPI_DOUBLE, nrecv, 1, MPI_DOUBLE, line);
    expect("neighbor_allgather on a non-periodic line of one (no neighbours)", rc, MPI_SUCCESS, nrecv[0] == 0);
    rc = MPI_Neighbor_allgather(nsend + 1, 1, MPI_DOUBLE, nsend, 1, MPI_DOUBLE, line);
    expect("neighbor_allgather with the send buffer in the receive buffer (no neighbours)", rc, MPI_ERR_BUFFER, nsend[0] == 7.0 && nsend[1] == 8.0);
    /* equal bytes in other types go through, whichever block meets which */
    rc = MPI_Neighbor_alltoall(nsend, 1, MPI_DOUBLE, nrecv, 2, MPI_INT, ring);
    expect("neighbor_alltoall on a periodic ring of one, one double received as two ints", rc, MPI_SUCCESS,
           (nrecv[0] == 7.0 && nrecv[1] == 8.0) || (nrecv[0] == 8.0 && nrecv[1] == 7.0));
    nrecv[0] = nrecv[1] = 0;
    rc = MPI_Neighbor_alltoallv(nsend + 1, nsingle, ndispl, MPI_DOUBLE, nrecv, nsingle, ndispl, MPI_DOUBLE, loop);
    expect("neighbor_alltoallv on a self-loop, 8 bytes each way", rc, MPI_SUCCESS, nrecv[0] == 8.0);
    MPI_Comm *made_topos[] = {&ring, &line, &loop, &graph, &grid};
    for (int i = 0; i < 5; i++)
        if (*made_topos[i] != MPI_COMM_NULL) MPI_Comm_free(made_topos[i]);

    /* the job is still consistent: a real collective works */
    int sum = 0, one = 1;
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("allreduce after the hostile calls", rc, MPI_SUCCESS, sum == np);
    return hostile_finish();
}
