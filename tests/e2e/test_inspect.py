"""`embedder inspect` reports what a module needs and what is provided."""
from conftest import PROGRAMS, run


def test_inspect_lists_provided_and_unsupported_imports(build, embedder):
    r = run([embedder, "inspect", build.wasm(PROGRAMS / "faults.c")])
    assert r.returncode == 0, r.stderr
    lines = dict(line.split("\t") for line in r.stdout.splitlines())
    assert lines["env.MPI_Send"] == "provided"
    assert lines["env.MPI_Init"] == "provided"
    assert lines["env.MPI_Comm_get_parent"].startswith("NOT SUPPORTED")
    assert any(k.startswith("wasi_snapshot_preview1.") and v == "WASI" for k, v in lines.items())


# The MPI-3.1 C API outside one-sided communication and I/O, family by family.
CORE = {
    "p2p": """Send Bsend Ssend Rsend Isend Ibsend Issend Irsend Recv Irecv Sendrecv Sendrecv_replace
        Buffer_attach Buffer_detach Probe Iprobe Mprobe Improbe Mrecv Imrecv Wait Waitall Waitany
        Waitsome Test Testall Testany Testsome Request_free Request_get_status Cancel Test_cancelled
        Send_init Bsend_init Ssend_init Rsend_init Recv_init Start Startall Get_count Get_elements
        Get_elements_x Status_set_elements Status_set_elements_x Status_set_cancelled""",
    "coll": """Barrier Bcast Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall Alltoallv
        Alltoallw Reduce Allreduce Reduce_local Reduce_scatter Reduce_scatter_block Scan Exscan
        Ibarrier Ibcast Igather Igatherv Iscatter Iscatterv Iallgather Iallgatherv Ialltoall
        Ialltoallv Ialltoallw Ireduce Iallreduce Ireduce_scatter Ireduce_scatter_block Iscan Iexscan""",
    "comm": """Comm_rank Comm_size Comm_group Comm_dup Comm_dup_with_info Comm_idup Comm_create
        Comm_create_group Comm_split Comm_split_type Comm_free Comm_compare Comm_test_inter
        Comm_remote_size Comm_remote_group Intercomm_create Intercomm_merge Comm_set_name
        Comm_get_name Comm_set_info Comm_get_info Group_size Group_rank Group_incl Group_excl
        Group_range_incl Group_range_excl Group_union Group_intersection Group_difference
        Group_compare Group_translate_ranks Group_free""",
    "environment": """Init Init_thread Finalize Initialized Finalized Get_version Get_library_version
        Get_processor_name Wtime Wtick Abort Query_thread Is_thread_main Alloc_mem Free_mem
        Error_string Error_class Pcontrol Info_create Info_dup Info_free Info_set Info_get
        Info_delete Info_get_valuelen Info_get_nkeys Info_get_nthkey""",
    # bridge part 2
    "datatype": """Type_contiguous Type_vector Type_create_hvector Type_indexed Type_create_hindexed
        Type_create_indexed_block Type_create_hindexed_block Type_create_struct Type_create_subarray
        Type_create_darray Type_create_resized Type_dup Type_commit Type_free Type_get_extent
        Type_get_extent_x Type_get_true_extent Type_get_true_extent_x Type_size Type_size_x
        Type_get_envelope Type_get_contents Type_set_name Type_get_name Get_address Aint_add Aint_diff
        Pack Unpack Pack_size Pack_external Unpack_external Pack_external_size Type_match_size
        Type_create_f90_real Type_create_f90_complex Type_create_f90_integer""",
    "op": "Op_create Op_free Op_commutative",
    "topo": """Dims_create Cart_create Cart_get Cart_rank Cart_coords Cart_shift Cart_sub Cart_map
        Cartdim_get Graph_create Graph_get Graph_neighbors Graph_neighbors_count Graph_map
        Graphdims_get Dist_graph_create Dist_graph_create_adjacent Dist_graph_neighbors
        Dist_graph_neighbors_count Topo_test Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall
        Neighbor_alltoallv Neighbor_alltoallw Ineighbor_allgather Ineighbor_allgatherv
        Ineighbor_alltoall Ineighbor_alltoallv Ineighbor_alltoallw""",
    "attr": """Comm_create_keyval Comm_free_keyval Comm_set_attr Comm_get_attr Comm_delete_attr
        Type_create_keyval Type_free_keyval Type_set_attr Type_get_attr Type_delete_attr
        Win_create_keyval Win_free_keyval""",
    "errhandler": """Comm_create_errhandler Comm_set_errhandler Comm_get_errhandler Errhandler_free
        Comm_call_errhandler Add_error_class Add_error_code Add_error_string""",
    # removed in MPI-3.0 without a same-signature replacement (the others
    # are macros in the guest mpi.h), and deprecated ones still declared
    "mpi1": "Type_extent Type_lb Type_ub Keyval_create Keyval_free Attr_put Attr_get Attr_delete",
    # MPI-IO, as its issue lists it
    "file": """File_open File_close File_delete File_set_size File_preallocate File_get_size File_get_group
        File_get_amode File_set_info File_get_info File_set_view File_get_view File_read File_write
        File_read_at File_write_at File_read_all File_write_all File_read_at_all File_write_at_all
        File_iread File_iwrite File_iread_at File_iwrite_at File_iread_all File_iwrite_all File_iread_at_all
        File_iwrite_at_all File_read_all_begin File_read_all_end File_write_all_begin File_write_all_end
        File_read_at_all_begin File_read_at_all_end File_write_at_all_begin File_write_at_all_end
        File_read_ordered_begin File_read_ordered_end File_write_ordered_begin File_write_ordered_end
        File_read_shared File_write_shared File_iread_shared File_iwrite_shared File_read_ordered
        File_write_ordered File_seek File_seek_shared File_get_position File_get_position_shared
        File_get_byte_offset File_sync File_set_atomicity File_get_atomicity File_get_type_extent
        File_set_errhandler File_get_errhandler File_create_errhandler File_call_errhandler Register_datarep""",
}


def test_inspect_provided_lists_every_implemented_function(embedder):
    r = run([embedder, "inspect", "--provided"])
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    names = {row[0] for row in rows}
    assert len(names) == len(rows)  # each function once
    by_name = {row[0]: row[1:] for row in rows}
    assert by_name["MPI_Send"] == ["p2p", "generated", "host: yes"]
    assert by_name["MPI_Wait"] == ["request", "hand-written", "host: yes"]
    # made of MPI-3 host calls: there on every host
    assert by_name["MPI_Info_get_string"] == ["info", "hand-written", "host: not needed"]
    assert by_name["MPI_File_write_at_all"] == ["file", "generated", "host: yes"]
    assert by_name["MPI_File_open"] == ["file", "hand-written", "host: yes"]
    for family, functions in CORE.items():
        missing = {f"MPI_{f}" for f in functions.split()} - names
        assert not missing, f"{family}: {sorted(missing)}"
    mpi_names = {n for n in names if n.startswith("MPI_")}
    assert f"{len(mpi_names)} MPI functions implemented" in r.stderr
    # the other import modules' functions, made by the embedder alone
    assert by_name["karmem.open"] == ["karmem", "hand-written", "host: not needed"]
    assert by_name["wasm_mpi_host.host_name"] == ["host facts", "hand-written", "host: not needed"]


def test_inspect_rejects_non_wasm(embedder, tmp_path):
    bad = tmp_path / "x.wasm"
    bad.write_bytes(b"\0asm\x01\0\0\0\x02\xff")
    r = run([embedder, "inspect", bad])
    assert r.returncode == 1 and "not a valid WebAssembly module" in r.stderr
