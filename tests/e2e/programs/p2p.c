/* Point-to-point family: every send mode, probes, matched probes, requests,
 * persistent requests, cancel, PROC_NULL, and memory.grow during an Irecv. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rank, size;

static void blocking_modes(void) {
    int errors = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long out[4] = {rank, 2L * rank, -rank, 7}, in[4];
    /* standard, synchronous (Sendrecv avoids the deadlock of two Ssends) */
    MPI_Status st;
    MPI_Sendrecv(out, 4, MPI_LONG, next, 11, in, 4, MPI_LONG, prev, 11, MPI_COMM_WORLD, &st);
    EXPECT(in[0] == prev && in[1] == 2L * prev && in[3] == 7);
    EXPECT(st.MPI_SOURCE == prev && st.MPI_TAG == 11);
    int count = -1;
    MPI_Get_count(&st, MPI_LONG, &count);
    EXPECT(count == 4);
    MPI_Get_count(&st, MPI_CHAR, &count);
    EXPECT(count == 4 * (int)sizeof(long));
    /* Sendrecv_replace */
    int v = rank * 10;
    MPI_Sendrecv_replace(&v, 1, MPI_INT, next, 3, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT(v == prev * 10);
    /* Ssend / Rsend: the receive is posted before the ready send */
    if (size > 1) {
        double d = 0;
        MPI_Request r;
        if (rank == 0) {
            MPI_Irecv(&d, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, &r);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            EXPECT(d == 2.5);
            EXPECT(r == MPI_REQUEST_NULL);
            MPI_Ssend(&d, 1, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD);
        } else if (rank == 1) {
            d = 2.5;
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Rsend(&d, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
            MPI_Recv(&d, 1, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    check("send modes, Sendrecv(_replace), Get_count", errors);
}

static void buffered(void) {
    int errors = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int bufsize = 4 * (100 * sizeof(int) + MPI_BSEND_OVERHEAD);
    char *buf = malloc(bufsize);
    MPI_Buffer_attach(buf, bufsize);
    int data[100], got[100];
    for (int i = 0; i < 100; i++) data[i] = rank * 1000 + i;
    MPI_Request r;
    MPI_Irecv(got, 100, MPI_INT, prev, 8, MPI_COMM_WORLD, &r);
    MPI_Bsend(data, 100, MPI_INT, next, 8, MPI_COMM_WORLD);
    MPI_Request rb;
    MPI_Ibsend(data, 1, MPI_INT, next, 9, MPI_COMM_WORLD, &rb);
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int one;
    MPI_Recv(&one, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 100; i++) EXPECT(got[i] == prev * 1000 + i);
    EXPECT(one == prev * 1000);
    void *detached;
    int detached_size;
    MPI_Buffer_detach(&detached, &detached_size);
    EXPECT(detached == buf && detached_size == bufsize);
    free(buf);
    check("Bsend/Ibsend with an attached buffer", errors);
}

static void probes(void) {
    int errors = 0;
    if (size > 1 && rank < 2) {
        int peer = 1 - rank;
        int msg[7] = {1, 2, 3, 4, 5, 6, 7}, flag = 0, count;
        MPI_Status st;
        MPI_Send(msg, 3 + rank, MPI_INT, peer, 20 + rank, MPI_COMM_WORLD);
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        EXPECT(st.MPI_SOURCE == peer && st.MPI_TAG == 20 + peer);
        MPI_Get_count(&st, MPI_INT, &count);
        EXPECT(count == 3 + peer);
        int *in = malloc(count * sizeof(int));
        MPI_Recv(in, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT(in[count - 1] == count);
        free(in);
        /* Iprobe with nothing pending */
        MPI_Iprobe(peer, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        EXPECT(flag == 0);
        /* matched probe and receive */
        MPI_Message m;
        MPI_Send(msg, 5, MPI_INT, peer, 30, MPI_COMM_WORLD);
        MPI_Mprobe(peer, 30, MPI_COMM_WORLD, &m, &st);
        EXPECT(m != MPI_MESSAGE_NULL);
        int got[5] = {0};
        MPI_Mrecv(got, 5, MPI_INT, &m, &st);
        EXPECT(m == MPI_MESSAGE_NULL && got[4] == 5 && st.MPI_TAG == 30);
        MPI_Send(msg, 2, MPI_INT, peer, 31, MPI_COMM_WORLD);
        flag = 0;
        while (!flag) MPI_Improbe(peer, 31, MPI_COMM_WORLD, &flag, &m, &st);
        MPI_Request r;
        MPI_Imrecv(got, 2, MPI_INT, &m, &r);
        MPI_Wait(&r, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        EXPECT(count == 2 && got[1] == 2);
    }
    /* matched probe of MPI_PROC_NULL */
    MPI_Message m;
    MPI_Status st;
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
    EXPECT(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
    check("Probe, Iprobe, Mprobe/Mrecv, Improbe/Imrecv", errors);
}

static void nonblocking(void) {
    int errors = 0;
    int *out = malloc(size * sizeof(int)), *in = malloc(size * sizeof(int));
    MPI_Request *reqs = malloc(2 * size * sizeof(MPI_Request));
    MPI_Status *sts = malloc(2 * size * sizeof(MPI_Status));
    for (int p = 0; p < size; p++) {
        out[p] = rank * 100 + p;
        MPI_Irecv(&in[p], 1, MPI_INT, p, 40, MPI_COMM_WORLD, &reqs[p]);
    }
    for (int p = 0; p < size; p++) MPI_Isend(&out[p], 1, MPI_INT, p, 40, MPI_COMM_WORLD, &reqs[size + p]);
    MPI_Waitall(2 * size, reqs, sts);
    for (int p = 0; p < size; p++) {
        EXPECT(in[p] == p * 100 + rank);
        EXPECT(sts[p].MPI_SOURCE == p && sts[p].MPI_TAG == 40);
        EXPECT(reqs[p] == MPI_REQUEST_NULL && reqs[size + p] == MPI_REQUEST_NULL);
    }
    /* Waitany / Testsome / Testall over arrays with inactive entries */
    int idx = -5, outcount = -5, flag = -1, indices[4];
    MPI_Waitany(2 * size, reqs, &idx, MPI_STATUS_IGNORE);
    EXPECT(idx == MPI_UNDEFINED);
    MPI_Testany(2 * size, reqs, &idx, &flag, MPI_STATUS_IGNORE);
    EXPECT(flag == 1 && idx == MPI_UNDEFINED);
    MPI_Testsome(2 * size, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
    EXPECT(outcount == MPI_UNDEFINED);
    MPI_Testall(2 * size, reqs, &flag, MPI_STATUSES_IGNORE);
    EXPECT(flag == 1);
    /* Waitsome/Waitany with a mix of null and live requests */
    MPI_Request mix[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int a = rank, b = -1, c = -1;
    MPI_Irecv(&b, 1, MPI_INT, rank, 41, MPI_COMM_WORLD, &mix[1]);
    MPI_Irecv(&c, 1, MPI_INT, rank, 42, MPI_COMM_WORLD, &mix[3]);
    MPI_Send(&a, 1, MPI_INT, rank, 42, MPI_COMM_WORLD);
    MPI_Status s1;
    MPI_Waitany(4, mix, &idx, &s1);
    EXPECT(idx == 3 && c == rank && s1.MPI_TAG == 42 && mix[3] == MPI_REQUEST_NULL);
    MPI_Send(&a, 1, MPI_INT, rank, 41, MPI_COMM_WORLD);
    MPI_Status s2[4];
    outcount = 0;
    while (outcount == 0) MPI_Testsome(4, mix, &outcount, indices, s2);
    EXPECT(outcount == 1 && indices[0] == 1 && b == rank && s2[0].MPI_TAG == 41);
    /* one request: Testany/Waitany's single-request path */
    MPI_Request one = MPI_REQUEST_NULL;
    flag = -1, idx = -5;
    MPI_Testany(1, &one, &idx, &flag, MPI_STATUS_IGNORE);
    EXPECT(flag == 1 && idx == MPI_UNDEFINED);
    MPI_Irecv(&b, 1, MPI_INT, rank, 43, MPI_COMM_WORLD, &one);
    MPI_Testany(1, &one, &idx, &flag, &s1);
    EXPECT(flag == 0 && one != MPI_REQUEST_NULL);
    b = -1;
    MPI_Send(&a, 1, MPI_INT, rank, 43, MPI_COMM_WORLD);
    for (flag = 0; !flag;) MPI_Testany(1, &one, &idx, &flag, &s1);
    EXPECT(idx == 0 && b == rank && s1.MPI_TAG == 43 && s1.MPI_SOURCE == rank && one == MPI_REQUEST_NULL);
    MPI_Irecv(&c, 1, MPI_INT, rank, 44, MPI_COMM_WORLD, &one);
    MPI_Send(&a, 1, MPI_INT, rank, 44, MPI_COMM_WORLD);
    MPI_Waitany(1, &one, &idx, &s1);
    EXPECT(idx == 0 && s1.MPI_TAG == 44 && one == MPI_REQUEST_NULL);
    MPI_Waitany(1, &one, &idx, &s1);
    EXPECT(idx == MPI_UNDEFINED);
    MPI_Status empty;
    MPI_Wait(&mix[0], &empty); /* a null request: empty status */
    EXPECT(empty.MPI_SOURCE == MPI_ANY_SOURCE && empty.MPI_TAG == MPI_ANY_TAG);
    free(out); free(in); free(reqs); free(sts);
    check("Isend/Irecv, Wait/Test any/all/some", errors);
}

static void persistent(void) {
    int errors = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int sendv, recvv, sum = 0;
    MPI_Request r[2];
    MPI_Recv_init(&recvv, 1, MPI_INT, prev, 50, MPI_COMM_WORLD, &r[0]);
    MPI_Send_init(&sendv, 1, MPI_INT, next, 50, MPI_COMM_WORLD, &r[1]);
    for (int i = 0; i < 200; i++) {
        sendv = rank + i;
        MPI_Startall(2, r);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        EXPECT(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL); /* inactive, not freed */
        sum += recvv - i;
    }
    EXPECT(sum == 200 * prev);
    MPI_Start(&r[0]);
    MPI_Request ssend;
    MPI_Ssend_init(&sendv, 1, MPI_INT, next, 50, MPI_COMM_WORLD, &ssend);
    MPI_Start(&ssend);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Wait(&ssend, MPI_STATUS_IGNORE);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    MPI_Request_free(&ssend);
    EXPECT(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && ssend == MPI_REQUEST_NULL);
    check("persistent requests restarted 200 times", errors);
}

static void cancel_and_proc_null(void) {
    int errors = 0, x = 0, flag = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    EXPECT(flag == 1 && r == MPI_REQUEST_NULL);
    MPI_Status set;
    MPI_Status_set_elements(&set, MPI_INT, 6);
    MPI_Status_set_cancelled(&set, 0);
    int count = -1;
    MPI_Get_count(&set, MPI_INT, &count);
    EXPECT(count == 6);
    MPI_Get_elements(&set, MPI_INT, &count);
    EXPECT(count == 6);
    MPI_Count big = -1;
    MPI_Status_set_elements_x(&set, MPI_CHAR, 5000000000LL);
    MPI_Get_elements_x(&set, MPI_CHAR, &big);
    EXPECT(big == 5000000000LL);
    MPI_Test_cancelled(&set, &flag);
    EXPECT(flag == 0);
    /* PROC_NULL: completes at once with an empty status */
    MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0);
    check("Cancel, Status_set_*, MPI_PROC_NULL", errors);
}

static void grow_during_irecv(void) {
    int errors = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    enum { N = 4096 };
    double *in = malloc(N * sizeof(double)), out[N];
    for (int i = 0; i < N; i++) { in[i] = -1; out[i] = rank + i * 0.5; }
    MPI_Request r;
    MPI_Irecv(in, N, MPI_DOUBLE, prev, 60, MPI_COMM_WORLD, &r);
#ifdef __wasm__
    size_t before = __builtin_wasm_memory_size(0);
    EXPECT(__builtin_wasm_memory_grow(0, 256) != (size_t)-1); /* +16 MiB while the receive is pending */
    EXPECT(__builtin_wasm_memory_size(0) == before + 256);
#endif
    char *big = malloc(32 << 20); /* and the allocator grows it further */
    memset(big, 1, 32 << 20);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(out, N, MPI_DOUBLE, next, 60, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++) EXPECT(in[i] == prev + i * 0.5);
    free(big); free(in);
    check("memory.grow while an Irecv is pending", errors);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    blocking_modes();
    buffered();
    probes();
    nonblocking();
    persistent();
    cancel_and_proc_null();
    grow_during_irecv();
    MPI_Finalize();
    return failures ? 1 : 0;
}
