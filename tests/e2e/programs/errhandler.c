/* Error handlers: the program's own communicator error handler (what it is
 * handed, that the failing call returns), set/get/free, inheritance by
 * Comm_dup, Comm_call_errhandler with a user error code, user error
 * classes/codes/strings, and MPI_ERRORS_RETURN reporting the right class. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int rank, size;

static int calls, last_code, last_class;
static MPI_Comm last_comm;

static void on_error(MPI_Comm *comm, int *code, ...) {
    calls++;
    last_comm = *comm;
    last_code = *code;
    MPI_Error_class(*code, &last_class);
}

static void reset(void) { calls = 0; last_code = last_class = -1; last_comm = MPI_COMM_NULL; }

static int class_of(int code) {
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

static void user_handler(void) {
    int errors = 0, x = rank, y = -1;
    MPI_Errhandler eh, got;
    MPI_Comm c, c2;
    MPI_Comm_create_errhandler(on_error, &eh);
    EXPECT(eh != MPI_ERRHANDLER_NULL && eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, eh);
    reset();
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, c); /* rank == size: invalid */
    EXPECT(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_RANK);
    EXPECT(calls == 1 && last_comm == c && last_class == MPI_ERR_RANK && last_code == rc);
    reset();
    rc = MPI_Recv(&y, 1, MPI_INT, size + 3, 0, c, MPI_STATUS_IGNORE);
    EXPECT(class_of(rc) == MPI_ERR_RANK && calls == 1 && last_comm == c && last_class == MPI_ERR_RANK);
    reset();
    rc = MPI_Send(&x, 1, MPI_INT, 0, -5, c);
    EXPECT(class_of(rc) == MPI_ERR_TAG && calls == 1 && last_class == MPI_ERR_TAG);
    /* the communicator still works */
    reset();
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 1, &y, 1, MPI_INT, (rank + size - 1) % size, 1, c,
                 MPI_STATUS_IGNORE);
    EXPECT(y == (rank + size - 1) % size && calls == 0);
    check("Comm_create_errhandler: invalid rank/tag", errors);

    errors = 0;
    got = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(c, &got);
    EXPECT(got == eh);
    MPI_Errhandler_free(&got);
    EXPECT(got == MPI_ERRHANDLER_NULL);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    EXPECT(got == MPI_ERRORS_ARE_FATAL);
    /* the handler outlives the program's handle to it */
    MPI_Errhandler_free(&eh);
    EXPECT(eh == MPI_ERRHANDLER_NULL);
    reset();
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);
    EXPECT(class_of(rc) == MPI_ERR_RANK && calls == 1 && last_comm == c);
    check("Comm_set/get_errhandler, Errhandler_free", errors);

    errors = 0;
    MPI_Comm_dup(c, &c2);
    MPI_Comm_get_errhandler(c2, &got);
    MPI_Comm_get_errhandler(c, &eh);
    EXPECT(got == eh && got != MPI_ERRORS_ARE_FATAL && got != MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);
    reset();
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, c2);
    EXPECT(class_of(rc) == MPI_ERR_RANK && calls == 1 && last_comm == c2);
    /* replacing it on the dup leaves the original alone */
    MPI_Comm_set_errhandler(c2, MPI_ERRORS_RETURN);
    reset();
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, c2);
    EXPECT(class_of(rc) == MPI_ERR_RANK && calls == 0);
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);
    EXPECT(calls == 1 && last_comm == c);
    check("errhandler inherited by Comm_dup", errors);

    errors = 0;
    int cls, code, code2, cls2, len = -1;
    char msg[MPI_MAX_ERROR_STRING];
    EXPECT(MPI_Add_error_class(&cls) == MPI_SUCCESS);
    EXPECT(MPI_Add_error_code(cls, &code) == MPI_SUCCESS);
    EXPECT(MPI_Add_error_code(cls, &code2) == MPI_SUCCESS);
    MPI_Add_error_class(&cls2);
    EXPECT(cls != MPI_SUCCESS && code != MPI_SUCCESS && code != code2 && cls != cls2 && code != cls);
    /* (not checked: the class of a user class is itself; Open MPI 4.1 says MPI_ERR_UNKNOWN) */
    EXPECT(class_of(code) == cls && class_of(code2) == cls);
    MPI_Add_error_string(code, "custom failure");
    MPI_Add_error_string(cls, "custom class");
    MPI_Error_string(code, msg, &len);
    EXPECT(len == 14 && !strcmp(msg, "custom failure"));
    MPI_Error_string(cls, msg, &len);
    EXPECT(len == 12 && !strcmp(msg, "custom class"));
    MPI_Add_error_string(code, "replaced text");
    MPI_Error_string(code, msg, &len);
    EXPECT(len == 13 && !strcmp(msg, "replaced text"));
    MPI_Error_string(MPI_ERR_RANK, msg, &len);
    EXPECT(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(msg) == len);
    EXPECT(class_of(MPI_ERR_RANK) == MPI_ERR_RANK && class_of(MPI_SUCCESS) == MPI_SUCCESS);
    check("Add_error_class/code/string, Error_string", errors);

    errors = 0;
    reset();
    rc = MPI_Comm_call_errhandler(c, code);
    EXPECT(rc == MPI_SUCCESS);
    EXPECT(calls == 1 && last_comm == c && last_code == code && last_class == cls);
    reset();
    MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
    EXPECT(calls == 1 && last_code == MPI_ERR_OTHER && last_class == MPI_ERR_OTHER);
    reset();
    rc = MPI_Comm_call_errhandler(c2, code2); /* ERRORS_RETURN: the handler is not ours */
    EXPECT(calls == 0);
    check("Comm_call_errhandler (user code)", errors);
    MPI_Comm_free(&c2);
    MPI_Comm_free(&c);
}

static void errors_return(void) {
    int errors = 0, x[4] = {1, 2, 3, 4}, y[4], rc;
    MPI_Comm r;
    MPI_Comm_dup(MPI_COMM_WORLD, &r);
    MPI_Comm_set_errhandler(r, MPI_ERRORS_RETURN);
    MPI_Errhandler got;
    MPI_Comm_get_errhandler(r, &got);
    EXPECT(got == MPI_ERRORS_RETURN);
    rc = MPI_Send(x, 1, MPI_INT, size, 0, r);
    EXPECT(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_RANK);
    rc = MPI_Send(x, 1, MPI_INT, 0, -5, r);
    EXPECT(class_of(rc) == MPI_ERR_TAG);
    rc = MPI_Send(x, -1, MPI_INT, 0, 0, r);
    EXPECT(class_of(rc) == MPI_ERR_COUNT);
    rc = MPI_Send(x, 1, MPI_DATATYPE_NULL, 0, 0, r);
    EXPECT(class_of(rc) == MPI_ERR_TYPE);
    rc = MPI_Bcast(x, 1, MPI_INT, size, r);
    EXPECT(class_of(rc) == MPI_ERR_ROOT);
    rc = MPI_Allreduce(x, y, 1, MPI_INT, MPI_OP_NULL, r);
    EXPECT(class_of(rc) == MPI_ERR_OP);
    /* a real communication error: the message is longer than the buffer */
    MPI_Request sreq;
    MPI_Isend(x, 3, MPI_INT, rank, 7, r, &sreq);
    MPI_Status st;
    rc = MPI_Recv(y, 2, MPI_INT, rank, 7, r, &st);
    EXPECT(class_of(rc) == MPI_ERR_TRUNCATE);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    char msg[MPI_MAX_ERROR_STRING];
    int len = -1;
    MPI_Error_string(rc, msg, &len);
    EXPECT(len > 0 && (int)strlen(msg) == len);
    /* and the communicator still works */
    rc = MPI_Allreduce(x, y, 1, MPI_INT, MPI_SUM, r);
    EXPECT(rc == MPI_SUCCESS && y[0] == size);
    MPI_Comm_free(&r);
    check("MPI_ERRORS_RETURN returns the class", errors);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    user_handler();
    errors_return();
    MPI_Finalize();
    return failures ? 1 : 0;
}
