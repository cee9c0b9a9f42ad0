/* Generalized requests: the query function fills the status (and may call
 * MPI to do it), the free function runs once the request is complete and
 * freed, the cancel function is told whether it completed; the Wait/Test
 * families take them alongside other requests. */
#include "check.h"

typedef struct {
    int queries, frees, cancels, cancel_saw_complete;
    int elements, tag;
    MPI_Request self; /* for the cancel function, which completes it */
} state;

static int query(void *extra, MPI_Status *status) {
    state *s = extra;
    s->queries++;
    MPI_Status_set_elements(status, MPI_INT, s->elements);
    MPI_Status_set_cancelled(status, s->cancels > 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = s->tag;
    return MPI_SUCCESS;
}

static int release(void *extra) {
    ((state *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete) {
    state *s = extra;
    s->cancels++;
    s->cancel_saw_complete = complete;
    if (!complete) MPI_Grequest_complete(s->self);
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, errors, flag, count;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st;

    errors = 0;
    state a = {.elements = 5, .tag = 11};
    MPI_Request r;
    MPI_Grequest_start(query, release, cancel, &a, &r);
    MPI_Test(&r, &flag, &st);
    EXPECT(!flag && a.queries == 0);
    MPI_Grequest_complete(r);
    MPI_Wait(&r, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(r == MPI_REQUEST_NULL && a.queries == 1 && a.frees == 1);
    EXPECT(count == 5 && st.MPI_TAG == 11 && st.MPI_SOURCE == MPI_UNDEFINED);
    MPI_Test_cancelled(&st, &flag);
    EXPECT(!flag);
    check("Grequest_start / complete / Wait", errors);

    errors = 0;
    state b = {.elements = 2, .tag = 21}, c = {.elements = 3, .tag = 22};
    MPI_Request rs[3];
    int token = rank, got = -1;
    MPI_Grequest_start(query, release, cancel, &b, &rs[0]);
    MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &rs[1]);
    MPI_Grequest_start(query, release, cancel, &c, &rs[2]);
    MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD);
    MPI_Grequest_complete(rs[2]);
    MPI_Grequest_complete(rs[0]);
    MPI_Status sts[3];
    MPI_Waitall(3, rs, sts);
    EXPECT(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL && rs[2] == MPI_REQUEST_NULL);
    EXPECT(got == (rank + size - 1) % size);
    MPI_Get_count(&sts[0], MPI_INT, &count);
    EXPECT(count == 2 && sts[0].MPI_TAG == 21);
    MPI_Get_count(&sts[2], MPI_INT, &count);
    EXPECT(count == 3 && sts[2].MPI_TAG == 22 && sts[1].MPI_TAG == 5);
    EXPECT(b.queries == 1 && b.frees == 1 && c.queries == 1 && c.frees == 1);
    check("Waitall: generalized and other requests", errors);

    errors = 0;
    state d = {.elements = 1, .tag = 31};
    MPI_Grequest_start(query, release, cancel, &d, &r);
    MPI_Request copy = r;
    MPI_Request_free(&r);
    /* free_fn runs once both calls happened (MPICH 4.0 runs it at once) */
    EXPECT(r == MPI_REQUEST_NULL && d.frees <= 1);
    MPI_Grequest_complete(copy);
    EXPECT(d.frees == 1 && d.queries == 0);
    check("Request_free before Grequest_complete", errors);

    errors = 0;
    state e = {.elements = 0, .tag = 41};
    MPI_Grequest_start(query, release, cancel, &e, &e.self);
    r = e.self;
    MPI_Cancel(&r);
    EXPECT(e.cancels == 1 && !e.cancel_saw_complete);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    EXPECT(flag && e.queries == 1 && e.frees == 1);
    check("Cancel: cancel_fn completes it", errors);

    errors = 0;
    state f = {.elements = 4, .tag = 51};
    MPI_Grequest_start(query, release, cancel, &f, &r);
    MPI_Grequest_complete(r);
    MPI_Request_get_status(r, &flag, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT(flag && count == 4 && f.queries == 1 && f.frees == 0 && r != MPI_REQUEST_NULL);
    int index = -1;
    MPI_Request pair[2] = {MPI_REQUEST_NULL, r};
    MPI_Waitany(2, pair, &index, MPI_STATUS_IGNORE);
    EXPECT(index == 1 && pair[1] == MPI_REQUEST_NULL && f.queries == 2 && f.frees == 1);
    check("Request_get_status, Waitany", errors);

    errors = 0;
    state g = {.elements = 6, .tag = 61}, h = {.elements = 7, .tag = 62};
    MPI_Request two[2];
    MPI_Grequest_start(query, release, cancel, &g, &two[0]);
    MPI_Grequest_start(query, release, cancel, &h, &two[1]);
    MPI_Grequest_complete(two[1]);
    int outcount = -1, indices[2];
    MPI_Testsome(2, two, &outcount, indices, sts);
    MPI_Get_count(&sts[0], MPI_INT, &count);
    EXPECT(outcount == 1 && indices[0] == 1 && count == 7 && h.frees == 1 && g.queries == 0);
    MPI_Grequest_complete(two[0]);
    MPI_Testall(2, two, &flag, MPI_STATUSES_IGNORE);
    /* query_fn may run more than once (MPICH: also while testing) */
    EXPECT(flag && g.queries >= 1 && g.frees == 1 && two[0] == MPI_REQUEST_NULL);
    check("Testsome, Testall", errors);

    MPI_Finalize();
    return failures != 0;
}
