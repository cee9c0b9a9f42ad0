/* MPI-call fuzzer: argument generators shared by the hand-written runtime
 * (harness.c) and the generated call table (gen_harness.py's output). */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

#include <stdint.h>

#include <mpi.h>

/* One argument of each class; every value is a 32-bit guest word (handles
 * are pointers on wasm32) except g_count64. */
uint32_t g_ptr(void);     /* a buffer, array, string or out-parameter */
uint32_t g_waitreq(void); /* a request array for a call that can block */
uint32_t g_comm(int multi); /* multi: may it have several ranks (see g_comm) */
uint32_t g_type(void);
uint32_t g_group(void);
uint32_t g_group_self(void); /* g_group, but no group of several processes */
uint32_t g_op(void);
uint32_t g_info(void);
uint32_t g_session(void);
uint32_t g_errh(void);    /* never a fatal handler */
uint32_t g_request(void);
int32_t g_int(void);
int32_t g_rank(void);
int32_t g_norank(void);   /* a rank no message can come from or go to */
int32_t g_tag(void);
int32_t g_keyval(void);
uint32_t g_win(void);    /* MPI_WIN_NULL, a window over MPI_COMM_SELF (where the host makes windows), junk */
/* after a call that made a window at guest address `out` (see harness.c) */
void quiet_window(uint32_t out);
uint32_t g_file(void);   /* MPI_FILE_NULL, this rank's own file, junk */
int32_t g_aint(void);
int64_t g_count64(void);
uint32_t g_fn(uint32_t valid); /* a callback: `valid` (the right signature) or junk */
/* the tool interface (MPI_T): pool handles (valid, null, junk) */
uint32_t g_tenum(void);
uint32_t g_cvar(void);          /* handles of variables that cannot be written */
uint32_t g_pvar_session(void);
uint32_t g_pvar(void);          /* of the pool session, MPI_T_PVAR_ALL_HANDLES */
uint32_t g_event_registration(void);
uint32_t g_event_instance(void);
int32_t g_cb_safety(void);

/* Valid callbacks, one per callback type the provided functions take. */
void cb_MPI_User_function(void* in, void* inout, int* len, MPI_Datatype* type);
void cb_MPI_User_function_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* type);
void cb_MPI_Comm_errhandler_function(MPI_Comm* comm, int* code, ...);
void cb_MPI_File_errhandler_function(MPI_File* file, int* code, ...);
void cb_MPI_Win_errhandler_function(MPI_Win* win, int* code, ...);
void cb_MPI_Session_errhandler_function(MPI_Session* session, int* code, ...);
int cb_MPI_Datarep_conversion_function(void* buf, MPI_Datatype type, int count, void* filebuf, MPI_Offset position, void* extra);
int cb_MPI_Datarep_conversion_function_c(void* buf, MPI_Datatype type, MPI_Count count, void* filebuf, MPI_Offset position,
                                         void* extra);
int cb_MPI_Datarep_extent_function(MPI_Datatype type, MPI_Aint* extent, void* extra);
int cb_MPI_Comm_copy_attr_function(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag);
int cb_MPI_Comm_delete_attr_function(MPI_Comm c, int k, void* val, void* extra);
int cb_MPI_Grequest_query_function(void* extra, MPI_Status* status);
int cb_MPI_Grequest_free_function(void* extra);
int cb_MPI_Grequest_cancel_function(void* extra, int complete);
int cb_MPI_Copy_function(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag);
int cb_MPI_Delete_function(MPI_Comm c, int k, void* val, void* extra);
int cb_MPI_Type_copy_attr_function(MPI_Datatype t, int k, void* extra, void* in, void* out, int* flag);
int cb_MPI_Type_delete_attr_function(MPI_Datatype t, int k, void* val, void* extra);
int cb_MPI_Win_copy_attr_function(MPI_Win w, int k, void* extra, void* in, void* out, int* flag);
int cb_MPI_Win_delete_attr_function(MPI_Win w, int k, void* val, void* extra);
void cb_MPI_T_event_cb_function(MPI_T_event_instance i, MPI_T_event_registration r, MPI_T_cb_safety s, void* u);
void cb_MPI_T_event_dropped_cb_function(MPI_Count n, MPI_T_event_registration r, int source, MPI_T_cb_safety s, void* u);
void cb_MPI_T_event_free_cb_function(MPI_T_event_registration r, MPI_T_cb_safety s, void* u);


/* The trace line of a call (printf format, no newline): written straight to
 * fd 2, not through stdio (see vsay in harness.c). */
void trace_call(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* Generated: the call table. */
extern const unsigned fuzz_ncalls;
extern const char* const fuzz_names[];
/* Draws the arguments of provided function `index` and calls it; with
 * `trace`, prints the call first. */
int fuzz_call(unsigned index, int trace);

#endif
