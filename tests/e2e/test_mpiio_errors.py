"""MPI-IO errors go where the standard sends them (the file's handler,
MPI_FILE_NULL's for MPI_File_open; MPI_ERRORS_RETURN unless changed), and
arguments refused at one rank never leave the others waiting."""
import time

import pytest

from conftest import PROGRAMS

HOST_CRASH = ("panicked", "Segmentation fault", "core dumped")


@pytest.fixture
def errors(build, run_wasm, tmp_path):
    wasm = build.wasm(PROGRAMS / "mpiio_errors.c")

    def go(mode, np=2, timeout=60, env=None):
        start = time.monotonic()
        r = run_wasm(wasm, mode, "/d", np=np, opts=["--mapdir", f"/d:{tmp_path}"], timeout=timeout, env=env or {})
        r.elapsed = time.monotonic() - start
        assert not any(c in r.stderr for c in HOST_CRASH), r.stderr
        return r

    return go


def lines(r):
    return [line for line in r.stdout.splitlines() if line.startswith("ok ")]


def test_files_return_errors_by_default(errors):
    r = errors("defaults")
    assert r.returncode == 0, r.stderr
    for rank_lines in (lines(r)[i::1] for i in (0,)):
        assert rank_lines.count("ok file-null handler returns 1") == 2
        assert rank_lines.count("ok open outside returns MPI_ERR_NO_SUCH_FILE") == 2
        assert rank_lines.count("ok read on MPI_FILE_NULL returns MPI_ERR_FILE") == 2
        assert rank_lines.count("ok register_datarep returns MPI_ERR_UNSUPPORTED_OPERATION") == 2


def test_a_guest_file_handler_gets_the_file_and_the_code(errors):
    r = errors("handler")
    assert r.returncode == 0, r.stderr
    got = lines(r)
    for expected in (
        "ok open handler calls 1 file-null 1 class MPI_ERR_NO_SUCH_FILE",
        "ok inherited 1",
        "ok write handler calls 2 same-file 1 class MPI_ERR_TYPE rc MPI_ERR_TYPE",
        "ok call_errhandler calls 3 class MPI_ERR_ARG",
        # an independent call's refused buffer returns (no handler once reset)
        "ok independent write past the memory returns MPI_ERR_BUFFER, handler calls 3",
    ):
        assert got.count(expected) == 2, (expected, r.stdout)


def test_ranks_that_disagree_about_a_name_all_fail_the_open(errors):
    r = errors("disagree")
    assert r.returncode == 0, r.stderr
    assert sorted(lines(r)) == ["ok rank 0 open MPI_ERR_NO_SUCH_FILE", "ok rank 1 open MPI_ERR_NO_SUCH_FILE"]
    assert r.elapsed < 30


def test_a_refused_buffer_in_a_collective_on_a_file_of_one_returns(errors):
    r = errors("self-collective")
    assert r.returncode == 0, r.stderr
    assert sorted(lines(r)) == [f"ok rank {i} write_all past the memory returns MPI_ERR_BUFFER" for i in (0, 1)]


@pytest.mark.parametrize("np", [2, 3])
def test_a_refused_buffer_in_a_shared_collective_ends_the_job(errors, np):
    r = errors("shared-collective", np=np)
    assert r.returncode != 0
    assert "MPI_File_write_at_all: MPI_ERR_BUFFER" in r.stderr and "would wait" in r.stderr, r.stderr
    # the others may finish their part first (the host need not wait); the
    # refusing rank never goes on
    assert f"rank {np - 1} went on" not in r.stdout
    assert r.elapsed < 30, f"the job took {r.elapsed:.1f} s to end"


def test_an_empty_datatype_moves_nothing_and_a_negative_displacement_is_refused(errors):
    r = errors("empty-type")
    assert r.returncode == 0, r.stderr
    got = lines(r)
    for expected in (
        "ok read_all of an empty type returns MPI_SUCCESS, 0 bytes, buffer kept 1",
        "ok iread_all of an empty type returns MPI_SUCCESS, 0 bytes",
        "ok write_at of an empty type returns MPI_SUCCESS, size 8",
        "ok negative displacement returns MPI_ERR_ARG",
    ):
        assert got.count(expected) == 2, (expected, r.stdout)


def test_many_elements_on_the_same_bytes_are_refused(errors):
    r = errors("same-bytes")
    assert r.returncode == 0, r.stderr
    got = lines(r)
    for expected in (
        "ok write_at of 1 returns MPI_SUCCESS, 1 char",
        "ok write_all of 1.2*10^9 returns MPI_ERR_TYPE",
        "ok read_at_all of 10^9 returns MPI_ERR_TYPE, buffer kept 1",
        "ok iread_at of 2 returns MPI_ERR_TYPE",
        "ok read_at of 1 returns MPI_SUCCESS, 1 char 'a'",
    ):
        assert got.count(expected) == 2, (expected, r.stdout)
    assert r.elapsed < 30


def test_errors_are_fatal_when_asked(errors):
    r = errors("fatal")
    assert r.returncode != 0
    assert "MPI_File_open: MPI_ERR_NO_SUCH_FILE" in r.stderr, r.stderr
    assert "unexpected" not in r.stdout
    assert r.elapsed < 30


@pytest.mark.parametrize("np", [1, 2])
def test_file_operations_pending_at_close_complete_first(errors, np):
    """Nonblocking collective reads and writes still pending at
    MPI_File_set_view, MPI_File_sync and MPI_File_close (erroneous, MPI-4.1
    14): MPICH 5's ROMIO freed what they use there and the next MPI_Test or
    MPI_Wait read it (SIGSEGV; MPI-call fuzzer, seeds 80026 and 80030). The
    bridge completes a file's pending operations before those calls; the
    guest's waits then return at once, the data written and read."""
    # glibc fills freed memory, so that a read of it goes wrong at once
    r = errors("pending-at-close", np=np, env={"MALLOC_PERTURB_": "165"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert lines(r) == ["ok pending at close 1"] * np, r.stdout + r.stderr


@pytest.mark.parametrize("np", [1, 2])
def test_nonblocking_writes_that_fail_when_they_complete(errors, np):
    """A nonblocking write that fails when it completes (here 8 bytes at
    2^48: EFBIG; a full disk does the same): natively Open MPI dies of
    SIGSEGV in the wait and MPICH's individual forms never complete. The
    bridge writes blocking and hands back a request already complete
    (file_nonblocking.rs): every form comes back and reports the failure
    (MPICH's collective forms report success natively)."""
    r = errors("write-fails", np=np, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    got = lines(r)
    for form in ("iwrite_at", "iwrite", "iwrite_shared", "iwrite_at_all", "iwrite_all", "iwrite_at_c"):
        expected = f"ok {form} came back, reported failed 1, request done 1"
        assert got.count(expected) == np, (expected, r.stdout, r.stderr)
    assert got.count("ok the file works after: 1") == np, r.stdout
