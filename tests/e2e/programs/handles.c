/* Handle and status transfer: MPI_<T>_c2f/_f2c round trips give handles that
 * work in later calls, and MPI_Status_c2f/_f2c keep source, tag and count.
 * The MPI-4 status forms (MPI_F08_status) and the MPI-5 ABI's toint/fromint
 * are checked where the header has them. */
#include <string.h>

#include "check.h"

/* Fortran handle and status conversion: in every MPI's mpi.h and the
 * guest's, not in a native MPI-5 standard ABI header */
#if defined(MPIWASM_MPI_H_INCLUDED) || !defined(MPI_ABI_VERSION)
#define HAVE_FORTRAN_INTEROP
#endif

#ifdef HAVE_FORTRAN_INTEROP
static void add_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}
#endif

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, errors;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    (void)right, (void)left;

#ifdef HAVE_FORTRAN_INTEROP
    errors = 0;
    MPI_Comm dup, back;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Fint fdup = MPI_Comm_c2f(dup);
    back = MPI_Comm_f2c(fdup);
    EXPECT(back == dup);
    EXPECT(fdup != MPI_Comm_c2f(MPI_COMM_WORLD));
    EXPECT(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
    EXPECT(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL);
    int n = -1, sum = 0;
    MPI_Comm_size(back, &n);
    EXPECT(n == size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_Comm_f2c(fdup));
    EXPECT(sum == size * (size - 1) / 2);
    check("Comm_c2f / Comm_f2c", errors);

    errors = 0;
    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_commit(&triple);
    MPI_Datatype t = MPI_Type_f2c(MPI_Type_c2f(triple));
    EXPECT(t == triple);
    int tsize = 0;
    MPI_Type_size(t, &tsize);
    EXPECT(tsize == 3 * (int)sizeof(int));
    EXPECT(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE);
    EXPECT(MPI_Type_f2c(MPI_Type_c2f(MPI_DATATYPE_NULL)) == MPI_DATATYPE_NULL);
    int out[3] = {rank, rank * 10, rank * 100}, in[3] = {-1, -1, -1};
    MPI_Status st;
    MPI_Sendrecv(out, 1, t, right, 7, in, 1, MPI_Type_f2c(MPI_Type_c2f(triple)), left, 7, dup, &st);
    EXPECT(in[0] == left && in[1] == left * 10 && in[2] == left * 100);
    check("Type_c2f / Type_f2c", errors);

    errors = 0;
    MPI_Fint fstat[16];
    MPI_Status restored;
    memset(&restored, 0xff, sizeof restored);
    EXPECT(MPI_Status_c2f(&st, fstat) == MPI_SUCCESS);
    EXPECT(MPI_Status_f2c(fstat, &restored) == MPI_SUCCESS);
    EXPECT(restored.MPI_SOURCE == left && restored.MPI_TAG == 7);
    int count = -1;
    MPI_Get_count(&restored, MPI_INT, &count);
    EXPECT(count == 3);
#ifdef MPI_F_SOURCE
    EXPECT(fstat[MPI_F_SOURCE] == left && fstat[MPI_F_TAG] == 7);
#endif
    check("Status_c2f / Status_f2c", errors);

    errors = 0;
    MPI_Request req;
    int token = -1, mine = rank + 1000;
    MPI_Irecv(&token, 1, MPI_INT, left, 8, dup, &req);
    MPI_Fint freq = MPI_Request_c2f(req);
    MPI_Send(&mine, 1, MPI_INT, right, 8, dup);
    MPI_Request r = MPI_Request_f2c(freq);
    EXPECT(r == req);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(token == left + 1000 && r == MPI_REQUEST_NULL);
    EXPECT(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
    check("Request_c2f / Request_f2c", errors);

    errors = 0;
    MPI_Request sent;
    MPI_Isend(&mine, 1, MPI_INT, right, 9, dup, &sent);
    MPI_Message msg;
    MPI_Mprobe(left, 9, dup, &msg, MPI_STATUS_IGNORE);
    MPI_Message m = MPI_Message_f2c(MPI_Message_c2f(msg));
    EXPECT(m == msg);
    token = -1;
    MPI_Mrecv(&token, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    MPI_Wait(&sent, MPI_STATUS_IGNORE);
    EXPECT(token == left + 1000 && m == MPI_MESSAGE_NULL);
    EXPECT(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL);
    check("Message_c2f / Message_f2c", errors);

    errors = 0;
    MPI_Op op;
    MPI_Op_create(add_ints, 1, &op);
    MPI_Op o = MPI_Op_f2c(MPI_Op_c2f(op));
    EXPECT(o == op);
    sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, o, dup);
    EXPECT(sum == size * (size - 1) / 2);
    EXPECT(MPI_Op_f2c(MPI_Op_c2f(MPI_MAX)) == MPI_MAX);
    MPI_Op_free(&op);
    check("Op_c2f / Op_f2c", errors);

    errors = 0;
    MPI_Group world_group, g;
    MPI_Comm_group(dup, &world_group);
    g = MPI_Group_f2c(MPI_Group_c2f(world_group));
    EXPECT(g == world_group);
    n = -1;
    MPI_Group_size(g, &n);
    EXPECT(n == size);
    EXPECT(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY);
    MPI_Group_free(&world_group);
    check("Group_c2f / Group_f2c", errors);

    errors = 0;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "color", "blue");
    MPI_Info i2 = MPI_Info_f2c(MPI_Info_c2f(info));
    EXPECT(i2 == info);
    char value[16] = "";
    int flag = 0;
    MPI_Info_get(i2, "color", sizeof value - 1, value, &flag);
    EXPECT(flag && strcmp(value, "blue") == 0);
    EXPECT(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL);
    MPI_Info_free(&info);
    check("Info_c2f / Info_f2c", errors);

    errors = 0;
    MPI_Errhandler eh = MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN));
    EXPECT(eh == MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(dup, eh);
    EXPECT(MPI_Send(&mine, 1, MPI_INT, size + 5, 0, dup) != MPI_SUCCESS);
    EXPECT(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL);
    EXPECT(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL);
    check("Errhandler, Win, File c2f / f2c", errors);

    MPI_Type_free(&triple);
    MPI_Comm_free(&dup);
#endif /* HAVE_FORTRAN_INTEROP */

#if defined(HAVE_FORTRAN_INTEROP) && defined(MPI_F08_STATUS_IGNORE)
    errors = 0;
    MPI_F08_status f08;
    MPI_Fint f77[16];
    MPI_Status c;
    memset(&c, 0xff, sizeof c);
    EXPECT(MPI_Status_c2f08(&st, &f08) == MPI_SUCCESS);
    EXPECT(f08.MPI_SOURCE == left && f08.MPI_TAG == 7);
    EXPECT(MPI_Status_f082f(&f08, f77) == MPI_SUCCESS);
    EXPECT(MPI_Status_f2f08(f77, &f08) == MPI_SUCCESS);
    EXPECT(MPI_Status_f082c(&f08, &c) == MPI_SUCCESS);
    count = -1;
    MPI_Get_count(&c, MPI_INT, &count);
    EXPECT(c.MPI_SOURCE == left && c.MPI_TAG == 7 && count == 3);
    EXPECT(MPI_Status_c2f(MPI_STATUS_IGNORE, f77) != MPI_SUCCESS);
    EXPECT(MPI_Session_f2c(MPI_Session_c2f(MPI_SESSION_NULL)) == MPI_SESSION_NULL);
    check("Status c2f08 / f082c / f082f / f2f08", errors);
#endif
#ifdef MPI_ABI_VERSION
    errors = 0;
    MPI_Comm dup2;
    MPI_Datatype pair;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    EXPECT(MPI_Comm_toint(MPI_COMM_WORLD) == 257 && MPI_Comm_fromint(MPI_Comm_toint(dup2)) == dup2);
    int as_int = MPI_Type_toint(pair); /* a user handle: outside the predefined range */
    EXPECT((as_int < 0 || as_int >= 4096) && MPI_Type_fromint(as_int) == pair);
    MPI_Type_free(&pair);
    MPI_Comm_free(&dup2);
    check("ABI toint / fromint", errors);
#endif

    MPI_Finalize();
    return failures != 0;
}
