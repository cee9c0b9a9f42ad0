"""Guest faults end the whole job promptly with a clear message."""
import time

import pytest

from conftest import PROGRAMS


# fault -> text that must appear on stderr, or the job's exit code (MPI_Abort's
# errorcode: the host MPI's own abort report is not reliably printed)
FAULTS = {
    "trap": "guest trapped",
    "oob-load": "guest trapped",
    "recursion": "guest trapped",
    # recursion calling MPI in every frame until the stack runs out
    "deep-mpi": "guest trapped: call stack exhausted",
    "send-oob": "MPI_Send: MPI_ERR_BUFFER",
    "recv-oob": "MPI_Recv: MPI_ERR_BUFFER",
    "send-wrap": "MPI_Send: MPI_ERR_BUFFER",
    "bad-rank": "MPI_Send: MPI_ERR_RANK",
    "bad-comm": "MPI_Send: MPI_ERR_COMM",
    "grequest-wait": "MPI_Wait: MPI_ERR_REQUEST: waiting for a generalized request that MPI_Grequest_complete was not called on",
    "grequest-free-fails": "MPI_Wait: MPI_ERR_OTHER: the generalized request's free function returned",
    "bad-op": "MPI_Allreduce: MPI_ERR_OP: MPI_BAND is not defined on MPI_LONG_DOUBLE",
    "derived-ld-op": "MPI_Allreduce: MPI_ERR_OP: predefined operations on derived datatypes of long double are not supported",
    "unsupported": "MPI_Comm_get_parent is not supported by this embedder",
    "abort": 7,
    "op-trap": "guest trapped",
    "bad-datatype": "MPI_Send: MPI_ERR_TYPE",
    "errhandler-abort": 42,
    "keyval-trap": "MPI_Comm_dup: a guest callback trapped",
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("np", [1, 2])
def test_fault_on_one_rank_ends_the_job(build, run_wasm, fault, np):
    wasm = build.wasm(PROGRAMS / "faults.c")
    start = time.monotonic()
    r = run_wasm(wasm, fault, np=np, timeout=60)
    elapsed = time.monotonic() - start
    assert r.returncode != 0, r.stdout + r.stderr
    expected = FAULTS[fault]
    if isinstance(expected, int):
        assert r.returncode == expected, r.stdout + r.stderr
    else:
        assert expected in r.stderr, r.stderr
    assert "unexpected message" not in r.stdout
    assert "panicked" not in r.stderr and "Segmentation fault" not in r.stderr
    assert elapsed < 30, f"job took {elapsed:.1f}s to end"


def test_fault_under_ucx_reads_as_a_trap(build, run_wasm):
    """UCX (Open MPI's pml ucx, the InfiniBand path) installs its fault
    handlers when MPI_Init loads it, after the embedder's: a guest's
    out-of-bounds access must still be reported as the guest's trap, not
    with UCX's host crash report and backtrace."""
    r = run_wasm(build.wasm(PROGRAMS / "faults.c"), "oob-load", np=2, timeout=60, env={"OMPI_MCA_pml": "ucx", "OMPI_MCA_pml_ucx_devices": "any", "OMPI_MCA_pml_ucx_tls": "any"})
    assert r.returncode != 0, r.stdout + r.stderr
    assert "guest trapped" in r.stderr, r.stderr
    assert "Caught signal" not in r.stderr and "Segmentation fault" not in r.stderr, r.stderr


@pytest.mark.parametrize("levels", [1000, 100000])
def test_mpi_calls_deep_in_the_guest_stack(build, run_wasm, levels):
    """MPI calls from 1,000 frames deep (host calls run on the Wasm stack)
    and from 100,000 (about 6 MiB of it: less than the 8 MiB the host is
    given there, so they switch to the host stack) return normally."""
    r = run_wasm(build.wasm(PROGRAMS / "faults.c"), "deep-mpi", str(levels), timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["deep-mpi", str(levels)], r.stdout


@pytest.mark.parametrize("fault, expected", [("bad-comm", "MPI_Send: MPI_ERR_COMM"), ("op-trap", "guest trapped"),
                                             ("errhandler-abort", 42),
                                             ("keyval-trap", "MPI_Comm_dup: a guest callback trapped")])
def test_faults_deep_in_the_guest_stack(build, run_wasm, fault, expected):
    """The same faults 50,000 frames down (about 3 MiB of the Wasm stack:
    less than the host's 8 MiB is left, so host calls move to the host
    stack) end the job as they do from main. An MPI error under
    MPI_ERRORS_ARE_FATAL and an attribute copy callback that traps are
    traps the switched call returns, raised once back on the Wasm stack
    (without that: "not running on Wasm stack" and an abort); a trapping
    reduction and an error handler calling MPI_Abort end the job from the
    guest callback, run from the host stack."""
    r = run_wasm(build.wasm(PROGRAMS / "faults.c"), f"deep-{fault}", "50000", timeout=60)
    if isinstance(expected, int):
        assert r.returncode == expected, r.stdout + r.stderr
    else:
        assert r.returncode != 0 and expected in r.stderr, r.stdout + r.stderr
    assert "unexpected message" not in r.stdout, r.stdout
    assert "panicked" not in r.stderr and "Segmentation fault" not in r.stderr and "Aborted" not in r.stderr, r.stderr


def test_fault_exit_codes_standalone(build, run_wasm):
    wasm = build.wasm(PROGRAMS / "faults.c")
    assert run_wasm(wasm, "trap").returncode == 134
    assert run_wasm(wasm, "abort").returncode == 7
    assert run_wasm(wasm, "unsupported").returncode == 1
    assert run_wasm(wasm, "op-trap").returncode == 134
    assert run_wasm(wasm, "errhandler-abort").returncode == 42
    assert run_wasm(wasm, "keyval-trap").returncode == 134


def test_error_handler_abort_code_reaches_mpirun(build, run_wasm):
    r = run_wasm(build.wasm(PROGRAMS / "faults.c"), "errhandler-abort", np=2, timeout=60)
    assert r.returncode == 42, r.stdout + r.stderr


def test_datatype_errors_are_returned_under_errors_return(build, run_wasm):
    """Derived datatypes whose span leaves wasm memory and invalid datatype
    handles come back as error classes instead of ending the job."""
    r = run_wasm(build.wasm(PROGRAMS / "faults.c"), "returns")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 6, r.stdout
    assert all(line.endswith(" ok") for line in lines), r.stdout


def test_buffer_ending_exactly_at_the_end_of_memory_is_accepted(build, run_wasm):
    r = run_wasm(build.wasm(PROGRAMS / "faults.c"), "send-at-end")
    assert r.returncode == 0, r.stderr
    assert "send-at-end ok" in r.stdout
