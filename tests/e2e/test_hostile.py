"""Hostile arguments for every buffer-parameter kind, from inside a real
guest (tests/e2e/programs/hostile_*.c): each case must give an MPI error
class under MPI_ERRORS_RETURN with the guest's bytes as expected (or, for
faults, a clean abort of the job), never a host crash, a hang or a host
byte in guest memory.

The cases a run must print are read from the program's source: every
`expect("<case>", ...)` in the function that runs for the mode."""
import re

import pytest

from conftest import PROGRAMS

HOST_CRASH = ("panicked", "Segmentation fault", "overflowed its stack", "core dumped", "SIGSEGV", "signal 11", "Bus error")

# (program, mode, ranks) -> the C function whose cases that mode runs
RUNS = {
    ("hostile_p2p.c", None, 2): "main",
    ("hostile_coll.c", "arrays", 3): "main",
    ("hostile_coll.c", "counts-changed-after-call", 3): "nonblocking_counts_changed",
    ("hostile_datatype.c", "spans", 1): "main",
    ("hostile_datatype.c", "wrapped-size", 1): "wrapped_size",
    ("hostile_datatype.c", "unpack-at-end", 1): "unpack_at_end",
    ("hostile_datatype.c", "external32-mixed", 1): "external32_mixed",
    ("hostile_strings.c", None, 2): "main",
    ("hostile_callbacks.c", "args", 2): "main",
}
# cases whose names are computed at run time
COMPUTED = {
    "hostile_callbacks.c": [
        f"{call} function {what}"
        for what in ("out of range", "null", "of the wrong signature")
        for call in ("op_create", "comm_create_errhandler")
    ]
    + [
        "comm_create_keyval copy function out of range",
        "comm_create_keyval delete function out of range",
        "comm_create_keyval copy function of the wrong signature",
        "type_create_keyval delete function out of range",
        "type_create_keyval delete function of the wrong signature",
    ],
}


def function_body(source, name):
    start = re.search(rf"^(?:static )?int {name}\(.*?\{{\n", source, re.M | re.S)
    assert start, f"no function {name}"
    end = source.index("\n}\n", start.end())
    return source[start.end():end]


def expected_cases(program, function):
    """Every case name a run prints: the string literals in the first
    argument of expect()/expect_error() (both sides of a `?:`)."""
    body = function_body((PROGRAMS / program).read_text(), function)
    names = []
    for first_arg in re.findall(r'\bexpect(?:_error)?\(((?:[^,"]|"[^"]*")*),', body):
        names += re.findall(r'"([^"]*)"', first_arg)
    return names + COMPUTED.get(program, [])


def check_no_host_crash(r):
    out = r.stdout + r.stderr
    for sign in HOST_CRASH:
        assert sign not in out, f"host crash ({sign}):\n{out}"
    assert r.returncode >= 0, f"killed by signal {-r.returncode}:\n{out}"
    assert r.returncode not in (128 + 11, 128 + 7, 128 + 4), f"exit {r.returncode} (a signal through mpirun):\n{out}"


def run_cases(build, run_wasm, program, mode, np, function, timeout=120):
    wasm = build.wasm(PROGRAMS / program)
    r = run_wasm(wasm, *([mode] if mode else []), np=np, timeout=timeout)
    check_no_host_crash(r)
    failed = [l for l in r.stdout.splitlines() if "FAILED" in l]
    assert not failed, "\n".join(failed) + "\n" + r.stderr
    cases = expected_cases(program, function)
    assert cases, "no cases found in the program"
    printed = set(r.stdout.splitlines())
    missing = [c for c in cases if f"{c} ok" not in printed]
    assert not missing, f"cases that did not report ok: {missing}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    assert r.returncode == 0, r.stdout + r.stderr
    return r


@pytest.mark.parametrize("program,mode,np", list(RUNS), ids=lambda v: str(v))
def test_hostile_arguments_give_error_classes(build, run_wasm, program, mode, np):
    run_cases(build, run_wasm, program, mode, np, RUNS[(program, mode, np)])


@pytest.mark.parametrize(
    "program,mode,np,function",
    [
        ("hostile_datatype.c", "negative-extent", 1, "negative_extent"),
        ("hostile_coll.c", "counts-changed", 2, None),
    ],
    ids=["negative-extent", "counts-changed"],
)
def test_holes_found_by_these_programs(build, run_wasm, program, mode, np, function):
    """Holes these programs found (see docs/security.md): negative
    extents escaping the span check; count arrays the host read in guest
    memory after a user reduction function rewrote them (Open MPI's
    MPI_Reduce_scatter reads recvcounts again: now it reads a host copy)."""
    if function:
        run_cases(build, run_wasm, program, mode, np, function, timeout=60)
        return
    wasm = build.wasm(PROGRAMS / program)
    r = run_wasm(wasm, mode, np=np, timeout=60)
    check_no_host_crash(r)
    assert r.stdout.count("reduce_scatter counts rewritten by the user function ok") == np, r.stdout + r.stderr
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("np", [1, 2])
def test_user_function_writing_out_of_bounds_aborts_the_job(build, run_wasm, np):
    r = run_wasm(build.wasm(PROGRAMS / "hostile_callbacks.c"), "op-writes-out", np=np, timeout=60)
    check_no_host_crash(r)
    assert r.returncode != 0
    assert "guest trapped in a user reduction function: out of bounds memory access" in r.stderr, r.stderr
    assert "unexpected return" not in r.stdout


@pytest.mark.parametrize("np", [1, 2])
def test_user_function_calling_mpi_ends_the_job_with_the_reason(build, run_wasm, np):
    r = run_wasm(build.wasm(PROGRAMS / "hostile_callbacks.c"), "op-calls-mpi", np=np, timeout=60)
    check_no_host_crash(r)
    assert r.returncode != 0
    assert ("guest trapped in a user reduction function: MPI_Comm_rank: MPI_ERR_OTHER: "
            "MPI functions other than MPI_Abort cannot be called from a user reduction function") in r.stderr, r.stderr
    assert "unexpected return" not in r.stdout
