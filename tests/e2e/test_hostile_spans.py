"""Hostile buffer spans, MPI_IN_PLACE where it is not allowed, and a guest
malloc that returns addresses outside the guest memory: each gets an MPI
error class or a clean end of the job, never a host crash or an access
outside the guest's memory; the legal forms still move the right bytes."""
import pytest

from conftest import PROGRAMS

CRASH_SIGNS = ("panicked", "Segmentation fault", "signal 11", "core dumped", "overflowed its stack")


def no_crash(r):
    out = r.stdout + r.stderr
    assert not any(s in out for s in CRASH_SIGNS), out


def ok_lines(r, expected):
    lines = [line for line in r.stdout.splitlines() if line.strip()]
    assert r.returncode == 0, r.stdout + r.stderr
    assert all(line.endswith(" ok") for line in lines), r.stdout + r.stderr
    missing = [e for e in expected if not any(line.startswith(e + " ") for line in lines)]
    assert not missing, f"missing checks {missing}:\n{r.stdout}"
    return lines


# every kind of buffer argument with a layout that runs below address 0
LOW = [
    "Send, extent -4, 1000 elements at 64", "Recv, extent -4, 1000 elements at 64",
    "Isend, extent -12, 8 elements at 64", "Irecv, contiguous of extent -4, 2 at 4",
    "Sendrecv, extent -4 receive at 64", "Send at MPI_BOTTOM, extent -4, 2 elements",
    "Bcast, extent -4, 1000 elements at 64", "Allreduce, extent -4 receive at 64",
    "Reduce_local MPI_SUM, extent -4 at 64", "Reduce_local user op, extent -4 at 64",
    "Gatherv receive blocks, extent -4 at 64", "Scatterv, displacement 40 of extent -4 at 64",
    "Alltoallw send block, extent -4 at 64", "Alltoallw receive block at byte -128 from 64",
    "Pack, extent -4, 1000 elements at 64", "Unpack, extent -12, 4 elements at 16",
]


@pytest.mark.parametrize("np", [1, 2])
def test_negative_extents_reaching_below_memory_are_buffer_errors(build, run_wasm, np):
    r = run_wasm(build.wasm(PROGRAMS / "hostile_spans.c"), "low", np=np, timeout=60)
    no_crash(r)
    assert len(ok_lines(r, LOW)) == len(LOW), r.stdout


@pytest.mark.parametrize("np", [1, 2])
def test_negative_extent_layouts_inside_memory_move_the_same_bytes_as_native(build, run_wasm, run_native, np):
    src = PROGRAMS / "hostile_spans.c"
    wasm = run_wasm(build.wasm(src), "legal", np=np, timeout=60)
    native = run_native(build.native(src), "legal", np=np, timeout=60)
    assert native.returncode == 0, native.stderr
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert wasm.stdout == native.stdout
    assert "reduce_local user op extent -4:" in wasm.stdout


REFUSED_EVERYWHERE = [
    "Send", "Send, count 0", "Isend", "Recv", "Irecv", "Sendrecv send", "Sendrecv receive", "Sendrecv_replace",
    "Send_init", "Reduce_local in", "Reduce_local inout", "Reduce_local user op in", "Pack", "Bcast", "Ibcast",
    "Allreduce recvbuf", "Iallreduce recvbuf", "Allgather recvbuf", "Allgatherv recvbuf", "Alltoall recvbuf",
    "Alltoallv recvbuf", "Alltoallw recvbuf", "Ialltoallw recvbuf", "Reduce_scatter recvbuf",
    "Reduce_scatter_block recvbuf", "Scan recvbuf", "Exscan recvbuf", "Iscan recvbuf",
    "Gather recvbuf at the root", "Gatherv recvbuf at the root", "Scatter sendbuf at the root",
    "Scatterv sendbuf at the root", "Reduce recvbuf at the root", "Igather recvbuf at the root",
    "Neighbor_allgather sendbuf", "Neighbor_alltoall recvbuf", "Neighbor_alltoallv sendbuf",
    "Ineighbor_allgatherv sendbuf", "Allreduce afterwards",
]
REFUSED_INTER = [
    "Allreduce sendbuf, intercommunicator", "Allgather sendbuf, intercommunicator",
    "Alltoallw sendbuf, intercommunicator", "Reduce_scatter_block sendbuf, intercomm",
    "Reduce recvbuf at MPI_ROOT, intercomm",
]


@pytest.mark.parametrize("np", [1, 2])
def test_in_place_where_the_standard_does_not_allow_it_is_an_error(build, run_wasm, np):
    """Rank 0 prints its checks; rank 1's (the non-root in-place forms) end
    the job with a non-zero exit if one is accepted."""
    r = run_wasm(build.wasm(PROGRAMS / "in_place.c"), "refused", np=np, timeout=60)
    no_crash(r)
    expected = REFUSED_EVERYWHERE + (REFUSED_INTER if np > 1 else [])
    assert len(ok_lines(r, expected)) == len(expected), r.stdout


@pytest.mark.parametrize("np", [1, 2, 3])
def test_in_place_where_allowed_matches_native(build, run_wasm, run_native, np):
    src = PROGRAMS / "in_place.c"
    wasm = run_wasm(build.wasm(src), np=np, timeout=60)
    native = run_native(build.native(src), np=np, timeout=60)
    assert native.returncode == 0, native.stderr
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert wasm.stdout == native.stdout
    assert wasm.stdout.count("\n") == 17


BAD_MALLOC = ["near4g", "past_end", "straddle"]


@pytest.mark.parametrize("kind", BAD_MALLOC)
def test_alloc_mem_refuses_a_guest_malloc_result_outside_memory(build, run_wasm, kind):
    r = run_wasm(build.wasm(PROGRAMS / "bad_malloc.c"), kind, "alloc_mem", np=1, timeout=60)
    no_crash(r)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "MPI_Alloc_mem ok" in r.stdout, r.stdout


@pytest.mark.parametrize("kind", BAD_MALLOC)
def test_user_op_scratch_outside_memory_ends_the_job(build, run_wasm, kind):
    """At two ranks the host MPI hands the user function operands of its
    own, which the embedder copies into guest scratch memory from the
    guest's malloc: a block outside the memory ends the job, clearly."""
    r = run_wasm(build.wasm(PROGRAMS / "bad_malloc.c"), kind, "user_op", np=2, timeout=60)
    no_crash(r)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "outside the guest memory" in r.stderr, r.stderr
    assert "Allreduce with a user op ok" not in r.stdout


def test_honest_guest_malloc_serves_alloc_mem_and_user_op_scratch(build, run_wasm):
    wasm = build.wasm(PROGRAMS / "bad_malloc.c")
    r = run_wasm(wasm, "good", "alloc_mem", np=1, timeout=60)
    assert r.returncode == 0 and "MPI_Alloc_mem ok" in r.stdout, r.stdout + r.stderr
    r = run_wasm(wasm, "good", "user_op", np=2, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("Allreduce with a user op ok") == 2, r.stdout
