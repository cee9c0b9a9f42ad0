/* hostile_p2p.c: point-to-point buffers, statuses, request arrays and
 * MPI_BOTTOM addresses outside the guest memory (see hostile.h). Every
 * rank runs the same cases on messages to itself and prints its lines. */
#include "hostile.h"

#include <stdlib.h>

static int me;

/* True if no message with `tag` is waiting (a failed call sent nothing);
 * a stray one is received so it cannot disturb later cases. */
static int nothing_sent(int tag) {
    int flag = 0, x[16];
    MPI_Iprobe(me, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) MPI_Recv(x, 16, MPI_INT, me, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return !flag;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    hostile_setup();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int buf[16] = {0}, rc;
    MPI_Request reqs[4];
    MPI_Status st;

    /* send buffers */
    rc = MPI_Send(tail(16), 8, MPI_INT, me, 1, MPI_COMM_WORLD);
    expect("send past the end", rc, MPI_ERR_BUFFER, nothing_sent(1));
    rc = MPI_Send((void *)0xfffffff0u, 64, MPI_CHAR, me, 2, MPI_COMM_WORLD);
    expect("send wrapping at 4 GiB", rc, MPI_ERR_BUFFER, nothing_sent(2));
    rc = MPI_Send((void *)mem_end(), 1, MPI_CHAR, me, 3, MPI_COMM_WORLD);
    expect("send at the end address", rc, MPI_ERR_BUFFER, nothing_sent(3));
    rc = MPI_Send(buf, 0x40000001, MPI_INT, me, 4, MPI_COMM_WORLD); /* 4 GiB + 4 bytes */
    expect("send count x size over 32 bits", rc, MPI_ERR_BUFFER, nothing_sent(4));
    rc = MPI_Send(buf, -1, MPI_INT, me, 5, MPI_COMM_WORLD);
    expect("send negative count", rc, MPI_ERR_COUNT, nothing_sent(5));
    rc = MPI_Isend(tail(4), 2, MPI_INT, me, 6, MPI_COMM_WORLD, &reqs[0]);
    expect("isend past the end", rc, MPI_ERR_BUFFER, nothing_sent(6));

    /* receive buffers: nothing posted, nothing written */
    void *t = tail(4);
    rc = MPI_Recv(t, 2, MPI_INT, me, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("recv past the end", rc, MPI_ERR_BUFFER, untouched(t, 4));
    rc = MPI_Irecv((void *)0xfffffffcu, 2, MPI_INT, me, 9, MPI_COMM_WORLD, &reqs[0]);
    expect("irecv wrapping at 4 GiB", rc, MPI_ERR_BUFFER, 1);
    rc = MPI_Sendrecv(buf, 1, MPI_INT, me, 10, tail(2), 1, MPI_INT, me, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("sendrecv receive past the end", rc, MPI_ERR_BUFFER, untouched((char *)mem_end() - 2, 2) && nothing_sent(10));

    /* statuses */
    t = tail(16);
    buf[0] = 42;
    rc = MPI_Sendrecv(buf, 1, MPI_INT, me, 11, buf + 1, 1, MPI_INT, me, 11, MPI_COMM_WORLD, (MPI_Status *)t);
    expect("status in the last 16 bytes", rc, MPI_ERR_BUFFER, untouched(t, 16));
    nothing_sent(11);
    t = tail(32);
    buf[1] = 0;
    rc = MPI_Sendrecv(buf, 1, MPI_INT, me, 12, buf + 1, 1, MPI_INT, me, 12, MPI_COMM_WORLD, (MPI_Status *)t);
    expect("status in exactly the last 32 bytes", rc, MPI_SUCCESS, buf[1] == 42 && ((MPI_Status *)t)->MPI_TAG == 12 && ((MPI_Status *)t)->MPI_SOURCE == me);
    t = tail(4);
    rc = MPI_Get_count((MPI_Status *)t, MPI_INT, buf);
    expect("get_count on a status past the end", rc, MPI_ERR_BUFFER, untouched(t, 4));
    t = tail(2);
    rc = MPI_Get_count(&st, MPI_INT, (int *)t);
    expect("get_count result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));

    /* status and request arrays */
    MPI_Irecv(buf + 2, 1, MPI_INT, me, 13, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(buf, 1, MPI_INT, me, 13, MPI_COMM_WORLD, &reqs[1]);
    t = tail(48); /* two statuses need 64 */
    rc = MPI_Waitall(2, reqs, (MPI_Status *)t);
    int cls = class_of(rc), done = reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL;
    expect("waitall statuses past the end", rc, MPI_ERR_BUFFER, untouched(t, 48));
    if (cls != MPI_SUCCESS && !done) MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Irecv(buf + 2, 1, MPI_INT, me, 14, MPI_COMM_WORLD, &reqs[0]);
    MPI_Request *ra = tail(4); /* one valid request, the second would be past the end */
    *ra = reqs[0];
    rc = MPI_Waitall(2, ra, MPI_STATUSES_IGNORE);
    expect("waitall request array past the end", rc, MPI_ERR_BUFFER, *ra == reqs[0]);
    rc = MPI_Testall(2, ra, buf + 3, MPI_STATUSES_IGNORE);
    expect("testall request array past the end", rc, MPI_ERR_BUFFER, *ra == reqs[0]);
    rc = MPI_Waitany(2, ra, buf + 3, MPI_STATUS_IGNORE);
    expect("waitany request array past the end", rc, MPI_ERR_BUFFER, *ra == reqs[0]);
    rc = MPI_Testany(2, ra, buf + 3, buf + 4, MPI_STATUS_IGNORE);
    expect("testany request array past the end", rc, MPI_ERR_BUFFER, *ra == reqs[0]);
    rc = MPI_Waitsome(2, ra, buf + 3, buf + 4, MPI_STATUSES_IGNORE);
    expect("waitsome request array past the end", rc, MPI_ERR_BUFFER, *ra == reqs[0]);
    /* one request (its own path in the bridge) */
    MPI_Request *last = tail(2); /* the handle itself runs past the end */
    rc = MPI_Testany(1, last, buf + 3, buf + 4, MPI_STATUS_IGNORE);
    expect("testany one request past the end", rc, MPI_ERR_BUFFER, 1);
    rc = MPI_Waitany(1, last, buf + 3, MPI_STATUS_IGNORE);
    expect("waitany one request past the end", rc, MPI_ERR_BUFFER, 1);
    MPI_Request bogus = (MPI_Request)0x7fff1234;
    rc = MPI_Testany(1, &bogus, buf + 3, buf + 4, MPI_STATUS_IGNORE);
    expect("testany one invalid request", rc, MPI_ERR_REQUEST, 1);
    t = tail(2);
    rc = MPI_Testany(1, &reqs[0], (int *)t, buf + 4, MPI_STATUS_IGNORE);
    expect("testany one request, index past the end", rc, MPI_ERR_BUFFER, untouched(t, 2) && reqs[0] != MPI_REQUEST_NULL);
    t = tail(2);
    rc = MPI_Testany(1, &reqs[0], buf + 3, (int *)t, MPI_STATUS_IGNORE);
    expect("testany one request, flag past the end", rc, MPI_ERR_BUFFER, untouched(t, 2) && reqs[0] != MPI_REQUEST_NULL);
    t = tail(8);
    rc = MPI_Testany(1, &reqs[0], buf + 3, buf + 4, (MPI_Status *)t);
    expect("testany one request, status past the end", rc, MPI_ERR_BUFFER, untouched(t, 8) && reqs[0] != MPI_REQUEST_NULL);
    rc = MPI_Waitall(2, (MPI_Request *)0xfffffffcu, MPI_STATUSES_IGNORE);
    expect("waitall request array wrapping", rc, MPI_ERR_BUFFER, 1);
    rc = MPI_Waitall(-1, reqs, MPI_STATUSES_IGNORE);
    expect("waitall negative count", rc, MPI_ERR_COUNT, 1);
    t = tail(2); /* Waitsome's indices would land past the end */
    MPI_Send(buf, 1, MPI_INT, me, 14, MPI_COMM_WORLD);
    rc = MPI_Waitsome(1, &reqs[0], buf + 3, (int *)t, MPI_STATUSES_IGNORE);
    expect("waitsome indices past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    if (class_of(rc) != MPI_SUCCESS && reqs[0] != MPI_REQUEST_NULL) MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    int bad[2] = {0x7ff00001, -5};
    rc = MPI_Waitall(2, (MPI_Request *)bad, MPI_STATUSES_IGNORE);
    expect("waitall invalid request handles", rc, MPI_ERR_REQUEST, 1);

    /* persistent requests and Startall */
    MPI_Recv_init(buf + 5, 1, MPI_INT, me, 15, MPI_COMM_WORLD, &reqs[0]);
    ra = tail(4);
    *ra = reqs[0];
    rc = MPI_Startall(2, ra);
    expect("startall request array past the end", rc, MPI_ERR_BUFFER, *ra == reqs[0]);
    MPI_Request_free(&reqs[0]);

    /* an out-handle in the last bytes: no request is created, nothing sent */
    t = tail(2);
    rc = MPI_Isend(buf, 1, MPI_INT, me, 16, MPI_COMM_WORLD, (MPI_Request *)t);
    expect("isend request handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2) && nothing_sent(16));

    /* MPI_BOTTOM with absolute addresses outside the memory */
    MPI_Datatype abs_t;
    int one = 1;
    MPI_Aint disp = (MPI_Aint)(mem_end() + 4096);
    MPI_Type_create_hindexed(1, &one, &disp, MPI_INT, &abs_t);
    MPI_Type_commit(&abs_t);
    rc = MPI_Send(MPI_BOTTOM, 1, abs_t, me, 17, MPI_COMM_WORLD);
    expect("MPI_BOTTOM address past the end", rc, MPI_ERR_BUFFER, nothing_sent(17));
    MPI_Type_free(&abs_t);
    disp = -64;
    MPI_Type_create_hindexed(1, &one, &disp, MPI_INT, &abs_t);
    MPI_Type_commit(&abs_t);
    rc = MPI_Recv(MPI_BOTTOM, 1, abs_t, me, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("MPI_BOTTOM negative address", rc, MPI_ERR_BUFFER, 1);
    MPI_Type_free(&abs_t);
    MPI_Aint d2[2];
    MPI_Get_address(buf, &d2[0]);
    d2[1] = (MPI_Aint)(mem_end() - 2);
    int bl2[2] = {1, 1};
    MPI_Type_create_hindexed(2, bl2, d2, MPI_INT, &abs_t);
    MPI_Type_commit(&abs_t);
    t = tail(2);
    rc = MPI_Recv(MPI_BOTTOM, 1, abs_t, me, 19, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("MPI_BOTTOM second block crossing the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Type_free(&abs_t);

    /* more statuses, flags and handles in the last bytes */
    int flag = -1;
    MPI_Irecv(buf, 1, MPI_INT, me, 20, MPI_COMM_WORLD, &reqs[0]);
    t = tail(2);
    rc = MPI_Request_get_status(reqs[0], (int *)t, &st);
    expect("request_get_status flag past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(16);
    rc = MPI_Request_get_status(reqs[0], &flag, (MPI_Status *)t);
    expect("request_get_status status past the end", rc, MPI_ERR_BUFFER, untouched(t, 16));
    MPI_Send(buf + 1, 1, MPI_INT, me, 20, MPI_COMM_WORLD);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    t = tail(2);
    rc = MPI_Iprobe(me, 21, MPI_COMM_WORLD, (int *)t, MPI_STATUS_IGNORE);
    expect("iprobe flag past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Request sreq;
    MPI_Isend(buf, 1, MPI_INT, me, 22, MPI_COMM_WORLD, &sreq);
    t = tail(2);
    rc = MPI_Mprobe(me, 22, MPI_COMM_WORLD, (MPI_Message *)t, MPI_STATUS_IGNORE);
    expect("mprobe message handle past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    MPI_Recv(buf + 2, 1, MPI_INT, me, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    t = tail(16);
    rc = MPI_Status_set_elements((MPI_Status *)t, MPI_INT, 3);
    expect("status_set_elements status past the end", rc, MPI_ERR_BUFFER, untouched(t, 16));
    /* counts a status cannot hold in bytes: MPICH asserted and aborted the job */
    MPI_Status fits;
    rc = MPI_Status_set_elements_x(&fits, MPI_INT, (MPI_Count)0x7fffffffffffffffLL);
    expect("status_set_elements_x count x size over MPI_Count", rc, MPI_ERR_COUNT, 1);
    rc = MPI_Status_set_elements(&fits, MPI_INT, -1);
    expect("status_set_elements negative count", rc, MPI_ERR_COUNT, 1);
    int got = 0;
    rc = MPI_Status_set_elements_x(&fits, MPI_INT, (MPI_Count)1 << 40);
    if (rc == MPI_SUCCESS) rc = MPI_Get_elements(&fits, MPI_INT, &got);
    expect("status_set_elements_x 2^40 ints still fits", rc, MPI_SUCCESS, got == MPI_UNDEFINED);
    t = tail(2);
    rc = MPI_Get_elements(&st, MPI_INT, (int *)t);
    expect("get_elements result past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));
    t = tail(2);
    rc = MPI_Test_cancelled(&st, (int *)t);
    expect("test_cancelled flag past the end", rc, MPI_ERR_BUFFER, untouched(t, 2));

    /* Buffer_attach at the end of memory */
    t = tail(16);
    rc = MPI_Buffer_attach(t, 32);
    expect("buffer_attach past the end", rc, MPI_ERR_BUFFER, untouched(t, 16));

    /* cancelling a persistent receive: only while it is active (Open MPI
     * crashed on one never started, natively too; MPICH refuses it) */
    int np;
    flag = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    rc = MPI_Recv_init(buf, 1, MPI_INT, (me + 1) % np, 99, MPI_COMM_WORLD, &reqs[1]);
    rc = rc ? rc : MPI_Cancel(&reqs[1]);
    expect("cancel a persistent receive never started", rc, MPI_ERR_REQUEST, 1);
    rc = MPI_Start(&reqs[1]);
    rc = rc ? rc : MPI_Cancel(&reqs[1]);
    rc = rc ? rc : MPI_Wait(&reqs[1], &st);
    rc = rc ? rc : MPI_Test_cancelled(&st, &flag);
    expect("cancel a started persistent receive", rc, MPI_SUCCESS, flag && reqs[1] != MPI_REQUEST_NULL);
    rc = MPI_Cancel(&reqs[1]);
    expect("cancel a persistent receive after its completion", rc, MPI_ERR_REQUEST, 1);
    /* started twice: Open MPI posts the receive twice and its matching
     * queue breaks; cancelled twice: it unlinks the receive twice (both
     * crash natively). The second start is refused, the second cancel is
     * a no-op. */
    rc = MPI_Start(&reqs[1]);
    int rc2 = MPI_Start(&reqs[1]);
    expect("start an active persistent receive", rc2, MPI_ERR_REQUEST, rc == MPI_SUCCESS);
    rc = MPI_Startall(1, &reqs[1]);
    expect("startall an active persistent receive", rc, MPI_ERR_REQUEST, 1);
    rc = MPI_Cancel(&reqs[1]);
    rc2 = MPI_Cancel(&reqs[1]);
    flag = 0;
    rc = rc ? rc : MPI_Wait(&reqs[1], &st);
    rc = rc ? rc : MPI_Test_cancelled(&st, &flag);
    expect("cancel a receive twice", rc2, MPI_SUCCESS, rc == MPI_SUCCESS && flag);
    MPI_Request plain;
    MPI_Irecv(buf, 1, MPI_INT, me, 98, MPI_COMM_WORLD, &plain);
    rc = MPI_Start(&plain);
    expect("start a request that is not persistent", rc, MPI_ERR_REQUEST, 1);
    MPI_Cancel(&plain);
    MPI_Wait(&plain, MPI_STATUS_IGNORE);
    MPI_Request_free(&reqs[1]);

    /* a matched message is consumed by MPI_Mrecv even when the receive
     * fails (truncated): its old handle must not name it again (a second
     * MPI_Mrecv with it was a use after free in Open MPI). Open MPI nulls
     * the handle; MPICH leaves it and refuses its second use. */
    {
        int out[4] = {1, 2, 3, 4}, in[4];
        MPI_Message msg, stale;
        MPI_Request sreq2;
        MPI_Isend(out, 4, MPI_INT, me, 77, MPI_COMM_WORLD, &sreq2);
        rc = MPI_Mprobe(me, 77, MPI_COMM_WORLD, &msg, &st);
        stale = msg;
        rc = rc ? rc : MPI_Mrecv(in, 1, MPI_INT, &msg, &st);
        expect("mrecv truncated", rc, MPI_ERR_TRUNCATE, 1);
        MPI_Wait(&sreq2, MPI_STATUS_IGNORE);
        rc = MPI_Mrecv(in, 4, MPI_INT, &stale, &st);
        expect_error("mrecv with a consumed message", rc, 1);
    }

    /* a message larger than the receive buffer, from a peer and from
     * itself: MPI_ERR_TRUNCATE and not a byte written past the buffer (Open
     * MPI's single-copy protocols copied the whole message first, also
     * into its own host buffers). Under the embedder's copy-protocol sizes
     * on Open MPI (host_mpi::COPY_PROTOCOL) 16 KiB goes eagerly, 64 KiB in
     * one fragment after the first, 256 KiB in several. */
    {
        static char big[262144], land[4096];
        memset(big, 'x', sizeof big);
        for (int size = 16384; size <= 262144; size *= 4) {
            for (int self = 0; self < 2; self++) {
                MPI_Request rs, rr;
                memset(land, 0, sizeof land);
                int to = self ? me : (me + 1) % np, from = self ? me : (me + np - 1) % np;
                MPI_Irecv(land, 16, MPI_CHAR, from, 88 + self, MPI_COMM_WORLD, &rr);
                MPI_Isend(big, size, MPI_CHAR, to, 88 + self, MPI_COMM_WORLD, &rs);
                rc = MPI_Wait(&rr, &st);
                MPI_Wait(&rs, MPI_STATUS_IGNORE);
                int past = 0;
                for (int i = 16; i < (int)sizeof land; i++) past += land[i] != 0;
                expect(size == 16384 ? (self ? "16 KiB message larger than the buffer, from itself" : "16 KiB message larger than the buffer, from a peer")
                       : size == 65536 ? (self ? "message larger than the buffer, from itself" : "message larger than the buffer, from a peer")
                       : (self ? "256 KiB message larger than the buffer, from itself" : "256 KiB message larger than the buffer, from a peer"),
                       rc, MPI_ERR_TRUNCATE, past == 0);
            }
        }

        /* the same from a peer, completed by MPI_Waitall with the statuses
         * ignored (the bridge then ignores them on the host too, and learns
         * which requests completed from the host's handles alone): an
         * error, not a byte past the buffer, each handle nulled or still
         * valid (with MPI_ERR_IN_STATUS the send may still be pending:
         * Open MPI returns it so, natively too), and the handles work for
         * an exchange afterwards */
        MPI_Request two[2];
        int to = (me + 1) % np, from = (me + np - 1) % np, got = -1, sent = 77 + me;
        memset(land, 0, sizeof land);
        MPI_Irecv(land, 16, MPI_CHAR, from, 91, MPI_COMM_WORLD, &two[0]);
        MPI_Isend(big, 16384, MPI_CHAR, to, 91, MPI_COMM_WORLD, &two[1]);
        rc = MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
        int past = 0;
        for (int i = 16; i < (int)sizeof land; i++) past += land[i] != 0;
        int left_ok = (two[0] == MPI_REQUEST_NULL || MPI_Request_free(&two[0]) == MPI_SUCCESS) &&
                      (two[1] == MPI_REQUEST_NULL || MPI_Wait(&two[1], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        MPI_Irecv(&got, 1, MPI_INT, from, 92, MPI_COMM_WORLD, &two[0]);
        MPI_Isend(&sent, 1, MPI_INT, to, 92, MPI_COMM_WORLD, &two[1]);
        int again = MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
        int again_ok = again == MPI_SUCCESS && got == 77 + from && two[0] == MPI_REQUEST_NULL && two[1] == MPI_REQUEST_NULL;
        expect_error("waitall with statuses ignored, a receive truncated", rc, past == 0 && left_ok && again_ok);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    return hostile_finish();
}
