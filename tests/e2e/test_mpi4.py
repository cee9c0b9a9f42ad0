"""MPI-4.0 and 4.1 functions. Those the embedder implements itself work on
every host MPI; the others run native vs wasm where the host library has
them, and elsewhere end the job with a message naming the function."""
import pytest

from conftest import PROGRAMS, run

# feature -> the host functions it calls, in the order it calls them
HOST_FEATURES = {
    "isendrecv": ["MPI_Isendrecv", "MPI_Isendrecv_replace"],
    # both peers MPI_PROC_NULL: the host gets a receive from MPI_PROC_NULL
    # (natively MPICH 4.0 crashes or hangs, MPICH 5 leaves the status unwritten)
    "isendrecv-null": ["MPI_Isendrecv"],
    "large-count": ["MPI_Irecv_c", "MPI_Send_c", "MPI_Get_count_c", "MPI_Bcast_c", "MPI_Allreduce_c", "MPI_Iallreduce_c",
                    "MPI_Neighbor_allgather_c"],
    "large-count-v": ["MPI_Gatherv_c", "MPI_Allgatherv_c", "MPI_Scatterv_c", "MPI_Iallgatherv_c", "MPI_Alltoallv_c",
                      "MPI_Reduce_scatter_c", "MPI_Ireduce_scatter_c", "MPI_Alltoallw_c", "MPI_Ialltoallw_c",
                      "MPI_Allgatherv_init_c", "MPI_Allreduce_init_c", "MPI_Alltoallw_init_c", "MPI_Neighbor_alltoallv_c",
                      "MPI_Neighbor_alltoallw_c", "MPI_Ineighbor_alltoallw_c", "MPI_Neighbor_alltoallw_init_c"],
    "persistent": ["MPI_Allreduce_init", "MPI_Bcast_init", "MPI_Barrier_init", "MPI_Neighbor_allgather_init", "MPI_Gatherv_init"],
    # every completion call on persistent collectives not started (natively
    # MPICH 4.0 and 5.0 hang in MPI_Waitall)
    "persistent-inactive": ["MPI_Allreduce_init", "MPI_Barrier_init"],
    "persistent-w": ["MPI_Alltoallw_init", "MPI_Neighbor_alltoallw_init"],
    "buffers41": ["MPI_Comm_attach_buffer", "MPI_Comm_flush_buffer", "MPI_Comm_iflush_buffer", "MPI_Comm_detach_buffer",
                  "MPI_Comm_attach_buffer_c", "MPI_Comm_detach_buffer_c", "MPI_Buffer_flush", "MPI_Buffer_iflush"],
    # the process's and a communicator's buffer detached while a nonblocking
    # flush of it is pending (a crash in MPICH 5 natively)
    "flush-then-detach": ["MPI_Buffer_iflush", "MPI_Comm_attach_buffer", "MPI_Comm_iflush_buffer", "MPI_Comm_detach_buffer"],
    "partitioned": ["MPI_Psend_init", "MPI_Precv_init", "MPI_Pready", "MPI_Pready_range", "MPI_Pready_list", "MPI_Parrived"],
    "idup-info": ["MPI_Comm_idup_with_info"],
}
# partition numbers outside the request, and initializations with bad peers,
# partitions or counts: errors from the embedder, which checks them (natively
# Open MPI 5 does not: it aborts the job or crashes)
HOST_FEATURES["partition-bounds"] = HOST_FEATURES["partitioned"]
HOST_FEATURES["partition-args"] = HOST_FEATURES["partitioned"]
WASM_ONLY = {"partition-bounds", "partition-args", "flush-then-detach", "persistent-inactive", "isendrecv-null"}
# glibc fills freed memory: a host that reads memory it freed crashes at once
PERTURBED = {"flush-then-detach"}
EMBEDDERS_OWN = ["Info_get_string", "Type_size_c, Type_get_(true_)extent_c", "Op_create_c", "Buffer_attach_c, Buffer_detach_c",
                  "Abi_get_version, Abi_get_info, Abi_*_fortran_*",
                  "Type_get_value_index", "Status_get/set_source/tag/error",
                  "Remove_error_class/code/string", "Request_get_status_all/any/some"]
ALL = [f"-DHAVE_{f.upper().replace('-', '_')}" for f in ["everywhere", *HOST_FEATURES] if f not in WASM_ONLY]


@pytest.fixture(scope="module")
def host_has(mpi, embedder):
    """The functions the host library the launcher implies provides."""
    r = run(mpi.cmd(1, embedder, "inspect", "--provided"))
    assert r.returncode == 0, r.stderr
    rows = [line.split("\t") for line in r.stdout.splitlines() if line.startswith("MPI_")]
    return {row[0] for row in rows if row[-1] == "host: yes"}


@pytest.mark.parametrize("np", [1, 3])
def test_the_embedders_own_mpi4_functions_work_on_every_host(build, run_wasm, run_native, np):
    src = PROGRAMS / "mpi4.c"
    wasm = run_wasm(build.wasm(src, *ALL), "everywhere", np=np)
    native = run_native(build.native(src, "-DHAVE_EVERYWHERE"), "everywhere", np=np)
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert native.returncode == 0, native.stdout + native.stderr
    lines = wasm.stdout.splitlines()
    assert [line.rsplit(None, 1)[0] for line in lines] == EMBEDDERS_OWN, wasm.stdout
    assert all(line.endswith(" ok") for line in lines), wasm.stdout
    # the native MPI checks those of its MPI version, with the same result
    assert set(native.stdout.splitlines()) <= set(lines), native.stdout


@pytest.mark.parametrize("np", [1, 3])
@pytest.mark.parametrize("feature", HOST_FEATURES)
def test_mpi4_functions_of_the_host(build, run_wasm, run_native, host_has, feature, np):
    src = PROGRAMS / "mpi4.c"
    env = {"MALLOC_PERTURB_": "165"} if feature in PERTURBED else {}
    wasm = run_wasm(build.wasm(src, *ALL), feature, np=np, env=env)
    missing = [f for f in HOST_FEATURES[feature] if f not in host_has]
    if missing:
        assert wasm.returncode != 0, wasm.stdout
        assert f"does not provide {missing[0]}" in wasm.stderr, wasm.stderr
        return
    if feature in WASM_ONLY:
        assert wasm.returncode == 0 and wasm.stdout.strip().endswith(" ok"), wasm.stdout + wasm.stderr
        return
    native = run_native(build.native(src, f"-DHAVE_{feature.upper().replace('-', '_')}"), feature, np=np)
    assert native.returncode == 0, native.stdout + native.stderr
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert wasm.stdout == native.stdout and wasm.stdout.strip().endswith(" ok"), wasm.stdout
