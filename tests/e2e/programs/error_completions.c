/* Requests that complete with an error (a receive that truncates), through
 * every completion function, then MPI_Waitall on what that left: natively
 * the handles of the requests MPI freed are MPI_REQUEST_NULL, which the
 * Waitall skips, and it completes the rest. Persistent
 * requests differ between MPI libraries (Open MPI 4.1 frees one that
 * completed with an error, MPICH and Open MPI 5 keep it), so the output is
 * compared with the native run on the same library. Two processes: rank 1
 * sends, rank 0 receives; then a nonblocking collective that truncates.
 * What a failed call writes besides its error is printed too: the index
 * and flag of MPI_Waitany/Testany, the count of MPI_Waitsome/Testsome, and
 * whether a persistent request that completed beside the failed one
 * (MPI_ERR_IN_STATUS) is inactive, so that it starts again. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;

static const char *cls(int e) {
    int c;
    if (e == MPI_SUCCESS) return "none";
    MPI_Error_class(e, &c);
    return c == MPI_ERR_TRUNCATE ? "truncate" : c == MPI_ERR_IN_STATUS ? "in-status" : "other";
}

/* rank 1's part of one case: a message too long for its receive, and one
 * that fits */
static void send_pair(int tag) {
    int v[2] = {7, 8};
    MPI_Send(v, 2, MPI_INT, 0, tag, MPI_COMM_WORLD);
    MPI_Send(v, 1, MPI_INT, 0, tag + 100, MPI_COMM_WORLD);
}

/* rank 0's: req[0] truncates, req[1] fits */
static void post_pair(int tag, MPI_Request req[2], int buf[8]) {
    MPI_Irecv(buf, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(buf + 4, 4, MPI_INT, 1, tag + 100, MPI_COMM_WORLD, &req[1]);
}

static void say(const char *name, int e, MPI_Request req[2]) {
    int again = MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    printf("%s: error %s, then Waitall %s, handles null %d %d\n", name, cls(e), cls(again), req[0] == MPI_REQUEST_NULL,
           req[1] == MPI_REQUEST_NULL);
}

/* A persistent receive (tag + 100) completes beside one that truncates
 * (tag), in one completion call: MPI_ERR_IN_STATUS, and the persistent
 * request is inactive, so it starts again (the sender's third message). */
static const char *const PERSISTENT_BY[] = {"Waitall", "Waitall ignoring statuses", "Testall", "Waitsome", "Testsome"};
#define NPERSISTENT 5

static void persistent_beside_error(int how, int tag) {
    MPI_Request req[2];
    MPI_Status st[2];
    int buf[8] = {0}, e, flag = 0, out, idx[2];
    MPI_Recv_init(buf + 4, 4, MPI_INT, 1, tag + 100, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(buf, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &req[1]);
    MPI_Start(&req[0]);
    MPI_Barrier(MPI_COMM_WORLD); /* both messages have arrived */
    if (how == 0) e = MPI_Waitall(2, req, st);
    else if (how == 1) e = MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    else if (how == 2) do e = MPI_Testall(2, req, &flag, st); while (e == MPI_SUCCESS && !flag);
    else if (how == 3) e = MPI_Waitsome(2, req, &out, idx, st);
    else e = MPI_Testsome(2, req, &out, idx, st);
    int kept = req[0] != MPI_REQUEST_NULL, started = kept ? MPI_Start(&req[0]) : -1;
    if (started == MPI_SUCCESS) MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    else MPI_Recv(buf + 4, 4, MPI_INT, 1, tag + 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (kept) MPI_Request_free(&req[0]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    printf("persistent beside an error, %s: error %s, kept %d, started again %s, received %d\n", PERSISTENT_BY[how], cls(e),
           kept, started == -1 ? "no" : cls(started), buf[4]);
}

/* A persistent receive never started (inactive) beside a persistent one
 * that truncates, in one completion call: the inactive request takes no
 * part (MPI-4.1 3.7.3: such calls treat it as null), and it stays, so it
 * starts later (the sender's third message). The one that truncated is
 * freed by Open MPI 4.1, kept by the others. */
static const char *const INACTIVE_BY[] = {"Waitall", "Testall", "Waitany", "Waitsome"};
#define NINACTIVE 4

static void inactive_beside_error(int how, int tag) {
    MPI_Request req[3];
    MPI_Status st[3];
    int buf[8] = {0}, mine[4] = {0}, e, flag = 0, out, idx[3], index;
    MPI_Recv_init(mine, 4, MPI_INT, 1, tag + 50, MPI_COMM_WORLD, &req[0]);
    MPI_Recv_init(buf, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &req[1]);
    MPI_Start(&req[1]);
    MPI_Irecv(buf + 4, 4, MPI_INT, 1, tag + 100, MPI_COMM_WORLD, &req[2]);
    MPI_Barrier(MPI_COMM_WORLD); /* both messages have arrived */
    if (how == 0) e = MPI_Waitall(3, req, st);
    else if (how == 1) do e = MPI_Testall(3, req, &flag, st); while (e == MPI_SUCCESS && !flag);
    else if (how == 2) do e = MPI_Waitany(3, req, &index, &st[0]); while (e == MPI_SUCCESS && index != MPI_UNDEFINED);
    else do e = MPI_Waitsome(3, req, &out, idx, st); while (e == MPI_SUCCESS && out != MPI_UNDEFINED);
    int kept = req[0] != MPI_REQUEST_NULL, started = kept ? MPI_Start(&req[0]) : -1;
    if (started == MPI_SUCCESS) MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    else MPI_Recv(mine, 4, MPI_INT, 1, tag + 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (kept) MPI_Request_free(&req[0]);
    MPI_Waitall(2, req + 1, MPI_STATUSES_IGNORE);
    int truncated_kept = req[1] != MPI_REQUEST_NULL;
    if (truncated_kept) MPI_Request_free(&req[1]);
    printf("inactive beside an error, %s: error %s, truncated kept %d, kept %d, started again %s, received %d\n",
           INACTIVE_BY[how], cls(e), truncated_kept, kept, started == -1 ? "no" : cls(started), mine[0]);
}

/* one case per completion function, until the error */
static void receive_side(void) {
    MPI_Request req[2];
    MPI_Status st[2];
    int buf[8], e, flag, index, out, idx[2], tag = 0;

    post_pair(++tag, req, buf);
    e = MPI_Wait(&req[0], &st[0]);
    say("Wait", e, req);

    post_pair(++tag, req, buf);
    do e = MPI_Test(&req[0], &flag, &st[0]); while (e == MPI_SUCCESS && !flag);
    say("Test", e, req);

    post_pair(++tag, req, buf);
    e = MPI_Waitall(2, req, st);
    say("Waitall", e, req);
    printf("Waitall status of the truncated receive: %s\n", cls(st[0].MPI_ERROR));

    post_pair(++tag, req, buf);
    MPI_Barrier(MPI_COMM_WORLD); /* both messages have arrived */
    do e = MPI_Testall(2, req, &flag, st); while (e == MPI_SUCCESS && !flag);
    say("Testall", e, req);

    post_pair(++tag, req, buf);
    do {
        index = -5;
        e = MPI_Waitany(2, req, &index, &st[0]);
    } while (e == MPI_SUCCESS && index != MPI_UNDEFINED);
    printf("Waitany at the error: index %d, status %s\n", index, cls(st[0].MPI_ERROR));
    say("Waitany", e, req);

    post_pair(++tag, req, buf);
    do {
        index = -5, flag = -5;
        e = MPI_Testany(2, req, &index, &flag, &st[0]);
    } while (e == MPI_SUCCESS && !(flag && index == MPI_UNDEFINED));
    printf("Testany at the error: index %d, flag %d, status %s\n", index, flag, cls(st[0].MPI_ERROR));
    say("Testany", e, req);

    post_pair(++tag, req, buf);
    MPI_Barrier(MPI_COMM_WORLD);
    do {
        out = -5;
        e = MPI_Waitsome(2, req, &out, idx, st);
    } while (e == MPI_SUCCESS && out != MPI_UNDEFINED);
    printf("Waitsome at the error: outcount %d\n", out);
    say("Waitsome", e, req);

    post_pair(++tag, req, buf);
    MPI_Barrier(MPI_COMM_WORLD);
    do {
        out = -5;
        e = MPI_Testsome(2, req, &out, idx, st);
    } while (e == MPI_SUCCESS && out != MPI_UNDEFINED);
    printf("Testsome at the error: outcount %d\n", out);
    say("Testsome", e, req);

    for (int how = 0; how < NPERSISTENT; how++) persistent_beside_error(how, 60 + 10 * how);
    for (int how = 0; how < NINACTIVE; how++) inactive_beside_error(how, 300 + 10 * how);

    /* persistent: kept inactive by some libraries, freed by others */
    MPI_Recv_init(buf, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, &req[0]);
    MPI_Start(&req[0]);
    e = MPI_Wait(&req[0], &st[0]);
    int kept = req[0] != MPI_REQUEST_NULL;
    if (kept) {
        MPI_Start(&req[0]);
        MPI_Wait(&req[0], &st[0]);
        MPI_Request_free(&req[0]);
    } else {
        MPI_Recv(buf, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, &st[0]);
    }
    printf("Recv_init: error %s, kept %d, then received %d\n", cls(e), kept, buf[0]);
}

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    if (rank == 0) {
        receive_side();
    } else {
        for (int tag = 1; tag <= 8; tag++) {
            send_pair(tag);
            if (tag == 4 || tag >= 7) MPI_Barrier(MPI_COMM_WORLD);
        }
        for (int how = 0; how < NPERSISTENT; how++) {
            int tag = 60 + 10 * how, v = 9 + how;
            send_pair(tag);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Send(&v, 1, MPI_INT, 0, tag + 100, MPI_COMM_WORLD);
        }
        for (int how = 0; how < NINACTIVE; how++) {
            int tag = 300 + 10 * how, v = 20 + how;
            send_pair(tag);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Send(&v, 1, MPI_INT, 0, tag + 50, MPI_COMM_WORLD);
        }
        int v[2] = {7, 8};
        MPI_Send(v, 2, MPI_INT, 0, 50, MPI_COMM_WORLD);
        MPI_Send(v, 1, MPI_INT, 0, 50, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* a nonblocking collective whose message to rank 1 truncates there */
    int send[8] = {1, 2, 3, 4, 5, 6, 7, 8}, recv[8] = {0};
    int sc[2] = {1, rank == 0 ? 2 : 1}, rc[2] = {1, 1}, sd[2] = {0, 4}, rd[2] = {0, 4};
    MPI_Request r;
    MPI_Ialltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, MPI_COMM_WORLD, &r);
    int e = MPI_Wait(&r, MPI_STATUS_IGNORE);
    int again = MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm dup;
    int d = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
    for (int p = 0; p < 2; p++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (p == rank)
            printf("rank %d Ialltoallv: error %s, null %d, again %s, then Comm_dup %s\n", rank, e == MPI_SUCCESS ? "none" : "some",
                   r == MPI_REQUEST_NULL, cls(again), cls(d));
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
