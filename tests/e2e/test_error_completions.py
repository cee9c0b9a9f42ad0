"""Requests that complete with an error, through every completion function
(tests/e2e/programs/error_completions.c): the guest's handles end as the
native program's do, so a later call finds what it would natively. Before,
the bridge kept the entry of a request the host had freed at an error
return: a second MPI_Wait on the handle, which natively finds
MPI_REQUEST_NULL, aborted the host (Open MPI: `free(): invalid pointer`,
its reference to MPI_COMM_WORLD released twice; MPICH: internal error).
That was fuzz seed 1024's crash on two ranks."""
from conftest import PROGRAMS

SRC = PROGRAMS / "error_completions.c"
FUNCTIONS = ["Wait", "Test", "Waitall", "Testall", "Waitany", "Testany", "Waitsome", "Testsome"]


def test_requests_that_complete_with_an_error_end_as_natively(build, run_wasm, run_native):
    wasm = run_wasm(build.wasm(SRC), np=2)
    native = run_native(build.native(SRC), np=2)
    assert native.returncode == 0, native.stdout + native.stderr
    assert wasm.returncode == 0, wasm.stdout + wasm.stderr
    assert wasm.stdout == native.stdout, f"wasm:\n{wasm.stdout}\nnative:\n{native.stdout}"
    lines = wasm.stdout.splitlines()
    # every function reported the truncation, and the Waitall after it completed the rest
    for f in FUNCTIONS:
        line = next(l for l in lines if l.startswith(f + ":"))
        assert "error none" not in line and "then Waitall none, handles null 1 1" in line, line
    assert any(l.startswith("Recv_init: error truncate") and l.endswith("received 7") for l in lines), wasm.stdout
