/* MPI-4.0 sessions, one scenario per argument (the same program natively,
 * where the host has sessions, and in wasm):
 *   sessions-only  no MPI_Init: psets, their info, groups from mpi://WORLD
 *                  and mpi://SELF, communicators from them (point-to-point,
 *                  collectives, an intercommunicator from two groups), frees
 *   mixed          sessions inside MPI_Init/MPI_Finalize: the communicator of
 *                  mpi://WORLD is congruent with MPI_COMM_WORLD
 *   errhandler     MPI_ERRORS_RETURN and a user handler on a session, a
 *                  communicator's errhandler argument, Session_call_errhandler
 *   bad-input      an invalid session, pset indices out of range (wasm also:
 *                  a pset name past the guest memory, a garbage handle)
 *   fatal          an error under the default MPI_ERRORS_ARE_FATAL ends the job
 *   trap           rank 1 traps while the others wait on a session's
 *                  communicator: the job ends
 *   info-env       MPI_Info_create_env (the embedder's own: wasm only)
 *   buffer         MPI-4.1 session buffers (hosts of MPI 4.1)
 * Each rank counts its errors; the exit code is non-zero if any. Checks
 * that only the wasm build makes print nothing unless they fail. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
#define EXPECT(cond) \
    do { if (!(cond)) { errors++; fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

static const char *class_name(int code) {
    int c = code;
    if (code != MPI_SUCCESS) MPI_Error_class(code, &c);
#define C(x) if (c == x) return #x;
    C(MPI_SUCCESS) C(MPI_ERR_ARG) C(MPI_ERR_SESSION) C(MPI_ERR_BUFFER) C(MPI_ERR_OTHER) C(MPI_ERR_UNKNOWN)
    C(MPI_ERR_INTERN) C(MPI_ERR_GROUP) C(MPI_ERR_COMM) C(MPI_ERR_INFO) C(MPI_ERR_RANK) C(MPI_ERR_NAME)
    C(MPI_ERR_UNSUPPORTED_OPERATION) C(MPI_ERR_INFO_KEY) C(MPI_ERR_INFO_VALUE) C(MPI_ERR_COUNT)
#undef C
    return "another class";
}

/* Session_init's result: on a host without sessions the test wants the
 * embedder's message, and the job to fail. */
static MPI_Session open_session(MPI_Errhandler eh) {
    MPI_Session s = MPI_SESSION_NULL;
    int rc = MPI_Session_init(MPI_INFO_NULL, eh, &s);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Session_init failed: %s\n", class_name(rc));
        exit(2);
    }
    EXPECT(s != MPI_SESSION_NULL);
    return s;
}

static MPI_Comm comm_of(MPI_Session s, const char *pset, const char *tag, MPI_Errhandler eh) {
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    EXPECT(MPI_Group_from_session_pset(s, pset, &g) == MPI_SUCCESS);
    EXPECT(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, eh, &c) == MPI_SUCCESS);
    MPI_Group_free(&g);
    EXPECT(c != MPI_COMM_NULL);
    return c;
}

/* psets: their names (queried with a zero length first) and sizes */
static void psets(MPI_Session s, int rank, int size) {
    int n = 0;
    EXPECT(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n) == MPI_SUCCESS);
    EXPECT(n >= 2);
    int seen_world = 0, seen_self = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        EXPECT(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL) == MPI_SUCCESS);
        EXPECT(len > 1 && len <= MPI_MAX_PSET_NAME_LEN);
        char name[MPI_MAX_PSET_NAME_LEN];
        memset(name, 'x', sizeof name);
        int room = len;
        EXPECT(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &room, name) == MPI_SUCCESS);
        EXPECT(room == len && (int)strlen(name) == len - 1);
        seen_world += strcmp(name, "mpi://WORLD") == 0;
        seen_self += strcmp(name, "mpi://SELF") == 0;
#ifdef __wasm__
        /* a short buffer: the name cut, NUL-terminated, the size needed back */
        char cut[4];
        room = sizeof cut;
        EXPECT(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &room, cut) == MPI_SUCCESS);
        EXPECT(room == len && strlen(cut) == 3 && strncmp(cut, name, 3) == 0);
#endif
        MPI_Info info;
        EXPECT(MPI_Session_get_pset_info(s, name, &info) == MPI_SUCCESS);
        char value[64] = "";
        int vlen = sizeof value, flag = 0;
        EXPECT(MPI_Info_get_string(info, "mpi_size", &vlen, value, &flag) == MPI_SUCCESS);
        EXPECT(flag);
        if (strcmp(name, "mpi://WORLD") == 0) EXPECT(atoi(value) == size);
        if (strcmp(name, "mpi://SELF") == 0) EXPECT(atoi(value) == 1);
        if (rank == 0 && (strncmp(name, "mpi://", 6) == 0)) printf("pset %s size %s\n", name, value);
        MPI_Info_free(&info);
    }
    EXPECT(seen_world == 1 && seen_self == 1);
}

/* the communicator of mpi://WORLD: ring, allreduce, split into an
 * intercommunicator between even and odd ranks */
static void use_world(MPI_Session s, MPI_Comm world, int expect_size) {
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    EXPECT(size == expect_size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    EXPECT(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, world, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT(got == left);
    int sum = 0;
    EXPECT(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, world) == MPI_SUCCESS);
    EXPECT(sum == size * (size - 1) / 2);
    MPI_Comm dup;
    EXPECT(MPI_Comm_dup(world, &dup) == MPI_SUCCESS);
    EXPECT(MPI_Barrier(dup) == MPI_SUCCESS);
    MPI_Comm_free(&dup);
    if (rank == 0) printf("world communicator: %d ranks, sum of ranks %d\n", size, sum);
    if (size < 2) return;
    MPI_Group wg, even, odd;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &wg);
    int evens[64], odds[64], ne = 0, no = 0;
    for (int r = 0; r < size && r < 128; r++) {
        if (r % 2) odds[no++] = r; else evens[ne++] = r;
    }
    MPI_Group_incl(wg, ne, evens, &even);
    MPI_Group_incl(wg, no, odds, &odd);
    MPI_Comm inter = MPI_COMM_NULL;
    int rc = rank % 2 ? MPI_Intercomm_create_from_groups(odd, 0, even, 0, "org.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter)
                      : MPI_Intercomm_create_from_groups(even, 0, odd, 0, "org.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
    EXPECT(rc == MPI_SUCCESS);
    int remote = 0, flag = 0, in = rank, out = 0;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_remote_size(inter, &remote);
    EXPECT(flag && remote == (rank % 2 ? ne : no));
    /* each side gets the sum of the other side's ranks */
    EXPECT(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS);
    int other = 0;
    for (int r = 0; r < size; r++) other += r % 2 != rank % 2 ? r : 0;
    EXPECT(out == other);
    if (rank == 0) printf("intercommunicator: remote size %d, remote sum %d\n", remote, out);
    MPI_Comm_free(&inter);
    MPI_Group_free(&even);
    MPI_Group_free(&odd);
    MPI_Group_free(&wg);
}

static int sessions_only(void) {
    int flag = -1;
    MPI_Initialized(&flag);
    EXPECT(flag == 0);
    MPI_Session s = open_session(MPI_ERRORS_RETURN);
    MPI_Comm world = comm_of(s, "mpi://WORLD", "org.test.world", MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    psets(s, rank, size);
    MPI_Group g;
    EXPECT(MPI_Group_from_session_pset(s, "mpi://SELF", &g) == MPI_SUCCESS);
    int gsize = 0, grank = -1;
    MPI_Group_size(g, &gsize);
    MPI_Group_rank(g, &grank);
    EXPECT(gsize == 1 && grank == 0);
    MPI_Comm self;
    EXPECT(MPI_Comm_create_from_group(g, "org.test.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &self) == MPI_SUCCESS);
    MPI_Group_free(&g);
    int one = 1, total = 0;
    EXPECT(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, self) == MPI_SUCCESS && total == 1);
    MPI_Comm_free(&self);
    /* the empty group makes no communicator, locally */
    MPI_Comm none = MPI_COMM_WORLD;
    EXPECT(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "org.test.empty", MPI_INFO_NULL, MPI_ERRORS_RETURN, &none) == MPI_SUCCESS);
    EXPECT(none == MPI_COMM_NULL);
    use_world(s, world, size);
    MPI_Info used;
    EXPECT(MPI_Session_get_info(s, &used) == MPI_SUCCESS);
    EXPECT(used != MPI_INFO_NULL);
    MPI_Info_free(&used);
    /* a second session at the same time */
    MPI_Session s2 = open_session(MPI_ERRORS_RETURN);
    MPI_Comm w2 = comm_of(s2, "mpi://WORLD", "org.test.world2", MPI_ERRORS_RETURN);
    EXPECT(MPI_Barrier(w2) == MPI_SUCCESS);
    MPI_Comm_free(&w2);
    EXPECT(MPI_Session_finalize(&s2) == MPI_SUCCESS && s2 == MPI_SESSION_NULL);
    EXPECT(MPI_Barrier(world) == MPI_SUCCESS);
    MPI_Comm_free(&world);
    EXPECT(MPI_Session_finalize(&s) == MPI_SUCCESS);
    EXPECT(s == MPI_SESSION_NULL);
    flag = -1;
    MPI_Initialized(&flag);
    EXPECT(flag == 0);
    if (rank == 0) printf("sessions-only %s\n", errors ? "FAILED" : "ok");
    return errors != 0;
}

static int mixed(void) {
    MPI_Init(NULL, NULL);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Session s = open_session(MPI_ERRORS_RETURN);
    MPI_Comm world = comm_of(s, "mpi://WORLD", "org.test.mixed", MPI_ERRORS_RETURN);
    /* the same processes in the same order as MPI_COMM_WORLD (Open MPI 5
     * fails MPI_Comm_compare across the two models: groups are compared) */
    MPI_Group g1, g2;
    MPI_Comm_group(world, &g1);
    MPI_Comm_group(MPI_COMM_WORLD, &g2);
    int result = -1;
    EXPECT(MPI_Group_compare(g1, g2, &result) == MPI_SUCCESS);
    EXPECT(result == MPI_IDENT);
    MPI_Group_free(&g1);
    MPI_Group_free(&g2);
    if (rank == 0) printf("its group and MPI_COMM_WORLD's: %s\n", result == MPI_IDENT ? "identical" : "different");
    use_world(s, world, size);
    /* MPI_COMM_WORLD and the session's communicator side by side */
    int a = rank, b = 0;
    EXPECT(MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS && b == size - 1);
    MPI_Comm_free(&world);
    EXPECT(MPI_Session_finalize(&s) == MPI_SUCCESS);
    /* a session opened after the first one was finalized */
    MPI_Session s2 = open_session(MPI_ERRORS_RETURN);
    MPI_Comm w2 = comm_of(s2, "mpi://WORLD", "org.test.mixed2", MPI_ERRORS_RETURN);
    EXPECT(MPI_Barrier(w2) == MPI_SUCCESS);
    MPI_Comm_free(&w2);
    EXPECT(MPI_Session_finalize(&s2) == MPI_SUCCESS);
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("mixed %s\n", total ? "FAILED" : "ok");
    MPI_Finalize();
    return errors != 0;
}

static int handler_calls, handler_code;
static MPI_Session handler_session;
static void on_session_error(MPI_Session *s, int *code, ...) {
    handler_calls++;
    handler_session = *s;
    handler_code = *code;
}

static int comm_handler_calls;
static void on_comm_error(MPI_Comm *c, int *code, ...) {
    (void)c, (void)code;
    comm_handler_calls++;
}

static int errhandler(void) {
    MPI_Session s = open_session(MPI_ERRORS_RETURN);
    MPI_Comm world = comm_of(s, "mpi://WORLD", "org.test.eh", MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(world, &rank);
    /* MPI_ERRORS_RETURN: the error comes back */
    MPI_Group g = MPI_GROUP_NULL;
    int rc = MPI_Group_from_session_pset(s, "mpi://no-such-pset", &g);
    EXPECT(rc != MPI_SUCCESS);
    if (rank == 0) printf("unknown pset with MPI_ERRORS_RETURN: %s\n", rc == MPI_SUCCESS ? "no error" : "an error");
    MPI_Errhandler got = MPI_ERRHANDLER_NULL;
    EXPECT(MPI_Session_get_errhandler(s, &got) == MPI_SUCCESS && got == MPI_ERRORS_RETURN);
    /* a user handler: called with the session and the code */
    MPI_Errhandler eh;
    EXPECT(MPI_Session_create_errhandler(on_session_error, &eh) == MPI_SUCCESS);
    EXPECT(MPI_Session_set_errhandler(s, eh) == MPI_SUCCESS);
    got = MPI_ERRHANDLER_NULL;
    EXPECT(MPI_Session_get_errhandler(s, &got) == MPI_SUCCESS && got == eh);
    MPI_Errhandler_free(&got);
    rc = MPI_Group_from_session_pset(s, "mpi://no-such-pset", &g);
    EXPECT(rc != MPI_SUCCESS);
    EXPECT(handler_calls == 1);
    EXPECT(handler_session == s);
    EXPECT(!strcmp(class_name(handler_code), class_name(rc)));
    EXPECT(MPI_Session_call_errhandler(s, MPI_ERR_OTHER) == MPI_SUCCESS);
    EXPECT(handler_calls == 2 && handler_code == MPI_ERR_OTHER);
    if (rank == 0) printf("session handler: %d calls, last %s\n", handler_calls, class_name(handler_code));
    EXPECT(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    /* the handler stays with the session until replaced */
    MPI_Session_call_errhandler(s, MPI_ERR_ARG);
    EXPECT(handler_calls == 3);
    EXPECT(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    MPI_Session_call_errhandler(s, MPI_ERR_ARG);
    EXPECT(handler_calls == 3);
    /* a communicator's errhandler argument is its handler */
    MPI_Errhandler ceh;
    MPI_Comm_create_errhandler(on_comm_error, &ceh);
    MPI_Comm c = comm_of(s, "mpi://WORLD", "org.test.eh2", ceh);
    MPI_Errhandler_free(&ceh);
    int size;
    MPI_Comm_size(c, &size);
    int x = 0;
    rc = MPI_Send(&x, -1, MPI_INT, 0, 0, c);
    EXPECT(rc != MPI_SUCCESS);
    EXPECT(comm_handler_calls == 1);
    MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
    EXPECT(comm_handler_calls == 2);
    if (rank == 0) printf("communicator handler: %d calls, send of a negative count: %s\n", comm_handler_calls, class_name(rc));
    MPI_Comm_free(&c);
    MPI_Comm_free(&world);
    EXPECT(MPI_Session_finalize(&s) == MPI_SUCCESS);
    if (rank == 0) printf("errhandler %s\n", errors ? "FAILED" : "ok");
    return errors != 0;
}

static int bad_input(void) {
    MPI_Init(NULL, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = -1;
    int rc = MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n);
    EXPECT(rc != MPI_SUCCESS);
    if (rank == 0) printf("MPI_SESSION_NULL: %s\n", class_name(rc));
    MPI_Session s = open_session(MPI_ERRORS_RETURN);
    EXPECT(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n) == MPI_SUCCESS);
    int len = 0;
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &len, NULL);
    EXPECT(rc != MPI_SUCCESS);
    if (rank == 0) printf("pset index n: %s\n", class_name(rc));
    len = 0;
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, NULL);
    EXPECT(rc != MPI_SUCCESS);
    if (rank == 0) printf("pset index -1: %s\n", class_name(rc));
#ifdef __wasm__
    /* the embedder's own checks (natively these crash or read garbage) */
    MPI_Group g;
    char *end = (char *)(__builtin_wasm_memory_size(0) * 65536), *past = end + 64;
    end[-2] = 'a', end[-1] = 'b'; /* a name that runs out of the memory */
    EXPECT(MPI_Group_from_session_pset(s, end - 2, &g) == MPI_ERR_BUFFER);
    EXPECT(MPI_Group_from_session_pset(s, past, &g) == MPI_ERR_BUFFER);
    EXPECT(MPI_Session_get_pset_info(s, past, NULL) == MPI_ERR_BUFFER);
    char longname[MPI_MAX_PSET_NAME_LEN + 8];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    EXPECT(MPI_Group_from_session_pset(s, longname, &g) == MPI_ERR_ARG);
    MPI_Session bogus = (MPI_Session)(intptr_t)0x12345;
    EXPECT(MPI_Session_get_num_psets(bogus, MPI_INFO_NULL, &n) == MPI_ERR_SESSION);
    EXPECT(MPI_Session_finalize(&bogus) == MPI_ERR_SESSION);
    len = 0;
    EXPECT(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, past) == MPI_SUCCESS);
    len = 8;
    EXPECT(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, past) == MPI_ERR_BUFFER);
    EXPECT(MPI_Session_set_errhandler(s, (MPI_Errhandler)(intptr_t)0x777) == MPI_ERR_ARG);
    MPI_Group wg;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &wg);
    MPI_Comm c = MPI_COMM_NULL;
    EXPECT(MPI_Intercomm_create_from_groups(wg, 0, wg, 99, "org.test.bad", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_ERR_RANK);
    /* groups that are not disjoint, and a local group without this process:
     * Open MPI 5 and MPICH 5 crash natively */
    MPI_Group self, others;
    int size;
    MPI_Group_size(wg, &size);
    MPI_Group_incl(wg, 1, &rank, &self);
    MPI_Group_excl(wg, 1, &rank, &others);
    EXPECT(MPI_Intercomm_create_from_groups(wg, 0, self, 0, "org.test.bad", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_ERR_GROUP);
    EXPECT(MPI_Intercomm_create_from_groups(self, 0, self, 0, "org.test.bad", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_ERR_GROUP);
    if (size > 1)
        EXPECT(MPI_Intercomm_create_from_groups(others, 0, self, 0, "org.test.bad", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_ERR_GROUP);
    EXPECT(c == MPI_COMM_NULL);
    MPI_Group_free(&self);
    MPI_Group_free(&others);
    MPI_Group_free(&wg);
#endif
    EXPECT(MPI_Session_finalize(&s) == MPI_SUCCESS);
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("bad-input %s\n", total ? "FAILED" : "ok");
    MPI_Finalize();
    return errors != 0;
}

static int fatal(void) {
    MPI_Session s = open_session(MPI_ERRORS_ARE_FATAL);
    MPI_Group g;
    MPI_Group_from_session_pset(s, "mpi://no-such-pset", &g);
    printf("survived an error under MPI_ERRORS_ARE_FATAL\n");
    return 1;
}

static int trap(void) {
    MPI_Session s = open_session(MPI_ERRORS_RETURN);
    MPI_Comm world = comm_of(s, "mpi://WORLD", "org.test.trap", MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(world, &rank);
    MPI_Barrier(world);
    if (rank == 1) __builtin_trap();
    MPI_Barrier(world); /* the others wait here for rank 1 */
    printf("rank %d passed the barrier\n", rank);
    return 1;
}

#ifdef __wasm__
static int info_env(int argc, char **argv) {
    MPI_Session s = open_session(MPI_ERRORS_RETURN);
    MPI_Comm world = comm_of(s, "mpi://WORLD", "org.test.env", MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    MPI_Info info;
    EXPECT(MPI_Info_create_env(argc, argv, &info) == MPI_SUCCESS);
    char v[256];
    int len, flag;
#define GET(key) (len = sizeof v, flag = 0, MPI_Info_get_string(info, key, &len, v, &flag), flag)
    EXPECT(GET("command") && strcmp(v, argv[0]) == 0);
    EXPECT(GET("argv") && strcmp(v, "info-env two words") == 0);
    EXPECT(GET("maxprocs") && atoi(v) == size);
    EXPECT(GET("soft") && atoi(v) == size);
    EXPECT(GET("thread_level") && strcmp(v, "MPI_THREAD_SINGLE") == 0);
    EXPECT(GET("host") && len > 1);
    EXPECT(GET("arch") && len > 1);
    EXPECT(!GET("wdir"));
    MPI_Info_free(&info);
    EXPECT(MPI_Info_create_env(0, NULL, &info) == MPI_SUCCESS);
    EXPECT(!GET("command") && !GET("argv") && GET("maxprocs"));
    MPI_Info_free(&info);
    /* and with MPI_Init too (hosts crash in an MPI_Init after the last
     * session was finalized, natively too) */
    MPI_Init(NULL, NULL);
    EXPECT(MPI_Info_create_env(1, argv, &info) == MPI_SUCCESS);
    EXPECT(GET("command") && strcmp(v, argv[0]) == 0 && !GET("argv"));
    EXPECT(GET("maxprocs") && atoi(v) == size);
    MPI_Info_free(&info);
    /* no handle: the error goes to MPI_COMM_WORLD's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Info_create_env(-1, NULL, &info) == MPI_ERR_ARG);
    /* an argc of 2^31 - 1: the array runs past the memory */
    info = MPI_INFO_NULL;
    EXPECT(MPI_Info_create_env(0x7fffffff, argv, &info) == MPI_ERR_BUFFER && info == MPI_INFO_NULL);
    /* a million arguments: "argv" keeps what an info value holds */
    {
        int many = 1 << 20;
        char **list = malloc(many * sizeof *list);
        for (int i = 0; i < many; i++) list[i] = "x";
        EXPECT(MPI_Info_create_env(many, list, &info) == MPI_SUCCESS);
        EXPECT(GET("argv") && len > 200 && strncmp(v, "x x x", 5) == 0);
        MPI_Info_free(&info);
        free(list);
    }
    MPI_Comm_free(&world);
    MPI_Session_finalize(&s);
    MPI_Finalize();
    if (rank == 0) printf("info-env %s\n", errors ? "FAILED" : "ok");
    return errors != 0;
}

static int info_env_world(int argc, char **argv) {
    /* the world model alone: every host (Open MPI 4.1 has no sessions) */
    MPI_Init(NULL, NULL);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    EXPECT(MPI_Info_create_env(argc, argv, &info) == MPI_SUCCESS);
    char v[256];
    int len, flag;
    EXPECT(GET("command") && strcmp(v, argv[0]) == 0);
    EXPECT(GET("argv") && strcmp(v, "info-env-world") == 0);
    EXPECT(GET("maxprocs") && atoi(v) == size);
    MPI_Info_free(&info);
    MPI_Finalize();
    if (rank == 0) printf("info-env-world %s\n", errors ? "FAILED" : "ok");
    return errors != 0;
}
#endif

#if defined(MPI_ABI_VERSION) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
/* MPI-4.1 session buffers: MPI_Bsend on the session's communicators */
static int buffer(void) {
    MPI_Session s = open_session(MPI_ERRORS_RETURN);
    MPI_Comm world = comm_of(s, "mpi://WORLD", "org.test.buffer", MPI_ERRORS_RETURN);
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    static char buf[4096];
    int rc = MPI_Session_attach_buffer(s, buf, sizeof buf);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Session_attach_buffer failed: %s\n", class_name(rc));
        exit(2);
    }
    EXPECT(MPI_Session_attach_buffer(s, buf, sizeof buf) != MPI_SUCCESS); /* once */
    int x = rank * 10, got = -1;
    EXPECT(MPI_Bsend(&x, 1, MPI_INT, (rank + 1) % size, 3, world) == MPI_SUCCESS);
    EXPECT(MPI_Recv(&got, 1, MPI_INT, (rank + size - 1) % size, 3, world, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT(got == (rank + size - 1) % size * 10);
    EXPECT(MPI_Session_flush_buffer(s) == MPI_SUCCESS);
    MPI_Request r = MPI_REQUEST_NULL;
    EXPECT(MPI_Session_iflush_buffer(s, &r) == MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    void *addr = NULL;
    int n = 0;
    EXPECT(MPI_Session_detach_buffer(s, &addr, &n) == MPI_SUCCESS);
    EXPECT(addr == buf && n == (int)sizeof buf);
    MPI_Count nc = 0;
    EXPECT(MPI_Session_attach_buffer_c(s, buf, 1000) == MPI_SUCCESS);
    EXPECT(MPI_Session_detach_buffer_c(s, &addr, &nc) == MPI_SUCCESS);
    EXPECT(addr == buf && nc == 1000);
    /* another session's flush still pending (a rendezvous-sized message to
     * itself not yet received) when this session's buffer is detached:
     * the detach completes its own session's flushes only */
    MPI_Session t = open_session(MPI_ERRORS_RETURN);
    MPI_Comm self = comm_of(t, "mpi://SELF", "org.test.buffer.self", MPI_ERRORS_RETURN);
    static char tbuf[(1 << 18) + 4096];
    static int big[1 << 16], back[1 << 16];
    for (int i = 0; i < 1 << 16; i++) big[i] = i;
    EXPECT(MPI_Session_attach_buffer(t, tbuf, sizeof tbuf) == MPI_SUCCESS);
    EXPECT(MPI_Bsend(big, 1 << 16, MPI_INT, 0, 4, self) == MPI_SUCCESS);
    MPI_Request pending = MPI_REQUEST_NULL;
    EXPECT(MPI_Session_iflush_buffer(t, &pending) == MPI_SUCCESS);
    EXPECT(MPI_Session_attach_buffer(s, buf, sizeof buf) == MPI_SUCCESS);
    EXPECT(MPI_Session_detach_buffer(s, &addr, &n) == MPI_SUCCESS);
    EXPECT(MPI_Recv(back, 1 << 16, MPI_INT, 0, 4, self, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT(back[12345] == 12345 && back[(1 << 16) - 1] == (1 << 16) - 1);
    EXPECT(MPI_Wait(&pending, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    EXPECT(MPI_Session_detach_buffer(t, &addr, &n) == MPI_SUCCESS);
    EXPECT(addr == tbuf && n == (int)sizeof tbuf);
    MPI_Comm_free(&self);
    EXPECT(MPI_Session_finalize(&t) == MPI_SUCCESS);
    MPI_Comm_free(&world);
    EXPECT(MPI_Session_finalize(&s) == MPI_SUCCESS);
    if (rank == 0) printf("buffer %s\n", errors ? "FAILED" : "ok");
    return errors != 0;
}

/* A session finalized with its buffer's flush not completed (erroneous:
 * its requests must complete first), then a new session (which may get the
 * same handle) flushing and detaching a buffer of its own; the old flush
 * request waited on last. MPICH 5 frees the flush's state at the session's
 * finalize and reads it at the next detach or wait (natively too). */
static int buffer_finalized(void) {
    MPI_Session keep = open_session(MPI_ERRORS_RETURN); /* MPI stays up */
    static char ubuf[4096], vbuf[4096];
    /* a few rounds: what the host reads then is freed memory or by now
     * someone else's, which does not always crash it */
    for (int round = 0; round < 20; round++) {
        void *addr = NULL;
        int n = 0;
        MPI_Request left = MPI_REQUEST_NULL, flush = MPI_REQUEST_NULL;
        MPI_Session u = open_session(MPI_ERRORS_RETURN);
        EXPECT(MPI_Session_attach_buffer(u, ubuf, sizeof ubuf) == MPI_SUCCESS);
        EXPECT(MPI_Session_iflush_buffer(u, &left) == MPI_SUCCESS);
        EXPECT(MPI_Session_finalize(&u) == MPI_SUCCESS);
        MPI_Session v = open_session(MPI_ERRORS_RETURN);
        EXPECT(MPI_Session_attach_buffer(v, vbuf, sizeof vbuf) == MPI_SUCCESS);
        EXPECT(MPI_Session_iflush_buffer(v, &flush) == MPI_SUCCESS);
        EXPECT(MPI_Session_detach_buffer(v, &addr, &n) == MPI_SUCCESS);
        EXPECT(addr == vbuf && n == (int)sizeof vbuf);
        EXPECT(MPI_Wait(&left, MPI_STATUS_IGNORE) == MPI_SUCCESS && left == MPI_REQUEST_NULL);
        EXPECT(MPI_Wait(&flush, MPI_STATUS_IGNORE) == MPI_SUCCESS && flush == MPI_REQUEST_NULL);
        EXPECT(MPI_Session_finalize(&v) == MPI_SUCCESS);
    }
    EXPECT(MPI_Session_finalize(&keep) == MPI_SUCCESS);
    printf("buffer-finalized %s\n", errors ? "FAILED" : "ok");
    return errors != 0;
}
#endif

/* MPI_Init after the last session is finalized: the host libraries crash
 * there natively (MPICH 4.0.2, Open MPI 5); the embedder refuses it */
static int init_after_sessions(int argc, char **argv) {
    MPI_Session s;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    MPI_Session_finalize(&s);
    printf("sessions finalized\n");
    fflush(stdout);
    MPI_Init(&argc, &argv);
    printf("survived MPI_Init\n");
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "init-after-sessions")) return init_after_sessions(argc, argv);
    if (!strcmp(what, "sessions-only")) return sessions_only();
    if (!strcmp(what, "mixed")) return mixed();
    if (!strcmp(what, "errhandler")) return errhandler();
    if (!strcmp(what, "bad-input")) return bad_input();
    if (!strcmp(what, "fatal")) return fatal();
    if (!strcmp(what, "trap")) return trap();
#if defined(MPI_ABI_VERSION) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    if (!strcmp(what, "buffer")) return buffer();
    if (!strcmp(what, "buffer-finalized")) return buffer_finalized();
#endif
#ifdef __wasm__
    if (!strcmp(what, "info-env")) return info_env(argc, argv);
    if (!strcmp(what, "info-env-world")) return info_env_world(argc, argv);
#endif
    fprintf(stderr, "unknown scenario %s\n", what);
    return 2;
}
