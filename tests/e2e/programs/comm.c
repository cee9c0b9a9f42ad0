/* Communicators, groups, intercommunicators, info objects, Alltoallw,
 * Alloc_mem and the environment queries. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rank, size;

static void communicators(void) {
    int errors = 0, r, s, result, flag;
    MPI_Comm dup, idup, half, shared, created, grouped;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    EXPECT(result == MPI_CONGRUENT);
    MPI_Comm_compare(dup, dup, &result);
    EXPECT(result == MPI_IDENT);
    MPI_Request req;
    MPI_Comm_idup(dup, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_size(idup, &s);
    EXPECT(s == size);
    /* split: evens and odds, reversed order; rank 0 opts out when size > 2 */
    int color = (size > 2 && rank == 0) ? MPI_UNDEFINED : rank % 2;
    MPI_Comm_split(dup, color, -rank, &half);
    if (color == MPI_UNDEFINED) {
        EXPECT(half == MPI_COMM_NULL);
    } else {
        MPI_Comm_rank(half, &r);
        MPI_Comm_size(half, &s);
        int members = 0;
        for (int i = 0; i < size; i++) if (i % 2 == color && !(size > 2 && i == 0)) members++;
        EXPECT(s == members);
        int higher = 0; /* key -rank: higher world ranks come first */
        for (int i = rank + 1; i < size; i++) if (i % 2 == color) higher++;
        EXPECT(r == higher);
        MPI_Comm_compare(half, MPI_COMM_WORLD, &result);
        EXPECT(result == (s == size ? MPI_SIMILAR : MPI_UNEQUAL) || (size == 1 && result == MPI_CONGRUENT));
        MPI_Comm_free(&half);
        EXPECT(half == MPI_COMM_NULL);
    }
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    MPI_Comm_size(shared, &s);
    EXPECT(s == size); /* one node */
    /* create from a group of the even ranks */
    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *ranks = malloc(size * sizeof(int)), ne = 0;
    for (int i = 0; i < size; i += 2) ranks[ne++] = i;
    MPI_Group_incl(world, ne, ranks, &evens);
    MPI_Comm_create(MPI_COMM_WORLD, evens, &created);
    EXPECT((rank % 2 == 0) == (created != MPI_COMM_NULL));
    if (rank % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &grouped);
        MPI_Comm_rank(grouped, &r);
        EXPECT(r == rank / 2);
        MPI_Comm_free(&grouped);
        MPI_Comm_free(&created);
    }
    MPI_Comm_test_inter(dup, &flag);
    EXPECT(flag == 0);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_set_name(dup, "my duplicate");
    MPI_Comm_get_name(dup, name, &len);
    EXPECT(strcmp(name, "my duplicate") == 0 && len == 12);
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    EXPECT(strcmp(name, "MPI_COMM_WORLD") == 0);
    MPI_Info info;
    MPI_Comm_get_info(dup, &info);
    EXPECT(info != MPI_INFO_NULL);
    MPI_Info_free(&info);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    EXPECT(world == MPI_GROUP_NULL);
    MPI_Comm_free(&shared);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dup);
    free(ranks);
    check("Comm dup/idup/split/split_type/create/free", errors);
}

static void groups(void) {
    int errors = 0, r, s, result;
    MPI_Group world, first, rest, u, in, diff, ranged, ex;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int zero = 0;
    MPI_Group_incl(world, 1, &zero, &first);
    MPI_Group_excl(world, 1, &zero, &rest);
    MPI_Group_size(rest, &s);
    EXPECT(s == size - 1);
    MPI_Group_rank(rest, &r);
    EXPECT(r == (rank == 0 ? MPI_UNDEFINED : rank - 1));
    MPI_Group_union(first, rest, &u);
    MPI_Group_compare(u, world, &result);
    EXPECT(result == MPI_IDENT);
    MPI_Group_intersection(first, rest, &in);
    EXPECT(in == MPI_GROUP_EMPTY);
    MPI_Group_difference(world, first, &diff);
    MPI_Group_compare(diff, rest, &result);
    EXPECT(result == MPI_IDENT);
    int range[1][3] = {{size - 1, 0, -1}}; /* all ranks, reversed */
    MPI_Group_range_incl(world, 1, range, &ranged);
    MPI_Group_compare(ranged, world, &result);
    EXPECT(result == (size == 1 ? MPI_IDENT : MPI_SIMILAR));
    MPI_Group_range_excl(world, 1, range, &ex);
    EXPECT(ex == MPI_GROUP_EMPTY);
    int in_ranks[3] = {0, MPI_PROC_NULL, size - 1}, out[3];
    if (size > 1) {
        MPI_Group_translate_ranks(world, 3, in_ranks, rest, out);
        EXPECT(out[0] == MPI_UNDEFINED && out[1] == MPI_PROC_NULL && out[2] == size - 2);
    }
    MPI_Group *all[] = {&world, &first, &rest, &u, &diff, &ranged};
    for (unsigned i = 0; i < sizeof all / sizeof *all; i++) MPI_Group_free(all[i]);
    check("Group incl/excl/range/union/intersection/...", errors);
}

static void intercommunicators(void) {
    int errors = 0;
    if (size < 2) { check("Intercomm_create/merge, remote group", 0); return; }
    MPI_Comm local, inter, merged;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    /* leaders: world rank 0 (evens) and 1 (odds); peer is COMM_WORLD */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 77, &inter);
    int flag, rs, ls, r;
    MPI_Comm_test_inter(inter, &flag);
    EXPECT(flag == 1);
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm_size(inter, &ls);
    EXPECT(ls + rs == size && ls == (size + (color == 0)) / 2);
    MPI_Group remote;
    MPI_Comm_remote_group(inter, &remote);
    MPI_Group_size(remote, &r);
    EXPECT(r == rs);
    MPI_Group_free(&remote);
    /* an intercommunicator collective: the evens' leader broadcasts to the odds */
    int v = color == 0 && rank == 0 ? 99 : -1;
    int root = color == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(&v, 1, MPI_INT, root, inter);
    if (color == 1) EXPECT(v == 99);
    /* reduce_scatter(_block) on groups of different sizes (np 3: 2 and 1):
     * recvcounts name the local group's processes; each group's result is
     * the remote group's vectors reduced, T = E*O elements long */
    {
        int E = (size + 1) / 2, O = size / 2, T = E * O, mine = color == 0 ? O : E, lrank;
        int counts[64], send[64], recv[64], remote_sum = 0, remote_n = color == 0 ? O : E;
        MPI_Comm_rank(inter, &lrank);
        for (int w = 1 - color; w < size; w += 2) remote_sum += w;
        for (int i = 0; i < ls; i++) counts[i] = mine;
        for (int i = 0; i < T; i++) send[i] = rank * 100 + i;
        for (int form = 0; form < 4; form++) {
            MPI_Request q = MPI_REQUEST_NULL;
            for (int i = 0; i < 64; i++) recv[i] = -1;
            if (form == 0) MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, inter);
            if (form == 1) MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, inter, &q);
            if (form == 2) MPI_Reduce_scatter_block(send, recv, mine, MPI_INT, MPI_SUM, inter);
            if (form == 3) MPI_Ireduce_scatter_block(send, recv, mine, MPI_INT, MPI_SUM, inter, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            for (int k = 0; k < mine; k++) {
                int idx = lrank * mine + k;
                EXPECT(recv[k] == 100 * remote_sum + remote_n * idx);
            }
            EXPECT(recv[mine] == -1);
        }
    }
    MPI_Intercomm_merge(inter, color, &merged);
    MPI_Comm_rank(merged, &r);
    MPI_Comm_size(merged, &ls);
    EXPECT(ls == size);
    EXPECT(color == 0 ? r < (size + 1) / 2 : r >= (size + 1) / 2);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    check("Intercomm_create/merge, remote group", errors);
}

static void alltoallw(void) {
    int errors = 0;
    /* rank r sends one int and one double to each peer, as two typed blocks */
    int n = size, *sc = malloc(n * sizeof(int)), *sd = malloc(n * sizeof(int)), *rc = malloc(n * sizeof(int)), *rd = malloc(n * sizeof(int));
    MPI_Datatype *st = malloc(n * sizeof(MPI_Datatype)), *rt = malloc(n * sizeof(MPI_Datatype));
    double *sbuf = malloc(n * sizeof(double)), *rbuf = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        sbuf[i] = rank * 10.0 + i; rbuf[i] = -1;
        sc[i] = rc[i] = 1; sd[i] = rd[i] = i * (int)sizeof(double);
        st[i] = rt[i] = MPI_DOUBLE;
    }
    for (int nb = 0; nb < 2; nb++) {
        if (nb) {
            MPI_Request r;
            MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD);
        }
        for (int i = 0; i < n; i++) EXPECT(rbuf[i] == i * 10.0 + rank);
    }
    free(sc); free(sd); free(rc); free(rd); free(st); free(rt); free(sbuf); free(rbuf);
    check("Alltoallw / Ialltoallw", errors);
}

static void info_and_memory(void) {
    int errors = 0, flag, n, len;
    MPI_Info info, copy;
    MPI_Info_create(&info);
    MPI_Info_set(info, "color", "blue");
    MPI_Info_set(info, "size", "large");
    MPI_Info_dup(info, &copy);
    MPI_Info_delete(info, "size");
    MPI_Info_get_nkeys(info, &n);
    EXPECT(n == 1);
    MPI_Info_get_nkeys(copy, &n);
    EXPECT(n == 2);
    char key[MPI_MAX_INFO_KEY], val[8];
    MPI_Info_get_nthkey(copy, 1, key);
    EXPECT(strcmp(key, "size") == 0);
    MPI_Info_get_valuelen(copy, "size", &len, &flag);
    EXPECT(flag && len == 5);
    MPI_Info_get(copy, "size", 7, val, &flag); /* (MPICH refuses a valuelen shorter than the value) */
    EXPECT(flag && strcmp(val, "large") == 0);
    MPI_Info_get(info, "size", 7, val, &flag);
    EXPECT(!flag);
    MPI_Info_free(&info);
    MPI_Info_free(&copy);
    EXPECT(info == MPI_INFO_NULL);
    double *mem;
    MPI_Alloc_mem(1000 * sizeof(double), MPI_INFO_NULL, &mem);
    for (int i = 0; i < 1000; i++) mem[i] = i;
    double sum = 0;
    MPI_Allreduce(MPI_IN_PLACE, mem, 1000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 1000; i++) sum += mem[i];
    EXPECT(sum == 499500.0 * size);
    MPI_Free_mem(mem);
    check("Info objects, Alloc_mem/Free_mem", errors);
}

static void environment(void) {
    int errors = 0, v, sv, len, cls, provided, flag;
    MPI_Get_version(&v, &sv);
    EXPECT(v >= 3);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    EXPECT(len > 0 && strlen(lib) > 0);
    EXPECT(MPI_Wtick() > 0 && MPI_Wtick() < 1);
    MPI_Error_class(MPI_ERR_RANK, &cls);
    EXPECT(cls == MPI_ERR_RANK);
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_string(MPI_ERR_TAG, msg, &len);
    EXPECT(len > 0 && (int)strlen(msg) == len);
    MPI_Query_thread(&provided);
    EXPECT(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED || provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE);
    MPI_Is_thread_main(&flag);
    EXPECT(flag == 1);
    EXPECT(MPI_Pcontrol(1) == MPI_SUCCESS);
    check("Get_version, Wtick, Error_class/string, threads", errors);
}

static int class_of(int code) { int c; MPI_Error_class(code, &c); return c; }

static void errors_return(void) {
    int errors = 0, x = 0;
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(c, &eh);
    EXPECT(eh == MPI_ERRORS_RETURN);
    EXPECT(class_of(MPI_Send(&x, 1, MPI_INT, size + 5, 0, c)) == MPI_ERR_RANK);
    EXPECT(class_of(MPI_Send(&x, 1, MPI_INT, 0, -7, c)) == MPI_ERR_TAG);
    EXPECT(class_of(MPI_Send(&x, -1, MPI_INT, 0, 0, c)) == MPI_ERR_COUNT);
    EXPECT(class_of(MPI_Allreduce(&x, &x, 1, MPI_INT, MPI_OP_NULL, c)) == MPI_ERR_OP);
    EXPECT(class_of(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, c)) == MPI_ERR_TYPE);
#ifdef __wasm__
    /* faults a native program cannot survive: handled by the bridge */
    size_t end = __builtin_wasm_memory_size(0) * 65536;
    EXPECT(class_of(MPI_Send((void *)(end - 8), 4, MPI_INT, 0, 0, c)) == MPI_ERR_BUFFER);
    EXPECT(class_of(MPI_Recv((void *)(end - 2), 1, MPI_INT, MPI_PROC_NULL, 0, c, MPI_STATUS_IGNORE)) == MPI_ERR_BUFFER);
    EXPECT(class_of(MPI_Send(&x, 1, (MPI_Datatype)0x7777, 0, 0, c)) == MPI_ERR_TYPE);
    /* an invalid communicator raises the error on MPI_COMM_WORLD */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(class_of(MPI_Barrier((MPI_Comm)0x4321)) == MPI_ERR_COMM);
    MPI_Request bogus = (MPI_Request)0x5555;
    EXPECT(class_of(MPI_Wait(&bogus, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
    MPI_Comm_free(&c);
    check("errors under MPI_ERRORS_RETURN", errors);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    communicators();
    groups();
    intercommunicators();
    alltoallw();
    info_and_memory();
    environment();
    errors_return();
    MPI_Finalize();
    return failures ? 1 : 0;
}
