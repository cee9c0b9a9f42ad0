"""`embedder inspect` reports what a module needs and what is provided."""
from conftest import PROGRAMS, run


def test_inspect_lists_provided_and_unsupported_imports(build, embedder):
    r = run([embedder, "inspect", build.wasm(PROGRAMS / "faults.c")])
    assert r.returncode == 0, r.stderr
    lines = dict(line.split("\t") for line in r.stdout.splitlines())
    assert lines["env.MPI_Send"] == "provided"
    assert lines["env.MPI_Init"] == "provided"
    assert lines["env.MPI_Win_fence"].startswith("NOT SUPPORTED")
    assert any(k.startswith("wasi_snapshot_preview1.") and v == "WASI" for k, v in lines.items())


# The communication core of MPI-3.1 (bridge part 1), family by family.
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
}


def test_inspect_provided_lists_every_implemented_function(embedder):
    r = run([embedder, "inspect", "--provided"])
    names = set(r.stdout.split())
    for family, functions in CORE.items():
        missing = {f"MPI_{f}" for f in functions.split()} - names
        assert not missing, f"{family}: {sorted(missing)}"
    assert f"{len(names)} MPI functions implemented" in r.stderr


def test_inspect_rejects_non_wasm(embedder, tmp_path):
    bad = tmp_path / "x.wasm"
    bad.write_bytes(b"\0asm\x01\0\0\0\x02\xff")
    r = run([embedder, "inspect", bad])
    assert r.returncode == 1 and "not a valid WebAssembly module" in r.stderr
