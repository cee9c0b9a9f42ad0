"""The family checks can fail: with one host MPI function broken by a
preloaded shim (tests/fault_injection/break_mpi.c), family programs run under
the embedder fail the way test_families judges them. A change that makes the
family verdicts blind (say, trusting our own MPI_Allreduce) fails here."""
import subprocess
import time

import pytest

from conftest import EXAMPLES, PROGRAMS, ROOT, TIMEOUT, run
from test_families import failed_expects

SHIM = ROOT / "tests" / "fault_injection" / "break_mpi.c"

# broken host function -> family programs that must notice it
CAUGHT_BY = {
    "MPI_Allreduce": ["coll", "op"],
    "MPI_Bcast": ["coll", "comm"],
    "MPI_Sendrecv": ["p2p", "mpi1"],
}


@pytest.fixture(scope="session")
def shim(mpi, tmp_path_factory):
    """The shim built with the host mpicc, against the MPI under test."""
    out = tmp_path_factory.mktemp("shim") / "break_mpi.so"
    cmd = [mpi.mpicc, "-shared", "-fPIC", "-Wall", "-Werror", "-o", str(out), str(SHIM), "-ldl"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    return out


def run_broken(build, mpi, embedder, cache_dir, shim, family, broken):
    """mpirun -np 2 env LD_PRELOAD=shim embedder family.wasm: the shim is
    preloaded into the embedder only, not into mpirun."""
    return run_module(mpi, embedder, cache_dir, shim, build.wasm(PROGRAMS / f"{family}.c"), broken)


def run_module(mpi, embedder, cache_dir, shim, wasm, broken, *args):
    cmd = mpi.cmd(2, "env", f"LD_PRELOAD={shim}", f"EMBEDDER_TEST_BREAK={broken}", embedder, "--cache-dir",
                  cache_dir, wasm, *args)
    return run(cmd, timeout=120)


def verdict(r):
    """test_families' verdict on one wasm run: True if it would pass."""
    lines = r.stdout.splitlines()
    return (r.returncode == 0 and bool(lines) and all(line.endswith(" ok") for line in lines)
            and not failed_expects(r.stderr))


def test_shim_passes_calls_through(build, mpi, embedder, cache_dir, shim):
    """With nothing broken the shim is invisible: the family passes."""
    r = run_broken(build, mpi, embedder, cache_dir, shim, "coll", "nothing")
    assert verdict(r), r.stdout + r.stderr


@pytest.mark.parametrize("broken,family", [(b, f) for b, fams in CAUGHT_BY.items() for f in fams])
def test_broken_host_function_fails_the_family(build, mpi, embedder, cache_dir, shim, broken, family):
    r = run_broken(build, mpi, embedder, cache_dir, shim, family, broken)
    assert "panicked" not in r.stderr, r.stderr
    assert not verdict(r), f"{family}.c passed with {broken} broken:\n{r.stdout}{r.stderr}"


def test_rank_errors_reach_the_exit_code_when_allreduce_lies(build, mpi, embedder, cache_dir, shim):
    """A no-op Allreduce makes every job-wide sum 0; the ranks' own failed
    checks must still end the job non-zero (check.h), not only on stderr."""
    r = run_broken(build, mpi, embedder, cache_dir, shim, "coll", "MPI_Allreduce")
    assert failed_expects(r.stderr), r.stderr
    assert r.returncode != 0, r.stdout + r.stderr


@pytest.mark.parametrize("broken", ["nothing", "MPI_Bcast", "MPI_Sendrecv"])
def test_imb_check_sees_broken_transfers(build, mpi, embedder, cache_dir, shim, broken):
    """The benchmark's own -check (what the quick benchmark test relies on)
    notices data a broken host function did not move."""
    wasm = build.wasm(ROOT / "benchmarks" / "imb" / "imb.c", "-lm")
    r = run_module(mpi, embedder, cache_dir, shim, wasm, broken, "-msglog", "0:4", "-iter", "20", "-time", "0.05",
                   "Bcast", "Sendrecv", "-check")
    if broken == "nothing":
        assert r.returncode == 0 and "# Check: all results verified" in r.stdout, r.stdout + r.stderr
    else:
        assert r.returncode != 0 and "# Check: FAILED" in r.stdout, r.stdout + r.stderr


def test_a_fault_in_host_code_ends_the_job_as_a_host_crash(build, mpi, embedder, cache_dir, shim):
    """A SIGSEGV inside the host MPI library during a call (the shim's
    MPI_Barrier storing through a null pointer) ends the job as the crash it
    is, with the embedder's message, not as "guest trapped": host functions
    run on the Wasm stack, where the engine took any fault for the guest's
    (embedder/src/host_faults.rs). A host store into a protected page of the
    guest's memory stays a trap (test_karmem.py, "readonly-bulk")."""
    start = time.monotonic()
    r = run_module(mpi, embedder, cache_dir, shim, build.wasm(EXAMPLES / "ring.c"), "MPI_Barrier:fault")
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert "host code faulted (SIGSEGV) at address 0x10, outside the guest's memory" in r.stderr, out
    assert "guest trapped" not in out, out
    assert time.monotonic() - start < 60, out


@pytest.mark.parametrize("fault, message", [("divide", "SIGFPE: an arithmetic error"),
                                            ("illegal", "SIGILL: an instruction this CPU does not run")])
def test_an_arithmetic_or_illegal_instruction_in_host_code_is_a_host_crash(build, mpi, embedder, cache_dir, shim, fault, message):
    """SIGFPE and SIGILL in the host library (MPICH's MPI_Dims_create once
    divided by zero; a library built for another CPU) are host crashes,
    told from the guest's by the instruction's place: the engine's code
    memory is no loaded object's (embedder/src/host_faults.rs)."""
    r = run_module(mpi, embedder, cache_dir, shim, build.wasm(EXAMPLES / "ring.c"), f"MPI_Barrier:{fault}")
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert f"host code faulted ({message}) at instruction 0x" in r.stderr and "outside the guest's code" in r.stderr, out
    assert "guest trapped" not in out, out


@pytest.mark.parametrize("backend", ["llvm", "cranelift"])
def test_a_guest_division_by_zero_stays_a_guest_trap(build, run_wasm, backend):
    """The control: a guest's division by zero, whichever way the backend
    makes it trap (a check and a trap instruction, or the hardware's
    division faulting), is the guest's."""
    r = run_wasm(build.wasm(PROGRAMS / "faults.c"), "divzero", np=1, opts=["--backend", backend])
    assert r.returncode != 0
    assert "guest trapped: integer divide by zero" in r.stderr, r.stdout + r.stderr
    assert "host code faulted" not in r.stderr, r.stderr
