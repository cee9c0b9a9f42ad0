"""Every MPI function the embedder provides, listed once: its family and
whether the generator derives it from its parameters (`gen_bridge.py`) or it
is written by hand (then: the Rust function in that family's module).

From this table come the registration of every import, the inventory
(`embedder inspect --provided`), and the wasm signature each hand-written
function must have (checked by a unit test against the guest mpi.h). The host
function table (`gen_host_fns.py`) covers every function of the header.
"""

# generated: family -> functions (without the MPI_ prefix)
P2P = """Send Bsend Ssend Rsend Isend Ibsend Issend Irsend Recv Irecv Sendrecv Sendrecv_replace
Probe Iprobe Mprobe Improbe Mrecv Imrecv Send_init Bsend_init Ssend_init Rsend_init Recv_init
Test_cancelled Get_count Get_elements Get_elements_x Status_set_elements
Status_set_elements_x Status_set_cancelled""".split()
COLL = """Barrier Bcast Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall Alltoallv
Reduce Allreduce Reduce_local Reduce_scatter Reduce_scatter_block Scan Exscan""".split()
COLL += ["I" + c.lower() if c == "Barrier" else "I" + c.lower() for c in COLL if c != "Reduce_local"]
COMM = """Comm_size Comm_group Comm_dup Comm_dup_with_info Comm_create
Comm_create_group Comm_split Comm_split_type Comm_compare Comm_test_inter Comm_remote_size
Comm_remote_group Intercomm_create Intercomm_merge Comm_set_info Comm_get_info""".split()
GROUP = """Group_size Group_rank Group_incl Group_excl Group_range_incl Group_range_excl Group_union
Group_intersection Group_difference Group_compare""".split()
# Neighbourhood collectives (Neighbor_alltoallw, with its MPI_Aint and
# datatype arrays, is written by hand in coll.rs).
NEIGHBOR = "Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall Neighbor_alltoallv".split()
NEIGHBOR += ["I" + c.lower() for c in NEIGHBOR]
# MPI-4.0: large-count forms of those with scalar counts, persistent forms
NEIGHBOR += [c + "_c" for c in NEIGHBOR if not c.endswith("v")]
NEIGHBOR += [c + "_init" for c in "Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall Neighbor_alltoallv".split()]
NEIGHBOR += [c + "_c" for c in "Neighbor_allgatherv Neighbor_alltoallv Ineighbor_allgatherv Ineighbor_alltoallv".split()]
NEIGHBOR += [c + "_init_c" for c in "Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall Neighbor_alltoallv".split()]
TOPO = """Dims_create Cart_create Cart_get Cart_rank Cart_coords Cart_shift Cart_sub Cart_map
Cartdim_get Graph_create Graph_get Graph_neighbors Graph_neighbors_count Graph_map Graphdims_get
Dist_graph_create Dist_graph_create_adjacent Dist_graph_neighbors Dist_graph_neighbors_count
Topo_test""".split() + NEIGHBOR

# MPI-4.0: large-count forms (`_c`, MPI_Count counts) of the functions whose
# counts are scalars, MPI_Isendrecv(_replace), and persistent collectives
# (`_init`). The host MPI may lack them (Open MPI 4.1 does): a call then
# fails with MPI_ERR_UNSUPPORTED_OPERATION, and `embedder inspect --provided`
# says `host: NO`.
P2P += "Isendrecv Isendrecv_replace".split()
# partitioned communication (MPI-4.0)
P2P += "Psend_init Precv_init Pready Pready_range Pready_list Parrived".split()
# MPI-4.1: flushing attached buffers (attaching is hand-written, attached.rs)
P2P += "Buffer_flush Buffer_iflush Comm_flush_buffer Comm_iflush_buffer".split()
P2P += [f + "_c" for f in """Send Bsend Ssend Rsend Isend Ibsend Issend Irsend Recv Irecv Sendrecv
Sendrecv_replace Isendrecv Isendrecv_replace Mrecv Imrecv Send_init Bsend_init Ssend_init Rsend_init
Recv_init Get_count Get_elements Status_set_elements""".split()]
SCALAR_COLL = """Bcast Gather Scatter Allgather Alltoall Reduce Allreduce Reduce_scatter_block Scan
Exscan""".split()
COLL += [c + "_c" for c in SCALAR_COLL + ["Reduce_local"]] + ["I" + c.lower() + "_c" for c in SCALAR_COLL]
COLL += [c + "_init" for c in """Barrier Bcast Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall
Alltoallv Reduce Allreduce Reduce_scatter Reduce_scatter_block Scan Exscan""".split()]
# large-count forms with count and displacement arrays (MPI_Count counts,
# MPI_Aint displacements the bridge widens), and persistent large-count forms
V_COLL = "Gatherv Scatterv Allgatherv Alltoallv Reduce_scatter".split()
COLL += [c + "_c" for c in V_COLL] + ["I" + c.lower() + "_c" for c in V_COLL]
COLL += [c + "_init_c" for c in SCALAR_COLL + V_COLL]

# MPI-IO (hand-written in file.rs: open, close, delete, views, type extents,
# datarep registration; the file error handlers are in errhandler.rs)
FILE_DATA = [f"{op}{at}{kind}" for op in ("read", "write") for at in ("", "_at") for kind in ("", "_all")]
FILE_DATA += ["read_shared", "write_shared", "read_ordered", "write_ordered"]
FILE = [f"File_{f}" for f in FILE_DATA + ["i" + f for f in FILE_DATA if "ordered" not in f]]
FILE += [f"File_{f}_{half}" for f in ("read_all", "write_all", "read_at_all", "write_at_all", "read_ordered", "write_ordered")
         for half in ("begin", "end")]
FILE += [f + "_c" for f in FILE if not f.endswith("_end")]
FILE += [f"File_{f}" for f in """set_size preallocate get_size get_group get_amode set_info get_info seek seek_shared
get_position get_position_shared get_byte_offset sync set_atomicity get_atomicity""".split()]

# One-sided communication (window creation, freeing, shared queries and
# names are hand-written in rma.rs; window attributes in attr.rs, error
# handlers in errhandler.rs)
RMA_DATA = "Put Get Accumulate Get_accumulate Rput Rget Raccumulate Rget_accumulate".split()
RMA = RMA_DATA + [f + "_c" for f in RMA_DATA] + """Fetch_and_op Compare_and_swap Win_fence Win_post Win_start
Win_complete Win_wait Win_test Win_lock Win_unlock Win_lock_all Win_unlock_all Win_flush Win_flush_all
Win_flush_local Win_flush_local_all Win_sync Win_get_group Win_set_info Win_get_info""".split()

GENERATED = {"p2p": P2P, "coll": COLL, "comm": COMM, "group": GROUP, "topo": TOPO, "file": FILE, "rma": RMA}
# generated, but registered through a hand-written wrapper of the same name
WRAPPED = {"MPI_Comm_dup", "MPI_Comm_dup_with_info"}

# Written by hand from other host calls, or from the bridge's own state: they
# work whatever the host library lacks (`inspect --provided`: host: not needed).
NO_HOST_FUNCTION = {
    "MPI_Aint_add", "MPI_Aint_diff", "MPI_Pcontrol", "MPI_Info_get_string", "MPI_Type_get_value_index",
    "MPI_Type_size_c", "MPI_Type_get_extent_c", "MPI_Type_get_true_extent_c",
    # MPI-4.0 large-count datatype constructors, decoding and pack/unpack:
    # made of the host's int forms; the host's `_c` function only for a
    # value past INT_MAX (MPI_ERR_COUNT on a host without it)
    "MPI_Type_contiguous_c", "MPI_Type_vector_c", "MPI_Type_create_hvector_c", "MPI_Type_indexed_c",
    "MPI_Type_create_hindexed_c", "MPI_Type_create_indexed_block_c", "MPI_Type_create_hindexed_block_c", "MPI_Type_create_struct_c",
    "MPI_Type_create_subarray_c", "MPI_Type_create_darray_c", "MPI_Type_create_resized_c", "MPI_Type_get_envelope_c",
    "MPI_Type_get_contents_c", "MPI_Pack_c", "MPI_Unpack_c", "MPI_Pack_size_c",
    "MPI_Pack_external_c", "MPI_Unpack_external_c", "MPI_Pack_external_size_c",
    "MPI_Request_get_status_all", "MPI_Request_get_status_any", "MPI_Request_get_status_some",
    "MPI_Remove_error_class", "MPI_Remove_error_code", "MPI_Remove_error_string",
    "MPI_Register_datarep", "MPI_Register_datarep_c",
    "MPI_Info_create_env", "MPI_Session_create_errhandler",  # session.rs
    "MPI_Op_create_c",
    "MPI_Buffer_attach_c", "MPI_Buffer_detach_c",
    # rma.rs: MPI_Aint is 32 bits in the guest, so the int forms serve
    "MPI_Win_create_c", "MPI_Win_allocate_c", "MPI_Win_allocate_shared_c", "MPI_Win_shared_query_c",
    "MPI_Abi_get_version", "MPI_Abi_get_info", "MPI_Abi_get_fortran_info", "MPI_Abi_set_fortran_info",
    "MPI_Abi_get_fortran_booleans", "MPI_Abi_set_fortran_booleans",
}

# written by hand: module -> {function: Rust function in that module}
HAND_WRITTEN = {
    "environment": {
        "MPI_Init": "init",
        "MPI_Init_thread": "init_thread",
        "MPI_Finalize": "finalize",
        "MPI_Initialized": "initialized",
        "MPI_Finalized": "finalized",
        "MPI_Abort": "abort",
        "MPI_Wtime": "wtime",
        "MPI_Get_processor_name": "get_processor_name",
        "MPI_Get_version": "get_version",
        "MPI_Get_library_version": "get_library_version",
        "MPI_Wtick": "wtick",
        "MPI_Pcontrol": "pcontrol",
        "MPI_Query_thread": "query_thread",
        "MPI_Is_thread_main": "is_thread_main",
        "MPI_Alloc_mem": "alloc_mem",
        "MPI_Free_mem": "free_mem",
    },
    "abi_info": {
        f"MPI_Abi_{f}": f"abi_{f}"
        for f in ("get_version", "get_info", "get_fortran_info", "set_fortran_info", "get_fortran_booleans", "set_fortran_booleans")
    },
    "attached": {
        f"MPI_{f}{c}": f"{f.lower()}{c}"
        for f in ("Buffer_attach", "Buffer_detach", "Comm_attach_buffer", "Comm_detach_buffer") for c in ("", "_c")
    },
    "comm": {
        "MPI_Comm_rank": "rank",
        "MPI_Comm_free": "free",
        "MPI_Comm_idup": "idup",
        "MPI_Comm_idup_with_info": "idup_with_info",
        "MPI_Comm_set_name": "set_name",
        "MPI_Comm_get_name": "get_name",
        "MPI_Comm_dup": "dup",
        "MPI_Comm_dup_with_info": "dup_with_info",
    },
    "group": {
        "MPI_Group_free": "free",
        "MPI_Group_translate_ranks": "translate_ranks",
    },
    "info": {
        "MPI_Info_create": "create",
        "MPI_Info_dup": "dup",
        "MPI_Info_free": "free",
        "MPI_Info_set": "set",
        "MPI_Info_get": "get",
        "MPI_Info_delete": "delete",
        "MPI_Info_get_valuelen": "get_valuelen",
        "MPI_Info_get_string": "get_string",
        "MPI_Info_get_nkeys": "get_nkeys",
        "MPI_Info_get_nthkey": "get_nthkey",
    },
    "coll": {
        f"MPI_{w}{form}": f"{w.lower()}{form}"
        for w in ("Alltoallw", "Ialltoallw", "Neighbor_alltoallw", "Ineighbor_alltoallw")
        for form in ("", "_c")
    } | {f"MPI_{w}_init{c}": f"{w.lower()}_init{c}" for w in ("Alltoallw", "Neighbor_alltoallw") for c in ("", "_c")},
    "request": {
        "MPI_Wait": "wait",
        "MPI_Test": "test",
        "MPI_Waitall": "waitall",
        "MPI_Testall": "testall",
        "MPI_Waitany": "waitany",
        "MPI_Testany": "testany",
        "MPI_Waitsome": "waitsome",
        "MPI_Testsome": "testsome",
        "MPI_Request_free": "request_free",
        "MPI_Request_get_status": "request_get_status",
        "MPI_Request_get_status_all": "request_get_status_all",
        "MPI_Request_get_status_any": "request_get_status_any",
        "MPI_Request_get_status_some": "request_get_status_some",
        "MPI_Start": "start",
        "MPI_Startall": "startall",
        "MPI_Cancel": "cancel",
    },
    "file": {
        "MPI_File_open": "open",
        "MPI_File_close": "close",
        "MPI_File_delete": "delete",
        "MPI_File_set_view": "set_view",
        "MPI_File_get_view": "get_view",
        "MPI_File_get_type_extent": "get_type_extent",
        "MPI_File_get_type_extent_c": "get_type_extent_c",
        "MPI_Register_datarep": "register_datarep",
        "MPI_Register_datarep_c": "register_datarep_c",
    },
    "session": {
        "MPI_Session_init": "session_init",
        "MPI_Session_finalize": "session_finalize",
        "MPI_Session_get_info": "session_get_info",
        "MPI_Session_get_num_psets": "session_get_num_psets",
        "MPI_Session_get_nth_pset": "session_get_nth_pset",
        "MPI_Session_get_pset_info": "session_get_pset_info",
        "MPI_Group_from_session_pset": "group_from_session_pset",
        "MPI_Comm_create_from_group": "comm_create_from_group",
        "MPI_Intercomm_create_from_groups": "intercomm_create_from_groups",
        "MPI_Session_create_errhandler": "session_create_errhandler",
        "MPI_Session_set_errhandler": "session_set_errhandler",
        "MPI_Session_get_errhandler": "session_get_errhandler",
        "MPI_Session_call_errhandler": "session_call_errhandler",
        "MPI_Info_create_env": "info_create_env",
        "MPI_Get_hw_resource_info": "get_hw_resource_info",
        "MPI_Session_attach_buffer": "session_attach_buffer",
        "MPI_Session_attach_buffer_c": "session_attach_buffer_c",
        "MPI_Session_detach_buffer": "session_detach_buffer",
        "MPI_Session_detach_buffer_c": "session_detach_buffer_c",
        "MPI_Session_flush_buffer": "session_flush_buffer",
        "MPI_Session_iflush_buffer": "session_iflush_buffer",
    },
    # the tool interface (MPI_T), tools.rs
    "tools": {f"MPI_T_{f}": f for f in """init_thread finalize cvar_get_num cvar_get_info cvar_get_index cvar_handle_alloc cvar_handle_free cvar_read cvar_write
pvar_get_num pvar_get_info pvar_get_index pvar_session_create pvar_session_free pvar_handle_alloc pvar_handle_free pvar_start
pvar_stop pvar_read pvar_write pvar_reset pvar_readreset category_get_num category_get_info category_get_index
category_get_cvars category_get_pvars category_get_categories category_changed category_get_num_events category_get_events
enum_get_info enum_get_item source_get_num source_get_info source_get_timestamp event_get_num event_get_info
event_get_index event_handle_alloc event_handle_free event_handle_get_info event_handle_set_info event_register_callback
event_callback_get_info event_callback_set_info event_read event_copy event_get_timestamp event_get_source
event_set_dropped_handler""".split()},
    "grequest": {
        "MPI_Grequest_start": "grequest_start",
        "MPI_Grequest_complete": "grequest_complete",
    },
    "rma": {
        f"MPI_Win_{f}{c}": f"win_{f}{c}"
        for f in ("create", "allocate", "allocate_shared", "shared_query") for c in ("", "_c")
    } | {f"MPI_Win_{f}": f"win_{f}" for f in ("create_dynamic", "attach", "detach", "free", "set_name", "get_name")},
    "errhandler": {
        "MPI_Comm_create_errhandler": "comm_create_errhandler",
        "MPI_Comm_set_errhandler": "comm_set_errhandler",
        "MPI_Comm_get_errhandler": "comm_get_errhandler",
        "MPI_Errhandler_free": "errhandler_free",
        "MPI_Comm_call_errhandler": "comm_call_errhandler",
        "MPI_File_create_errhandler": "file_create_errhandler",
        "MPI_File_set_errhandler": "file_set_errhandler",
        "MPI_File_get_errhandler": "file_get_errhandler",
        "MPI_File_call_errhandler": "file_call_errhandler",
        "MPI_Win_create_errhandler": "win_create_errhandler",
        "MPI_Win_set_errhandler": "win_set_errhandler",
        "MPI_Win_get_errhandler": "win_get_errhandler",
        "MPI_Win_call_errhandler": "win_call_errhandler",
        "MPI_Add_error_class": "add_error_class",
        "MPI_Add_error_code": "add_error_code",
        "MPI_Add_error_string": "add_error_string",
        "MPI_Remove_error_class": "remove_error_class",
        "MPI_Remove_error_code": "remove_error_code",
        "MPI_Remove_error_string": "remove_error_string",
        "MPI_Error_class": "error_class",
        "MPI_Error_string": "error_string",
    },
    "datatype": {
        "MPI_Type_contiguous": "type_contiguous",
        "MPI_Type_vector": "type_vector",
        "MPI_Type_create_hvector": "type_create_hvector",
        "MPI_Type_indexed": "type_indexed",
        "MPI_Type_create_hindexed": "type_create_hindexed",
        "MPI_Type_create_indexed_block": "type_create_indexed_block",
        "MPI_Type_create_hindexed_block": "type_create_hindexed_block",
        "MPI_Type_create_struct": "type_create_struct",
        "MPI_Type_create_subarray": "type_create_subarray",
        "MPI_Type_create_darray": "type_create_darray",
        "MPI_Type_create_resized": "type_create_resized",
        "MPI_Type_create_f90_real": "type_create_f90_real",
        "MPI_Type_create_f90_complex": "type_create_f90_complex",
        "MPI_Type_create_f90_integer": "type_create_f90_integer",
        "MPI_Type_dup": "type_dup",
        "MPI_Type_commit": "type_commit",
        "MPI_Type_free": "type_free",
        "MPI_Type_size": "type_size",
        "MPI_Type_size_x": "type_size_x",
        "MPI_Type_get_extent": "type_get_extent",
        "MPI_Type_get_extent_x": "type_get_extent_x",
        "MPI_Type_get_true_extent": "type_get_true_extent",
        "MPI_Type_get_true_extent_x": "type_get_true_extent_x",
        "MPI_Type_size_c": "type_size_c",
        "MPI_Type_get_extent_c": "type_get_extent_c",
        "MPI_Type_get_true_extent_c": "type_get_true_extent_c",
        "MPI_Type_extent": "type_extent",
        "MPI_Type_lb": "type_lb",
        "MPI_Type_ub": "type_ub",
        "MPI_Type_get_envelope": "type_get_envelope",
        "MPI_Type_get_contents": "type_get_contents",
        "MPI_Type_set_name": "type_set_name",
        "MPI_Type_get_name": "type_get_name",
        "MPI_Type_match_size": "type_match_size",
        "MPI_Type_get_value_index": "type_get_value_index",
        "MPI_Get_address": "get_address",
        "MPI_Aint_add": "aint_add",
        "MPI_Aint_diff": "aint_diff",
        "MPI_Pack": "pack",
        "MPI_Unpack": "unpack",
        "MPI_Pack_size": "pack_size",
        "MPI_Pack_external": "pack_external",
        "MPI_Unpack_external": "unpack_external",
        "MPI_Pack_external_size": "pack_external_size",
        "MPI_Type_contiguous_c": "type_contiguous_c",
        "MPI_Type_vector_c": "type_vector_c",
        "MPI_Type_create_hvector_c": "type_create_hvector_c",
        "MPI_Type_indexed_c": "type_indexed_c",
        "MPI_Type_create_hindexed_c": "type_create_hindexed_c",
        "MPI_Type_create_indexed_block_c": "type_create_indexed_block_c",
        "MPI_Type_create_hindexed_block_c": "type_create_hindexed_block_c",
        "MPI_Type_create_struct_c": "type_create_struct_c",
        "MPI_Type_create_subarray_c": "type_create_subarray_c",
        "MPI_Type_create_darray_c": "type_create_darray_c",
        "MPI_Type_create_resized_c": "type_create_resized_c",
        "MPI_Type_get_envelope_c": "type_get_envelope_c",
        "MPI_Type_get_contents_c": "type_get_contents_c",
        "MPI_Pack_c": "pack_c",
        "MPI_Unpack_c": "unpack_c",
        "MPI_Pack_size_c": "pack_size_c",
        "MPI_Pack_external_c": "pack_external_c",
        "MPI_Unpack_external_c": "unpack_external_c",
        "MPI_Pack_external_size_c": "pack_external_size_c",
    },
    "op": {
        "MPI_Op_create": "op_create",
        "MPI_Op_create_c": "op_create_c",
        "MPI_Op_free": "op_free",
        "MPI_Op_commutative": "op_commutative",
    },
    "attr": {
        "MPI_Comm_create_keyval": "comm_create_keyval",
        "MPI_Comm_free_keyval": "comm_free_keyval",
        "MPI_Comm_set_attr": "comm_set_attr",
        "MPI_Comm_get_attr": "comm_get_attr",
        "MPI_Comm_delete_attr": "comm_delete_attr",
        "MPI_Type_create_keyval": "type_create_keyval",
        "MPI_Type_free_keyval": "type_free_keyval",
        "MPI_Type_set_attr": "type_set_attr",
        "MPI_Type_get_attr": "type_get_attr",
        "MPI_Type_delete_attr": "type_delete_attr",
        "MPI_Win_create_keyval": "win_create_keyval",
        "MPI_Win_free_keyval": "win_free_keyval",
        "MPI_Win_set_attr": "win_set_attr",
        "MPI_Win_get_attr": "win_get_attr",
        "MPI_Win_delete_attr": "win_delete_attr",
        "MPI_Keyval_create": "keyval_create",
        "MPI_Keyval_free": "keyval_free",
        "MPI_Attr_put": "attr_put",
        "MPI_Attr_get": "attr_get",
        "MPI_Attr_delete": "attr_delete",
    },
}



def check():
    """A name both generated and hand-written (or hand-written twice) is an error."""
    seen = {}
    for family, shorts in GENERATED.items():
        for s in shorts:
            if "MPI_" + s not in WRAPPED:
                seen.setdefault("MPI_" + s, []).append(f"generated in {family}")
    for module, fns in HAND_WRITTEN.items():
        for name in fns:
            seen.setdefault(name, []).append(f"hand-written in {module}")
    unknown = NO_HOST_FUNCTION - {n for fns in HAND_WRITTEN.values() for n in fns}
    if unknown:
        raise SystemExit(f"NO_HOST_FUNCTION names functions not written by hand: {sorted(unknown)}")
    twice = {n: w for n, w in seen.items() if len(w) > 1}
    if twice:
        raise SystemExit("functions listed more than once: " + "; ".join(f"{n} ({', '.join(w)})" for n, w in sorted(twice.items())))
